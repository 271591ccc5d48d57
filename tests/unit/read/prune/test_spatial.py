"""Spatial filters: boxes of row groups skip what they can, each value is then tested."""
import io
import math
import struct

import numpy as np
import pytest

import pqkit


def _points(xs, ys):
    return [struct.pack("<BIdd", 1, 1, x, y) for x, y in zip(xs, ys)]


def _write(values, field=None, **settings):
    field = field or pqkit.geo_field("g")
    buf = io.BytesIO()
    pqkit.write_table({"id": list(range(len(values))), "g": values}, buf,
                      schema=[pqkit.datatypes.field("id", pqkit.datatypes.int64()), field],
                      **settings)
    return io.BytesIO(buf.getvalue())


def _hilbert(x, y, order=10):
    """Positions along a Hilbert curve over a 2**order grid (the classic xy -> d walk,
    on numpy arrays)."""
    x, y = x.astype(np.int64).copy(), y.astype(np.int64).copy()
    d = np.zeros(len(x), np.int64)
    s = 1 << (order - 1)
    while s > 0:
        rx = (x & s) > 0
        ry = (y & s) > 0
        d += s * s * ((3 * rx) ^ ry)
        flip = ~ry
        swap_x = np.where(flip & rx, s - 1 - x, x)
        swap_y = np.where(flip & rx, s - 1 - y, y)
        x, y = np.where(flip, swap_y, swap_x), np.where(flip, swap_x, swap_y)
        s >>= 1
    return d


def test_a_one_percent_box_decodes_at_most_five_percent_of_the_row_groups():
    # 1M points on a 1000 x 1000 grid, sorted along a Hilbert curve, 100 row groups.
    gx, gy = np.meshgrid(np.arange(1000), np.arange(1000))
    gx, gy = gx.ravel(), gy.ravel()
    order = np.argsort(_hilbert(gx, gy), kind="stable")
    xs, ys = gx[order].astype(float), gy[order].astype(float)
    data = _write(_points(xs.tolist(), ys.tolist()), row_group_size=10_000)
    box = (300.0, 600.0, 399.0, 699.0)              # 100 x 100 of the 1000 x 1000 extent
    stats = pqkit.ReadStatistics()
    table = pqkit.read_table(data, filters=[("g", "intersects", box)], statistics=stats)
    assert stats.row_groups == 100
    decoded = stats.row_groups - sum(stats.row_groups_skipped.values())
    assert decoded <= 5
    assert stats.row_groups_skipped == {"statistics": 100 - decoded}
    inside = (xs >= 300) & (xs <= 399) & (ys >= 600) & (ys <= 699)
    assert table.num_rows == int(inside.sum()) == 10_000


def test_each_value_is_tested_on_its_own_box():
    line = struct.pack("<BII4d", 1, 2, 2, 0.0, 0.0, 10.0, 10.0)
    values = _points([1, 50], [1, 50]) + [line, None]
    table = pqkit.read_table(_write(values), filters=[("g", "intersects", (9, 9, 20, 20))])
    assert table.column("id").to_pylist() == [2]


def test_boxes_wrap_at_the_antimeridian():
    values = _points([179, -179, 0], [0, 0, 0])
    data = _write(values, pqkit.geo_field("g", edges="spherical"))
    table = pqkit.read_table(data, filters=[("g", "intersects", (170, -5, -170, 5))])
    assert table.column("id").to_pylist() == [0, 1]


def test_a_geography_edge_is_tested_by_its_great_circle_box():
    # the arc from (-10, 60) to (10, 60) passes north of 60.3 degrees
    arc = struct.pack("<BII4d", 1, 2, 2, -10.0, 60.0, 10.0, 60.0)
    box = (-1, 60.2, 1, 61)
    planar = pqkit.read_table(_write([arc]), filters=[("g", "intersects", box)])
    sphere = pqkit.read_table(_write([arc], pqkit.geo_field("g", edges="spherical")),
                              filters=[("g", "intersects", box)])
    assert planar.num_rows == 0 and sphere.num_rows == 1


@pytest.mark.parametrize("box, error", [
    ((0, math.nan, 1, 1), pqkit.GeometryError),
    ((0, 0, 1), pqkit.GeometryError),
    ((0, 5, 1, 1), pqkit.GeometryError),
    ("0 0 1 1", pqkit.GeometryError),
])
def test_bad_boxes_are_refused_before_reading(box, error):
    with pytest.raises(error):
        pqkit.read_table(_write(_points([0], [0])), filters=[("g", "intersects", box)])


def test_intersects_needs_a_geometry_column():
    with pytest.raises(pqkit.SchemaError, match="GEOMETRY or GEOGRAPHY"):
        pqkit.read_table(_write(_points([0], [0])), filters=[("id", "intersects", (0, 0, 1, 1))])


def test_explain_shows_the_boxes():
    data = _write(_points([0, 100], [0, 100]), row_group_size=1)
    plan = pqkit.explain_filter(data, [("g", "intersects", (50, 50, 150, 150))])
    checks = [g["checks"][0] for g in plan["row_groups"]]
    assert [c["may_match"] for c in checks] == [False, True]
    assert checks[0]["detail"] == "box x [0, 0] y [0, 0]"
