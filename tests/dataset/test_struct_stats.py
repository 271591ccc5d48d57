"""Per-file statistics for every non-repeated leaf, struct members included (§3.3), and
pruning on them: a ``point.x`` filter opens only the files whose bounds can match,
and returns what a full scan filtered in Python returns."""
import operator

import pytest
from dshelpers import count_opened

import pqkit.dataset as pds


def _batch(i):
    return {"id": [i * 10 + j for j in range(3)],
            "point": [{"x": float(i * 100 + j), "tag": {"name": f"t{i}"}} if j != 1 else None
                      for j in range(3)],
            "tags": [[f"a{i}"], [], None]}


@pytest.fixture
def points(tmp_path):
    root = str(tmp_path / "points")
    for i in range(5):
        pds.write(root, _batch(i))
    return root


_OPS = {"==": operator.eq, ">=": operator.ge, "<": operator.lt, ">": operator.gt,
        "in": lambda v, values: v in values}


def _holds(row, col, op, value):
    v = row
    for name in col.split("."):
        v = None if v is None else v[name]
    return v is not None and _OPS[op](v, value)


def _by_id(row):
    return row["id"]


def test_struct_leaves_get_stats_and_lists_do_not(points):
    stats = pds.open(points).manifest.files[2]["stats"]
    assert stats["id"] == {"min": "20", "max": "22", "nulls": 0}
    assert stats["point.x"] == {"min": "200.0", "max": "202.0", "nulls": 1, "nans": 0}
    assert stats["point.tag.name"] == {"min": "t2", "max": "t2", "min_exact": True,
                                       "max_exact": True, "nulls": 1}
    assert set(stats) == {"id", "point.x", "point.tag.name"}


@pytest.mark.parametrize("filters, files", [
    ([("point.x", ">=", 300.0)], 2),
    ([("point.x", "==", 102.0)], 1),
    ([("point.tag.name", "==", "t4")], 1),
    ([("point.tag.name", "in", ["t0", "t3"])], 2),
    ([[("point.x", "<", 1.0)], [("id", "==", 42)]], 2),
    ([("point.x", ">", 1000.0)], 0),
])
def test_struct_leaf_filters_prune_files(points, monkeypatch, filters, files):
    everything = pds.open(points).read().to_pylist()
    opened = count_opened(monkeypatch)
    got = pds.open(points).read(filters=filters).to_pylist()
    assert len(opened) == files

    dnf = filters if isinstance(filters[0], list) else [filters]
    expected = [r for r in everything if any(all(_holds(r, *t) for t in conj) for conj in dnf)]
    assert sorted(got, key=_by_id) == sorted(expected, key=_by_id)
    assert bool(expected) == (files > 0)


def test_stats_limit_counts_leaves(tmp_path):
    root = str(tmp_path / "limited")
    pds.write(root, _batch(0), stats_columns=2)
    assert set(pds.open(root).manifest.files[0]["stats"]) == {"id", "point.x"}
