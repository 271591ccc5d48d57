"""Kartothek v4 datasets (issue 17 item 1): open read-only, prune with the index, import.

The datasets are built by hand from the Kartothek specification
(``kartothek_build``): JSON and msgpack.zstd metadata, two tables, partitions
typed int/string/date, an inverted index on ``c_id``, and a stray file that no
partition lists.
"""
import datetime
import json
import os

import pyarrow.parquet as pq
import pytest
from dshelpers import row_set
from kartothek_build import (
    PARTITIONS,
    UUID,
    build,
    encode,
    expected_rows,
    tree_checksums,
)

import pqkit.dataset as pds
from pqkit import datatypes as T
from pqkit.dataset import (
    DatasetError,
    DatasetExists,
    DatasetIncomplete,
    ManifestCorrupted,
    UnsupportedFeature,
)
from pqkit.dataset.core import scan

COLUMNS = {"core": ["c_id", "value", "name", "p_int", "p_str", "p_date"],
           "aux": ["c_id", "flag", "p_int", "p_str", "p_date"]}


@pytest.fixture(params=["json", "msgpack"])
def store(request, tmp_path):
    built = build(str(tmp_path / "store"), request.param)
    return str(tmp_path / "store"), built


@pytest.fixture
def opened(monkeypatch):
    """The relative paths of the data files reads open, in order."""
    paths = []
    real = scan.open_entry

    def counting(source, entry):
        paths.append(entry["path"])
        return real(source, entry)

    monkeypatch.setattr(scan, "open_entry", counting)
    return paths


@pytest.mark.parametrize("table", ["core", "aux"])
def test_rows_equal_pyarrow_plus_typed_partitions(store, table):
    root, built = store
    ds = pds.open_kartothek(root, UUID, table)
    types = {f.name: f.type for f in ds.schema}
    assert types["p_int"] == T.int64()
    assert types["p_str"] == T.string()
    assert types["p_date"] == T.date32()
    assert ds.partition_by == ["p_int", "p_str", "p_date"]
    cols = COLUMNS[table]
    assert row_set(ds.read(), cols) == expected_rows(built, table, cols)
    assert ds.count() == 12 and ds.file_count == 4


def test_stray_file_is_not_read(store):
    root, built = store
    stray = os.path.join(os.path.dirname(built["files"]["core"][0]), "stray.parquet")
    assert os.path.exists(stray)
    ds = pds.open_kartothek(root, table="core")
    assert sorted(f.entry["key"] for f in ds.files()) == sorted(built["labels"])
    ids = ds.read().column("c_id").to_pylist()
    assert len(ids) == 12 and 99 not in ids              # the stray file holds c_id 99


def test_missing_listed_file_raises_incomplete(store):
    root, built = store
    os.remove(built["files"]["aux"][2])
    pds.open_kartothek(root, table="core").read()           # the other table is whole
    with pytest.raises(DatasetIncomplete, match="missing"):
        pds.open_kartothek(root, table="aux")


def test_index_point_query_opens_only_indexed_partitions(store, opened):
    root, built = store
    ds = pds.open_kartothek(root, table="core")
    # c_id 5 lies within every file's bounds (0..8, 1..9, 2..10, 3..11): only the index
    # can tell that partition 1 alone holds it.
    got = ds.read(filters=[("c_id", "==", 5)]).to_pydict()
    assert got["c_id"] == [5] and got["p_str"] == ["x/y"]
    assert opened == [built["labels"][1] + ".parquet"]
    opened.clear()
    got = ds.read(filters=[("c_id", "in", [4, 11])])
    assert sorted(got.column("c_id").to_pylist()) == [4, 11]
    assert sorted(opened) == sorted(built["labels"][i] + ".parquet" for i in (0, 3))
    opened.clear()
    full = [r for r in row_set(ds.read(), ["c_id", "p_int"]) if r[0] in (4, 11)]
    assert len(opened) == 4 and row_set(got, ["c_id", "p_int"]) == full


def test_without_index_every_partition_is_opened(tmp_path, opened):
    root = str(tmp_path / "s")
    build(root, "json", index=False)
    ds = pds.open_kartothek(root, table="core")
    assert ds.read(filters=[("c_id", "==", 5)]).column("c_id").to_pylist() == [5]
    assert len(opened) == 4


def test_partition_filter_prunes_typed(store, opened):
    root, built = store
    ds = pds.open_kartothek(root, table="aux")
    got = ds.read(filters=[("p_date", "==", datetime.date(2024, 1, 31)), ("p_int", ">", 1)])
    assert set(got.column("p_str").to_pylist()) == {"é%"}
    assert opened == [built["labels"][2] + ".parquet"]


