"""The ``geo`` file metadata entry (GeoParquet 1.1) for the GEOMETRY / GEOGRAPHY columns.

Readers that know GeoParquet but not the Parquet geospatial types find each top-level
WKB column there::

    {"version": "1.1.0", "primary_column": "<first geometry column>",
     "columns": {"<name>": {"encoding": "WKB", "geometry_types": ["Point", "Polygon Z"],
                            "bbox": [xmin, ymin, xmax, ymax], "edges": "spherical",
                            "crs": <PROJJSON object>}}}

``geometry_types`` and ``bbox`` are the union of the chunks' geo statistics (the bbox
left out when a chunk has none, or when a GEOGRAPHY box crosses the antimeridian,
which GeoParquet's bbox cannot say). The CRS follows GeoParquet: left out for the
default OGC:CRS84; a PROJJSON CRS (inline, or ``projjson:<key>`` naming a file
metadata entry) is embedded as its object; other forms (``srid:4326``,
``EPSG:4326``) have no GeoParquet spelling and are given as
``{"id": {"authority": ..., "code": ...}}``, the identifying part of a PROJJSON
object. GEOGRAPHY columns with an ellipsoidal edge algorithm are left out:
GeoParquet knows only planar and spherical edges.
"""
import json

from pqkit.schema.annotations import geo_params, is_geo_field

__all__ = ["geo_metadata"]

_BASE_NAMES = {1: "Point", 2: "LineString", 3: "Polygon", 4: "MultiPoint",
               5: "MultiLineString", 6: "MultiPolygon", 7: "GeometryCollection"}
_SUFFIX = {0: "", 1: " Z", 2: " M", 3: " ZM"}


def _type_name(code):
    return _BASE_NAMES[code % 1000] + _SUFFIX[code // 1000]


def _crs(crs, key_value_metadata):
    if crs is None:
        return None
    if crs.startswith("projjson:"):
        crs = key_value_metadata.get(crs[len("projjson:"):], crs)
    try:
        parsed = json.loads(crs)
        if isinstance(parsed, dict):
            return parsed
    except ValueError:
        pass
    authority, _, code = crs.partition(":")
    if authority.lower() == "srid":     # SRIDs are EPSG codes in practice (PostGIS, DuckDB)
        authority = "EPSG"
    return {"id": {"authority": authority, "code": int(code) if code.isdigit() else code}}


def _union(boxes):
    """[xmin, ymin, xmax, ymax] of the chunk boxes, or None when one is missing or wraps."""
    if not boxes or any(b is None or b.xmin > b.xmax for b in boxes):
        return None
    return [min(b.xmin for b in boxes), min(b.ymin for b in boxes),
            max(b.xmax for b in boxes), max(b.ymax for b in boxes)]


def geo_metadata(fields, row_groups, leaf_index, key_value_metadata):
    """The ``geo`` entry's JSON text, or None without a top-level geometry column.

    ``leaf_index`` maps a top-level field name to its leaf's column index.
    """
    columns = {}
    for field in fields:
        if not is_geo_field(field) or field.name not in leaf_index:
            continue
        crs, edges = geo_params(field)
        if edges not in (None, "spherical"):
            continue
        stats = [rg.columns[leaf_index[field.name]].meta_data.geospatial_statistics
                 for rg in row_groups]
        codes = sorted({c for s in stats if s is not None for c in s.geospatial_types or []})
        entry = {"encoding": "WKB", "geometry_types": [_type_name(c) for c in codes]}
        bbox = _union([None if s is None else s.bbox for s in stats])
        if bbox is not None:
            entry["bbox"] = bbox
        if edges == "spherical":
            entry["edges"] = "spherical"
        projjson = _crs(crs, key_value_metadata)
        if projjson is not None:
            entry["crs"] = projjson
        columns[field.name] = entry
    if not columns:
        return None
    return json.dumps({"version": "1.1.0", "primary_column": next(iter(columns)),
                       "columns": columns})
