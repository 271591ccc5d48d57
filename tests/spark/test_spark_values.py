"""pqkit.spark.read gives Spark's own values for files Spark wrote (issue 14, item 4).

Each case has Spark write a small file with some session settings, then compares
``spark.read.parquet`` with ``pqkit.spark.read`` as Spark renders them
(``cast(col as string)`` of every column), after checking the schemas agree.
"""
import datetime

import numpy as np
import pytest
from spark_helpers import spark_conf

import pqkit
import pqkit.spark
from pqkit.spark.conversion.legacy_calendar import rebase_days, rebase_micros, rebase_spec
from pqkit.spark.conversion.variant_bytes import unshred, variant_values

# Dates and instants before 1582-10-15 (where the calendars differ), around the switch,
# a Julian-only leap day, and modern ones; every column also has nulls.
CALENDAR_SQL = """
select id,
  case when id % 7 = 6 then null else date_add(date'0900-02-20', cast(id * 9131 as int))
       end as day,
  case when id % 7 = 5 then null
       else timestamp_micros(id * 86400000000 * 9131 - 33000000000000000 + id * 1234567)
       end as ts,
  cast(timestamp_micros(id * 86400000000 * 9131 - 33000000000000000) as timestamp_ntz) as ntz,
  array(date_add(date'1582-10-10', cast(id as int)), date'1000-02-28') as days,
  named_struct('d', date_add(date'0001-01-01', cast(id * 40000 as int))) as inner
from range(0, 40)
"""

INTERVALS_SQL = """
select id,
  case when id % 4 = 0 then null else make_ym_interval(cast(id as int), cast(id % 12 as int))
       end as ym,
  cast(make_ym_interval(cast(id as int), 0) as interval year) as y,
  cast(make_ym_interval(0, cast(id * 5 as int)) as interval month) as m,
  make_dt_interval(cast(id as int), 1, 2, 3.5) as dt,
  cast(make_dt_interval(0, cast(id as int), 0, 0) as interval hour) as h,
  cast(make_dt_interval(cast(id as int), 3, 0, 0) as interval day to hour) as dh,
  named_struct('span', make_dt_interval(0, 0, cast(id as int), 0),
               'months', make_ym_interval(0, cast(id as int))) as nested,
  array(make_ym_interval(1, cast(id as int)), null) as spans
from range(0, 20)
"""

VARIANT_SQL = """
select id,
  case when id % 5 = 0 then null else parse_json(case
    when id % 3 = 0 then concat('{"a":', id, ',"b":[1,"x",null,{"q":true}],"c":{"d":1.5},'
                                '"t":"', repeat('z', cast(id as int) * 4), '"}')
    when id % 3 = 1 then concat('[', id, ',2.25e10,"s",{"a":null}]')
    else concat('{"a":"text', id, '","e":{"f":[', id, ']},"g":', id * 1000000000, '}') end)
  end as v,
  parse_json(concat('{"k":', id, ',"s":"', id, '"}')) as flat
from range(0, 30)
"""


def _text(df):
    from pyspark.sql import functions as F
    cols = [F.col(f"`{c}`").cast("string") for c in df.columns]
    return sorted((tuple(r) for r in df.select(*cols).collect()), key=repr)


def _write(spark, sql, path, conf):
    with spark_conf(spark, conf):
        spark.sql(sql).coalesce(1).write.mode("overwrite").parquet(str(path))


def _assert_spark_values(spark, path, engine):
    theirs = spark.read.parquet(str(path))
    ours = pqkit.spark.read(spark, str(path), engine=engine)
    assert ours.schema.simpleString() == theirs.schema.simpleString()
    assert _text(ours) == _text(theirs)
    return theirs


LEGACY = {"spark.sql.parquet.datetimeRebaseModeInWrite": "LEGACY",
          "spark.sql.parquet.int96RebaseModeInWrite": "LEGACY"}


