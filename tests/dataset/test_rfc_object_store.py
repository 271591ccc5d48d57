"""RFC-0008's ParquetDatasetStore on an object store (fsspec's ``memory://`` here; the S3
variant is tests/remote/test_rfc_store_s3.py): the same write/read/exists/delete
semantics as on a directory, ``_SUCCESS`` written last and deleted first, a crashed
write never read, and the objects valid for the RFC's independent reference reader."""
import json
import uuid

import fsspec
import pyarrow as pa
import pytest
import rfc0008_reference as ref

from pqkit.dataset import (
    AlreadyExists,
    DatasetIncomplete,
    DatasetNotFound,
    ManifestCorrupted,
    ParquetDatasetStore,
)
from pqkit.dataset.core import ObjectStorage


def sample(n=7):
    return pa.table({"id": pa.array(range(n), pa.int64()),
                     "name": pa.array([f"n{i}" if i % 3 else None for i in range(n)])})


@pytest.fixture
def lake():
    """(store URL, memory file system, the store's key) of a fresh memory store."""
    fs = fsspec.filesystem("memory")
    name = f"lake-{uuid.uuid4().hex}"
    yield f"memory://{name}", fs, f"/{name}"
    if fs.exists(f"/{name}"):
        fs.rm(f"/{name}", recursive=True)


def copy_down(fs, key, local):
    for path in fs.find(key):
        dst = local / path[len(key) + 1:]
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(fs.cat_file(path))


def test_write_read_exists_delete_as_on_a_directory(lake, tmp_path):
    url, fs, key = lake
    remote = ParquetDatasetStore(url, max_rows_per_file=4)
    local = ParquetDatasetStore(str(tmp_path / "local"), max_rows_per_file=4)
    assert not remote.dataset_exists("silver/orders")
    m = remote.write_dataset(sample(), "silver/orders", run_id="r1", metadata={"team": "x"})
    lm = local.write_dataset(sample(), "silver/orders", run_id="r1", metadata={"team": "x"})
    assert (m.parts, m.row_count, m.schema_hash, m.run_id, m.metadata) == \
        (lm.parts, lm.row_count, lm.schema_hash, lm.run_id, lm.metadata)
    assert remote.dataset_exists("silver/orders")
    assert remote.read_manifest("silver/orders") == m
    assert remote.read_dataset("silver/orders").to_pydict() == sample().to_pydict()
    assert remote.read_dataset("silver/orders", columns=["id"]).to_pydict() == \
        {"id": list(range(7))}
    # the objects are an RFC dataset for the independent reference reader
    copy_down(fs, key, tmp_path / "copy")
    checked = ref.validate(str(tmp_path / "copy"), "silver/orders")
    checked.pop("part_facts")
    assert checked == json.loads(m.to_json())
    with pytest.raises(AlreadyExists):
        remote.write_dataset(sample(2), "silver/orders")
    remote.write_dataset(sample(2), "silver/orders", overwrite=True)
    assert remote.read_dataset("silver/orders").to_pydict() == sample(2).to_pydict()
    assert sorted(p.rsplit("/", 1)[1] for p in fs.find(f"{key}/silver/orders")) == \
        ["_SUCCESS", "data.parquet", "manifest.json"]          # the old parts are gone
    remote.delete_dataset("silver/orders")
    assert not remote.dataset_exists("silver/orders") and not fs.find(key)
    with pytest.raises(DatasetNotFound):
        remote.delete_dataset("silver/orders")
    with pytest.raises(DatasetNotFound):
        remote.read_manifest("silver/orders")


def test_success_is_deleted_first_and_written_last(lake, monkeypatch):
    url, _, _ = lake
    store = ParquetDatasetStore(url, max_rows_per_file=4)
    store.write_dataset(sample(), "k")
    calls = []
    for name in ("put_new", "replace", "remove"):
        original = getattr(ObjectStorage, name)

        def record(self, path, *args, _name=name, _original=original):
            calls.append((_name, path.rsplit("/", 1)[1]))
            return _original(self, path, *args)
        monkeypatch.setattr(ObjectStorage, name, record)
    store.write_dataset(sample(9), "k", overwrite=True)
    assert calls[0] == ("remove", "_SUCCESS")
    assert calls[-1] == ("put_new", "_SUCCESS")
    names = [n for _, n in calls]
    manifest = names.index("manifest.json")
    # every new part before the manifest, every old part deleted after it
    assert [n for op, n in calls[:manifest] if op == "put_new"] == \
        ["part-00002.parquet", "part-00003.parquet", "part-00004.parquet"]
    assert sorted(n for op, n in calls[manifest:] if op == "remove") == \
        ["part-00000.parquet", "part-00001.parquet"]
    calls.clear()
    store.delete_dataset("k")
    assert calls[0] == ("remove", "_SUCCESS") and len(calls) == 5


def test_a_write_that_dies_before_the_manifest_is_never_read(lake, monkeypatch):
    url, fs, key = lake
    store = ParquetDatasetStore(url)
    store.write_dataset(sample(), "k")

    def die(self, path, data):
        raise OSError("the process died here")
    monkeypatch.setattr(ObjectStorage, "replace", die)
    with pytest.raises(OSError):
        store.write_dataset(sample(3), "k", overwrite=True)
    monkeypatch.undo()
    assert not store.dataset_exists("k")
    with pytest.raises(DatasetIncomplete, match="_SUCCESS"):
        store.read_dataset("k")
    # the old parts were never touched: the next write replaces the crashed one
    assert store.read_manifest("k").row_count == 7
    store.write_dataset(sample(3), "k", overwrite=True)
    assert store.read_dataset("k").to_pydict() == sample(3).to_pydict()
    assert sorted(p.rsplit("/", 1)[1] for p in fs.find(f"{key}/k")) == \
        ["_SUCCESS", "manifest.json", "part-00000.parquet"]


def test_reading_checks_every_part(lake):
    url, fs, key = lake
    store = ParquetDatasetStore(url, max_rows_per_file=4)
    store.write_dataset(sample(), "k")
    fs.pipe_file(f"{key}/k/part-00001.parquet",
                 fs.cat_file(f"{key}/k/part-00001.parquet") + b"x")
    with pytest.raises(ManifestCorrupted, match="bytes"):
        store.read_dataset("k")
    fs.rm_file(f"{key}/k/part-00001.parquet")
    with pytest.raises(DatasetIncomplete, match="missing"):
        store.read_dataset("k")
