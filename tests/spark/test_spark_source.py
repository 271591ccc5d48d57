"""The ``pqkit`` Spark data source: spark.read.format("pqkit") and df.write.format("pqkit"),
on a classic and on a Spark Connect session (the ``any_spark`` fixture)."""
import datetime
import json
import os
import uuid

import numpy as np
import pyarrow.parquet as pq
import pytest
from s3server import BUCKET
from spark_data import all_types
from spark_helpers import canonical_rows, spark_conf

import pqkit
import pqkit.dataset as pds
import pqkit.spark

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")


@pytest.fixture
def fmt(any_spark):
    """A session (classic or Connect) with the format registered."""
    pqkit.spark.register(any_spark)
    return any_spark


def _text_rows(df):
    """Rows as Spark renders them (cast to string), sorted. SQL text, not Column objects:
    pyspark.sql.functions builds classic columns while a classic session is active."""
    cols = ["cast(`" + c.replace("`", "``") + "` as string)" for c in df.columns]
    return sorted((tuple(r) for r in df.selectExpr(*cols).collect()), key=repr)


def _same(ours, theirs):
    assert ours.schema.simpleString() == theirs.schema.simpleString()
    assert _text_rows(ours) == _text_rows(theirs)


def _table(path, n=1000, row_group_size=100, start=0):
    ids = np.arange(start, start + n)
    pqkit.write_table({"id": ids, "s": [f"s{i}" if i % 7 else None for i in ids],
                       "x": np.where(ids % 5 == 0, np.nan, ids * 1.0),
                       "d": [datetime.date(2020, 1, 1) + datetime.timedelta(days=int(i))
                             for i in ids]},
                      str(path), row_group_size=row_group_size)


# --- reading ----------------------------------------------------------------------------------
def test_spark_written_hive_table_reads_as_spark_reads_it(fmt, tmp_path):
    all_types(fmt).write.partitionBy("category").parquet(str(tmp_path / "t"))
    _same(fmt.read.format("pqkit").load(str(tmp_path / "t")),
          fmt.read.parquet(str(tmp_path / "t")))


def test_paths_globs_user_schema_and_columns(fmt, tmp_path):
    _table(tmp_path / "a.parquet")
    _table(tmp_path / "b.parquet", n=10, start=1000)
    a, b = str(tmp_path / "a.parquet"), str(tmp_path / "b.parquet")
    assert fmt.read.format("pqkit").load([a, b]).count() == 1010
    assert fmt.read.format("pqkit").load(str(tmp_path / "*.parquet")).count() == 1010
    only_s = fmt.read.format("pqkit").schema("s string, id long").load(a)
    assert only_s.columns == ["s", "id"]
    assert only_s.where("s like 's9%'").count() == 95
    by_option = fmt.read.format("pqkit").option("columns", "d,id").load(a)
    assert by_option.schema.simpleString() == "struct<d:date,id:bigint>"
    _same(by_option, fmt.read.parquet(a).select("d", "id"))


def test_dataset_versions_and_tags(fmt, tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"k": [1, 2], "v": ["a", "b"]}, partition_by=["k"])
    pds.write(root, {"k": [3], "v": ["c"]}, mode="append")
    pds.tag(root, "first", version=0)
    reader = fmt.read.format("pqkit")
    assert sorted(r.v for r in reader.load(root).collect()) == ["a", "b", "c"]
    assert sorted(r.v for r in reader.option("versionAsOf", 0).load(root).collect()) == \
        ["a", "b"]
    assert sorted(r.v for r in fmt.read.format("pqkit").option("tag", "first").load(root)
                  .collect()) == ["a", "b"]
    # pushed filters on a partition column and a data column of a dataset
    latest = fmt.read.format("pqkit").load(root)
    assert [r.v for r in latest.where("k >= 2 and v <> 'c'").collect()] == ["b"]


def test_s3_root_with_storage_options(fmt, s3, s3fs_options, tmp_path):
    _table(tmp_path / "a.parquet")
    key = f"source/{uuid.uuid4().hex}/part-0.parquet"
    with open(tmp_path / "a.parquet", "rb") as f:
        s3.boto3_client().put_object(Bucket=BUCKET, Key=key, Body=f.read())
    url = f"s3://{BUCKET}/{key.rsplit('/', 1)[0]}"
    remote = fmt.read.format("pqkit").option("storage_options", json.dumps(s3fs_options)) \
        .load(url)
    _same(remote, fmt.read.format("pqkit").load(str(tmp_path / "a.parquet")))


