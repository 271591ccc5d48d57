"""Renaming and dropping columns by field id (PQDS/1 ``column_mapping``): metadata-only
commits, every version read under its own names, no data file rewritten."""
import json
import random

import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

import pqkit.dataset as pds
from pqkit.errors import CommitConflict, SchemaError


def _rows(table_dict):
    """Rows as sorted tuples of (column, value) pairs: equal when names and values are."""
    names = sorted(table_dict)
    return sorted((tuple((n, table_dict[n][i]) for n in names)
                   for i in range(len(table_dict[names[0]]) if names else 0)), key=repr)


class Oracle:
    """The dataset as plain Python: data column names in order, and rows as dicts."""

    def __init__(self, columns, rows):
        self.columns = list(columns)
        self.rows = [dict(r) for r in rows]

    def state(self):
        return _rows({c: [r.get(c) for r in self.rows] for c in self.columns + ["p"]})

    def rename(self, old, new):
        self.columns[self.columns.index(old)] = new
        for r in self.rows:
            r[new] = r.pop(old)

    def drop(self, name):
        self.columns.remove(name)
        for r in self.rows:
            del r[name]

    def append(self, batch):
        for c in batch:
            if c != "p" and c not in self.columns:
                self.columns.append(c)
                for r in self.rows:
                    r[c] = None                   # a new column reads as null in old rows
        n = len(batch["p"])
        self.rows += [{c: batch.get(c, [None] * n)[i] for c in self.columns + ["p"]}
                      for i in range(n)]


def _batch(oracle, rng, start, new_column=None):
    n = rng.randint(1, 4)
    out = {"p": [rng.choice(["a", "b"]) for _ in range(n)]}
    for c in oracle.columns:
        out[c] = [start + i for i in range(n)]
    if new_column is not None:
        out[new_column] = [-(start + i) for i in range(n)]
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_renames_and_drops_read_equal_to_the_oracle_at_every_version(store, seed):
    """Random renames, drops, re-adds of dropped names and appends; after each schema
    change the data files are byte-identical and no file was added; at the end every
    version reads equal to the oracle's state at that version (time travel)."""
    rng = random.Random(seed)
    root, o = store.root, store.options
    oracle = Oracle(["c0", "c1", "c2"], [])
    first = {"p": ["a", "b", "a"], "c0": [0, 1, 2], "c1": [10, 11, 12], "c2": [20, 21, 22]}
    pds.write(root, first, partition_by=["p"], mode="create", storage_options=o)
    oracle.append(first)
    states = {0: oracle.state()}
    dropped, counter, schema_changes = [], 100, 0
    while schema_changes < 5 or len(states) < 8:
        kind = rng.choice(["rename", "drop", "append", "readd"] if schema_changes < 5
                          else ["append"])
        before = store.data_file_hashes()
        if kind == "rename":
            old = rng.choice(oracle.columns)
            new = f"{old.split('_')[0]}_r{counter}"
            version = pds.rename_column(root, old, new, storage_options=o)
            oracle.rename(old, new)
        elif kind == "drop" and len(oracle.columns) > 1:
            name = rng.choice(oracle.columns)
            version = pds.drop_column(root, name, storage_options=o)
            oracle.drop(name)
            dropped.append(name)
        elif kind == "readd" and dropped:
            name = dropped.pop(0)                 # the old values must never come back
            batch = _batch(oracle, rng, counter, new_column=name)
            version = pds.write(root, batch, evolve_schema=True, storage_options=o)
            oracle.append(batch)
        else:
            batch = _batch(oracle, rng, counter)
            version = pds.write(root, batch, storage_options=o)
            oracle.append(batch)
        counter += 100
        if kind in ("rename", "drop") and version not in states:
            schema_changes += 1
            assert store.data_file_hashes() == before, kind          # metadata only
        assert version == len(states)                                  # one version each
        states[version] = oracle.state()
        assert _rows(store.open().read().to_pydict()) == states[version]
    hashes = store.data_file_hashes()
    for version, want in states.items():
        ds = store.open(version=version)
        assert _rows(ds.read().to_pydict()) == want, version
    assert store.data_file_hashes() == hashes                  # reading changed nothing


