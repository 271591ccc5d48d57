"""pqkit.spark.read, plan and write on a Spark Connect session (no SparkContext there):
the same answers as on the classic session."""
import os

import pytest
from spark_data import all_types

import pqkit.dataset as pds
import pqkit.spark

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")

INTERVALS = """select id, make_ym_interval(cast(id as int), 1) as ym,
  cast(make_dt_interval(0, cast(id as int), 0, 0) as interval hour) as h from range(0, 10)"""


def _text_rows(df):
    cols = ["cast(`" + c + "` as string)" for c in df.columns]
    return sorted((tuple(r) for r in df.selectExpr(*cols).collect()), key=repr)


@pytest.fixture(scope="module")
def written(spark, tmp_path_factory):
    base = tmp_path_factory.mktemp("connect_helpers")
    all_types(spark).write.partitionBy("category").parquet(str(base / "t"))
    spark.sql(INTERVALS).coalesce(1).write.parquet(str(base / "iv"))
    return base


@pytest.mark.parametrize("engine", ["arrow", "pandas"])
def test_read_on_connect_equals_classic(spark, spark_connect, written, engine):
    path = str(written / "t")
    theirs = spark.read.parquet(path)
    ours = pqkit.spark.read(spark_connect, path, engine=engine,
                            columns=["id", "text", "category", "nested"],
                            filters=[("id", "<", 150)])
    expected = theirs.where("id < 150").select("id", "text", "category", "nested")
    assert ours.schema.simpleString() == expected.schema.simpleString()
    assert _text_rows(ours) == _text_rows(expected)


def test_read_intervals_on_connect(spark, spark_connect, written):
    path = str(written / "iv")
    ours = pqkit.spark.read(spark_connect, path, engine="arrow")
    theirs = spark.read.parquet(path)
    assert ours.schema.simpleString() == theirs.schema.simpleString()
    assert _text_rows(ours) == _text_rows(theirs)


def test_write_on_connect(spark, spark_connect, tmp_path):
    df = spark_connect.sql("select id, cast(id % 3 as int) as k, "
                           "timestamp_micros(id * 1000003) as ts from range(0, 50)")
    result = pqkit.spark.write(df, str(tmp_path / "out"), partition_by=["k"],
                               mode="overwrite")
    assert result.num_rows == 50
    assert os.path.exists(tmp_path / "out" / "_SUCCESS")
    back = spark.read.parquet(str(tmp_path / "out")).select("id", "k", "ts")
    assert _text_rows(back) == _text_rows(spark.sql(
        "select id, cast(id % 3 as int) as k, timestamp_micros(id * 1000003) as ts "
        "from range(0, 50)"))
    ds = pqkit.spark.write(df, str(tmp_path / "ds"), partition_by=["k"], dataset=True)
    assert ds.version == 0 and pds.open(str(tmp_path / "ds")).count() == 50


def test_failed_write_on_connect_leaves_target_unchanged(spark_connect, tmp_path):
    out = str(tmp_path / "out")
    pqkit.spark.write(spark_connect.range(3), out)
    before = sorted(os.listdir(out))
    bad = spark_connect.sql("select id, case when id = 99 then raise_error('boom') else id end "
                            "as v from range(0, 100, 1, 2)")
    with pytest.raises(Exception, match="boom"):
        pqkit.spark.write(bad, out, mode="overwrite")
    assert sorted(os.listdir(out)) == before
