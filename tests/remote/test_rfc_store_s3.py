"""RFC-0008's ParquetDatasetStore on the local S3 server: write, read, exists and delete
by URL, with the request log showing ``_SUCCESS`` deleted first and PUT last."""
import uuid

import pyarrow as pa
import pytest

from pqkit.dataset import AlreadyExists, DatasetIncomplete, ParquetDatasetStore
from s3server import BUCKET


def sample(n):
    return pa.table({"id": pa.array(range(n), pa.int64()),
                     "x": pa.array([i / 4 for i in range(n)])})


def test_rfc_store_on_s3(s3, s3fs_options, s3_fs):
    prefix = f"rfc-{uuid.uuid4().hex}"
    store = ParquetDatasetStore(f"s3://{BUCKET}/{prefix}", max_rows_per_file=3,
                                storage_options=s3fs_options)
    assert not store.dataset_exists("gold/t")
    m = store.write_dataset(sample(7), "gold/t", run_id="r1")
    assert m.parts == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    assert store.dataset_exists("gold/t")
    assert store.read_dataset("gold/t").to_pydict() == sample(7).to_pydict()
    assert store.read_manifest("gold/t") == m
    with pytest.raises(AlreadyExists):
        store.write_dataset(sample(2), "gold/t")

    mark = s3.log.mark()
    store.write_dataset(sample(2), "gold/t", overwrite=True)
    writes = [(r.method, r.path.rsplit("/", 1)[1]) for r in s3.log.since(mark)
              if r.method in ("PUT", "DELETE", "POST")]
    assert writes[0] == ("DELETE", "_SUCCESS") and writes[-1] == ("PUT", "_SUCCESS")
    manifest = writes.index(("PUT", "manifest.json"))
    assert writes[1:manifest] == [("PUT", "data.parquet")]
    assert sorted(n for op, n in writes[manifest:] if op == "DELETE") == \
        ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    assert store.read_dataset("gold/t").to_pydict() == sample(2).to_pydict()
    s3_fs.invalidate_cache()
    assert sorted(p.rsplit("/", 1)[1] for p in s3_fs.find(f"{BUCKET}/{prefix}/gold/t")) == \
        ["_SUCCESS", "data.parquet", "manifest.json"]

    s3_fs.rm_file(f"{BUCKET}/{prefix}/gold/t/_SUCCESS")
    with pytest.raises(DatasetIncomplete):
        store.read_dataset("gold/t")
    store.delete_dataset("gold/t")
    s3_fs.invalidate_cache()
    assert not s3_fs.find(f"{BUCKET}/{prefix}")
    assert not store.dataset_exists("gold/t")