def test_open_detects_store_dataset_and_table_paths(store):
    root, _ = store
    with pytest.raises(DatasetError, match="choose one with table="):
        pds.open(root)
    with pytest.raises(DatasetError, match="choose one with table="):
        pds.open(os.path.join(root, UUID))
    ds = pds.open(os.path.join(root, UUID, "aux"))
    assert pds.detect_layout(os.path.join(root, UUID, "aux")) == "kartothek"
    assert ds.read().num_rows == 12 and ds.file_count == 4       # the stray file is in core
    with pytest.raises(DatasetError, match="no table 'nope'"):
        pds.open_kartothek(root, table="nope")


def test_single_table_dataset_opens_from_the_store(tmp_path):
    root = str(tmp_path / "s")
    built = build(root, "json")
    path = built["metadata_path"]
    with open(path) as f:
        doc = json.load(f)
    for part in doc["partitions"].values():
        del part["files"]["aux"]
    with open(path, "w") as f:
        json.dump(doc, f)
    ds = pds.open(root)
    assert ds.root.endswith("/core") and ds.read().num_rows == 12


def test_bad_metadata_is_named(tmp_path):
    root = str(tmp_path / "s")
    built = build(root, "json")
    path = built["metadata_path"]
    with open(path) as f:
        doc = json.load(f)
    for change, error, text in [
        ({"dataset_metadata_version": 3}, UnsupportedFeature, "version 3"),
        ({"dataset_uuid": "other"}, ManifestCorrupted, "dataset_uuid"),
        ({"partitions": {"a": {"files": {"core": "elsewhere/x.parquet"}}}}, ManifestCorrupted,
         "does not lie under"),
        ({"partitions": {"a": {"files": {"core": f"{UUID}/core/../x.parquet"}}}},
         ManifestCorrupted, "not a relative"),
        ({"partitions": [1, 2]}, ManifestCorrupted, "partitions"),
        ({"partition_keys": ["p_int"]}, ManifestCorrupted, "partition_keys"),
    ]:
        with open(path, "w") as f:
            json.dump({**doc, **change}, f)
        with pytest.raises(error, match=text):
            pds.open_kartothek(root, table="core")
    with open(path, "wb") as f:
        f.write(b"{not json")
    with pytest.raises(ManifestCorrupted, match="not JSON"):
        pds.open_kartothek(root, table="core")


