"""A published PQDS/1 dataset on the local S3 server: opened, planned and read by URL.

The dataset is written on the local disk by pqkit.dataset and uploaded as
published (visible Hive tree, ``_pqkit/_latest`` and the version files); the
object-store read side then names every key it needs, so planning costs the
same three requests at any file count.
"""
import uuid

import numpy as np
import pyarrow.dataset as pads
import pytest

import pqkit.dataset as pds
from s3server import BUCKET, upload_published


def _published(root, files):
    """Write a dataset of ``files`` partitions (a, b) and append to two of them."""
    n = files
    pds.write(root, {"a": np.arange(n) // 10, "b": np.arange(n) % 10, "id": np.arange(n),
                     "x": np.arange(n) * 0.5}, partition_by=["a", "b"], mode="create")
    pds.write(root, {"a": [0, 1], "b": [0, 1], "id": [n, n + 1], "x": [-1.0, -2.0]})


@pytest.fixture(scope="module")
def datasets(s3, tmp_path_factory):
    """{file count: (local root, URL)} for datasets of 30 and 300 partitions."""
    out = {}
    for files in (30, 300):
        root = str(tmp_path_factory.mktemp("ds") / "t")
        _published(root, files)
        prefix = f"datasets/{uuid.uuid4().hex}/"
        upload_published(s3.boto3_client(), root, prefix)
        out[files] = root, f"s3://{BUCKET}/{prefix.rstrip('/')}"
    return out


def _sorted_rows(table):
    d = table.to_pydict()
    return sorted(zip(*(d[k] for k in sorted(d))))


@pytest.mark.parametrize("files", [30, 300])
def test_read_by_url_equals_local(datasets, s3fs_options, files):
    root, url = datasets[files]
    remote = pds.open(url, storage_options=s3fs_options)
    local = pds.open(root)
    assert remote.version == local.version == 1
    assert remote.file_count == local.file_count == files + 2       # the append adds two
    assert _sorted_rows(remote.read()) == _sorted_rows(local.read())
    point = [("a", "==", 1), ("b", "==", 1)]
    assert _sorted_rows(remote.read(filters=point)) == _sorted_rows(local.read(filters=point))


def test_planning_costs_three_requests_at_any_file_count(s3, datasets, s3fs_options):
    counts = {}
    for files, (_, url) in datasets.items():
        mark = s3.log.mark()
        chosen = pds.open(url, storage_options=s3fs_options).files(
            [("a", "==", 2), ("b", "==", 7), ("id", "==", 27)])
        requests = s3.log.since(mark)
        assert [f.path for f in chosen] and len(chosen) == 1
        assert not any(r.is_list for r in requests), requests
        counts[files] = [(r.method, r.path.rsplit("/", 1)[-1]) for r in requests]
    # hint, latest version file, the next version's 404
    assert counts[30] == [("GET", "_latest"), ("GET", "_00000000000000000001.json"),
                          ("GET", "_00000000000000000002.json")]
    assert len(counts[300]) == len(counts[30]) == 3


def test_pyarrow_dataset_reads_the_same_rows(s3, datasets, s3fs_options):
    url = datasets[300][1]
    prefix = url.removeprefix("s3://")
    table = pads.dataset(prefix, filesystem=s3.pyarrow_fs(), format="parquet",
                         partitioning="hive").to_table()
    ours = pds.open(url, storage_options=s3fs_options).read()
    assert sorted(table.column("id").to_pylist()) == sorted(ours.column("id").to_pylist())
    assert table.num_rows == 302


def test_a_version_with_a_planning_index_opens_without_its_file_list(s3, s3fs_options):
    """Publish on the store writes the planning index and announces it in the hint; the
    reader then plans a partition query from the index: the version file is never
    downloaded (a HEAD proves it is the file the index was derived from)."""
    url = f"s3://{BUCKET}/planned-{uuid.uuid4().hex}"
    n = 40
    pds.write(url, {"a": np.arange(n) % 8, "id": np.arange(n)}, partition_by=["a"],
              mode="create", properties={"planning.index.min_files": "0"},
              storage_options=s3fs_options)
    pds.write(url, {"a": [3], "id": [n]}, storage_options=s3fs_options)
    mark = s3.log.mark()
    ds = pds.open(url, storage_options=s3fs_options)
    chosen = ds.files([("a", "==", 3)])
    requests = [(r.method, r.path.rsplit("/", 1)[-1]) for r in s3.log.since(mark)]
    assert ds._manifest is None and len(chosen) == 2
    assert not any(r.is_list for r in s3.log.since(mark)), requests
    assert len(requests) == 7, requests           # docs/DATASET.md names each of them
    assert ("GET", "_00000000000000000001.json") not in requests, requests
    assert ("HEAD", "_00000000000000000001.json") in requests
    assert sorted(ds.read(filters=[("a", "==", 3)]).column("id").to_pylist()) == \
        [3, 11, 19, 27, 35, n]
