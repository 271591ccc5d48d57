"""Writing Kartothek v4 datasets (pqkit.dataset.kartothek.writing): random operation
sequences against an oracle, the index files' content, the metadata formats, and the
refusals (bad delete predicates, a second writer, other schemas or tables)."""
import json
import os
import uuid

import fsspec
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from kartothek_build import UUID as UUID_BUILT
from kartothek_build import build
from kartothek_oracle import (
    TABLE,
    UUID,
    check_local_store,
    labels_are_kartothek_keys,
    metadata_bytes_document,
    run_sequence,
    sequences,
)

import pqkit.dataset as pds
from pqkit.dataset.kartothek import KartothekSource
from pqkit.dataset.kartothek.store_access import LOCK_SUFFIX
from pqkit.dataset.kartothek.writing import KartothekWriter
from pqkit.errors import (
    CommitConflict,
    DatasetExists,
    DatasetIncomplete,
    SchemaError,
    UnsupportedFeature,
)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=sequences)
def test_random_operation_sequences_read_back_equal_to_the_oracle(tmp_path_factory, case):
    initial, ops, fmt = case
    store = str(tmp_path_factory.mktemp("kt"))
    run_sequence(store, initial, ops, fmt, lambda oracle: check_local_store(store, oracle))
    doc = KartothekSource(store, UUID, TABLE).document
    assert labels_are_kartothek_keys(doc)
    suffix = ".json" if fmt == "json" else ".msgpack.zstd"
    # no lock, no probe, no other metadata format left behind
    assert sorted(os.listdir(store)) == sorted([f"{UUID}.by-dataset-metadata{suffix}", UUID])


def _writer(tmp_path, **create):
    w = KartothekWriter(str(tmp_path), "ds", "table")
    w.create({"k": [1, 2, 2], "s": ["a", "b", "b"], "v": [1, 2, 3]},
             partition_on=["k", "s"], secondary_indices=["v"], **create)
    return w


@pytest.mark.parametrize("predicate", [[("nope", "==", 1)], [("v", "==", 1)],
                                       [[("k", "==", 1)], [("v", ">", 0)]], [], None,
                                       [("k", "<", "2")]])
def test_delete_refuses_unknown_non_partition_or_empty_predicates(tmp_path, predicate):
    w = _writer(tmp_path)
    before = pds.open(str(tmp_path)).read().num_rows
    with pytest.raises(SchemaError):
        w.delete(predicate)
    assert pds.open(str(tmp_path)).read().num_rows == before == 3


def test_delete_removes_the_partitions_files_and_index_entries(tmp_path):
    w = _writer(tmp_path)
    removed = w.delete([("k", "==", 2)])
    assert len(removed) == 1 and removed[0].startswith("k=2/s=b/")
    assert sorted(pds.open(str(tmp_path)).read().to_pydict()["v"]) == [1]
    assert not os.path.exists(tmp_path / "ds" / "table" / (removed[0] + ".parquet"))
    doc = json.loads((tmp_path / "ds.by-dataset-metadata.json").read_text())
    index = pq.read_table(tmp_path / doc["indices"]["v"]).to_pydict()
    assert index["v"] == [1] and index["partition"] == [list(doc["partitions"])]


def test_msgpack_metadata_is_zstd_compressed_msgpack(tmp_path):
    _writer(tmp_path, metadata_format="msgpack", metadata={"owner": "team"})
    data = (tmp_path / "ds.by-dataset-metadata.msgpack.zstd").read_bytes()
    assert data[:4] == b"\x28\xb5\x2f\xfd"                 # the zstd frame magic
    doc = metadata_bytes_document(data, "msgpack")
    assert doc["dataset_metadata_version"] == 4 and doc["metadata"] == {"owner": "team"}
    assert doc["partition_keys"] == ["k", "s"]
    assert pds.open(str(tmp_path)).read().num_rows == 3


def test_common_metadata_holds_data_then_partition_columns(tmp_path):
    _writer(tmp_path)
    schema = pq.read_schema(tmp_path / "ds" / "table" / "_common_metadata")
    assert schema.names == ["v", "k", "s"]


def test_append_adds_a_file_to_an_existing_partition(tmp_path):
    w = _writer(tmp_path)
    added = w.append({"k": [1], "s": ["a"], "v": [9]})
    files = os.listdir(tmp_path / "ds" / "table" / "k=1" / "s=a")
    assert len(files) == 2 and added[0].rsplit("/", 1)[1] + ".parquet" in files
    assert sorted(pds.open(str(tmp_path)).read().to_pydict()["v"]) == [1, 2, 3, 9]


