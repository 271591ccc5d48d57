"""Filtered reads: page-index and statistics pruning never change the rows a full read
filtered in Python gives, and they do skip pages."""
import io
import math
import operator

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from pqkit.read.prune.filtered import FilteredReader

N = 20_000
RNG = np.random.default_rng(3)
DATA = {
    "x": np.arange(N),
    "y": RNG.integers(-50, 50, N),
    "f": np.where(RNG.random(N) < 0.05, np.nan, RNG.standard_normal(N)),
    "s": [None if i % 17 == 0 else f"k{i % 300:04d}" for i in range(N)],
    "u": (np.arange(N, dtype=np.uint64) * np.uint64(2**50)),
    "l": [[i] * (i % 3) for i in range(N)],
    "point": [{"a": i % 7, "b": None if i % 5 else float(i)} for i in range(N)],
}
_PY = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
       ">": operator.gt, ">=": operator.ge}


def _files():
    ours = io.BytesIO()
    pqkit.write_table(DATA, ours, row_group_size=6000, data_page_size=2048)
    theirs = io.BytesIO()
    pq.write_table(pa.table(DATA), theirs, row_group_size=6000, data_page_size=2048,
                   write_page_index=True)
    return {"pqkit": ours.getvalue(), "pyarrow": theirs.getvalue()}


FILES = _files()
FULL = pqkit.read_table(FILES["pqkit"]).to_pydict()


def _value(row, path):
    v = row[path[0]]
    for p in path[1:]:
        v = None if v is None else v[p]
    return v


def _matches(row, dnf):
    def term(path, op, value):
        v = _value(row, path.split("."))
        if v is None:
            return op == "not in"           # pyarrow: nulls match `not in` only
        if op == "in":
            return v in value
        if op == "not in":
            return v not in value
        return _PY[op](v, value)
    return any(all(term(*t) for t in conj) for conj in dnf)


def _expected(dnf, columns):
    rows = [dict(zip(FULL, vals)) for vals in zip(*FULL.values())]
    keep = [r for r in rows if _matches(r, dnf)]
    return {c: [r[c] for r in keep] for c in columns}


def _same(a, b):
    assert list(a) == list(b)
    for k in a:
        assert len(a[k]) == len(b[k]), k
        for x, y in zip(a[k], b[k]):
            assert x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)), (k, x, y)


CASES = [
    [("x", "<", 500)],
    [("x", ">=", 19990)],
    [[("x", "<", 10)], [("x", ">", 19995)]],
    [("s", "==", "k0005"), ("x", "<", 3000)],
    [("f", "<", -3.0)],
    [("f", "!=", 0.5)],
    [("y", "in", [-50, 49])],
    [("s", "not in", ["k0001", "k0002"])],
    [("u", ">", 2**50 * 19000)],
    [("point.a", "==", 3), ("x", "<=", 100)],
    [("x", "==", -1)],
]


@pytest.mark.parametrize("writer", sorted(FILES))
@pytest.mark.parametrize("dnf", CASES, ids=str)
def test_filtered_read_equals_full_read_filtered_in_python(writer, dnf):
    columns = ["x", "s", "l", "point"]
    got = pqkit.read_table(FILES[writer], columns=columns, filters=dnf).to_pydict()
    _same(got, _expected(dnf if isinstance(dnf[0], list) else [dnf], columns))


# pyarrow takes no dotted paths in filters, and overflows on uint64 bounds past 2**63
@pytest.mark.parametrize("dnf", [c for c in CASES if "point.a" not in str(c)
                                 and "'u'" not in str(c)], ids=str)
def test_filtered_read_equals_pyarrow(dnf):
    columns = ["x", "s", "point"]
    got = pqkit.read_table(FILES["pyarrow"], columns=columns, filters=dnf).to_pydict()
    theirs = pq.read_table(io.BytesIO(FILES["pyarrow"]), columns=columns, filters=dnf)
    _same(got, theirs.to_pydict())


