"""pqkit.spark.write to s3:// on the local S3 server (moto): the executors write the
data files to their final keys, the driver commits one PQDS/1 version by a
conditional PUT."""
import uuid

import pytest

import pqkit.dataset as pds
import pqkit.spark
from pqkit.errors import SchemaError
from s3server import BUCKET


def _frame(spark, start, n):
    return spark.createDataFrame(
        [(i, f"k{i % 3}", None if i % 5 == 0 else i * 0.5) for i in range(start, start + n)],
        "id long, k string, x double").repartition(2)


def _rows(table):
    d = table.to_pydict()
    return sorted(zip(d["id"], d["k"], d["x"]))


def test_spark_write_to_s3_commits_one_version(spark, s3, s3fs_options, s3_fs):
    url = f"s3://{BUCKET}/spark-write/{uuid.uuid4().hex}"
    df = _frame(spark, 0, 60)
    mark = s3.log.mark()
    result = pqkit.spark.write(df, url, partition_by=["k"], storage_options=s3fs_options)
    version_puts = [r for r in s3.log.since(mark)
                    if r.method == "PUT" and "/_pqkit/versions/" in r.path]
    assert result.version == 0 and len(version_puts) == 1
    ds = pds.open(url, storage_options=s3fs_options)
    assert ds.version == 0 and ds.partition_by == ["k"]
    expected = sorted((r.id, r.k, r.x) for r in df.collect())
    assert _rows(ds.read(columns=["id", "k", "x"])) == expected
    prefix = url.removeprefix("s3://")
    s3_fs.invalidate_cache(prefix)
    keys = [p[len(prefix) + 1:] for p in s3_fs.find(prefix)]
    assert not any(k.startswith("_pqkit/shadow/") for k in keys)    # no staging copy
    assert sorted(k for k in keys if k.endswith(".parquet")) == \
        sorted(f.path for f in ds.files())

    more = _frame(spark, 60, 30)
    assert pqkit.spark.write(more, url, storage_options=s3fs_options).version == 1
    ds = pds.open(url, storage_options=s3fs_options)
    assert ds.version == 1
    assert _rows(ds.read(columns=["id", "k", "x"])) == \
        sorted(expected + [(r.id, r.k, r.x) for r in more.collect()])


def test_spark_write_to_a_url_refuses_a_plain_directory_write(spark, s3fs_options):
    with pytest.raises(SchemaError, match="written as a PQDS/1 dataset"):
        pqkit.spark.write(_frame(spark, 0, 3), f"s3://{BUCKET}/plain", dataset=False,
                          storage_options=s3fs_options)
