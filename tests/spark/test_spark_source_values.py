"""Every case of the Spark value tests, read through spark.read.format("pqkit"), classic and
Connect: Spark-written files (each codec and layout), the legacy calendar, INT96, intervals,
char/varchar, variants equal ``spark.read.parquet`` (schemas equal, values equal as Spark
renders them); files Spark rejects equal ``pqkit.spark.read``."""
import os

import pytest
from spark_data import all_types
from spark_helpers import spark_conf
from test_spark_read import REJECTED, VARIANTS
from test_spark_values import CALENDAR_SQL, INTERVALS_SQL, LEGACY, VARIANT_SQL

import pqkit
import pqkit.spark

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")

INT96_SQL = """select id, timestamp_micros(id * 86400000123457 - 5000000000000000) as ts,
                timestamp_micros(id * 3000000000000123 - 30000000000000000) as far,
                date_add(date'1000-01-01', cast(id as int)) as day from range(0, 25)"""

# name -> (SQL, session settings while Spark writes)
CASES = {
    "legacy-micros": (CALENDAR_SQL, {**LEGACY,
                                     "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS"}),
    "legacy-millis": (CALENDAR_SQL, {**LEGACY,
                                     "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MILLIS"}),
    "corrected": (CALENDAR_SQL, {"spark.sql.parquet.datetimeRebaseModeInWrite": "CORRECTED",
                                 "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS"}),
    "legacy-int96": (INT96_SQL, {"spark.sql.parquet.outputTimestampType": "INT96", **LEGACY}),
    "corrected-int96": (INT96_SQL, {"spark.sql.parquet.outputTimestampType": "INT96"}),
    "variants-shredded": (VARIANT_SQL, {"spark.sql.variant.writeShredding.enabled": "true"}),
    "variants-plain": (VARIANT_SQL, {"spark.sql.variant.writeShredding.enabled": "false"}),
}


@pytest.fixture(scope="module")
def written(spark, tmp_path_factory):
    """{case: directory} of the files Spark wrote, by the classic session."""
    base = tmp_path_factory.mktemp("source_values")
    out = {}
    for name, (sql, conf) in CASES.items():
        with spark_conf(spark, conf):
            spark.sql(sql).coalesce(1).write.parquet(str(base / name))
        out[name] = str(base / name)
    df = all_types(spark)
    for name, options, confs in VARIANTS:
        with spark_conf(spark, confs):
            df.write.options(**options).parquet(str(base / name))
        out[name] = str(base / name)
    spark.sql(INTERVALS_SQL).coalesce(1).write.parquet(str(base / "intervals"))
    out["intervals"] = str(base / "intervals")
    location = base / "cv"
    spark.sql(f"create table pqkit_source_cv (c char(5), v varchar(7), n timestamp_ntz) "
              f"using parquet location '{location}'")
    try:
        spark.sql("insert into pqkit_source_cv values ('ab', 'xy', timestamp_ntz'1500-01-01 "
                  "10:00:00'), (null, 'zz', null), ('abcde', '', "
                  "timestamp_ntz'2024-02-29 23:59:59.5')")
    finally:
        spark.sql("drop table pqkit_source_cv")
    out["char-varchar-ntz"] = str(location)
    return out


@pytest.fixture
def fmt(any_spark):
    pqkit.spark.register(any_spark)
    return any_spark


def _text_rows(df):
    """Rows as Spark renders them; binary as hex (text of arbitrary bytes is not UTF-8,
    which the Connect client cannot decode)."""
    cols = [f"hex(`{f.name}`)" if f.dataType.typeName() == "binary"
            else f"cast(`{f.name}` as string)" for f in df.schema.fields]
    return sorted((tuple(r) for r in df.selectExpr(*cols).collect()), key=repr)


def _assert_same(ours, theirs):
    assert ours.schema.simpleString() == theirs.schema.simpleString()
    assert _text_rows(ours) == _text_rows(theirs)


@pytest.mark.parametrize("case", list(CASES) + [v[0] for v in VARIANTS] + ["char-varchar-ntz"])
def test_format_reads_spark_values(fmt, written, case):
    path = written[case]
    _assert_same(fmt.read.format("pqkit").load(path), fmt.read.parquet(path))


def test_intervals(fmt, written):
    """Day-time intervals arrive as Spark declared them; a year-month interval cannot cross
    from a Python data source (Spark has no Arrow type for it there): refused by name."""
    path = written["intervals"]
    with pytest.raises(Exception, match="column 'ym' holds a year-month interval"):
        fmt.read.format("pqkit").load(path).collect()
    columns = ["id", "dt", "h", "dh"]
    ours = fmt.read.format("pqkit").option("columns", ",".join(columns)).load(path)
    _assert_same(ours, fmt.read.parquet(path).select(*columns))
    assert ours.schema["h"].dataType.simpleString() == "interval hour"


@pytest.mark.parametrize("name", REJECTED)
def test_files_spark_rejects(fmt, spark, corpus, name):
    path = os.path.join(corpus, "data", name)
    _assert_same(fmt.read.format("pqkit").load(path), pqkit.spark.read(spark, path))
