"""Files Spark writes, under its writer settings, read by pqkit as pyarrow reads them
(issue 14, item 2: the Spark part of the writers matrix).

Spark writes one small DataFrame (every flat type, decimals that Spark stores as
INT32, INT64 and FIXED_LEN_BYTE_ARRAY, dates, timestamps, nested arrays, maps and
structs) once per setting; ``pqkit.read_table`` must equal
``pyarrow.parquet.read_table(...).to_pydict()`` for each file. INT96 files are
compared after both sides floor to microseconds (the ns values are the same).
"""
import glob

import pyarrow.parquet as pq
import pytest
from spark_helpers import spark_conf

import pqkit
from arrow_bridge import same_values

DATA_SQL = """
select id, cast(id % 100 as tinyint) as i8, cast(id * 3 - 50 as int) as i32,
  case when id % 7 = 0 then null else id * 100000000000 end as i64,
  case when id % 5 = 0 then null else id * 1.25 - 4 end as f64,
  cast(id / 3 as float) as f32, id % 2 = 0 as flag,
  case when id % 4 = 0 then null else concat('s', id % 6) end as text,
  cast(concat('b', id) as binary) as bin,
  cast(id * 1.5 - 10 as decimal(5, 2)) as dec_int32,
  cast(id * 1000.125 as decimal(15, 3)) as dec_int64,
  case when id % 8 = 0 then null else cast(id * 123456789.12345 as decimal(30, 5)) end
    as dec_flba,
  date_add(date'1960-01-01', cast(id * 137 as int)) as day,
  case when id % 10 = 0 then null else timestamp_micros(id * 86400123457 - 8000000000000)
    end as ts,
  case when id % 3 = 0 then null else array(id, null, id * 2) end as ints,
  case when id % 5 = 0 then null else map(concat('k', id), array(id), 'z', array()) end
    as lookup,
  named_struct('a', id, 'b', named_struct('c', case when id % 2 = 0 then null
               else cast(id as string) end), 'days', array(date_add(date'2020-01-01',
               cast(id as int)))) as nested,
  array(named_struct('k', cast(id as string), 'v', cast(id as double))) as pairs
from range(0, 60)
"""

SETTINGS = {
    "default": {},
    "legacy-format": {"spark.sql.parquet.writeLegacyFormat": "true"},
    "int96": {"spark.sql.parquet.outputTimestampType": "INT96"},
    "micros": {"spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS"},
    "millis": {"spark.sql.parquet.outputTimestampType": "TIMESTAMP_MILLIS"},
    "no-dictionary": {"parquet.enable.dictionary": "false"},
    "v2-pages": {"parquet.writer.version": "v2"},
    "v2-legacy-zstd": {"parquet.writer.version": "v2",
                       "spark.sql.parquet.writeLegacyFormat": "true",
                       "spark.sql.parquet.compression.codec": "zstd"},
}
_HADOOP_KEYS = ("parquet.",)


@pytest.fixture(scope="module")
def spark_files(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("spark_writers")
    frame = spark.sql(DATA_SQL).coalesce(1)
    out = {}
    for name, conf in SETTINGS.items():
        session = {k: v for k, v in conf.items() if not k.startswith(_HADOOP_KEYS)}
        options = {k: v for k, v in conf.items() if k.startswith(_HADOOP_KEYS)}
        with spark_conf(spark, session):
            writer = frame.write.mode("overwrite")
            for k, v in options.items():
                writer = writer.option(k, v)
            writer.parquet(str(root / name))
        (path,) = glob.glob(str(root / name / "*.parquet"))
        out[name] = path
    return out


def _floor_ns(values):
    """INT96 columns: pyarrow gives ns Timestamps; compare at microseconds."""
    return [None if v is None else v.floor("us").to_pydatetime() if hasattr(v, "floor")
            else v for v in values]


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_spark_file_reads_as_pyarrow_reads_it(spark_files, setting):
    path = spark_files[setting]
    ours = pqkit.read_table(path).to_pydict()
    theirs = pq.read_table(path).to_pydict()
    assert list(ours) == list(theirs)
    if setting == "int96" or setting == "default":
        ours["ts"], theirs["ts"] = _floor_ns(ours["ts"]), _floor_ns(theirs["ts"])
    same_values(ours, theirs)
    assert len(ours["id"]) == 60 and ours["dec_flba"][1] is not None


def test_settings_took_effect(spark_files):
    """The matrix covers what it names: physical types and page kinds differ per setting."""
    def physical(name, column):
        schema = pq.ParquetFile(spark_files[name]).schema
        return schema.column(schema.names.index(column)).physical_type

    assert physical("default", "dec_int32") == "INT32"
    assert physical("default", "dec_int64") == "INT64"
    assert physical("default", "dec_flba") == "FIXED_LEN_BYTE_ARRAY"
    assert physical("legacy-format", "dec_int32") == "FIXED_LEN_BYTE_ARRAY"
    assert physical("int96", "ts") == "INT96"
    assert physical("millis", "ts") == "INT64"
    md = pq.ParquetFile(spark_files["no-dictionary"]).metadata.row_group(0)
    assert all("DICTIONARY" not in "".join(md.column(i).encodings)
               for i in range(md.num_columns))
