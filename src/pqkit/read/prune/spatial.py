"""The spatial filter ``(column, "intersects", (xmin, ymin, xmax, ymax))``.

It holds for a GEOMETRY or GEOGRAPHY value whose box meets the query box. A row
group is skipped when its chunk's ``GeospatialStatistics`` box misses the query
box (the spec has no page-level geo statistics, so pages are not ruled out); the
rows read are then tested one by one on their own box (for GEOGRAPHY with
spherical edges, the box of the great-circle edges). Longitudes wrap as the
spec's boxes do: ``xmin > xmax`` means the box crosses the antimeridian, in a
chunk's box and in the query's alike. A chunk without a box, and a value
without coordinates (empty), prove nothing and match nothing respectively.
"""
import math
import numbers

import numpy as np

from pqkit.columnar.column import BinaryColumn
from pqkit.errors import GeometryError, SchemaError
from pqkit.geo.wkb import GeoBounds, xy_points

__all__ = ["INTERSECTS", "box_mask", "check_box", "chunk_box_verdict", "is_geo_node"]

INTERSECTS = "intersects"


def is_geo_node(node):
    lt = node.logical_type
    return lt is not None and (lt.GEOMETRY is not None or lt.GEOGRAPHY is not None)


def spherical(node):
    """Whether the values' edges are great-circle arcs (GEOGRAPHY, spherical)."""
    lt = node.logical_type
    return lt is not None and lt.GEOGRAPHY is not None and lt.GEOGRAPHY.algorithm in (None, 0)


def check_box(term):
    """The query box of an ``intersects`` term as four floats; NaN or a malformed box
    raises :class:`pqkit.GeometryError`."""
    value = term[2]
    if not isinstance(value, (tuple, list)) or len(value) != 4 or not all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
        raise GeometryError(f"filter {term!r}: intersects takes a box (xmin, ymin, xmax, "
                            f"ymax) of four numbers")
    box = tuple(float(v) for v in value)
    if any(math.isnan(v) for v in box):
        raise GeometryError(f"filter {term!r}: the box holds NaN")
    if box[1] > box[3]:
        raise GeometryError(f"filter {term!r}: ymin {box[1]} is above ymax {box[3]}")
    return box


def _x_ranges(xmin, xmax):
    """A box's longitudes as plain intervals (two when it crosses the antimeridian)."""
    return [(xmin, xmax)] if xmin <= xmax else [(xmin, math.inf), (-math.inf, xmax)]


def boxes_meet(a, b):
    """Whether boxes ``(xmin, ymin, xmax, ymax)`` share a point."""
    if a[1] > b[3] or b[1] > a[3]:
        return False
    return any(lo1 <= hi2 and lo2 <= hi1 for lo1, hi1 in _x_ranges(a[0], a[2])
               for lo2, hi2 in _x_ranges(b[0], b[2]))


def chunk_box_verdict(chunk, term):
    """(may match, evidence text) of a column chunk's geo statistics box."""
    md = chunk.meta_data
    geo = md.geospatial_statistics if md is not None else None
    box = geo.bbox if geo is not None else None
    if box is None:
        return True, "no box"
    chunk_box = (box.xmin, box.ymin, box.xmax, box.ymax)
    if any(v is None or math.isnan(v) for v in chunk_box):
        return True, "no usable box"
    return boxes_meet(chunk_box, check_box(term)), \
        f"box x [{box.xmin:g}, {box.xmax:g}] y [{box.ymin:g}, {box.ymax:g}]"


def box_mask(col, term, sphere):
    """Rows of a WKB column whose box meets the term's box (nulls never match)."""
    query = check_box(term)
    if type(col) is BinaryColumn:
        points = xy_points(col.offsets, col.data)
        if points is not None:          # 2D points, all of them: on the arrays
            x, y = points[:, 0], points[:, 1]
            hit = (y >= query[1]) & (y <= query[3])
            inside_x = np.zeros(len(x), np.bool_)
            for lo, hi in _x_ranges(query[0], query[2]):
                inside_x |= (x >= lo) & (x <= hi)
            hit &= inside_x
            return hit if col.validity is None else hit & col.validity
    values = col.to_pylist()
    out = np.zeros(len(values), np.bool_)
    for i, v in enumerate(values):
        if v is None:
            continue
        if not isinstance(v, (bytes, bytearray, memoryview)):
            raise SchemaError(f"filter {term!r}: the column holds {type(v).__name__} "
                              f"values, not WKB")
        bounds = GeoBounds(spherical=sphere)
        try:
            bounds.add(v)
        except GeometryError as e:
            raise GeometryError(f"filter {term!r}, row {i}: {e}") from None
        box = bounds.xy()
        out[i] = box is not None and boxes_meet(box, query)
    return out