@pytest.mark.parametrize("conf, engine", [
    ({**LEGACY, "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS"}, "arrow"),
    ({**LEGACY, "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MILLIS"}, "pandas"),
    ({"spark.sql.parquet.datetimeRebaseModeInWrite": "CORRECTED",
      "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS"}, "arrow"),
], ids=["legacy-micros", "legacy-millis", "corrected"])
def test_legacy_calendar_dates_and_timestamps(spark, tmp_path, conf, engine):
    _write(spark, CALENDAR_SQL, tmp_path / "cal", conf)
    kv = pqkit.ParquetFile(next((tmp_path / "cal").glob("*.parquet"))).metadata \
        .key_value_metadata
    assert ("org.apache.spark.legacyDateTime" in kv) == (conf[next(iter(conf))] == "LEGACY")
    theirs = _assert_spark_values(spark, tmp_path / "cal", engine)
    # The values really are the early ones, and pqkit's plain reader sees them shifted.
    first = theirs.where("id = 1").select("day").first()[0]
    assert first == datetime.date(925, 2, 20)
    if "legacyDateTime" in str(kv):
        plain = pqkit.read_table(str(next((tmp_path / "cal").glob("*.parquet")))).column("day")\
            .to_pylist()
        assert datetime.date(925, 2, 20) not in plain


@pytest.mark.parametrize("legacy", [True, False], ids=["legacy-int96", "corrected-int96"])
def test_int96_timestamps(spark, tmp_path, legacy):
    # INT96 before 1900 and, in "far", from the year 1019 to 3300: beyond what
    # nanoseconds hold (1677..2262), which pqkit.spark.read avoids by reading microseconds.
    sql = """select id, timestamp_micros(id * 86400000123457 - 5000000000000000) as ts,
                    timestamp_micros(id * 3000000000000123 - 30000000000000000) as far,
                    date_add(date'1000-01-01', cast(id as int)) as day from range(0, 25)"""
    conf = {"spark.sql.parquet.outputTimestampType": "INT96"}
    if legacy:
        conf.update(LEGACY)
    _write(spark, sql, tmp_path / "i96", conf)
    kv = pqkit.ParquetFile(next((tmp_path / "i96").glob("*.parquet"))).metadata \
        .key_value_metadata
    assert ("org.apache.spark.legacyINT96" in kv) == legacy
    _assert_spark_values(spark, tmp_path / "i96", "arrow")


@pytest.mark.parametrize("engine", ["arrow", "pandas"])
def test_intervals_from_row_metadata(spark, tmp_path, engine):
    _write(spark, INTERVALS_SQL, tmp_path / "iv", {})
    theirs = _assert_spark_values(spark, tmp_path / "iv", engine)
    kinds = {f.name: f.dataType.simpleString() for f in theirs.schema.fields}
    assert kinds["ym"] == "interval year to month" and kinds["h"] == "interval hour"
    assert kinds["nested"] == "struct<span:interval day to second,months:interval year to month>"


def test_char_varchar_and_ntz(spark, tmp_path):
    location = tmp_path / "cv"
    spark.sql(f"create table pqkit_cv (c char(5), v varchar(7), n timestamp_ntz) "
              f"using parquet location '{location}'")
    try:
        spark.sql("insert into pqkit_cv values ('ab', 'xy', timestamp_ntz'1500-01-01 10:00:00'),"
                  " (null, 'zz', null), ('abcde', '', timestamp_ntz'2024-02-29 23:59:59.5')")
        theirs = _assert_spark_values(spark, location, "arrow")
    finally:
        spark.sql("drop table pqkit_cv")
    assert sorted(r.c for r in theirs.collect() if r.c) == ["ab   ", "abcde"]


@pytest.mark.parametrize("shredding", ["true", "false"])
def test_variants(spark, tmp_path, shredding):
    _write(spark, VARIANT_SQL, tmp_path / "var",
           {"spark.sql.variant.writeShredding.enabled": shredding})
    leaves = pqkit.ParquetFile(next((tmp_path / "var").glob("*.parquet"))).schema.columns
    assert any("typed_value" in n.path for n in leaves) == (shredding == "true")
    for engine in ("arrow", "pandas"):
        theirs = _assert_spark_values(spark, tmp_path / "var", engine)
    assert theirs.schema["v"].dataType.simpleString() == "variant"


# --- no Spark session needed --------------------------------------------------------------
def _julian_day_number(y, m, d):
    a = (14 - m) // 12
    yy, mm = y + 4800 - a, m + 12 * a - 3
    return d + (153 * mm + 2) // 5 + 365 * yy + yy // 4 - 32083


