"""merge (upsert by key, issue 17 item 5): a pandas oracle, refusals, pruning, concurrency
and crashes.

The oracle: a target row whose key is in the source is replaced by the source
row (``update``) or dropped (``delete``); source rows with no target row are
added (``insert``) or not (``ignore``). A source without some columns (partial
update) sets only its columns on each matched target row and inserts nulls for
the others.
"""
import os

import pandas as pd
import pytest
from dshelpers import count_opened, pyarrow_rows, row_set, run_forked
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit.dataset as pds
from pqkit import CommitConflict, DatasetError, SchemaError
from pqkit.dataset.pqds import staging
from pqkit.dataset.pqds.paths import RootPaths

COLUMNS = ["id", "p", "v"]


def _frame(ids, parts, values):
    return {"id": list(ids), "p": list(parts), "v": list(values)}


def _oracle(target, source, when_matched, when_not_matched):
    t, s = pd.DataFrame(target, columns=COLUMNS), pd.DataFrame(source)
    given = [c for c in COLUMNS if c in source]
    matched_target = t["id"].isin(s["id"])
    matched_source = s["id"].isin(t["id"])
    pieces = [t[~matched_target]]
    if when_matched == "update" and len(given) == len(COLUMNS):
        pieces.append(s[matched_source])
    elif when_matched == "update":                 # partial: each target row keeps the rest
        kept = t[matched_target].drop(columns=[c for c in given if c != "id"])
        pieces.append(kept.merge(s[given], on="id", how="inner"))
    if when_not_matched == "insert":
        pieces.append(s[~matched_source].reindex(columns=COLUMNS))
    out = pd.concat(pieces).astype(object)
    out = out.where(out.notna(), None)
    return row_set({c: out[c].tolist() for c in COLUMNS}, COLUMNS)


def _staged_files(root):
    return sorted(n for _, _, names in os.walk(RootPaths(root).shadow_dir) for n in names)


rows = st.lists(st.tuples(st.integers(0, 30), st.sampled_from("abc"), st.integers(-5, 5)),
                min_size=1, max_size=12)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(batches=st.lists(rows, min_size=1, max_size=3),
       source=st.lists(st.tuples(st.integers(0, 40), st.sampled_from("abc"),
                                 st.integers(100, 105)),
                       max_size=10, unique_by=lambda r: r[0]),
       when_matched=st.sampled_from(["update", "delete"]),
       when_not_matched=st.sampled_from(["insert", "ignore"]),
       index=st.booleans(), drop=st.sampled_from([(), ("v",), ("p",), ("p", "v")]))
def test_merge_equals_the_pandas_oracle(tmp_path_factory, batches, source, when_matched,
                                        when_not_matched, index, drop):
    root = str(tmp_path_factory.mktemp("merge") / "ds")
    target = _frame([], [], [])
    for i, batch in enumerate(batches):
        data = _frame(*zip(*batch))
        pds.write(root, data, partition_by=["p"], mode="create" if i == 0 else "append")
        for c in COLUMNS:
            target[c] += data[c]
    if index:
        pds.build_index(root, "id")
    src = _frame(*zip(*source)) if source else _frame([], [], [])
    src = {c: v for c, v in src.items() if c not in drop}
    before = pds.open(root)
    if when_not_matched == "insert" and "p" in drop:
        with pytest.raises(SchemaError, match=r"lacks \['p'\], which inserted rows"):
            pds.merge(root, src, on=["id"], when_matched=when_matched,
                      when_not_matched=when_not_matched)
        assert pds.open(root).version == before.version and _staged_files(root) == []
        return
    pds.merge(root, src, on=["id"], when_matched=when_matched,
              when_not_matched=when_not_matched)
    ds = pds.open(root)
    assert row_set(ds.read(), COLUMNS) == _oracle(target, src, when_matched, when_not_matched)
    assert ds.verify("size").ok
    pds.publish(root)
    assert pyarrow_rows(root, COLUMNS) == row_set(ds.read(), COLUMNS)


@pytest.fixture
def sales(tmp_path):
    root = str(tmp_path / "sales")
    for i in range(4):                      # four files with key ranges 0-9, 10-19, ...
        pds.write(root, _frame(range(i * 10, i * 10 + 10), ["a"] * 10, range(10)),
                  partition_by=["p"], mode="create" if i == 0 else "append")
    return root