def test_old_files_read_under_new_names_and_hive_readers_see_physical_names(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": [1, 1, 2], "a": [1, 2, 3], "b": ["x", "y", "z"]},
              partition_by=["p"], mode="create")
    pds.build_index(root, "a")
    assert pds.rename_column(root, "a", "alpha") == 2
    pds.write(root, {"p": [3], "alpha": [9], "b": ["w"]})
    ds = pds.open(root)
    assert ds.column_names == ["alpha", "b", "p"]
    # filters, per-file bounds and the index follow the rename
    assert ds.read(filters=[("alpha", "==", 2)]).to_pydict() == \
        {"alpha": [2], "b": ["y"], "p": [1]}
    assert [f.partition_values["p"] for f in ds.files([("alpha", ">", 5)])] == [3]
    assert ds.indices[0]["column"] == "alpha"
    with pytest.raises(SchemaError, match="filter column 'a'"):
        ds.read(filters=[("a", "==", 2)])                    # the old name is gone
    with pytest.raises(pds.DatasetError, match="no column 'a'"):
        ds.read(columns=["a"])
    # the version file declares the feature (an older pqkit refuses to misread it)
    data = json.loads(open(ds.manifest.where, "rb").read())
    assert data["reader_features"] == data["writer_features"] == ["column_mapping"]
    assert data["column_mapping"] == {"physical": {"1": "a", "2": "b"}, "retired": {}}
    # the file appended after the rename names the column physically, as the old ones do
    table = pads.dataset(root, partitioning="hive", format="parquet").to_table()
    assert sorted(table.column_names) == ["a", "b", "p"]
    assert sorted(table.column("a").to_pylist()) == [1, 2, 3, 9]
    # and _common_metadata describes the files
    meta = pq.read_schema(f"{root}/_common_metadata")
    assert meta.names == ["a", "b"]


def test_a_dropped_and_readded_name_is_a_new_column(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"k": [1, 2], "x": [10, 20]}, mode="create")
    pds.drop_column(root, "x")
    pds.write(root, {"k": [3], "x": [30]}, evolve_schema=True)
    ds = pds.open(root)
    assert ds.read().to_pydict() == {"k": [1, 2, 3], "x": [None, None, 30]}
    assert ds.read(filters=[("x", "is_null", None)]).to_pydict() == \
        {"k": [1, 2], "x": [None, None]}
    mapping = ds.manifest.data["column_mapping"]
    assert mapping == {"physical": {"1": "k", "3": "x~1"}, "retired": {"2": "x"}}
    assert pds.open(root, version=0).read().to_pydict() == {"k": [1, 2], "x": [10, 20]}


def test_operations_after_a_rename_keep_the_physical_names(tmp_path):
    """delete, merge, compact and stage_file + commit write the physical names, and the
    index keeps answering."""
    root = str(tmp_path / "ds")
    pds.write(root, {"p": ["a", "a", "b"], "k": [1, 2, 3], "v": [1.0, 2.0, 3.0]},
              partition_by=["p"], mode="create")
    pds.build_index(root, "k")
    pds.rename_column(root, "k", "key")
    pds.rename_column(root, "v", "value")
    pds.delete(root, [("key", "==", 1)])
    pds.merge(root, {"p": ["b", "a"], "key": [3, 7], "value": [-3.0, -7.0]}, on=["key"])
    entry = pds.stage_file(root, {"key": [8], "value": [8.0]}, {"p": "b"})
    pds.commit(root, [entry], mode="append")
    pds.compact(root)
    want = {(2, 2.0, "a"), (3, -3.0, "b"), (7, -7.0, "a"), (8, 8.0, "b")}
    ds = pds.open(root)
    got = ds.read().to_pydict()
    assert set(zip(got["key"], got["value"], got["p"])) == want
    assert ds.read(filters=[("key", "==", 8)]).to_pydict()["value"] == [8.0]
    table = pads.dataset(root, partitioning="hive", format="parquet").to_table()
    assert sorted(table.column_names) == ["k", "p", "v"]
    assert set(zip(table.column("k").to_pylist(), table.column("v").to_pylist(),
                   table.column("p").to_pylist())) == want


@pytest.mark.parametrize("call, match", [
    (lambda r: pds.rename_column(r, "p", "q"), "partition column"),
    (lambda r: pds.rename_column(r, "nope", "q"), "no column 'nope'"),
    (lambda r: pds.rename_column(r, "a", "b"), "no column has"),
    (lambda r: pds.rename_column(r, "a", "p"), "no column has"),
    (lambda r: pds.rename_column(r, "a", ""), "no column has"),
    (lambda r: pds.drop_column(r, "p"), "partition column"),
], ids=["rename-partition", "rename-unknown", "rename-to-existing", "rename-to-partition",
        "rename-to-empty", "drop-partition"])
def test_bad_schema_changes_are_refused(tmp_path, call, match):
    root = str(tmp_path / "ds")
    pds.write(root, {"p": [1], "a": [1], "b": [2]}, partition_by=["p"], mode="create")
    with pytest.raises(SchemaError, match=match):
        call(root)
    assert pds.open(root).version == 0