def test_filter_values_must_be_of_the_column_kind():
    for dnf in ([("x", "==", "abc")], [("s", "in", [5])], [("f", ">", "1")],
                [("x", "==", True)], [("f", "in", [1.5, "2"])]):
        with pytest.raises(pqkit.SchemaError, match="the column holds"):
            pqkit.read_table(FILES["pqkit"], filters=dnf)
        with pytest.raises((pa.ArrowNotImplementedError, pa.ArrowTypeError,
                            pa.ArrowInvalid)):
            pq.read_table(io.BytesIO(FILES["pyarrow"]), filters=dnf)


@pytest.mark.parametrize("writer", sorted(FILES))
def test_pages_are_skipped(writer):
    stats = pqkit.ReadStatistics()
    t = pqkit.read_table(FILES[writer], columns=["x", "f"], filters=[("x", "<", 100)],
                         statistics=stats)
    assert t.num_rows == 100
    assert stats.row_groups == 4
    assert stats.row_groups_skipped == {"statistics": 3}             # row groups pruned
    assert 0 < stats.pages_decoded < stats.pages / 4
    assert stats.pages_skipped == stats.pages - stats.pages_decoded


def test_bad_filters_are_refused():
    with pytest.raises(pqkit.SchemaError, match="unknown operator"):
        pqkit.read_table(FILES["pqkit"], filters=[("x", "~", 1)])
    with pytest.raises(pqkit.SchemaError, match="not a leaf column"):
        pqkit.read_table(FILES["pqkit"], filters=[("nope", "==", 1)])
    with pytest.raises(pqkit.SchemaError, match="repeated"):
        pqkit.read_table(FILES["pqkit"], filters=[("l.list.element", "==", 1)])


_terms = st.one_of(
    st.tuples(st.just("x"), st.sampled_from(list(_PY)), st.integers(-10, N + 10)),
    st.tuples(st.just("y"), st.sampled_from(list(_PY)), st.integers(-60, 60)),
    st.tuples(st.just("f"), st.sampled_from(list(_PY)),
              st.floats(-4, 4, allow_nan=False) | st.sampled_from([0.0, -0.0])),
    st.tuples(st.just("s"), st.sampled_from(list(_PY)),
              st.sampled_from(["k0000", "k0150", "k0299", "a", "z"])),
    st.tuples(st.just("y"), st.sampled_from(["in", "not in"]),
              st.lists(st.integers(-60, 60), max_size=3)),
    st.tuples(st.just("s"), st.sampled_from(["in", "not in"]),
              st.lists(st.sampled_from(["k0000", "k0150", "a"]), max_size=2)),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dnf=st.lists(st.lists(_terms, min_size=1, max_size=2), min_size=1, max_size=2),
       writer=st.sampled_from(sorted(FILES)))
def test_pruning_is_sound(dnf, writer):
    got = pqkit.read_table(FILES[writer], columns=["x"], filters=dnf).to_pydict()
    _same(got, _expected(dnf, ["x"]))


@pytest.mark.parametrize("shift, rows", [(-512, 1024), (10, 502)])
def test_offset_index_rows_that_miss_the_pages_read_are_corrupt(tmp_path, shift, rows):
    """A first_row_index that repeats its predecessor's (PQ-INDEX-003) or lies 10 rows late
    (PQ-INDEX-004) makes the pages chosen for a filter hold other rows than the index
    says: a CorruptFileError naming the OffsetIndex, not an IndexError or wrong rows."""
    from verify_files import edit_index, write_base

    base = write_base(tmp_path / "base.parquet")

    def move(oi):
        oi.page_locations[2].first_row_index += shift

    bad = edit_index(base, tmp_path / "moved.parquet", 0, "offset_index", move)
    with pytest.raises(pqkit.CorruptFileError, match="OffsetIndex of column x, row group 0: "
                       f"the pages read hold 512 rows, their first_row_index entries give {rows}"):
        pqkit.read_table(bad, filters=[("x", "==", 1030)])