def test_rebase_days_keeps_local_dates():
    epoch = datetime.date(1970, 1, 1)
    # (the formula below counts Julian days, which the hybrid calendar uses until 1582-10-04)
    dates = [(y, m, d) for y in (1, 4, 100, 200, 300, 700, 1000, 1500, 1581)
             for m, d in ((1, 1), (2, 28), (3, 1), (10, 4), (12, 31))] + [(1582, 10, 4)]
    julian = np.array([_julian_day_number(*t) - 2440588 for t in dates], np.int32)
    expected = np.array([(datetime.date(*t) - epoch).days for t in dates], np.int32)
    got = rebase_days(julian)
    assert got.dtype == np.int32
    assert got.tolist() == expected.tolist()
    # A Julian leap day the Gregorian calendar lacks becomes the next day, as in Spark.
    leap = np.array([_julian_day_number(1000, 2, 29) - 2440588])
    assert rebase_days(leap).tolist() == [(datetime.date(1000, 3, 1) - epoch).days]
    # From the Gregorian switch on nothing changes.
    modern = np.arange(-141427, -141427 + 1000)
    assert (rebase_days(modern) == modern).all()


def test_rebase_micros_utc_and_fixed_offsets():
    day = 86_400_000_000
    julian_day = _julian_day_number(1000, 2, 20) - 2440588
    gregorian_day = (datetime.date(1000, 2, 20) - datetime.date(1970, 1, 1)).days
    micros = np.array([julian_day * day + 3_600_000_123, 0], np.int64)
    got = rebase_micros(micros, "UTC", "ts")
    assert got.tolist() == [gregorian_day * day + 3_600_000_123, 0]
    # +05:00: the local date is what is kept, so an instant 2h before local midnight
    # moves by the days of the local date.
    local = rebase_micros(np.array([julian_day * day - 5 * 3_600_000_000]), "+05:00", "ts")
    assert local.tolist() == [gregorian_day * day - 5 * 3_600_000_000]
    with pytest.raises(pqkit.SchemaError, match="Europe/Paris"):
        rebase_micros(micros, "Europe/Paris", "ts")
    assert rebase_micros(np.array([0]), "Europe/Paris", "ts").tolist() == [0]


def test_rebase_spec_follows_spark_rules():
    assert not rebase_spec({}, "UTC").any
    old = rebase_spec({"org.apache.spark.version": "2.4.8"}, "UTC")
    assert old.datetime and old.int96
    v30 = rebase_spec({"org.apache.spark.version": "3.0.1"}, "UTC")
    assert not v30.datetime and v30.int96
    new = rebase_spec({"org.apache.spark.version": "4.1.0",
                       "org.apache.spark.legacyDateTime": "",
                       "org.apache.spark.timeZone": "+02:00"}, "UTC")
    assert new.datetime and not new.int96 and new.time_zone == "+02:00"


def test_unshred_rebuilds_variant_bytes(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql.types import VariantVal
    # A hand-shredded column: {"a": <typed int>, "b": <typed string>} plus a residual
    # object holding "c", one row with no typed value and one null variant.
    meta = b"\x01\x03\x00\x01\x02\x03abc"
    residual = bytes([0x02, 1, 2, 0, 2]) + b"\x0c\x07"     # object {"c": int8 7}
    t = pa.table({"v": pa.array([
        {"metadata": meta, "value": residual,
         "typed_value": {"a": {"value": None, "typed_value": 5},
                         "b": {"value": None, "typed_value": "hi"}}},
        {"metadata": meta, "value": b"\x0c\x09", "typed_value": None},
        None,
        {"metadata": meta, "value": None,
         "typed_value": {"a": {"value": None, "typed_value": None},
                         "b": {"value": b"\x00", "typed_value": None}}},
    ], pa.struct([("metadata", pa.binary()), ("value", pa.binary()),
                  ("typed_value", pa.struct([
                      ("a", pa.struct([("value", pa.binary()), ("typed_value", pa.int64())])),
                      ("b", pa.struct([("value", pa.binary()),
                                       ("typed_value", pa.string())]))]))]))})
    pq.write_table(t, tmp_path / "v.parquet")
    col = pqkit.read_table(str(tmp_path / "v.parquet")).column("v")
    got = [None if v is None else VariantVal(v[0], v[1]).toJson()
           for v in variant_values(unshred(col, "v"))]
    assert got == ['{"a":5,"b":"hi","c":7}', "9", None, '{"b":null}']
