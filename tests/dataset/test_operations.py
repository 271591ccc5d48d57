"""Operations and the conflict table (§3.9): one test per cell, plus operation semantics.

Every cell: the dataset has files A1, A2 in partition p=a and B1 in p=b
(version 1). The committing operation is prepared against version 1; another
operation commits version 2 in between; then the first one commits. ✓ means it
rebases onto version 2 (and the result holds both changes), R means
CommitConflict(retryable=True).
"""
import pytest
from dshelpers import pyarrow_rows, row_set

import pqkit.dataset as pds
from pqkit import CommitConflict, DatasetExists, SchemaError
from pqkit.dataset.core.fsops import new_txn
from pqkit.dataset.pqds.commit import commit_operation
from pqkit.dataset.pqds.operations import Operation
from pqkit.dataset.pqds.paths import RootPaths


def _base(root):
    pds.write(root, {"p": ["a", "b"], "x": [1, 2], "y": ["A1", "B1"]}, partition_by=["p"],
              mode="create")
    pds.write(root, {"p": ["a"], "x": [3], "y": ["A2"]})
    return pds.open(root)


def _keys(ds, part):
    return {f["key"] for f in ds.manifest.files if f["partition"]["p"] == part}


# --- committing operations, prepared against version 1 -------------------------------------------
def _prepare(kind, root, ds, blind=False):
    txn = new_txn()
    if kind == "append":
        e = pds.stage_file(root, {"x": [10], "y": ["new"]}, {"p": "c"}, txn=txn)
        return Operation("append", txn, entries=[e], read_version=ds.version)
    if kind == "overwrite":
        e = pds.stage_file(root, {"x": [20], "y": ["ow"]}, {"p": "z"}, txn=txn)
        return Operation("overwrite", txn, entries=[e], read_version=ds.version)
    if kind == "replace_partitions":
        e = pds.stage_file(root, {"x": [30], "y": ["rp"]}, {"p": "a"}, txn=txn)
        return Operation("replace_partitions", txn, entries=[e], scope=[{"p": "a"}],
                         blind=blind, read_version=ds.version)
    if kind in ("delete", "compact", "update"):
        e = pds.stage_file(root, {"x": [1], "y": ["kept"]}, {"p": "a"}, txn=txn)
        return Operation(kind, txn, entries=[e], removed=_keys(ds, "a"),
                         read_version=ds.version)
    if kind == "schema_change":
        e = pds.stage_file(root, {"x": [40], "y": ["sc"], "z": [1.5]}, {"p": "c"}, txn=txn)
        return Operation("append", txn, entries=[e], read_version=ds.version,
                         evolve_schema=True)
    raise AssertionError(kind)


# --- intervening operations -----------------------------------------------------------------------
def _intervene(kind, root):
    if kind == "append_a":
        pds.write(root, {"p": ["a"], "x": [5], "y": ["A3"]})
    elif kind == "append_b":
        pds.write(root, {"p": ["b"], "x": [6], "y": ["B2"]})
    elif kind == "overwrite":
        pds.write(root, {"p": ["q"], "x": [7], "y": ["Q"]}, mode="overwrite")
    elif kind == "replace_a":
        pds.write(root, {"p": ["a"], "x": [8], "y": ["RA"]}, mode="replace_partitions")
    elif kind == "replace_b":
        pds.write(root, {"p": ["b"], "x": [9], "y": ["RB"]}, mode="replace_partitions")
    elif kind == "delete_a":
        pds.delete(root, [("y", "==", "A1")])
    elif kind == "delete_b":
        pds.delete(root, [("p", "==", "b")])
    elif kind == "merge_a":
        pds.merge(root, {"p": ["a"], "x": [3], "y": ["A2*"]}, on=["x"])
    elif kind == "merge_b":
        pds.merge(root, {"p": ["b"], "x": [2], "y": ["B1*"]}, on=["x"])
    elif kind == "compact_a":
        pds.compact(root)
    elif kind == "schema_change":
        pds.write(root, {"p": ["b"], "x": [11], "y": ["S"], "w": ["wide"]}, evolve_schema=True)
    elif kind == "index":
        commit_operation(RootPaths(root), Operation("index", new_txn()))
    elif kind == "restore":
        pds.restore(root, 0)
    else:
        raise AssertionError(kind)