def test_partitions_are_packed_by_bytes(spark, tmp_path):
    from pqkit.spark.datasource.source import PqkitDataSource
    _table(tmp_path / "a.parquet", n=20000, row_group_size=1000)
    options = {"path": str(tmp_path / "a.parquet")}
    schema = PqkitDataSource(options).schema()
    one = PqkitDataSource(options).reader(schema).partitions()
    small = PqkitDataSource({**options, "maxPartitionBytes": "1"}).reader(schema).partitions()
    assert len(small) == 20                           # one row group each
    assert len(one) < len(small)
    assert sorted(s.row_groups[0] for p in small for s in p.splits) == list(range(20))


# --- pushdown ---------------------------------------------------------------------------------
WHERES = ["id = 77", "id in (1, 2, 3)", "id <> 5", "not (id in (1, 2))", "id <=> 8",
          "id > 990", "id >= 10 and id < 20", "s like 's9%'", "s is null", "s is not null",
          "d >= date'2022-01-01'", "d = date'2020-03-18' and id = 77", "x > 990", "x < 3",
          "x = 15", "id > 990 or s = 's1'"]


def test_where_answers_as_spark_does(fmt, tmp_path):
    _table(tmp_path / "a.parquet")
    ours = fmt.read.format("pqkit").load(str(tmp_path / "a.parquet"))
    # Spark's own reader drops NaN rows that `x > 990` keeps when it prunes with Parquet
    # statistics (they leave NaN out); its answer without that pruning is Spark's semantics.
    with spark_conf(fmt, {"spark.sql.parquet.filterPushdown": "false"}):
        theirs = fmt.read.parquet(str(tmp_path / "a.parquet"))
        for where in WHERES:
            assert _text_rows(ours.where(where)) == _text_rows(theirs.where(where)), where


def test_pushdown_translation_and_exactness(spark):
    from pyspark.sql import types as S
    from pyspark.sql.datasource import (
        EqualNullSafe,
        EqualTo,
        GreaterThan,
        In,
        IsNotNull,
        IsNull,
        LessThanOrEqual,
        Not,
        StringContains,
        StringStartsWith,
    )

    from pqkit.spark.datasource.pushdown import translate
    schema = S.StructType([S.StructField("id", S.LongType()), S.StructField("s", S.StringType()),
                           S.StructField("x", S.DoubleType()),
                           S.StructField("st", S.StructType([
                               S.StructField("a", S.IntegerType())]))])
    given = [EqualTo(("id",), 7), IsNotNull(("id",)), EqualNullSafe(("id",), 8),
             GreaterThan(("st", "a"), 1), In(("s",), ("a", "b")), Not(EqualTo(("s",), "z")),
             Not(In(("id",), (1, 2))), StringStartsWith(("s",), "ab"), IsNull(("s",)),
             LessThanOrEqual(("x",), 1.0), StringContains(("s",), "q"), In(("id",), (1, None))]
    terms, left = translate(given, schema)
    assert terms == [("id", "==", 7), ("id", "==", 8), ("st.a", ">", 1),
                     ("s", "in", ["a", "b"]), ("s", "!=", "z"), ("id", "not in", [1, 2]),
                     ("s", ">=", "ab"), ("s", "<", "ac")]
    # Spark re-checks what pqkit does not answer exactly, by reference
    assert [id(f) for f in left] == [id(given[i]) for i in (6, 7, 8, 9, 10, 11)]


def _s3_table(s3, tmp_path):
    _table(tmp_path / "p.parquet", n=20000, row_group_size=2000)
    key = f"pushdown/{uuid.uuid4().hex}/p.parquet"
    with open(tmp_path / "p.parquet", "rb") as f:
        s3.boto3_client().put_object(Bucket=BUCKET, Key=key, Body=f.read())
    return f"s3://{BUCKET}/{key}", str(tmp_path / "p.parquet")


def _fetched(s3, mark, key):
    """Bytes the ranged GETs of ``key`` fetched since ``mark``."""
    total = 0
    for r in s3.log.since(mark):
        if r.method == "GET" and r.path.endswith(key) and r.range:
            lo, hi = r.range.split("=")[1].split("-")
            total += int(hi) - int(lo) + 1
    return total


