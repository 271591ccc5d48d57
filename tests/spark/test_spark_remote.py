"""pqkit.spark.read over s3:// on a local S3 server (moto), against the local read.

Spark's own ``s3a://`` reader needs the hadoop-aws and AWS SDK jars, which the
Python package index does not carry, so the reference is pqkit.spark.read of
the same files on the local disk.
"""
import os
import uuid

import numpy as np

import pqkit
import pqkit.spark
from s3server import BUCKET


def _hive_table(root):
    """Six files under year=/kind= directories, plus a hidden _SUCCESS."""
    rng = np.random.default_rng(5)
    for year in (2024, 2025):
        for kind in ("a", "b", "c"):
            d = os.path.join(root, f"year={year}", f"kind={kind}")
            os.makedirs(d)
            n = 400
            pqkit.write_table({"id": np.arange(n) + year * 1000, "x": rng.random(n),
                               "s": [f"{kind}{i}" for i in range(n)]},
                              os.path.join(d, "part-0.parquet"), row_group_size=100)
    open(os.path.join(root, "_SUCCESS"), "w").close()


def _upload(s3, root, prefix):
    client = s3.boto3_client()
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            key = prefix + os.path.relpath(path, root).replace(os.sep, "/")
            with open(path, "rb") as f:
                client.put_object(Bucket=BUCKET, Key=key, Body=f.read())


def _rows(df):
    return sorted(tuple(r) for r in df.collect())


def test_spark_read_from_s3_equals_local(spark, s3, s3fs_options, tmp_path):
    root = str(tmp_path / "t")
    _hive_table(root)
    prefix = f"spark/{uuid.uuid4().hex}/"
    _upload(s3, root, prefix)
    url = f"s3://{BUCKET}/{prefix}"
    plan = pqkit.spark.plan(url, storage_options=s3fs_options)
    assert plan.num_files == 6 and len(plan.splits) == 24        # _SUCCESS left out
    mark = s3.log.mark()
    remote = pqkit.spark.read(spark, url, filters=[("year", "==", 2025)],
                              storage_options=s3fs_options)
    got = _rows(remote)
    local = _rows(pqkit.spark.read(spark, root, filters=[("year", "==", 2025)]))
    assert got == local and len(got) == 1200
    data_gets = [r for r in s3.log.since(mark) if r.method == "GET" and "part-0" in r.path]
    # every data-file read is ranged (no whole-object download); a 2024 file is read at
    # most once, by the driver's footer read, never by an executor
    assert data_gets and all(r.range for r in data_gets)
    assert sum("year=2024" in r.path for r in data_gets) <= 3
    assert sum("year=2025" in r.path for r in data_gets) >= 12     # one per split at least
