"""Per-file statistics for every non-repeated leaf, struct members included (§3.3), and
pruning on them: a ``point.x`` filter opens only the files whose bounds can match,
and returns what a full scan filtered in Python returns."""
import operator

import pytest
from dshelpers import count_opened
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
import pqkit.dataset as pds
import pqkit.datatypes as T


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


XS = [float("nan"), -0.0, 0.0, 1.5, -2.25, float("inf"), None]
NAMES = ["", "a", "b", "p" * 70, "p" * 70 + "b", None]
member = st.one_of(st.none(), st.fixed_dictionaries({
    "x": st.one_of(st.sampled_from(XS), st.floats(-1e6, 1e6)),
    "name": st.one_of(st.sampled_from(NAMES), st.text(max_size=8))}))
STRUCT_OPS = ["==", "!=", "<", "<=", ">", ">=", "in", "is_null", "is_not_null"]


def _leaf(row, col):
    v = row["pt"]
    return None if v is None else v[col.split(".")[1]]


def _term_holds(value, op, operand):
    if op in ("is_null", "is_not_null"):
        return (value is None) == (op == "is_null")
    if value is None:
        return False
    if op == "in":
        return any(value == o for o in operand)
    return {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}[op](value, operand)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), rows=st.lists(member, min_size=1, max_size=12),
       files=st.integers(1, 4))
def test_struct_leaf_pruning_is_sound(tmp_path_factory, data, rows, files):
    root = str(tmp_path_factory.mktemp("structprop") / "ds")
    schema = [T.field("id", T.int64()),
              T.field("pt", T.struct([T.field("x", T.float64()),
                                      T.field("name", T.string())]))]
    chunk = -(-len(rows) // files)
    for k in range(0, len(rows), chunk):
        pds.write(root, {"id": list(range(k, min(k + chunk, len(rows)))),
                         "pt": rows[k:k + chunk]}, schema=schema)
    col = data.draw(st.sampled_from(["pt.x", "pt.name"]))
    op = data.draw(st.sampled_from(STRUCT_OPS))
    pool = st.sampled_from([v for v in (XS if col == "pt.x" else NAMES) if v is not None])
    operand = None if op.startswith("is_") else \
        data.draw(st.lists(pool, min_size=1, max_size=2)) if op == "in" else data.draw(pool)
    table = [{"id": i, "pt": r} for i, r in enumerate(rows)]
    expected = [r["id"] for r in table if _term_holds(_leaf(r, col), op, operand)]
    ds = pds.open(root)
    got = ds.read(filters=[(col, op, operand)]).to_pylist()
    assert sorted(r["id"] for r in got) == expected
    kept = {f.key for f in ds.files([(col, op, operand)])}
    for f in ds.files():
        if f.key not in kept:                # a pruned file holds no matching row
            pruned = pqkit.read_table(f.location).to_pylist()
            assert not [r for r in pruned if _term_holds(_leaf(r, col), op, operand)]