def test_pushdown_skips_row_groups_and_pages(fmt, s3, s3fs_options, tmp_path):
    url, local = _s3_table(s3, tmp_path)
    key = url.split(BUCKET, 1)[1]
    df = fmt.read.format("pqkit").option("storage_options", json.dumps(s3fs_options)).load(url)
    mark = s3.log.mark()
    assert df.count() == 20000
    full = _fetched(s3, mark, key)
    mark = s3.log.mark()
    assert [r.id for r in df.where("id = 77").collect()] == [77]
    selective = _fetched(s3, mark, key)
    assert selective * 4 < full
    # what the pushed filter skips in the file: 9 of 10 row groups by statistics, and
    # pages of the remaining one through the page index
    explained = pqkit.explain_filter(local, [("id", "==", 77)])["totals"]
    assert explained["row_groups_skipped"] == 9
    assert explained["bytes_avoided"] > explained["bytes_read"]


def _counted(df, where, directory):
    """(ids df.where(where) gives, the ReadStatistics its scan saved in ``directory``)."""
    ids = sorted(r.id for r in df.where(where).select("id").collect())
    return ids, pqkit.spark.collect_statistics(str(directory))


def _paged_table(path):
    """20 row groups of 1000 ids in order, each chunk of about 8 pages, with a page index."""
    ids = np.arange(20000)
    pqkit.write_table({"id": ids, "v": ids * 0.5}, str(path), row_group_size=1000,
                      data_page_size=1024, use_dictionary=False)


def test_pushed_where_skips_row_groups_and_pages_counted(fmt, tmp_path):
    _paged_table(tmp_path / "p.parquet")
    reader = fmt.read.format("pqkit")
    ids, pushed = _counted(reader.option("statisticsPath", str(tmp_path / "pushed"))
                           .load(str(tmp_path / "p.parquet")), "id = 77", tmp_path / "pushed")
    assert ids == [77]
    # the planner rules out 19 of 20 row groups by statistics, the task reads the last one
    # and the page index leaves all but one page of each chunk undecoded
    assert pushed.row_groups == 20
    assert pushed.row_groups_skipped == {"statistics": 19}
    assert pushed.pages_skipped > 0 and pushed.pages_decoded <= 2
    assert pushed.rows_returned == 1
    ids, whole = _counted(reader.option("statisticsPath", str(tmp_path / "whole"))
                          .option("pushdown", "false").load(str(tmp_path / "p.parquet")),
                          "id = 77", tmp_path / "whole")
    assert ids == [77]
    assert whole.row_groups == 20 and whole.row_groups_skipped == {}
    assert whole.pages_skipped == 0 and whole.rows_returned == 20000
    assert pushed.bytes_read * 20 < whole.bytes_read


def test_both_states_of_the_pushdown_setting_counted(spark, tmp_path):
    _paged_table(tmp_path / "p.parquet")
    key = "spark.sql.python.filterPushdown.enabled"
    reader = spark.read.format("pqkit").option("statisticsPath", str(tmp_path / "off"))
    try:
        with spark_conf(spark, {key: "false"}):
            pqkit.spark.register(spark)
            ids, off = _counted(reader.load(str(tmp_path / "p.parquet")), "id = 77",
                                tmp_path / "off")
        assert ids == [77] and off.row_groups_skipped == {} and off.rows_returned == 20000
        pqkit.spark.register(spark)
        reader = spark.read.format("pqkit").option("statisticsPath", str(tmp_path / "on"))
        ids, on = _counted(reader.load(str(tmp_path / "p.parquet")), "id = 77",
                           tmp_path / "on")
        assert ids == [77] and on.row_groups_skipped == {"statistics": 19}
        assert on.rows_returned == 1
    finally:
        pqkit.spark.register(spark)


def test_collect_statistics_needs_a_directory(tmp_path):
    with pytest.raises(pqkit.SchemaError, match="statisticsPath"):
        pqkit.spark.collect_statistics(str(tmp_path / "nowhere"))


