"""Spark reads exactly the live rows of a published PQDS/1 root (issue 17 item 3).

The same life as ``tests/interop/test_dataset_engines.py`` (create, append,
index, delete, merge, overwrite, compact, a killed writer, a no-op rerun): after each
step ``spark.read.parquet(root)`` must return the manifest's rows and nothing
from ``_pqkit/``.
"""
import pytest

from dataset_states import lifecycle_states, rows

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")]


def test_spark_reads_the_manifest_rows_after_every_step(spark, tmp_path):
    seen = {}
    for step, root, expected in lifecycle_states(tmp_path):
        frame = spark.read.parquet(root).select("k", "p", "v").toPandas()
        seen[step] = rows(frame.to_dict("list"))
        assert seen[step] == expected, step
    assert len(seen) == 12 and all(seen.values())