OK, R = "ok", "conflict"
CELLS = [
    ("append", "append_a", OK), ("append", "overwrite", R), ("append", "replace_a", OK),
    ("append", "delete_a", OK), ("append", "compact_a", OK), ("append", "schema_change", OK),
    ("append", "index", OK), ("append", "restore", R),
    ("overwrite", "append_a", OK), ("overwrite", "overwrite", OK),
    ("overwrite", "replace_a", OK), ("overwrite", "delete_a", OK),
    ("overwrite", "schema_change", OK), ("overwrite", "index", OK), ("overwrite", "restore", OK),
    ("replace_partitions", "append_a", R), ("replace_partitions", "append_b", OK),
    ("replace_partitions", "overwrite", R), ("replace_partitions", "replace_a", R),
    ("replace_partitions", "replace_b", OK), ("replace_partitions", "delete_a", R),
    ("replace_partitions", "delete_b", OK), ("replace_partitions", "schema_change", R),
    ("replace_partitions", "index", OK), ("replace_partitions", "restore", R),
    ("delete", "append_a", OK), ("delete", "overwrite", R), ("delete", "replace_a", R),
    ("delete", "replace_b", OK), ("delete", "delete_a", R), ("delete", "delete_b", OK),
    ("delete", "schema_change", R), ("delete", "index", OK), ("delete", "restore", R),
    ("update", "append_a", OK), ("update", "overwrite", R), ("update", "replace_a", R),
    ("update", "replace_b", OK), ("update", "delete_a", R), ("update", "delete_b", OK),
    ("update", "merge_a", R), ("update", "merge_b", OK), ("update", "compact_a", R),
    ("update", "schema_change", R), ("update", "index", OK), ("update", "restore", R),
    ("delete", "merge_a", R), ("append", "merge_a", OK), ("compact", "merge_b", OK),
    ("compact", "append_a", OK), ("compact", "overwrite", R), ("compact", "replace_a", R),
    ("compact", "replace_b", OK), ("compact", "compact_a", R), ("compact", "delete_b", OK),
    ("compact", "schema_change", OK), ("compact", "index", OK), ("compact", "restore", R),
    ("schema_change", "append_a", OK), ("schema_change", "overwrite", R),
    ("schema_change", "replace_a", OK), ("schema_change", "delete_a", OK),
    ("schema_change", "schema_change", R), ("schema_change", "index", OK),
    ("schema_change", "restore", R),
]


def commit_in_cell(root, op, conflicts):
    """Commit ``op`` after the intervening version 2. When ``conflicts``: CommitConflict
    (retryable, naming version 2) and nothing committed, None; else version 3, opened."""
    assert pds.open(root).version == 2
    if conflicts:
        with pytest.raises(CommitConflict) as info:
            commit_operation(RootPaths(root), op)
        assert info.value.retryable and info.value.conflicting_version == 2
        assert pds.open(root).version == 2
        return None
    assert commit_operation(RootPaths(root), op) == 3
    return pds.open(root)


@pytest.mark.parametrize("row, column, expected", CELLS, ids=[f"{a}-vs-{b}" for a, b, _ in CELLS])
def test_conflict_table_cell(tmp_path, row, column, expected):
    root = str(tmp_path / "ds")
    ds = _base(root)
    op = _prepare(row, root, ds)
    _intervene(column, root)
    between = pds.open(root)
    after = commit_in_cell(root, op, expected == R)
    if after is None:
        return
    keys = {f["key"] for f in after.manifest.files}
    ours = {e["key"] for e in op.entries}
    if row == "overwrite":
        assert keys == ours
    else:
        kept = {f["key"] for f in between.manifest.files} - op.removed
        if row == "replace_partitions":
            kept = {f["key"] for f in between.manifest.files if f["partition"]["p"] != "a"}
        assert keys == kept | ours
    pds.publish(root)
    assert pyarrow_rows(root, ["p", "x", "y"]) == row_set(after.read(), ["p", "x", "y"])