@pytest.mark.parametrize("dnf, every_row", [
    ([("x", "!=", -1)], True),              # outside the bounds, no nulls
    ([("x", ">=", 0)], True),
    ([("y", "not in", [-99, 99])], True),
    ([("f", "!=", 9.0)], True),             # NaN rows satisfy != too
    ([("f", "<", 9.0)], False),             # ...but not <: NaN is in no bound
    ([("s", "!=", "a")], False),            # null rows never satisfy !=
    ([("s", "not in", ["a"])], True),       # ...but do satisfy not in
    ([("x", "!=", 5)], [False, True, True, True]),   # inside row group 0's bounds only
    ([[("x", "!=", 5)], [("y", "<", 100)]], True),
])
def test_statistics_that_prove_every_row_matches_skip_the_filter(dnf, every_row):
    with pqkit.ParquetFile(FILES["pyarrow"]) as f:
        reader = FilteredReader(f.row_group_reader, dnf)
        groups = range(f.num_row_groups)
        want = every_row if isinstance(every_row, list) else [every_row] * len(groups)
        assert [reader.plan(g).every_row for g in groups] == want
        stats = pqkit.ReadStatistics()
        got = f.read(columns=["x", "f", "s"], filters=dnf, statistics=stats).to_pydict()
    _same(got, _expected(dnf if isinstance(dnf[0], list) else [dnf], ["x", "f", "s"]))
    if every_row is True:       # every column decoded once, whole: no filter pass
        assert stats.pages_skipped == 0 and \
            all(c["chunks_whole"] == f.num_row_groups for c in stats.by_column.values())


@pytest.mark.parametrize("null_count", [-1, 0])
def test_null_pages_of_a_required_column_are_not_trusted(tmp_path, null_count):
    """parquet-mr 1.13 marked every page of a REQUIRED column with values as a null page
    (null_count -1, no bounds): a filter then skipped every page and returned no rows.
    A null page of a leaf that cannot be null, or whose null count is not positive, is
    read like a page without bounds."""
    from verify_files import edit_index, write_base

    base = write_base(tmp_path / "base.parquet")

    def all_null(ci):
        n = len(ci.null_pages)
        ci.null_pages, ci.null_counts = [True] * n, [null_count] * n
        ci.min_values = ci.max_values = [b""] * n

    bad = edit_index(base, tmp_path / "null_pages.parquet", 0, "column_index", all_null)
    want = pqkit.read_table(base, filters=[("x", ">=", 1030)]).to_pydict()
    assert len(want["x"]) > 1000
    assert pqkit.read_table(bad, filters=[("x", ">=", 1030)]).to_pydict() == want


def _paged_file(n):
    """``n`` rows (``x`` = row number, ``y`` = x % 7) in row groups of 40 rows and pages
    of about 10, with a page index."""
    buf = io.BytesIO()
    pq.write_table(pa.table({"x": np.arange(n, dtype=np.int64), "y": np.arange(n) % 7}), buf,
                   row_group_size=40, data_page_size=64, write_page_index=True,
                   use_dictionary=False)
    return buf.getvalue()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.integers(0, 149)), st.integers(0, 150), st.integers(0, 6))
def test_excluded_rows_meet_the_filter_in_every_read(excluded, below, y):
    """Deleted positions (a dataset's deletion file) are left out of filtered and plain
    reads, batches and the matching rows, as if removed from the file."""
    f = pqkit.ParquetFile(_paged_file(150))
    gone = sorted(excluded)
    live = [i for i in range(150) if i not in excluded]
    dnf = [[("x", "<", below)], [("y", "==", y)]]
    wanted = [i for i in live if i < below or i % 7 == y]
    assert f.read(exclude_rows=gone).column("x").to_pylist() == live
    assert f.read(filters=dnf, exclude_rows=gone).column("x").to_pylist() == wanted
    assert f.matching_rows(dnf, exclude_rows=gone).tolist() == wanted
    batches = f.iter_batches(16, filters=dnf, exclude_rows=gone)
    assert [v for b in batches for v in b.column("x").to_pylist()] == wanted
    assert [v for b in f.iter_batches(16, exclude_rows=gone)
            for v in b.column("y").to_pylist()] == [i % 7 for i in live]