def test_repeated_source_keys_are_refused_and_nothing_changes(sales):
    before = pds.open(sales).version
    with pytest.raises(DatasetError, match=r"repeats the key \(id=3\) in rows 0 and 2"):
        pds.merge(sales, _frame([3, 4, 3], "aaa", [1, 2, 3]), on="id")
    with pytest.raises(DatasetError, match="key column 'id' is null"):
        pds.merge(sales, _frame([3, None], "aa", [1, 2]), on="id")
    assert pds.open(sales).version == before and _staged_files(sales) == []


@pytest.mark.parametrize("kwargs, match, error", [
    ({"on": ["nope"]}, "merge key 'nope'", DatasetError),
    ({"on": "id", "when_matched": "upsert"}, "when_matched='upsert'", DatasetError),
    ({"on": "id", "when_not_matched": "delete"}, "when_not_matched='delete'", DatasetError),
])
def test_bad_merge_arguments(sales, kwargs, match, error):
    with pytest.raises(error, match=match):
        pds.merge(sales, _frame([1], "a", [1]), **kwargs)


def test_source_columns_must_be_the_datasets(sales):
    with pytest.raises(SchemaError, match=r"columns the dataset lacks: \['w'\]"):
        pds.merge(sales, {"id": [1], "w": [1]}, on="id")
    with pytest.raises(SchemaError, match="lacks the key column 'id'"):
        pds.merge(sales, {"v": [1]}, on="id")


def test_partial_update_keeps_the_other_columns(tmp_path):
    root = str(tmp_path / "wide")
    pds.write(root, {"id": [1, 2, 2], "v": [10, 20, 21], "w": ["x", "y", "y2"],
                     "p": ["a", "b", "a"]}, partition_by=["p"])
    pds.merge(root, {"id": [2, 3], "w": ["Y", "new"], "p": ["b", "c"]}, on="id")
    got = row_set(pds.open(root).read(), ["id", "v", "w", "p"])
    # both target rows of id 2 get w and p (the row in p=a moves); each keeps its v; the
    # inserted row has a null v
    assert got == sorted([(1, 10, "x", "a"), (2, 20, "Y", "b"), (2, 21, "Y", "b"),
                          (3, None, "new", "c")], key=repr)


def test_a_missing_non_nullable_column_is_refused_for_inserts(tmp_path):
    import pqkit.datatypes as T
    root = str(tmp_path / "strict")
    pds.write(root, {"id": [1, 2], "v": [10, 20]},
              schema=[T.Field("id", T.int64(), False), T.Field("v", T.int64(), False)])
    with pytest.raises(SchemaError, match=r"lacks \['v'\].*when_not_matched='ignore'"):
        pds.merge(root, {"id": [2, 3]}, on="id")
    assert pds.open(root).version == 0
    pds.merge(root, {"id": [2, 3], "v": [200, 300]}, on="id", when_not_matched="ignore")
    assert sorted(pds.open(root).read().to_pydict()["v"]) == [10, 200]


def test_only_files_whose_key_bounds_match_are_read_and_rewritten(sales, monkeypatch):
    before = {f["key"]: f for f in pds.open(sales).manifest.files}
    opened = count_opened(monkeypatch)
    pds.merge(sales, _frame([12, 15, 99], "aaa", [-1, -2, -3]), on="id")
    assert len(opened) == 1                         # only the file holding 10-19
    after = pds.open(sales)
    removed = set(before) - {f["key"] for f in after.manifest.files}
    assert len(removed) == 1 and before[removed.pop()]["stats"]["id"]["min"] == "10"
    assert after.manifest.operation["type"] == "update"
    got = {r[0]: r[2] for r in row_set(after.read(), COLUMNS)}
    assert (got[12], got[15], got[99], got[11]) == (-1, -2, -3, 1) and len(got) == 41


def test_index_hits_limit_the_files_read(tmp_path, monkeypatch):
    root = str(tmp_path / "spread")
    for i in range(4):                      # every file spans 0..300: bounds cannot prune
        pds.write(root, _frame([0, 300, 7 + i], "aaa", [i, i, i]), partition_by=["p"])
    pds.build_index(root, "id")
    opened = count_opened(monkeypatch)
    pds.merge(root, _frame([9], "a", [42]), on="id", when_matched="delete")
    assert len(opened) == 1
    assert row_set(pds.open(root).read(), ["id"]) == row_set(
        {"id": [0, 300] * 4 + [7, 8, 10]}, ["id"])