def test_replace_partitions_blind_ignores_appends_in_scope(tmp_path):
    root = str(tmp_path / "ds")
    ds = _base(root)
    op = _prepare("replace_partitions", root, ds, blind=True)
    _intervene("append_a", root)
    assert commit_operation(RootPaths(root), op) == 3
    assert sorted(pds.open(root).read(filters=[("p", "==", "a")]).to_pydict()["y"]) == ["rp"]


def test_append_with_incompatible_files_conflicts_with_a_schema_change(tmp_path):
    root = str(tmp_path / "ds")
    ds = _base(root)
    txn = new_txn()
    entry = pds.stage_file(root, {"x": [1], "y": ["s"]}, {"p": "c"}, txn=txn)
    entry["schema"][1]["type"] = "binary"           # a file whose column no longer fits
    op = Operation("append", txn, entries=[entry], read_version=ds.version)
    _intervene("schema_change", root)
    with pytest.raises(CommitConflict, match="incompatibl"):
        commit_operation(RootPaths(root), op)


# --- operation semantics --------------------------------------------------------------------------
def test_modes(tmp_path):
    root = str(tmp_path / "ds")
    assert pds.write(root, {"p": [1, 2], "x": ["a", "b"]}, partition_by=["p"],
                     mode="create") == 0
    with pytest.raises(DatasetExists):
        pds.write(root, {"p": [1], "x": ["c"]}, mode="create")
    assert pds.write(root, {"p": [1], "x": ["c"]}) == 1
    assert row_set(pds.open(root).read()) == row_set({"p": [1, 2, 1], "x": ["a", "b", "c"]})
    assert pds.write(root, {"p": [2, 3], "x": ["d", "e"]}, mode="replace_partitions") == 2
    assert row_set(pds.open(root).read()) == row_set({"p": [1, 1, 2, 3],
                                                      "x": ["a", "c", "d", "e"]})
    assert pds.write(root, {"p": [9], "x": ["z"]}, mode="overwrite") == 3
    assert pds.open(root).read().to_pydict() == {"x": ["z"], "p": [9]}
    assert pds.open(root, version=1).count() == 3
    with pytest.raises(SchemaError, match="mode"):
        pds.write(root, {"p": [1], "x": ["c"]}, mode="upsert")


@pytest.mark.parametrize("scope, match", [
    ({"x": "a"}, "not a partition column"), ({"nope": 1}, "not a partition column"),
    ({}, "non-empty"), ([], "empty"), ({"p": 5}, "outside the replace_partitions scope")])
def test_replace_partitions_scope_is_validated(tmp_path, scope, match):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": [1, 2], "x": ["a", "b"]}, partition_by=["p"])
    with pytest.raises(SchemaError, match=match):
        pds.write(root, {"p": [1], "x": ["c"]}, mode="replace_partitions", scope=scope)
    assert pds.open(root).version == 0                      # nothing replaced


def test_replace_partitions_with_a_prefix_scope(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"y": [1, 1, 2], "m": [1, 2, 1], "x": ["a", "b", "c"]},
              partition_by=["y", "m"])
    pds.write(root, {"y": [1], "m": [7], "x": ["n"]}, mode="replace_partitions",
              scope={"y": 1})
    assert row_set(pds.open(root).read()) == row_set({"y": [1, 2], "m": [7, 1],
                                                      "x": ["n", "c"]})


def test_replace_partitions_needs_partitions(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [1]})
    with pytest.raises(SchemaError, match="partitioned"):
        pds.write(root, {"x": [2]}, mode="replace_partitions")


def test_delete_drops_whole_files_unread_and_rewrites_partial_ones(tmp_path, monkeypatch):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a", "a", "b"], "x": [1, 2, 3]}, partition_by=["p"])
    v = pds.delete(root, [("p", "==", "b")])
    op = pds.open(root).operation
    assert op["type"] == "delete" and op["added"] == [] and len(op["removed"]) == 1
    pds.delete(root, [("x", "==", 1)])
    ds = pds.open(root)
    assert ds.version == v + 1 and ds.read().to_pydict() == {"x": [2], "p": ["a"]}
    assert pds.delete(root, [("x", "==", 99)]) == ds.version     # nothing matched
    assert pds.open(root, version=0).count() == 3                 # time travel still works


