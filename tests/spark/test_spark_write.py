"""pqkit.spark.write: Spark reads every file back; partitions; failures leave no trace."""
import json
import os

import pytest
from pyspark.sql import functions as F
from spark_data import all_types
from spark_helpers import same_rows, spark_conf

import pqkit
import pqkit.spark
from pqkit import SchemaError

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")]


def _listing(root):
    """{relative path: bytes} of every file under root."""
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root)] = f.read()
    return out


@pytest.fixture(scope="module")
def source(spark):
    return all_types(spark, partitions=3).cache()


@pytest.mark.parametrize("options", [
    {"compression": "zstd"},
    {"compression": "snappy", "data_page_version": "2.0", "use_dictionary": False,
     "row_group_size": 40},
], ids=["zstd_v1", "snappy_v2_plain"])
def test_spark_reads_what_pqkit_wrote(spark, source, tmp_path, options):
    out = str(tmp_path / "out")
    result = pqkit.spark.write(source, out, **options)
    back = spark.read.parquet(out)
    assert back.schema.simpleString() == source.schema.simpleString()
    assert same_rows(back, source)
    assert result.num_rows == 200 and len(result.files) == 3
    assert sorted(f["path"] for f in result.files) == \
        sorted(n for n in os.listdir(out) if n.endswith(".parquet"))
    marker = json.loads((tmp_path / "out" / "_SUCCESS").read_text())
    assert marker["rows"] == 200 and marker["files"] == 3
    assert not os.path.exists(os.path.join(out, "_pqkit_staging"))
    for f in result.files:                    # the per-file bounds are the file's values
        ids = [r.id for r in spark.read.parquet(os.path.join(out, f["path"])).collect()]
        assert f["stats"]["id"] == {"nulls": 0, "min": str(min(ids)), "max": str(max(ids))}
        assert f["rows"] == len(ids) == pqkit.read_metadata(os.path.join(out, f["path"])).num_rows
    if "row_group_size" in options:
        assert all(pqkit.read_metadata(os.path.join(out, f["path"])).num_row_groups > 1
                   for f in result.files)
    assert same_rows(pqkit.spark.read(spark, out), source)


def test_time_and_user_defined_types(spark, tmp_path):
    from pyspark.ml.linalg import Vectors, VectorUDT
    from pyspark.sql import types as S
    out = str(tmp_path / "out")
    with spark_conf(spark, {"spark.sql.timeType.enabled": "true"}):
        df = spark.createDataFrame(
            [(1, Vectors.dense([1.0, 2.5])), (2, None)],
            S.StructType([S.StructField("id", S.LongType()),
                          S.StructField("v", VectorUDT())])) \
            .selectExpr("id", "v", "case when id = 2 then null else make_time(12, 34, "
                        "56.123456) end as t")
        pqkit.spark.write(df, out)
        back = spark.read.parquet(out)
        assert back.schema == df.schema
        assert same_rows(back, df)


def test_partitioned_write_and_pruned_read(spark, tmp_path):
    df = spark.sql("""
        select id, id % 3 as p,
               case when id % 4 = 0 then 'a/b=c' when id % 4 = 1 then 'sp ace é'
                    when id % 4 = 2 then '' else null end as s,
               date_add(date'2024-01-01', cast(id % 2 as int)) as d,
               cast(id * 2.5 as double) as x
        from range(0, 600)""").repartition(2)
    out = str(tmp_path / "parts")
    result = pqkit.spark.write(df, out, partition_by=["p", "s", "d"], row_group_size=25)
    dirs = {f["path"].rsplit("/", 1)[0] for f in result.files}
    assert "p=0/s=a%2Fb%3Dc/d=2024-01-01" in dirs
    assert any("s=__HIVE_DEFAULT_PARTITION__" in d for d in dirs)
    # Spark, like Hive, stores the empty string as null.
    expected = df.withColumn("s", F.when(F.col("s") == "", None).otherwise(F.col("s")))
    back = spark.read.parquet(out)
    assert back.schema.simpleString() == \
        "struct<id:bigint,x:double,p:int,s:string,d:date>"
    assert same_rows(back, expected)
    filters = [("p", "=", 1), ("s", "=", "a/b=c"), ("id", "<", 300)]
    plan = pqkit.spark.plan(out, filters=filters)
    in_partition = [f for f in result.files if f["path"].startswith("p=1/s=a%2Fb%3Dc/")]
    groups = [(f["path"], g) for f in in_partition
              for g in range(pqkit.read_metadata(os.path.join(out, f["path"])).num_row_groups)]
    expected_splits = [(p, g) for p, g in groups if _min_id(out, p, g) < 300]
    assert sorted((os.path.relpath(s.path, out), s.row_groups[0]) for s in plan.splits) == \
        sorted(expected_splits)
    assert 0 < len(plan.splits) < len(groups)
    got = pqkit.spark.read(spark, out, filters=filters)
    assert same_rows(got, back.filter("p = 1 and s = 'a/b=c' and id < 300"))