def test_bad_excluded_rows_are_an_argument_error():
    f = pqkit.ParquetFile(_paged_file(50))
    for bad in ([3, 1], [50]):
        with pytest.raises(pqkit.ParquetError, match="exclude_rows"):
            f.read(exclude_rows=bad)


@pytest.mark.parametrize("damage", ["column_index", "statistics"])
def test_bounds_without_column_orders_do_not_prune(tmp_path, damage):
    """Without column_orders, min_value/max_value and ColumnIndex bounds have no defined
    order (Arrow ignores them, verify reports them only as warnings): a fuzzed file whose
    bounds exclude every value made a filter return 0 of 1,000 matching rows. The filter
    now ignores them there; the same damage under a declared order is an error in
    verify --deep (bounds are trusted by design)."""
    from verify_files import edit_index, edit_stats, rewrite_footer, rules, write_base

    from pqkit.inspect.verify.runner import verify_file

    base = write_base(tmp_path / "base.parquet")
    huge = (2**62).to_bytes(8, "little")
    if damage == "column_index":
        def above(ci):
            ci.min_values = ci.max_values = [huge] * len(ci.min_values)
        ordered = edit_index(base, tmp_path / "ordered.parquet", 0, "column_index", above)
    else:
        ordered = rewrite_footer(base, tmp_path / "ordered.parquet",
                                 edit_stats(0, min_value=huge, max_value=huge))

    def no_orders(raw, _):
        raw.column_orders = None

    bad = rewrite_footer(ordered, tmp_path / "bad.parquet", no_orders)
    term = [("x", "in", [5, 1030, 2999])]
    want = pqkit.read_table(base, filters=term).to_pydict()
    assert want["x"] == [5, 1030, 2999]
    assert pqkit.read_table(bad, filters=term).to_pydict() == want
    rule = "PQ-DEEP-004" if damage == "column_index" else "PQ-DEEP-003"
    assert rule in rules(verify_file(bad, deep=True), "warning")
    assert rule in rules(verify_file(ordered, deep=True), "error")


def test_a_str_filter_on_a_binary_column_matches_as_pyarrow():
    buf = io.BytesIO()
    pq.write_table(pa.table({"b": pa.array([b"abc", b"x", None, b"abc"], pa.binary())}), buf)
    for term in [("b", "==", "abc"), ("b", "in", ["x", b"abc"]), ("b", ">=", "b")]:
        want = pq.read_table(io.BytesIO(buf.getvalue()), filters=[term]).to_pydict()
        assert pqkit.read_table(buf.getvalue(), filters=[term]).to_pydict() == want, term


@pytest.mark.parametrize("columns", [None, ["x", "s"], ["s"]])
def test_statistics_claiming_every_row_matches_let_no_other_row_through(tmp_path, columns):
    """A chunk min_value damaged to 1030 made ``x >= 1000`` look true for every row: the
    filter pass was skipped and all 3,000 rows came back. Bounds are trusted to leave
    rows out, never to let rows that do not match through."""
    from verify_files import edit_stats, rewrite_footer, write_base

    base = write_base(tmp_path / "base.parquet")
    bad = rewrite_footer(base, tmp_path / "bad.parquet",
                         edit_stats(0, min_value=(1030).to_bytes(8, "little")))
    term = [("x", ">=", 1000)]
    want = pqkit.read_table(base, columns=columns, filters=term).to_pydict()
    assert len(want["s"]) == 2000
    assert pqkit.read_table(bad, columns=columns, filters=term).to_pydict() == want