def test_the_last_data_column_cannot_be_dropped(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"a": [1], "b": [2]}, mode="create")
    pds.drop_column(root, "a")
    with pytest.raises(SchemaError, match="last data column"):
        pds.drop_column(root, "b")


def test_an_append_of_a_renamed_column_conflicts_and_a_plain_one_rebases(tmp_path,
                                                                         monkeypatch):
    """An append staged before a concurrent rename of a column it writes conflicts
    (retryable); written again under the new name, it commits on top."""
    root = str(tmp_path / "ds")
    pds.write(root, {"a": [1], "b": [2]}, mode="create")
    from pqkit.dataset.pqds import staging
    real = staging.commit_operation

    def rename_first(paths, op):
        if op.type == "append":
            pds.rename_column(root, "a", "z")
        return real(paths, op)
    monkeypatch.setattr(staging, "commit_operation", rename_first)
    with pytest.raises(CommitConflict) as info:
        pds.write(root, {"a": [3], "b": [4]})
    assert info.value.retryable
    monkeypatch.setattr(staging, "commit_operation", real)
    assert pds.write(root, {"z": [3], "b": [4]}) == 2
    assert pds.open(root).read().to_pydict() == {"z": [1, 3], "b": [2, 4]}


def test_the_spark_source_refuses_a_version_with_renamed_columns(tmp_path):
    """Its executors read files by column name; a renamed column would read as nulls."""
    from pqkit.spark.jobs.dataset import dataset_fields
    root = str(tmp_path / "ds")
    pds.write(root, {"a": [1], "b": [2]}, mode="create")
    assert [f.name for f in dataset_fields(pds.open(root))[2]] == ["a", "b"]
    pds.rename_column(root, "a", "z")
    with pytest.raises(pds.UnsupportedFeature, match="column_mapping"):
        dataset_fields(pds.open(root))
    assert [f.name for f in dataset_fields(pds.open(root, version=0))[2]] == ["a", "b"]


# --- the conflict table's schema-change row and column for renames and drops ---------------------
# The dataset and the operations are those of test_operations.py (A1, A2 in p=a, B1 in p=b).
RENAME_CELLS = [
    # a rename committed in between: writers that name the old column conflict
    ("append", "rename_y", "conflict"), ("overwrite", "rename_y", "ok"),
    ("replace_partitions", "rename_y", "conflict"), ("delete", "rename_y", "conflict"),
    ("update", "rename_y", "conflict"), ("compact", "rename_y", "conflict"),
    ("schema_change", "rename_y", "conflict"),
    # a rename prepared against version 1 and committed after another operation
    ("rename_y", "append_a", "ok"), ("rename_y", "replace_a", "ok"),
    ("rename_y", "delete_a", "ok"), ("rename_y", "merge_a", "ok"),
    ("rename_y", "compact_a", "ok"), ("rename_y", "index", "ok"),
    ("rename_y", "overwrite", "conflict"), ("rename_y", "restore", "conflict"),
    ("rename_y", "schema_change", "conflict"), ("drop_y", "rename_y", "conflict"),
]


@pytest.mark.parametrize("row, column, expected", RENAME_CELLS,
                         ids=[f"{a}-vs-{b}" for a, b, _ in RENAME_CELLS])
def test_conflict_table_cell_of_a_rename(tmp_path, row, column, expected):
    from test_operations import _base, _intervene, _prepare, commit_in_cell

    from pqkit.dataset.core.fsops import new_txn
    from pqkit.dataset.pqds.operations import Operation

    edits = {"rename_y": ("rename", "y", "yy"), "drop_y": ("drop", "y")}
    root = str(tmp_path / "ds")
    ds = _base(root)
    op = Operation("schema_change", new_txn(), read_version=ds.version,
                   schema_edit=edits[row]) if row in edits else _prepare(row, root, ds)
    if column in edits:
        pds.rename_column(root, "y", "yy")
    else:
        _intervene(column, root)
    between = pds.open(root)
    after = commit_in_cell(root, op, expected == "conflict")
    if after is None:
        return
    if row == "rename_y":                      # the files of version 2, under the new name
        assert after.manifest.files == between.manifest.files
        renamed = {("yy" if k == "y" else k): v for k, v in between.read().to_pydict().items()}
        assert _rows(after.read().to_pydict()) == _rows(renamed)
        assert pds.open(root, version=2).column_names == between.column_names
    else:                                      # an overwrite: only its own file is left
        assert {f["key"] for f in after.manifest.files} == {e["key"] for e in op.entries}
        assert after.column_names == ["x", "y", "p"]
