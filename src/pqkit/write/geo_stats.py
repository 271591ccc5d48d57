"""The ``GeospatialStatistics`` of a GEOMETRY or GEOGRAPHY column chunk.

Every non-null value is parsed as WKB (:mod:`pqkit.geo.wkb`), so a value that is not
valid WKB fails the write with :class:`pqkit.GeometryError` naming the column and
value. GEOMETRY chunks get the box of their coordinates and their type codes. A
GEOGRAPHY box must bound the geodesic edges between the vertices, not only the
vertices: with spherical edges it bounds the great-circle arcs
(:mod:`pqkit.geo.geodesic`); the ellipsoidal algorithms (vincenty, thomas, andoyer,
karney) get their type codes only, as the spec makes the box optional. The spec
defines no page-level geospatial statistics.
"""
from pqkit.errors import GeometryError
from pqkit.format import EdgeInterpolationAlgorithm
from pqkit.geo.wkb import GeoBounds, xy_points

__all__ = ["geo_kind", "geospatial_statistics"]


def geo_kind(node):
    """"geometry", "spherical" (GEOGRAPHY with great-circle edges), "geography" (other
    edges) or None for a leaf (a SchemaNode)."""
    lt = node.element.logicalType
    if lt is None:
        return None
    if lt.GEOMETRY is not None:
        return "geometry"
    if lt.GEOGRAPHY is None:
        return None
    algorithm = lt.GEOGRAPHY.algorithm
    return "spherical" if algorithm in (None, EdgeInterpolationAlgorithm.SPHERICAL) \
        else "geography"


def geospatial_statistics(kind, values, count, where):
    """The statistics of ``count`` non-null WKB values (BYTE_ARRAY ``(offsets, data)``)."""
    bounds = GeoBounds(spherical=kind == "spherical")
    points = xy_points(values[0], values[1]) if count else None
    if points is not None:
        bounds.add_points(points)
    elif count:
        offsets, data = values
        starts = offsets.tolist()
        raw = data.tobytes() if hasattr(data, "tobytes") else bytes(data)
        for i in range(count):
            try:
                bounds.add(raw[starts[i]:starts[i + 1]])
            except GeometryError as e:
                raise GeometryError(f"{where}, value {i}: {e}") from None
    return bounds.statistics(with_box=kind != "geography")