def _min_id(root, path, group):
    md = pqkit.read_metadata(os.path.join(root, path))
    node = md.schema.column("id")
    raw = md.row_group(group).thrift.columns[node.column_index].meta_data.statistics.min_value
    return int.from_bytes(raw, "little", signed=True)


def test_modes_append_and_overwrite(spark, tmp_path):
    out = str(tmp_path / "modes")
    first = spark.range(0, 10)
    pqkit.spark.write(first, out)
    pqkit.spark.write(spark.range(10, 15), out, mode="append")
    assert sorted(r.id for r in spark.read.parquet(out).collect()) == list(range(15))
    pqkit.spark.write(spark.range(100, 103), out, mode="overwrite")
    assert sorted(r.id for r in spark.read.parquet(out).collect()) == [100, 101, 102]
    assert sorted(os.listdir(out))[0] == "_SUCCESS"


def test_empty_dataframe_writes_schema_only_file(spark, tmp_path):
    out = str(tmp_path / "empty")
    result = pqkit.spark.write(spark.range(0, 0).withColumn("s", F.lit("x")), out)
    assert result.num_rows == 0 and len(result.files) == 1
    back = spark.read.parquet(out)
    assert back.count() == 0 and back.columns == ["id", "s"]


def _failing_frame(spark, target):
    """3000 rows per task; the second task raises after handing over 2000 of its rows,
    once some part file is staged under ``target`` (however slow the machine is)."""
    def fail_late(frames):
        import glob
        import os
        import time
        for i, frame in enumerate(frames):
            if i == 20 and frame["id"].iloc[0] >= 3000:
                deadline = time.monotonic() + 120
                pattern = os.path.join(target, "_pqkit_staging", "**", "*.parquet")
                while not glob.glob(pattern, recursive=True) and time.monotonic() < deadline:
                    time.sleep(0.05)
                raise RuntimeError("injected failure")
            yield frame
    return spark.range(0, 6000, numPartitions=2).withColumn("pad", F.repeat(F.lit("x"), 200)) \
        .mapInPandas(fail_late, "id long, pad string")


def test_failed_task_leaves_target_unchanged(spark, tmp_path, monkeypatch):
    from pqkit.spark.jobs import write_job as spark_write
    out = str(tmp_path / "target")
    pqkit.spark.write(spark.range(0, 50).withColumn("pad", F.lit("y")), out)
    before = _listing(out)
    staged_at_failure = []
    cleanup = spark_write.remove_staging

    def spy(root, staging, created_root):
        staged_at_failure.extend(os.path.relpath(os.path.join(d, n), staging)
                                 for d, _, names in os.walk(staging) for n in names)
        return cleanup(root, staging, created_root)
    monkeypatch.setattr(spark_write, "remove_staging", spy)
    old = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "100")
    try:
        for mode in ("overwrite", "append"):
            with pytest.raises(Exception, match="injected failure"):
                pqkit.spark.write(_failing_frame(spark, out), out, mode=mode, row_group_size=50)
            assert _listing(out) == before
            assert not os.path.exists(os.path.join(out, "_pqkit_staging"))
        # The job got as far as staging part files (at least the healthy task's).
        assert any(p.endswith(".parquet") for p in staged_at_failure)
        fresh = str(tmp_path / "fresh")
        with pytest.raises(Exception, match="injected failure"):
            pqkit.spark.write(_failing_frame(spark, fresh), fresh, row_group_size=50)
        assert not os.path.exists(fresh)
    finally:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", old)
    assert sorted(r.id for r in spark.read.parquet(out).collect()) == list(range(50))


def test_bad_arguments_fail_before_any_job(spark, tmp_path):
    df = spark.range(3).withColumn("a", F.array(F.col("id")))
    out = str(tmp_path / "bad")
    with pytest.raises(SchemaError, match="mode"):
        pqkit.spark.write(df, out, mode="upsert")
    with pytest.raises(SchemaError, match="not a column"):
        pqkit.spark.write(df, out, partition_by=["nope"])
    with pytest.raises(SchemaError, match="partition by atomic"):
        pqkit.spark.write(df, out, partition_by=["a"])
    with pytest.raises(SchemaError, match="compression"):
        pqkit.spark.write(df, out, compression="lzma")
    with pytest.raises(SchemaError, match="bad writer option"):
        pqkit.spark.write(df, out, no_such_option=1)
    with pytest.raises(SchemaError, match="cannot store"):
        pqkit.spark.write(spark.sql("select interval 1 month as i"), out)
    assert not os.path.exists(out)
