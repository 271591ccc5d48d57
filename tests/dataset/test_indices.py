"""Inverted index segments (§3.4), index pruning (§3.10 step 4), their commits (§3.9 row
"index build"), crashes (§3.11) and vacuum (§3.12)."""
import json
import math
import os

import pytest
from dshelpers import row_set, run_forked
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
import pqkit.dataset as pds
import pqkit.datatypes as T
from pqkit.dataset.pqds import staging
from pqkit.dataset.pqds.index_segments import KV_KEY
from pqkit.errors import CommitConflict, SchemaError
from pqkit.read.prune.filtered import FilteredReader
from pqkit.read.fetch.footer import read_metadata

SCHEMA = [T.field("p", T.int32()), T.field("i", T.int64()), T.field("s", T.string()),
          T.field("f", T.float64())]


def _before_commit(monkeypatch, kind, action, once=False):
    """Run ``action()`` just before the next commit of an operation of type ``kind``, as a
    concurrent writer; with ``once`` the commit after it is not intercepted again."""
    real = staging.commit_operation

    def intervene(layout, op, **kw):
        if op.type != kind:
            return real(layout, op, **kw)
        if once:
            monkeypatch.setattr(staging, "commit_operation", real)
        action()
        return real(layout, op, **kw)

    monkeypatch.setattr(staging, "commit_operation", intervene)


def _data(rows):
    return {c.name: [r[c.name] for r in rows] for c in SCHEMA}


def _rows(n, start=0):
    return [{"p": k % 2, "i": (k * 7) % 5 if k % 4 else None, "s": f"s{k % 3}",
             "f": [0.0, -0.0, float("nan"), 1.5][k % 4]} for k in range(start, start + n)]


def _segment_path(root, seg):
    return os.path.join(root, *seg["path"].split("/"))


def _segment_map(root, segments):
    """value -> keys over ``segments`` (null as None), plus the row order per segment."""
    out = {}
    for seg in segments:
        t = pqkit.read_table(_segment_path(root, seg)).to_pydict()
        values = t["value"]
        assert values[0] is None                       # the explicit null row comes first
        rest = values[1:]
        assert rest == sorted(rest)                    # sorted by value, distinct
        assert len(set(rest)) == len(rest)
        for v, keys in zip(values, t["files"]):
            out.setdefault(v, set()).update(keys)
    return out


def _brute_force(ds, column, keys=None):
    """value -> keys computed by reading every (live) data file in full."""
    out = {}
    for f in ds.files():
        if keys is not None and f.key not in keys:
            continue
        for v in pqkit.read_table(f.location).column(column).to_pylist():
            if isinstance(v, float) and math.isnan(v):
                continue
            out.setdefault(v, set()).add(f.key)
    out.setdefault(None, set())
    return out


def _write(root, rows, **kw):
    return pds.write(root, _data(rows), schema=SCHEMA, partition_by=["p"], **kw)


def test_segment_contents_equal_brute_force(tmp_path):
    root = str(tmp_path / "ds")
    _write(root, _rows(10))
    _write(root, _rows(9, 10))
    for col in ("i", "s", "f"):
        v = pds.build_index(root, col)
        ds = pds.open(root)
        assert ds.version == v and ds.operation["type"] == "index"
        [ix] = [x for x in ds.indices if x["column"] == col]
        [seg] = ix["segments"]
        assert seg["path"].startswith(f"_pqkit/indices/{col}/")
        assert set(seg["covers"]) == {f.key for f in ds.files()}
        assert _segment_map(root, [seg]) == _brute_force(ds, col)
        meta = json.loads(read_metadata(_segment_path(root, seg)).key_value_metadata[KV_KEY])
        assert meta == {"column": col, "dataset_id": ds.manifest.dataset_id,
                        "created_version": v}
    # Building again with every file covered commits nothing.
    assert pds.build_index(root, "i") == pds.latest_version(root)