def test_a_partition_key_and_a_row_moving_partition(tmp_path):
    root = str(tmp_path / "parts")
    pds.write(root, _frame([1, 1, 2], "abb", [10, 20, 30]), partition_by=["p"])
    pds.merge(root, _frame([1, 2], "bb", [21, 31]), on=["id", "p"])
    assert row_set(pds.open(root).read(), COLUMNS) == [(1, "a", 10), (1, "b", 21),
                                                        (2, "b", 31)]
    pds.merge(root, _frame([1], "c", [5]), on=["id"])      # both id=1 rows move to p=c
    assert row_set(pds.open(root).read(), COLUMNS) == [(1, "c", 5), (2, "b", 31)]


def test_nothing_to_change_commits_nothing(sales):
    v = pds.open(sales).version
    assert pds.merge(sales, _frame([99], "a", [0]), on="id", when_not_matched="ignore") == v
    assert pds.merge(sales, _frame([], [], []), on="id") == v


def _intervening(monkeypatch, action):
    """Run ``action`` just before merge commits (after it read and staged)."""
    real = staging.commit_operation

    def late(layout, op, **kw):
        if op.type == "update":
            action()
        return real(layout, op, **kw)
    monkeypatch.setattr(staging, "commit_operation", late)


def test_concurrent_append_rebases_the_merge(sales, monkeypatch):
    _intervening(monkeypatch, lambda: pds.write(sales, _frame([5, 77], "aa", [500, 770])))
    v = pds.merge(sales, _frame([5, 6], "aa", [-5, -6]), on="id")
    ds = pds.open(sales)
    assert v == ds.version == 5 and ds.manifest.data["parent_version"] == 4
    got = row_set(ds.read(), COLUMNS)
    # serial order merge -> append: the appended id=5 stays beside the updated one
    assert (5, "a", -5) in got and (5, "a", 500) in got and (6, "a", -6) in got
    assert (77, "a", 770) in got and len(got) == 42


def test_concurrent_rewrite_of_the_same_file_conflicts(sales, monkeypatch):
    _intervening(monkeypatch, lambda: pds.delete(sales, [("id", "==", 4)]))
    with pytest.raises(CommitConflict) as info:
        pds.merge(sales, _frame([5], "a", [-5]), on="id")
    assert info.value.retryable and info.value.conflicting_version == 4
    assert pds.open(sales).version == 4
    known = {f["path"] for v in range(5) for f in pds.open(sales, version=v).manifest.files}
    layout = RootPaths(sales)
    hidden = [layout.shadow_relpath(os.path.join(d, n))
              for d, _, names in os.walk(layout.shadow_dir) for n in names]
    assert len(hidden) == 1 and set(hidden) <= known     # the deleted file; merge's are gone


STEPS = ["stage.partial", "stage.written", "commit.tmp_written", "commit.committed",
         "publish.moved_one", "publish.success_written"]


@pytest.mark.parametrize("step", STEPS)
def test_sigkill_mid_merge_leaves_a_consistent_dataset(sales, step):
    old = row_set(pds.open(sales).read(), COLUMNS)
    source = _frame([3, 13, 55], "aaa", [-3, -13, -55])
    killed, code = run_forked(lambda: pds.merge(sales, source, on="id"), crash_at=step)
    assert killed, f"the merge did not reach {step} (exit code {code})"
    ds = pds.open(sales)
    committed = step.startswith(("commit.committed", "publish"))
    assert ds.version == (4 if committed else 3)
    assert ds.verify("size").ok
    got = row_set(ds.read(), COLUMNS)
    new = row_set(_frame(*zip(*([r for r in old if r[0] not in (3, 13)] +
                                [(3, "a", -3), (13, "a", -13), (55, "a", -55)]))), COLUMNS)
    assert got == (new if committed else old)
    pds.repair(sales, grace=0)
    assert pyarrow_rows(sales, COLUMNS) == got
    assert all(n.endswith(".shadow") for n in _staged_files(sales))


def test_merge_plan_writes_nothing_and_foretells_the_merge(sales):
    source = _frame([12, 15, 99], "aaa", [-1, -2, -3])
    before = sorted(os.listdir(sales))
    plan = pds.merge_plan(sales, source, on="id")
    assert plan["version"] == 3 and plan["files_read"] == 1
    assert plan["rows_matched"] == 2 and plan["rows_written"] == 3
    assert len(plan["files_rewritten"]) == 1 and sorted(os.listdir(sales)) == before
    assert pds.open(sales).version == 3 and _staged_files(sales) == []
    pds.merge(sales, source, on="id")
    removed = pds.open(sales).manifest.operation["removed"]
    assert len(removed) == 1
