"""The pandas engine hands strings, binary, decimals and dates to pyspark as Arrow-backed
Series where pyspark takes them (``__arrow_array__``), and as Python objects otherwise."""
import pickle

import pandas as pd
import pytest

import pqkit.spark
import pqkit.spark_convert as sc
from pqkit.spark_plan import pack_tasks
from pqkit.spark_schema import spark_schema

from spark_helpers import canonical_values, same_rows

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")]

ARROW_COLUMNS = ["s", "b", "d9", "d18", "d30", "day"]


@pytest.fixture(scope="module")
def flat_file(spark, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("arrow_series") / "flat")
    spark.sql("""
        select id,
               case when id % 7 = 0 then null else concat('s', cast(id as string), 'é') end as s,
               case when id % 5 = 0 then null else cast(concat('b', cast(id as string))
                                                        as binary) end as b,
               case when id % 3 = 0 then null else cast(id * 1.25 - 40 as decimal(9, 2)) end as d9,
               cast(id * 1000003 - 99 as decimal(18, 3)) as d18,
               case when id % 4 = 0 then null
                    else cast(id * 123456789012 - 7 as decimal(30, 5)) end as d30,
               case when id % 6 = 0 then null else date_add(date'1969-12-25', cast(id as int))
                    end as day,
               array(cast(id as string), null) as arr
        from range(0, 300, 1, 2)""").write.parquet(path)
    return path


def _executor_frames(path):
    """Run the mapInPandas function in this process (so a patched probe applies)."""
    p = pqkit.spark.plan(path)
    config = pqkit.spark._ReadConfig(
        fields=tuple(p.fields), specs=None, partition_fields=(), partition_index=(),
        batch_size=128, timezone="UTC", large_types=False)
    tasks = pack_tasks(p.splits, 2)
    frames = [pd.DataFrame({"task": [i], "splits": [pickle.dumps(t)]})
              for i, t in enumerate(tasks)]
    return list(pqkit.spark._pandas_batches(iter(frames), config)), spark_schema(p.fields)


def _need_conversion():
    conversion = pytest.importorskip("pyspark.sql.conversion")
    if not hasattr(conversion, "PandasToArrowConversion"):
        pytest.skip("this pyspark converts mapInPandas output elsewhere")


def _spark_values(frames, schema):
    """Rows as the mapInPandas worker of this pyspark makes them from the frames."""
    from pyspark.sql.conversion import PandasToArrowConversion
    from pyspark.sql.types import StructField, StructType
    out = StructType([StructField("_0", schema)])
    rows = []
    for frame in frames:
        batch = PandasToArrowConversion.convert([frame], out, timezone="UTC", safecheck=True,
                                                arrow_cast=True, assign_cols_by_name=True)
        rows.extend(r["_0"] for r in batch.to_pylist())
    return rows


@pytest.mark.parametrize("supported", [True, False])
def test_pandas_series_follow_the_probe(spark, flat_file, monkeypatch, supported):
    _need_conversion()
    monkeypatch.setattr(sc, "_ARROW_SERIES", None)
    monkeypatch.setattr(sc, "_probe_arrow_series", lambda: supported)
    frames, schema = _executor_frames(flat_file)
    assert frames
    for frame in frames:
        for name in ARROW_COLUMNS:
            arrow_backed = isinstance(frame[name].dtype, pd.ArrowDtype)
            assert arrow_backed == supported, (name, frame[name].dtype)
            if not supported:
                assert frame[name].dtype == object
        assert frame["arr"].dtype == object                 # nested: objects either way
    got = _spark_values(frames, schema)
    expected = [r.asDict(recursive=True) for r in spark.read.parquet(flat_file).collect()]
    assert canonical_values(got) == canonical_values(expected)


def test_probe_says_supported_for_installed_pyspark():
    _need_conversion()
    assert sc._probe_arrow_series() is True


def test_pandas_engine_reads_arrow_backed_columns(spark, flat_file):
    expected = spark.read.parquet(flat_file)
    for batch_size in (1000, 37):
        got = pqkit.spark.read(spark, flat_file, batch_size=batch_size)
        assert got.schema.simpleString() == expected.schema.simpleString()
        assert same_rows(got, expected)
