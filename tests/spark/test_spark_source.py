"""The ``pqkit`` Spark data source: spark.read.format("pqkit")."""
import numpy as np
import pytest

import pqkit
import pqkit.spark
from spark_helpers import canonical_rows


@pytest.fixture(scope="module")
def pqkit_format(spark):
    pqkit.spark.register(spark)
    return spark


def _table(path, n=1000, row_group_size=100):
    pqkit.write_table({"id": np.arange(n), "s": [f"s{i}" for i in range(n)]}, str(path),
                      row_group_size=row_group_size)


def test_format_reads_what_spark_reads(pqkit_format, tmp_path):
    spark = pqkit_format
    _table(tmp_path / "a.parquet")
    mine = spark.read.format("pqkit").load(str(tmp_path))
    theirs = spark.read.parquet(str(tmp_path))
    assert mine.schema == theirs.schema
    assert canonical_rows(mine.collect()) == canonical_rows(theirs.collect())


def test_several_paths_and_user_schema(pqkit_format, tmp_path):
    spark = pqkit_format
    _table(tmp_path / "a.parquet")
    _table(tmp_path / "b.parquet", n=10)
    both = spark.read.format("pqkit").load([str(tmp_path / "a.parquet"),
                                            str(tmp_path / "b.parquet")])
    assert both.count() == 1010
    only_s = spark.read.format("pqkit").schema("s string").load(str(tmp_path / "a.parquet"))
    assert only_s.columns == ["s"]
    assert only_s.where("s like 's9%'").count() == 111