def test_unindexable_columns_are_refused(tmp_path):
    root = str(tmp_path / "ds")
    _write(root, _rows(4))
    for col, msg in (("p", "partition column"), ("nope", "no column")):
        with pytest.raises(SchemaError, match=msg):
            pds.build_index(root, col)
    root2 = str(tmp_path / "ds2")
    pds.write(root2, {"l": [[1], [2]], "x": [1, 2]})
    with pytest.raises(SchemaError, match="inverted index needs a flat"):
        pds.build_index(root2, "l")


def test_append_adds_exactly_one_segment_per_indexed_column(tmp_path):
    root = str(tmp_path / "ds")
    _write(root, _rows(8))
    pds.build_index(root, "i")
    pds.build_index(root, "s")
    before = pds.open(root)
    old = {x["column"]: x["segments"][0] for x in before.indices}
    old_bytes = {c: open(_segment_path(root, s), "rb").read() for c, s in old.items()}
    v = _write(root, _rows(6, 100))
    ds = pds.open(root)
    assert ds.version == v == before.version + 1
    added = set(ds.operation["added"])
    for ix in ds.indices:
        segs = ix["segments"]
        assert len(segs) == 2 and segs[0] == old[ix["column"]]          # nothing rewritten
        assert open(_segment_path(root, segs[0]), "rb").read() == old_bytes[ix["column"]]
        assert set(segs[1]["covers"]) == added
        assert _segment_map(root, segs[1:]) == _brute_force(ds, ix["column"], added)
    # Overwrite drops the indices (it carries its own table); a replace_partitions is indexed.
    _write(root, _rows(4, 200), mode="replace_partitions")
    assert [len(x["segments"]) for x in pds.open(root).indices] == [3, 3]
    _write(root, _rows(4), mode="overwrite")
    assert pds.open(root).indices == []


def test_indexed_reads_equal_unindexed_reads_and_prune(tmp_path):
    plain, indexed = str(tmp_path / "plain"), str(tmp_path / "indexed")
    for root in (plain, indexed):
        for k in range(5):
            _write(root, [{"p": 0, "i": k, "s": f"v{k}", "f": 1.0}] * 3)
    pds.build_index(indexed, "s")
    _write(plain, [{"p": 0, "i": 9, "s": "v9", "f": 2.0}])
    _write(indexed, [{"p": 0, "i": 9, "s": "v9", "f": 2.0}])   # indexed by the append
    a, b = pds.open(plain), pds.open(indexed)
    filters = [[("s", "==", "v2")], [("s", "in", ["v1", "v9", "zz"])],
               [[("s", "==", "v3")], [("i", ">", 3)]], [("s", "==", "v2"), ("i", "==", 0)],
               [("s", "in", [])], [("s", "==", None)], [("s", "!=", "v1")]]
    cols = ["f", "i", "p", "s"]
    for flt in filters:
        assert row_set(a.read(filters=flt), cols) == row_set(b.read(filters=flt), cols), flt
        assert a.count(flt) == b.count(flt)
        assert {f.key for f in b.files(flt)} <= {f.key for f in b.files()}
    # Each file holds one value of s; the index keeps exactly the files listing it.
    assert len(b.files([("s", "==", "v2")])) == 1
    assert len(b.files([("s", "in", ["v1", "v9"])])) == 2
    assert len(b.files([("s", "==", "v2"), ("i", "==", 0)])) == 0
    assert len(b.files([("s", "in", [])])) == 0


