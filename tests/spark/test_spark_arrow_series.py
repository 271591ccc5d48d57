"""The pandas engine hands strings, binary, decimals and dates to pyspark as Arrow-backed
Series where pyspark takes them (``__arrow_array__``), and as Python objects otherwise."""
import importlib
import importlib.util
import inspect
import pickle

import pandas as pd
import pytest
from spark_helpers import canonical_values, same_rows, spark_conf

import pqkit.spark
import pqkit.spark.conversion.columns as sc
from pqkit.spark.conversion.schema import spark_schema
from pqkit.spark.jobs import read_job
from pqkit.spark.jobs.plan import pack_tasks

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
    config = read_job.ReadConfig(
        fields=tuple(p.fields), specs=None, partition_fields=(), partition_index=(),
        batch_size=128, timezone="UTC", large_types=False)
    tasks = pack_tasks(p.splits, 2)
    frames = [pd.DataFrame({"task": [i], "splits": [pickle.dumps(t)]})
              for i, t in enumerate(tasks)]
    return list(read_job._pandas_batches(iter(frames), config)), spark_schema(p.fields)


def _spark_values(spark, frames, schema):
    """Rows Spark makes from the frames through its public pandas -> Arrow route
    (``createDataFrame`` with Arrow on and no silent fallback to the row path)."""
    conf = {"spark.sql.execution.arrow.pyspark.enabled": "true",
            "spark.sql.execution.arrow.pyspark.fallback.enabled": "false"}
    with spark_conf(spark, conf):
        rows = []
        for frame in frames:
            rows.extend(r.asDict(recursive=True)
                        for r in spark.createDataFrame(frame, schema).collect())
        return rows


@pytest.mark.parametrize("forced", [None, False], ids=["as_probed", "objects"])
def test_pandas_series_follow_the_probe(spark, flat_file, monkeypatch, forced):
    """As probed (Arrow-backed on this pyspark if it takes them) and forced to objects,
    the frames give Spark the same rows as spark.read.parquet."""
    supported = sc.arrow_series_supported() if forced is None else forced
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
    got = _spark_values(spark, frames, schema)
    expected = [r.asDict(recursive=True) for r in spark.read.parquet(flat_file).collect()]
    assert canonical_values(got) == canonical_values(expected)


def test_probe_matches_the_installed_pyspark():
    """pyspark 4.3+ converts mapInPandas output in pyspark.sql.conversion, which takes
    Arrow-backed Series: the probe must say so. Older 4.x releases are answered from
    their serializer's source instead; whatever it says, the frames above convert."""
    has_converter = (importlib.util.find_spec("pyspark.sql.conversion") is not None and
                     hasattr(importlib.import_module("pyspark.sql.conversion"),
                             "PandasToArrowConversion"))
    if has_converter:
        assert sc._probe_arrow_series() is True
    else:
        from pyspark.sql.pandas.serializers import ArrowStreamPandasSerializer
        source = inspect.getsource(ArrowStreamPandasSerializer._create_array)
        assert sc._probe_arrow_series() is ("__arrow_array__" in source)


def test_pandas_engine_reads_arrow_backed_columns(spark, flat_file):
    expected = spark.read.parquet(flat_file)
    for batch_size in (1000, 37):
        got = pqkit.spark.read(spark, flat_file, batch_size=batch_size)
        assert got.schema.simpleString() == expected.schema.simpleString()
        assert same_rows(got, expected)
