"""``df.write.format("pqkit")`` for every Spark type its writer maps: the files read back as
the files Spark's own writer makes of the same DataFrame, in spark.read.parquet, pyarrow and
pqkit, on a classic and a Connect session; the types it cannot store fail before any task."""
import pathlib

import pyarrow.parquet as pq
import pytest
from spark_helpers import canonical_values, spark_conf

import pqkit
import pqkit.spark

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")

TIME_TYPE = "spark.sql.timeType.enabled"

# one column per type the writer maps (nulls in every nullable column), by Spark SQL
MAPPED = """select id,
  id % 2 = 0 as flag, cast(id as tinyint) as i8, cast(id * 300 as smallint) as i16,
  cast(id * 70000 as int) as i32, id * 5000000000 as i64,
  case when id % 5 = 0 then float('NaN') else cast(id / 7 as float) end as f32,
  case when id % 6 = 0 then double('-Infinity') else id / 3 end as f64,
  case when id % 4 = 0 then null else concat('s', id, 'é') end as text,
  cast(concat('c', id % 10) as char(3)) as ch, cast(concat('v', id) as varchar(8)) as vc,
  case when id % 3 = 0 then null else cast(concat('b', id) as binary) end as bin,
  cast(id * 1.25 as decimal(9, 2)) as dec9, cast(id * -7.5 as decimal(18, 4)) as dec18,
  cast(id * 123456789.125 as decimal(38, 10)) as dec38,
  date_add(date'1900-01-01', cast(id * 997 as int)) as day,
  timestamp_micros(id * 86400123457 - 2208988800000000) as ts,
  cast(timestamp_micros(id * 3600000001) as timestamp_ntz) as ntz,
  make_dt_interval(cast(id as int), 1, 2, 3.5) as dts,
  cast(make_dt_interval(cast(id as int)) as interval day) as days,
  cast(make_dt_interval(0, cast(id % 24 as int), 5) as interval hour to minute) as hm,
  case when id % 7 = 0 then null else make_time(cast(id % 24 as int), 5,
       cast(id % 60 as decimal(16, 6)) + 0.123456) end as t6,
  cast(make_time(1, 2, 3) as time(0)) as t0,
  case when id % 3 = 0 then null else array(cast(id as int), null) end as arr,
  array(array(concat('x', id)), array()) as nested_arr,
  map(concat('k', id), id, 'z', null) as m,
  map(cast(id as int), named_struct('p', id, 'q', array(id))) as m_struct,
  named_struct('a', id, 'b', cast(id as string), 'c', named_struct('d', date'2020-02-29'))
    as st
from range(0, 60, 1, 3)"""


@pytest.fixture
def fmt(any_spark):
    pqkit.spark.register(any_spark)
    with spark_conf(any_spark, {TIME_TYPE: "true"}):
        yield any_spark


def _text(df):
    """Rows as Spark renders them, sorted by id."""
    cols = ["cast(`" + c + "` as string)" for c in df.columns]
    return [tuple(r) for r in df.orderBy("id").selectExpr(*cols).collect()]


def _files(root):
    return sorted(str(p) for p in pathlib.Path(root).glob("*.parquet"))


def _pyarrow_rows(root):
    return canonical_values(r for f in _files(root) for r in pq.read_table(f).to_pylist())


def _pqkit_rows(root):
    return canonical_values(r for f in _files(root) for r in pqkit.read_table(f).to_pylist())


def test_every_mapped_type_reads_back_as_spark_wrote_it(fmt, tmp_path):
    df = fmt.sql(MAPPED)
    ours, theirs = str(tmp_path / "pqkit"), str(tmp_path / "spark")
    df.write.format("pqkit").mode("overwrite").save(ours)
    df.write.mode("overwrite").parquet(theirs)
    back, reference = fmt.read.parquet(ours), fmt.read.parquet(theirs)
    assert back.schema.simpleString() == reference.schema.simpleString()
    assert "t6:time(6)" in back.schema.simpleString()
    assert _text(back) == _text(reference) == _text(df)
    # Spark's own files hold INT96 timestamps and intervals as bare int64: compare with
    # the values Spark hands Arrow instead
    sent = canonical_values(df.toArrow().to_pylist())
    assert _pyarrow_rows(ours) == sent
    assert _pqkit_rows(ours) == sent


def test_user_defined_type_is_stored_as_its_sql_type(fmt, tmp_path):
    from pyspark.ml.linalg import Vectors, VectorUDT
    from pyspark.sql import types as S
    schema = S.StructType([S.StructField("id", S.LongType()), S.StructField("v", VectorUDT())])
    df = fmt.createDataFrame([(1, Vectors.dense([1.0, 2.5])),
                              (2, Vectors.sparse(3, [1], [4.0])), (3, None)], schema)
    ours, theirs = str(tmp_path / "pqkit"), str(tmp_path / "spark")
    df.write.format("pqkit").mode("overwrite").save(ours)
    df.write.mode("overwrite").parquet(theirs)
    assert fmt.read.parquet(ours).schema == fmt.read.parquet(theirs).schema == df.schema
    assert _text(fmt.read.parquet(ours)) == _text(df)
    assert _pyarrow_rows(ours) == _pyarrow_rows(theirs)
    assert _pqkit_rows(ours) == _pyarrow_rows(theirs)


REFUSED = [
    ("select make_ym_interval(1, 2) as ym", {}, "column ym: .*interval year to month.*int"),
    ("select st_geomfromwkb(X'0101000000000000000000F03F0000000000000040') as g",
     {"spark.sql.geospatial.enabled": "true"}, "column g: .*geometry.*st_asbinary"),
    ("select st_geogfromwkb(X'0101000000000000000000F03F0000000000000040') as g",
     {"spark.sql.geospatial.enabled": "true"}, "column g: .*geography.*st_asbinary"),
    ("select named_struct('a', make_ym_interval(1, 0)) as s", {},
     "column s.a: .*interval year to month"),
]


@pytest.mark.parametrize("query, conf, message", REFUSED,
                         ids=["year-month", "geometry", "geography", "nested"])
def test_types_it_cannot_store_fail_before_any_task(fmt, tmp_path, query, conf, message):
    out = tmp_path / "refused"
    with spark_conf(fmt, conf):
        with pytest.raises(Exception, match=message) as failed:
            fmt.sql(query).write.format("pqkit").mode("append").save(str(out))
    assert "SchemaError" in str(failed.value)
    assert not out.exists()