def test_point_lookup_reads_one_index_row_group(tmp_path, monkeypatch):
    root = str(tmp_path / "ds")
    n = 70_000                                  # > 64k distinct values: two row groups
    pds.write(root, {"k": list(range(n)), "x": [1] * n}, max_rows_per_file=n // 2)
    pds.build_index(root, "k")
    ds = pds.open(root)
    seg = ds.indices[0]["segments"][0]
    meta = read_metadata(_segment_path(root, seg))
    assert meta.num_rows == n + 1 and meta.num_row_groups == 2
    read = []
    real = FilteredReader._match         # decodes a row group the pruning kept

    def counting(self, groups, g, *args, **kwargs):
        if groups.metadata.num_rows == n + 1:
            read.append(g)
        return real(self, groups, g, *args, **kwargs)

    monkeypatch.setattr(FilteredReader, "_match", counting)
    files = ds.files([("k", "==", 69_000)])     # row 69,001: the second row group
    assert [f.key for f in files] == [ds.manifest.files[1]["key"]]
    assert set(read) == {1}
    read.clear()
    assert ds.read(filters=[("k", "==", 7)]).to_pydict() == {"k": [7], "x": [1]}
    assert set(read) == {0}


def test_index_build_rebases_over_append_and_new_files_stay_uncovered(tmp_path, monkeypatch):
    root = str(tmp_path / "ds")
    _write(root, _rows(6))
    _before_commit(monkeypatch, "index",
                   lambda: _write(root, [{"p": 0, "i": 42, "s": "new", "f": 0.5}]))
    v = pds.build_index(root, "i")
    ds = pds.open(root)
    assert v == 2 and ds.version == 2
    appended = set(pds.open(root, version=1).operation["added"])
    covered = set(ds.indices[0]["segments"][0]["covers"])
    assert appended and not appended & covered
    assert covered | appended == {f.key for f in ds.files()}
    # The uncovered file is still a candidate, so its row is found.
    assert ds.read(filters=[("i", "==", 42)]).to_pydict()["s"] == ["new"]


def test_index_build_conflicts_with_an_intervening_overwrite(tmp_path, monkeypatch):
    root = str(tmp_path / "ds")
    _write(root, _rows(6))
    _before_commit(monkeypatch, "index", lambda: _write(root, _rows(2), mode="overwrite"))
    with pytest.raises(CommitConflict) as err:
        pds.build_index(root, "i")
    assert err.value.retryable
    assert pds.latest_version(root) == 1 and pds.open(root).indices == []
    assert not os.listdir(os.path.join(root, "_pqkit", "indices", "i"))   # segment removed


def test_concurrent_index_builds_merge_their_segments(tmp_path, monkeypatch):
    root = str(tmp_path / "ds")
    _write(root, _rows(6))
    # another builder wins version 1
    _before_commit(monkeypatch, "index", lambda: pds.build_index(root, "i"), once=True)
    assert pds.build_index(root, "i") == 2
    ds = pds.open(root)
    [ix] = ds.indices
    assert len(ix["segments"]) == 2
    assert _segment_map(root, ix["segments"]) == _brute_force(ds, "i")
    pds.optimize_index(root, "i")
    assert len(pds.open(root).indices[0]["segments"]) == 1


def test_append_rebases_over_an_intervening_index_build(tmp_path, monkeypatch):
    root = str(tmp_path / "ds")
    _write(root, _rows(6))
    _before_commit(monkeypatch, "append", lambda: pds.build_index(root, "s"), once=True)
    v = _write(root, [{"p": 1, "i": 1, "s": "late", "f": 1.0}])
    ds = pds.open(root)
    assert v == 2 and ds.operation["type"] == "append"
    [ix] = ds.indices
    assert len(ix["segments"]) == 1                  # the append read no index: unindexed
    assert ds.read(filters=[("s", "==", "late")]).num_rows == 1


def test_deletes_leave_dead_keys_and_optimize_drops_them(tmp_path):
    root = str(tmp_path / "ds")
    _write(root, _rows(8))
    pds.build_index(root, "i")
    _write(root, _rows(8, 50))
    _write(root, _rows(5, 90))
    pds.delete(root, [("s", "==", "s1")])            # rewrites files: old keys go dead
    ds = pds.open(root)
    live = {f.key for f in ds.files()}
    segs = ds.indices[0]["segments"]
    assert len(segs) == 3
    assert {k for s in segs for k in s["covers"]} - live          # dead keys stay listed
    everything = ds.read().to_pydict()
    for v in (0, 1, 2, 3, 4):
        expected = {c: [x for x, i in zip(everything[c], everything["i"]) if i == v]
                    for c in everything}
        assert row_set(ds.read(filters=[("i", "==", v)])) == row_set(expected)
    v = pds.optimize_index(root, "i")
    ds = pds.open(root)
    assert ds.version == v
    [seg] = ds.indices[0]["segments"]
    assert set(seg["covers"]) == live
    assert _segment_map(root, [seg]) == _brute_force(ds, "i")
    assert pds.optimize_index(root, "i") == v                     # already optimal


def test_vacuum_keeps_segments_of_retained_versions(tmp_path):
    root = str(tmp_path / "ds")
    _write(root, _rows(6))
    pds.build_index(root, "i")
    _write(root, _rows(6, 10))
    old_paths = {s["path"] for s in pds.open(root).indices[0]["segments"]}
    pds.optimize_index(root, "i")
    new_paths = {s["path"] for s in pds.open(root).indices[0]["segments"]}
    # Everything retained: nothing of the index goes.
    report = pds.vacuum(root, retention=0, keep_last=10, grace=0)
    assert not [p for p in report["files_deleted"] if p.startswith("_pqkit/indices/")]
    # Only the latest retained: the merged-away segments go, the live one stays.
    report = pds.vacuum(root, retention=0, keep_last=1, grace=0)
    deleted = {p for p in report["files_deleted"] if p.startswith("_pqkit/indices/")}
    assert deleted == old_paths
    assert all(os.path.exists(os.path.join(root, p)) for p in new_paths)
    ds = pds.open(root)
    assert ds.read(filters=[("i", "==", 3)]).num_rows == \
        sum(1 for r in _rows(6) + _rows(6, 10) if r["i"] == 3)


@pytest.mark.parametrize("step", ["index.partial", "index.written", "commit.tmp_written"])
def test_crash_while_building_an_index(tmp_path, step):
    root = str(tmp_path / "ds")
    _write(root, _rows(6))
    killed, code = run_forked(lambda: pds.build_index(root, "i"), crash_at=step)
    assert killed, f"the index build did not reach {step} (exit code {code})"
    ds = pds.open(root)
    assert ds.version == 0 and ds.indices == []
    report = pds.repair(root, grace=0)
    assert [p for p in report["files_deleted"] if p.startswith("_pqkit/indices/")]
    assert pds.build_index(root, "i") == 1
    assert pds.open(root).read(filters=[("i", "==", 2)]).num_rows == \
        sum(1 for r in _rows(6) if r["i"] == 2)


def test_crash_during_an_indexed_append_leaves_no_segment_behind(tmp_path):
    root = str(tmp_path / "ds")
    _write(root, _rows(6))
    pds.build_index(root, "i")
    killed, _ = run_forked(lambda: _write(root, _rows(3, 40)), crash_at="commit.tmp_written")
    assert killed
    ds = pds.open(root)
    assert ds.version == 1 and len(ds.indices[0]["segments"]) == 1
    report = pds.repair(root, grace=0)
    assert len([p for p in report["files_deleted"] if p.startswith("_pqkit/indices/")]) == 1
    assert os.path.exists(_segment_path(root, ds.indices[0]["segments"][0]))


# --- soundness (hypothesis) ------------------------------------------------------------
I64 = [-(2 ** 63), -1, 0, 1, 2 ** 63 - 1]
STRS = ["", "a", "b", "p" * 70, "p" * 70 + "a", "é"]
FLOATS = [float("nan"), -0.0, 0.0, 1.5, float("inf")]
rows_strategy = st.lists(st.fixed_dictionaries({
    "p": st.sampled_from([0, 1]),
    "i": st.one_of(st.none(), st.sampled_from(I64), st.integers(-3, 3)),
    "s": st.one_of(st.none(), st.sampled_from(STRS)),
    "f": st.one_of(st.none(), st.sampled_from(FLOATS)),
}), min_size=1, max_size=24)
OPERANDS = {"i": st.one_of(st.sampled_from(I64), st.integers(-4, 4), st.just(None)),
            "s": st.one_of(st.sampled_from(STRS), st.text(max_size=3), st.just(None)),
            "f": st.one_of(st.sampled_from(FLOATS), st.just(2.0))}


@st.composite
def _term(draw, rows, op=None):
    col = draw(st.sampled_from(sorted(OPERANDS)))
    op = op or draw(st.sampled_from(["==", "in", "!=", "<", "is_null"]))
    pool = [r[col] for r in rows]
    pick = st.one_of(OPERANDS[col], st.sampled_from(pool), st.sampled_from(pool))
    if op == "in":
        return (col, op, draw(st.lists(pick, max_size=3)))
    if op == "<":                                 # None cannot be ordered
        pick = pick.filter(lambda v: v is not None)
    return (col, op, draw(pick))


@st.composite
def _group(draw, rows):
    """Mostly an ==/in term on an indexed column (so the index is used) and maybe more."""
    first = draw(_term(rows, draw(st.sampled_from(["==", "in", "==", "in", None]))))
    return [first] + draw(st.lists(_term(rows), max_size=1))


def _python_oracle(rows, dnf):
    # pqkit semantics: a null value matches only is_null; "== None" matches nothing,
    # "!= None" every non-null value; "in" compares by equality.
    def holds(v, op, x):
        if op == "is_null":
            return v is None
        if v is None or (op == "==" and x is None):
            return False
        if op == "in":
            return any(o is not None and v == o for o in x)
        if op == "<":
            return v < x
        return v == x if op == "==" else v != x
    return [r for r in rows if any(all(holds(r[c], op, x) for c, op, x in conj)
                                   for conj in dnf)]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(data=st.data(), rows=rows_strategy, files=st.integers(1, 5),
       index_after=st.integers(0, 5), optimize=st.booleans(), delete=st.booleans(),
       compact=st.booleans())
def test_index_pruning_is_sound(tmp_path_factory, data, rows, files, index_after, optimize,
                                delete, compact):
    """Reads with ==/in filters on indexed columns equal a Python filter of the rows, and
    no pruned file holds a matching row: covered, uncovered (written by compact or delete)
    and dead keys (removed by them) all occur."""
    root = str(tmp_path_factory.mktemp("ix") / "ds")
    chunk = max(1, math.ceil(len(rows) / files))
    pieces = [rows[k:k + chunk] for k in range(0, len(rows), chunk)]
    for n, piece in enumerate(pieces):
        _write(root, piece, row_group_size=4)
        if n == min(index_after, len(pieces) - 1):    # later pieces: indexed by the append
            for col in ("i", "s", "f"):
                pds.build_index(root, col)
    live = rows
    if delete:
        pds.delete(root, [("i", "==", 0)])
        live = [r for r in rows if r["i"] != 0]
    if compact:
        pds.compact(root)                            # new files: unindexed
    if optimize:
        pds.optimize_index(root, "s")
    ds = pds.open(root)
    dnf = data.draw(st.lists(_group(rows), min_size=1, max_size=2))
    cols = ["f", "i", "p", "s"]
    expected = row_set({c: [r[c] for r in _python_oracle(live, dnf)] for c in cols}, cols)
    assert row_set(ds.read(filters=dnf), cols) == expected
    kept = {f.key for f in ds.files(dnf)}
    for f in ds.files():
        if f.key not in kept:
            content = pqkit.read_table(f.location).to_pylist()
            assert _python_oracle([dict(r, p=f.partition_values["p"]) for r in content],
                                  dnf) == []