def test_truncated_msgpack_zstd_is_corrupted(tmp_path):
    root = str(tmp_path / "s")
    built = build(root, "msgpack")
    with open(built["metadata_path"], "rb") as f:
        data = f.read()
    with open(built["metadata_path"], "wb") as f:
        f.write(data[: len(data) // 2])
    with pytest.raises(ManifestCorrupted, match="zstd"):
        pds.open_kartothek(root, table="core")
    with open(built["metadata_path"], "wb") as f:
        f.write(encode({"dataset_metadata_version": 4}, "msgpack")[:6])
    with pytest.raises(ManifestCorrupted, match="zstd"):
        pds.open_kartothek(root, table="core")


def test_missing_common_metadata_and_index(tmp_path):
    root = str(tmp_path / "s")
    built = build(root, "json")
    os.remove(built["index_path"])
    with pytest.raises(DatasetIncomplete, match="index file"):
        pds.open_kartothek(root, table="core")
    build(root, "json")
    os.remove(os.path.join(root, UUID, "aux", "_common_metadata"))
    with pytest.raises(DatasetIncomplete, match="_common_metadata"):
        pds.open_kartothek(root, table="aux")


def test_writes_into_kartothek_are_refused_before_import(store):
    root, _ = store
    with pytest.raises(DatasetError, match="import_kartothek"):
        pds.write(os.path.join(root, UUID, "core"), {"c_id": [1]})


def test_import_then_append_then_read_keeps_kartothek_files(store, opened):
    root, built = store
    before = tree_checksums(root)
    table_root = pds.import_kartothek(root, UUID, table="core")
    assert table_root == os.path.join(root, UUID, "core")
    ds = pds.open(table_root)
    assert ds.version == 0 and pds.detect_layout(table_root) == "pqds"
    cols = COLUMNS["core"]
    assert row_set(ds.read(), cols) == expected_rows(built, "core", cols)
    # the Kartothek index became a PQDS/1 segment: still one partition opened
    opened.clear()
    assert ds.read(filters=[("c_id", "==", 5)]).column("p_str").to_pylist() == ["x/y"]
    assert opened == [built["labels"][1] + ".parquet"]
    new = {"c_id": [100, 5], "value": [9.5, 9.0], "name": ["new", "dup"],
           "p_int": [7, 1], "p_str": ["a b", "x/y"],
           "p_date": [datetime.date(2025, 5, 5), datetime.date(2024, 2, 1)]}
    assert pds.write(table_root, new) == 1
    after = pds.open(table_root)
    assert after.count() == 14 and after.file_count == 6
    expected = expected_rows(built, "core", cols) + [tuple(new[c][i] for c in cols)
                                                     for i in range(2)]
    assert row_set(after.read(), cols) == sorted(expected, key=repr)
    got = after.read(filters=[("c_id", "==", 5)])
    assert sorted(got.column("name").to_pylist()) == ["dup", "n1-1"]
    now = tree_checksums(root)
    assert {p: now.get(p) for p in before} == before        # every Kartothek file untouched
    # Kartothek's own view (its files, read with pyarrow) is unchanged
    for path in built["files"]["core"]:
        assert pq.read_table(path).num_rows == 3
    assert pds.open_kartothek(root, table="core").count() == 12
    with pytest.raises(DatasetExists):
        pds.import_kartothek(root, UUID, table="core")


def test_import_of_msgpack_dataset_other_table(tmp_path):
    root = str(tmp_path / "s")
    built = build(root, "msgpack", index=False)
    table_root = pds.import_kartothek(root, table="aux")
    ds = pds.open(table_root)
    assert ds.indices == []
    assert row_set(ds.read(), COLUMNS["aux"]) == expected_rows(built, "aux", COLUMNS["aux"])
    assert [f.partition_values["p_date"] for f in ds.files(filters=[("p_int", "==", 3)])] == \
        [PARTITIONS[3][2]]


def test_bool_and_timestamp_partitions_typed_from_common_metadata(tmp_path):
    import pyarrow as pa
    types = [("p_flag", pa.bool_()), ("p_ts", pa.timestamp("ns"))]
    # Kartothek writes str() of the value: "True", "2024-01-31 12:30:00"
    parts = [(True, datetime.datetime(2024, 1, 31, 12, 30)),
             (False, datetime.datetime(2023, 5, 6, 0, 0, 1))]
    root = str(tmp_path / "s")
    built = build(root, "json", partition_types=types, partitions=parts, index=False)
    ds = pds.open_kartothek(root, table="core")
    assert {f.name: f.type for f in ds.schema}["p_flag"] == T.bool_()
    assert str({f.name: f.type for f in ds.schema}["p_ts"]) == "timestamp[ns]"
    cols = ["c_id", "name", "p_flag", "p_ts"]
    assert row_set(ds.read(), cols) == expected_rows(built, "core", cols)
    assert ds.read(filters=[("p_flag", "==", False)]).num_rows == 3


def test_dataset_without_partitions_is_empty(tmp_path):
    root = str(tmp_path / "s")
    build(root, "json", partitions=[], index=False, stray=False)
    ds = pds.open_kartothek(root, table="aux")
    assert ds.count() == 0 and ds.file_count == 0
    assert ds.partition_by == ["p_int", "p_str", "p_date"]
    assert ds.read().num_rows == 0


def test_pqinspect_dataset_reads_a_kartothek_table(store, capsys):
    from pqkit.cli.main import main
    root, _ = store
    table_root = os.path.join(root, UUID, "core")
    assert main(["dataset", "info", table_root, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["layout"] == "kartothek" and info["dataset_key"] == UUID
    assert info["totals"]["files"] == 4 and info["publish"]["state"] == "complete"
    assert main(["dataset", "files", table_root, "--json", "--filter", "p_int == 2"]) == 0
    files = json.loads(capsys.readouterr().out)
    assert files["pruning"]["selected_files"] == 1
    with pytest.raises(DatasetError, match="nothing to repair"):
        pds.repair(table_root)


def test_operations_that_would_move_kartothek_files_are_refused(tmp_path):
    root = str(tmp_path / "s")
    build(root, "json")
    before = tree_checksums(root)
    table_root = pds.import_kartothek(root, table="aux")
    new = {"c_id": [1], "flag": [True], "p_int": [1], "p_str": ["a b"],
           "p_date": [datetime.date(2024, 1, 31)]}
    for attempt in (lambda: pds.write(table_root, new, mode="overwrite"),
                    lambda: pds.delete(table_root, [("p_int", "==", 3)])):
        with pytest.raises(DatasetError, match="kartothek still references"):
            attempt()
    assert pds.open(table_root).version == 0
    assert pds.write(table_root, new) == 1                 # appending stays possible
    # two small files in one partition now: compacting would rewrite the imported one
    with pytest.raises(DatasetError, match="kartothek still references"):
        pds.compact(table_root)
    assert pds.open(table_root).count() == 13 and pds.open(table_root).version == 1
    now = tree_checksums(root)
    assert {p: now.get(p) for p in before} == before
