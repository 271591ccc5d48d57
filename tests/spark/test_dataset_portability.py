"""Portability (DATASET.md §3.14): pqkit, pyarrow.dataset and spark.read.parquet agree.

Partition values ``/ = % : ? # space é +`` and null go through a PQDS/1 dataset
written by pqkit and through a plain Hive directory written by Spark; all three
readers must return the same rows (pyarrow with the partition types given, since
it infers int32 and falls back to string beyond it).
"""
import os

import pyarrow as pa
import pyarrow.dataset as pa_ds
import pytest
from pyspark.sql import types as ST
from spark_helpers import canonical_rows, canonical_values

import pqkit.dataset as pds
from pqkit.dataset import DatasetIncomplete

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")]

KEYS = ["a/b", "k=v", "50%", "12:30", "why?", "#1", "two words", "é", "a+b", None, "%2F=é /"]
BIG = 1 << 40
COLUMNS = ["k", "n", "v", "x"]


def _data():
    n = len(KEYS)
    return {"k": KEYS, "n": [BIG + i if i % 4 else None for i in range(n)],
            "v": list(range(n)), "x": [i / 4 if i % 3 else None for i in range(n)]}


def _rows(columns):
    n = len(next(iter(columns.values())))
    return [{c: columns[c][i] for c in COLUMNS} for i in range(n)]


def _pyarrow_rows(root):
    partitioning = pa_ds.partitioning(pa.schema([("k", pa.string()), ("n", pa.int64())]),
                                      flavor="hive")
    table = pa_ds.dataset(root, partitioning=partitioning, format="parquet").to_table()
    return canonical_values(_rows(table.to_pydict()))


def _spark_rows(spark, root):
    frame = spark.read.parquet(root)
    assert dict(frame.dtypes)["k"] == "string" and dict(frame.dtypes)["n"] == "bigint"
    return canonical_rows(frame.select(*COLUMNS).collect())


def test_pqds_dataset_reads_the_same_in_spark_and_pyarrow(spark, tmp_path):
    root = str(tmp_path / "pqds")
    data = _data()
    pds.write(root, data, partition_by=["k", "n"])
    expected = canonical_values(_rows(data))
    assert canonical_values(_rows(pds.open(root).read().to_pydict())) == expected
    assert _pyarrow_rows(root) == expected
    assert _spark_rows(spark, root) == expected


def test_spark_written_hive_directory_reads_the_same_in_pqkit(spark, tmp_path):
    root = str(tmp_path / "hive")
    data = _data()
    schema = ST.StructType([ST.StructField("k", ST.StringType()),
                            ST.StructField("n", ST.LongType()),
                            ST.StructField("v", ST.LongType()),
                            ST.StructField("x", ST.DoubleType())])
    spark.createDataFrame([tuple(r.values()) for r in _rows(data)], schema) \
        .repartition(2).write.partitionBy("k", "n").parquet(root)
    expected = canonical_values(_rows(data))
    ds = pds.open(root, require_success=True)
    assert pds.detect_layout(root) == "hive" and ds.partition_by == ["k", "n"]
    assert [(f.name, str(f.type)) for f in ds.schema] == [
        ("v", "int64"), ("x", "double"), ("k", "string"), ("n", "int64")]
    assert canonical_values(_rows(ds.read().to_pydict())) == expected
    assert _pyarrow_rows(root) == expected
    assert _spark_rows(spark, root) == expected
    for key in KEYS:
        term = ("k", "==", key) if key is not None else ("k", "is_null", None)
        files = ds.files([term])
        assert files and all(f.partition_values["k"] == key for f in files)
        assert ds.read(columns=["k"], filters=[term]).to_pydict()["k"] == [key]
    assert ds.count([("n", ">", BIG + 5)]) == sum(1 for v in data["n"] if v and v > BIG + 5)
    assert pds.verify(root, "footer", require_success=True).ok
    os.unlink(os.path.join(root, "_SUCCESS"))
    with pytest.raises(DatasetIncomplete):
        pds.open(root, require_success=True)