def test_a_second_writer_is_refused_while_the_lock_exists(tmp_path):
    w = _writer(tmp_path)
    (tmp_path / ("ds" + LOCK_SUFFIX)).write_text("{}")
    with pytest.raises(CommitConflict, match="delete it"):
        w.append({"k": [1], "s": ["a"], "v": [9]})
    os.remove(tmp_path / ("ds" + LOCK_SUFFIX))
    w.append({"k": [1], "s": ["a"], "v": [9]})
    assert not (tmp_path / ("ds" + LOCK_SUFFIX)).exists()


def test_refusals_of_create_and_append(tmp_path):
    w = _writer(tmp_path)
    with pytest.raises(DatasetExists):
        w.create({"k": [1], "v": [1]})
    with pytest.raises(SchemaError, match="differ"):
        w.append({"k": [1], "s": ["a"], "v": [1.5]})
    other = KartothekWriter(str(tmp_path), "other")
    with pytest.raises(SchemaError, match="partition"):
        other.create({"k": [1.5], "v": [1]}, partition_on=["k"])
    with pytest.raises(SchemaError, match="null or empty"):
        other.create({"k": ["a", ""], "v": [1, 2]}, partition_on=["k"])
    assert not (tmp_path / "other" / "table" / "k=a").exists()      # nothing written
    with pytest.raises(SchemaError, match="partition column"):
        other.create({"k": [1], "v": [1]}, partition_on=["k"], secondary_indices=["k"])
    with pytest.raises(SchemaError, match="single values"):
        other.create({"k": [1], "v": [[1, 2]]}, partition_on=["k"], secondary_indices=["v"])
    flat = KartothekWriter(str(tmp_path), "flat")
    flat.create({"v": [1]})
    with pytest.raises(SchemaError, match="not partitioned"):
        flat.overwrite_partitions({"v": [2]})


def test_multi_table_datasets_refuse_writes_but_delete_partitions(tmp_path):
    built = build(str(tmp_path), stray=False)
    w = KartothekWriter(str(tmp_path), UUID_BUILT, "core")
    with pytest.raises(UnsupportedFeature, match="tables"):
        w.update_indices(["value"])
    removed = w.delete([("p_int", "==", 1)])
    assert sorted(removed) == sorted(built["labels"][:2])
    for table in ("core", "aux"):
        source = KartothekSource(str(tmp_path), table=table)
        assert sorted(f.label for f in source.files) == sorted(built["labels"][2:])
    assert not any(os.path.exists(p) for t in ("core", "aux") for p in built["files"][t][:2])


def test_a_store_on_an_object_store_opens_by_url(tmp_path):
    fs = fsspec.filesystem("memory")
    url = f"memory://kt-{uuid.uuid4().hex}"
    w = KartothekWriter(url, "ds", "table")
    w.create({"k": [1, 2, 2], "s": ["a", "b", "b"], "v": [1, 2, 3]},
             partition_on=["k", "s"], secondary_indices=["v"], metadata_format="msgpack")
    added = w.append({"k": [2], "s": ["b"], "v": [4]})
    remote = pds.open_kartothek(url)
    got = remote.read().to_pydict()
    assert sorted(zip(got["v"], got["k"], got["s"])) == \
        [(1, 1, "a"), (2, 2, "b"), (3, 2, "b"), (4, 2, "b")]
    # the index names one partition for v == 4: only that file is opened
    assert [f.key for f in remote.files([("v", "==", 4)])] == added
    assert remote.read(filters=[("v", "==", 4)]).to_pydict()["v"] == [4]
    fs.rm_file(f"/{url.split('://')[1]}/ds/table/{added[0]}.parquet")
    with pytest.raises(DatasetIncomplete, match="missing"):
        pds.open_kartothek(url)


def test_a_document_without_partition_keys_takes_them_from_its_labels(tmp_path):
    _writer(tmp_path)
    path = tmp_path / "ds.by-dataset-metadata.json"
    doc = json.loads(path.read_text())
    del doc["partition_keys"]
    path.write_text(json.dumps(doc))
    w = KartothekWriter(str(tmp_path), "ds", "table")
    added = w.append({"k": [3], "s": ["c"], "v": [4]})
    assert added[0].startswith("k=3/s=c/")
    assert w.delete([("s", "==", "b")])[0].startswith("k=2/s=b/")
    assert sorted(pds.open(str(tmp_path)).read().to_pydict()["v"]) == [1, 4]