def test_both_states_of_the_pushdown_setting(spark, tmp_path):
    _table(tmp_path / "a.parquet")
    path = str(tmp_path / "a.parquet")
    expected = [(77, None)]
    key = "spark.sql.python.filterPushdown.enabled"
    try:
        with spark_conf(spark, {key: "false"}):
            pqkit.spark.register(spark)           # the session said no: no pushdown offered
            assert spark.conf.get(key) == "false"
            got = spark.read.format("pqkit").load(path).where("id = 77").select("id", "s")
            assert [tuple(r) for r in got.collect()] == expected
        pqkit.spark.register(spark)
        assert spark.conf.get(key) == "true"
        got = spark.read.format("pqkit").load(path).where("id = 77").select("id", "s")
        assert [tuple(r) for r in got.collect()] == expected
        # turned off behind the registered source's back: Spark names the setting, and the
        # pushdown option opts one read out
        with spark_conf(spark, {key: "false"}):
            with pytest.raises(Exception, match="DATA_SOURCE_PUSHDOWN_DISABLED"):
                spark.read.format("pqkit").load(path).where("id = 77").collect()
            got = spark.read.format("pqkit").option("pushdown", "false").load(path) \
                .where("id = 77").select("id", "s")
            assert [tuple(r) for r in got.collect()] == expected
    finally:
        pqkit.spark.register(spark)


# --- writing ----------------------------------------------------------------------------------
WRITTEN = """select id, cast(id % 3 as int) as k, cast(id as tinyint) as i8,
  cast(id as smallint) as i16, cast(id as int) as i32, id * 1000000007 as i64,
  cast(id / 3 as float) as f32, case when id % 5 = 0 then double('NaN') else id * 1.5 end
  as f64, id % 2 = 0 as flag, case when id % 4 = 0 then null else concat('t', id) end as text,
  cast(concat('b', id) as binary) as bin, cast(id * 1.25 as decimal(9, 2)) as dec9,
  cast(id * 123456789.5 as decimal(38, 10)) as dec38, date_add(date'1970-01-01', cast(id as int))
  as day, timestamp_micros(id * 86400123457) as ts,
  cast(timestamp_micros(id * 3600000001) as timestamp_ntz) as ntz,
  case when id % 3 = 0 then null else array(id, null) end as arr,
  map(concat('k', id), id) as m, named_struct('a', id, 'b', cast(id as string)) as st,
  make_dt_interval(cast(id as int), 1, 2, 3.5) as span
from range(0, 120)"""


def test_write_round_trip_in_spark_pyarrow_and_pqkit(fmt, tmp_path):
    df = fmt.sql(WRITTEN).repartition(3)
    flat, parted = str(tmp_path / "flat"), str(tmp_path / "parted")
    df.write.format("pqkit").mode("overwrite").option("compression", "zstd").save(flat)
    df.write.format("pqkit").mode("overwrite").option("partition_by", "k").save(parted)
    assert os.path.exists(os.path.join(flat, "_SUCCESS"))
    assert sorted(n for n in os.listdir(parted) if not n.startswith("_")) == \
        ["k=0", "k=1", "k=2"]
    _same(fmt.read.parquet(flat), df)
    _same(fmt.read.parquet(parted).select(*df.columns), df)
    _same(fmt.read.format("pqkit").load(parted).select(*df.columns), df)
    expected = sorted(map(repr, df.orderBy("id").toArrow().drop(["span"]).to_pylist()))
    files = sorted(str(p) for p in __import__("pathlib").Path(flat).glob("*.parquet"))
    by_pyarrow = [r for f in files for r in pq.read_table(f).drop(["span"]).to_pylist()]
    assert sorted(map(repr, by_pyarrow)) == expected
    by_pqkit = [r for f in files for r in pqkit.read_table(f, columns=[
        c for c in df.columns if c not in ("span", "m")]).to_pylist()]
    assert len(by_pqkit) == 120
    assert sorted(r["id"] for r in by_pqkit) == list(range(120))


def test_append_overwrite_and_modes_spark_refuses(fmt, tmp_path):
    out = str(tmp_path / "o")
    fmt.range(5).write.format("pqkit").mode("append").save(out)
    fmt.range(5, 8).write.format("pqkit").mode("append").save(out)
    assert sorted(r.id for r in fmt.read.parquet(out).collect()) == list(range(8))
    fmt.range(100, 102).write.format("pqkit").mode("overwrite").save(out)
    assert sorted(r.id for r in fmt.read.parquet(out).collect()) == [100, 101]
    for mode in ("error", "ignore"):
        with pytest.raises(Exception, match="UNSUPPORTED_DATA_SOURCE_SAVE_MODE"):
            fmt.range(1).write.format("pqkit").mode(mode).save(out)