def test_compact_merges_small_files_per_partition(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a", "b"], "x": [1, 2]}, partition_by=["p"])
    for i in range(3):
        pds.write(root, {"p": ["a"], "x": [10 + i]})
    before = pds.open(root)
    v = pds.compact(root)
    ds = pds.open(root)
    assert ds.version == v and ds.file_count == 2
    assert row_set(ds.read()) == row_set(before.read())
    assert pds.compact(root) == v                                 # nothing left to do
    assert pyarrow_rows(root, ["p", "x"]) == row_set(ds.read(), ["p", "x"])


def test_restore_brings_back_an_old_version(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a"], "x": [1]}, partition_by=["p"])
    pds.write(root, {"p": ["b"], "x": [2]}, mode="overwrite")
    v = pds.restore(root, 0)
    ds = pds.open(root)
    assert ds.version == v == 2 and ds.read().to_pydict() == {"x": [1], "p": ["a"]}
    assert pyarrow_rows(root, ["p", "x"]) == row_set({"p": ["a"], "x": [1]})


def test_run_id_makes_retries_no_ops(tmp_path):
    root = str(tmp_path / "ds")
    assert pds.write(root, {"x": [1]}, run_id="airflow:daily:41") == 0
    assert pds.write(root, {"x": [1]}, run_id="airflow:daily:41") == 0
    assert pds.write(root, {"x": [1]}, run_id="airflow:daily:40") == 0    # older run
    assert pds.write(root, {"x": [2]}, run_id="airflow:daily:42") == 1
    assert pds.write(root, {"x": [3]}, run_id="once") == 2
    assert pds.write(root, {"x": [3]}, run_id="once") == 2
    ds = pds.open(root)
    assert ds.count() == 3 and ds.manifest.app_txns == {"airflow:daily": 42, "once": 0}


def test_schema_evolution(tmp_path):
    root = str(tmp_path / "ds")
    import pqkit.datatypes as T
    pds.write(root, {"a": [1], "b": [1.5]}, schema=[T.field("a", T.int32()),
                                                     T.field("b", T.float32(),
                                                             nullable=False)])
    with pytest.raises(SchemaError, match="evolve_schema"):
        pds.write(root, {"a": [2], "b": [2.5], "c": ["x"]})
    pds.write(root, {"a": [2**40], "b": [None], "c": ["x"]},
              schema=[T.field("a", T.int64()), T.field("b", T.float64()),
                      T.field("c", T.string())], evolve_schema=True)
    ds = pds.open(root)
    assert [str(f) for f in ds.schema] == ["a: int64", "b: double", "c: string"]
    assert ds.manifest.schema.id == 1 and ds.operation["schema_change"]
    assert row_set(ds.read()) == row_set({"a": [1, 2**40], "b": [1.5, None], "c": [None, "x"]})
    assert ds.read(filters=[("c", "==", "x")]).to_pydict()["a"] == [2 ** 40]
    assert ds.read(filters=[("c", "is_null", None)]).to_pydict()["a"] == [1]   # old file
    assert ds.count([("b", ">", 1.0)]) == 1
    ids = [f["id"] for f in ds.manifest.data["schema"]["fields"]]
    assert ids == [1, 2, 3]
    with pytest.raises(SchemaError, match="does not fit"):
        pds.write(root, {"a": ["text"], "b": [1.0], "c": ["y"]}, evolve_schema=True)


def test_data_with_only_partition_columns_is_refused(tmp_path):
    with pytest.raises(SchemaError, match="besides the partition columns"):
        pds.write(str(tmp_path / "ds"), {"p": [1]}, partition_by=["p"])


def test_unknown_partition_column_is_refused(tmp_path):
    with pytest.raises(SchemaError, match="not a column of the data"):
        pds.write(str(tmp_path / "ds"), {"x": [1]}, partition_by=["p"])
    root = str(tmp_path / "ds2")
    pds.write(root, {"p": [1], "x": [1]}, partition_by=["p"])
    with pytest.raises(SchemaError, match="partitioned by"):
        pds.write(root, {"p": [1], "x": [1]}, partition_by=["x"])
