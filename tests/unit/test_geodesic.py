"""Boxes of great-circle edges: bulging arcs, the antimeridian, the poles."""
import numpy as np

from pqkit.geo.geodesic import SphericalBox


def _box(*sequences, ring=False):
    box = SphericalBox()
    for coords in sequences:
        coords = np.array(coords, dtype=float)
        box.add(coords[:, 0], coords[:, 1], ring)
    return box.box()


def test_an_arc_bulges_toward_the_pole():
    xmin, ymin, xmax, ymax = _box([(-10, 60), (10, 60)])
    assert (xmin, ymin, xmax) == (-10, 60, 10)
    assert 60.3 < ymax < 60.4


def test_a_meridian_arc_stays_within_its_endpoints():
    assert _box([(5, -10), (5, 20)]) == (5, -10, 5, 20)


def test_arcs_across_the_antimeridian_wrap():
    assert _box([(170, 0), (-170, 0)])[::2] == (170, -170)       # xmin > xmax
    # two groups far apart: the box skips the larger gap
    assert _box([(170, 0), (175, 0)], [(-179, 0), (-175, 0)])[::2] == (170, -175)


def test_a_ring_around_a_pole_spans_every_longitude():
    ring = [(0, 80), (90, 80), (180, 80), (-90, 80), (0, 80)]
    assert _box(ring, ring=True) == (-180, 80, 180, 90)


def test_an_edge_from_a_pole_spans_every_longitude_a_lone_point_does_not():
    assert _box([(30, 90), (30, 50)])[::2] == (-180, 180)
    assert _box([(30, 90)]) == (30, 90, 30, 90)


def test_nan_coordinates_are_left_out():
    assert _box([(np.nan, 1), (2, 3)]) == (2, 3, 2, 3)
    assert _box([(np.nan, np.nan)]) is None


def test_a_small_ring_across_the_antimeridian_holds_no_pole():
    # a diamond of geography-polygons (row group 28) whose original box reached the
    # north pole: it winds around no pole, so its box is that of its edges
    ring = [(175.9, -39.9), (-178.2, -44.5), (-172.3, -39.9), (-178.2, -35.5), (175.9, -39.9)]
    xmin, ymin, xmax, ymax = _box(ring, ring=True)
    assert (xmin, xmax, ymax) == (175.9, -172.3, -35.5)
    assert -44.6 < ymin <= -44.5


def test_a_ring_around_a_pole_reaches_the_pole_of_its_smaller_side():
    # most of the turn at 40 S, a cluster of vertices at 30 N over 10 degrees: the
    # smaller side holds the south pole, though most vertices lie north
    cluster = [(x, 30.0) for x in np.linspace(0, 10, 40)]
    ring = cluster + [(100, -40), (-170, -40), (-80, -40), (0, 30.0)]
    assert np.mean([y for _, y in ring]) > 0
    xmin, ymin, xmax, ymax = _box(ring, ring=True)
    assert (xmin, ymin, xmax) == (-180, -90, 180)
    assert 30 <= ymax < 31
    north = [(x, -y) for x, y in ring]
    assert _box(north, ring=True)[3] == 90