def test_dataset_target_commits_one_version_per_job_id(fmt, tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"k": [0], "id": [-1]}, partition_by=["k"])
    df = fmt.sql("select cast(id % 2 as bigint) as k, id from range(0, 10)")
    writer = df.write.format("pqkit").mode("append").option("partition_by", "k") \
        .option("job_id", "job-1")
    writer.save(root)
    writer.save(root)                                 # the same job again: nothing new
    ds = pds.open(root)
    assert ds.version == 1 and ds.count() == 11
    assert sorted(r.id for r in fmt.read.format("pqkit").load(root).collect()) == \
        list(range(-1, 10))


def _failing(spark, n=200):
    """Rows whose last partition's task fails after writing some rows."""
    return spark.sql(f"select id, cast(id % 3 as int) as k, concat('r', id) as s from "
                     f"range(0, {n}, 1, 2)").selectExpr(
        "id", "k", f"case when id = {n - 1} then raise_error('boom at the last row') "
                   "else s end as s")


def _tree(root):
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, files in os.walk(root) for f in files)


@pytest.mark.parametrize("target", ["plain", "dataset"])
def test_failed_task_leaves_target_unchanged(fmt, tmp_path, target):
    root = str(tmp_path / "t")
    if target == "dataset":
        pds.write(root, {"id": [1], "k": [1], "s": ["x"]}, partition_by=["k"])
    else:
        fmt.sql("select 1L as id, 1 as k, 'x' as s").write.format("pqkit") \
            .option("partition_by", "k").mode("append").save(root)
    before = _tree(root)
    for mode in ("append", "overwrite"):
        with pytest.raises(Exception, match="boom at the last row"):
            _failing(fmt).write.format("pqkit").option("partition_by", "k").mode(mode) \
                .save(root)
        if target == "dataset":
            assert pds.open(root).version == 0
            visible = [p for p in _tree(root) if not p.startswith("_")]
            assert visible == [p for p in before if not p.startswith("_")]
        else:
            assert _tree(root) == before
        assert sorted(r.id for r in fmt.read.parquet(root).collect()) == [1]


# --- errors a user sees -----------------------------------------------------------------------
def _python_part(text):
    return text.split("JVM stacktrace:")[0]


def test_errors_name_the_problem(fmt, tmp_path):
    _table(tmp_path / "a.parquet")
    with pytest.raises(Exception) as missing:
        fmt.read.format("pqkit").load(str(tmp_path / "nope")).collect()
    assert "SchemaError" in str(missing.value) and "does not exist" in str(missing.value)
    with pytest.raises(Exception) as unknown:
        fmt.read.format("pqkit").option("maxPartitionByte", "1").load(str(tmp_path)).collect()
    assert "unknown read option 'maxpartitionbyte'" in str(unknown.value)
    assert "maxpartitionbytes" in str(unknown.value)
    with pytest.raises(Exception, match="nope_col"):
        fmt.read.format("pqkit").load(str(tmp_path)).where("nope_col = 1").collect()
    with pytest.raises(Exception, match="holds s string|the files hold"):
        fmt.read.format("pqkit").schema("s long").load(str(tmp_path)).collect()


def test_corrupted_file_mid_job(fmt, tmp_path):
    for i in range(3):
        _table(tmp_path / f"p{i}.parquet", start=i * 1000)
    df = fmt.read.format("pqkit").load(str(tmp_path))
    schema = df.schema
    # planned while intact, then the middle file's data pages are overwritten
    path = tmp_path / "p1.parquet"
    data = bytearray(path.read_bytes())
    data[100:4000] = os.urandom(3900)
    path.write_bytes(bytes(data))
    with pytest.raises(Exception) as failed:
        fmt.read.format("pqkit").schema(schema).load(str(tmp_path)).collect()
    text = str(failed.value)
    assert "pqkit.errors." in text or "Error:" in text
    names = [n for n in dir(pqkit.errors) if n.endswith("Error")]
    assert any(n in text for n in names), text[:2000]
    assert len(_python_part(text).splitlines()) <= 30, _python_part(text)
