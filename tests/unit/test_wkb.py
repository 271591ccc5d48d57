"""WKB parsing for geospatial statistics: type codes, boxes, NaN, and hostile bytes."""
import math
import struct

import pytest

import pqkit
from pqkit.geo.wkb import MAX_NESTING, GeoBounds, envelope, geometry_type


def point(x, y, *zm, code=None, order="<"):
    code = code if code is not None else 1 + 1000 * {0: 0, 1: 1, 2: 3}[len(zm)]
    return struct.pack(order + "BI", 1 if order == "<" else 0, code) + \
        struct.pack(order + "d" * (2 + len(zm)), x, y, *zm)


def line(coords, code=2):
    out = struct.pack("<BII", 1, code, len(coords))
    for c in coords:
        out += struct.pack("<" + "d" * len(c), *c)
    return out


def multi(code, parts):
    return struct.pack("<BII", 1, code, len(parts)) + b"".join(parts)


def test_type_codes_iso_and_ewkb():
    assert geometry_type(point(1, 2)) == 1
    assert geometry_type(point(1, 2, 3)) == 1001
    assert geometry_type(point(1, 2, 3, code=2001)) == 2001
    assert geometry_type(point(1, 2, 3, 4)) == 3001
    assert geometry_type(point(1, 2, 3, code=0x80000001)) == 1001      # EWKB Z
    assert geometry_type(point(1, 2, order=">")) == 1


def test_boxes_cover_nested_parts_and_skip_nan():
    bounds = GeoBounds()
    bounds.add(multi(7, [point(1, 5), line([(-3, 2), (4, math.nan)])]))
    bounds.add(point(math.nan, math.nan))                   # POINT EMPTY
    stats = bounds.statistics()
    assert (stats.bbox.xmin, stats.bbox.xmax, stats.bbox.ymin, stats.bbox.ymax) == (-3, 4, 2, 5)
    assert stats.bbox.zmin is None and stats.geospatial_types == [1, 7]


def test_z_and_m_ranges():
    bounds = GeoBounds()
    bounds.add(line([(0, 0, 5, 100), (1, 1, -5, 200)], code=3002))
    box = bounds.statistics().bbox
    assert (box.zmin, box.zmax, box.mmin, box.mmax) == (-5, 5, 100, 200)


def test_no_xy_means_no_box():
    bounds = GeoBounds()
    bounds.add(point(math.nan, 1.0))
    assert bounds.statistics().bbox is None and envelope(point(math.nan, 1.0)) is None
    assert envelope(point(3, 4)) == (3, 4, 3, 4)


@pytest.mark.parametrize("data, message", [
    (b"", "needs 5 bytes"),
    (b"\x02\x01\x00\x00\x00", "byte order 2"),
    (struct.pack("<BI", 1, 9), "not one of the 7"),
    (struct.pack("<BI", 1, 5001), "not a geometry type"),
    (point(1, 2)[:-1], "coordinates"),
    (point(1, 2) + b"\x00", "ends at byte 21"),
    (struct.pack("<BII", 1, 2, 0xFFFFFFF), "268435455 coordinates"),
    (struct.pack("<BII", 1, 4, 0xFFFFFFF), "parts"),
])
def test_invalid_wkb_raises_geometry_error(data, message):
    with pytest.raises(pqkit.GeometryError, match=message):
        GeoBounds().add(data)


def test_nesting_is_bounded():
    data = point(0, 0)
    for _ in range(MAX_NESTING + 1):
        data = multi(7, [data])
    with pytest.raises(pqkit.GeometryError, match="deeper"):
        geometry_type(data)

