"""Deletion files (docs/DATASET.md, core/deletion_file.py) through Spark: the ``pqkit`` data
source and the streaming source read a dataset version without its deleted rows."""
import pickle

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable

import pqkit.dataset as pds
import pqkit.spark
from pqkit.spark.datasource.read import source_schema
from pqkit.spark.datasource.stream_source import DatasetStreamReader

pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")

DELETED = [3, 40, 77]


@pytest.fixture
def root(tmp_path):
    root = str(tmp_path / "ds")
    ids = list(range(100))
    pds.write(root, {"id": ids, "p": ["a" if i < 50 else "b" for i in ids]},
              partition_by=["p"], mode="create", properties={"deletes": "files"},
              row_group_size=30)
    pds.delete(root, [("id", "in", DELETED)])
    return root


def _live(ids=range(100)):
    return [i for i in ids if i not in DELETED]


def test_the_data_source_leaves_out_deleted_rows(spark, root):
    pqkit.spark.register(spark)
    df = spark.read.format("pqkit").load(root)
    assert sorted(r.id for r in df.collect()) == _live()
    assert df.count() == 97
    assert sorted(r.id for r in df.where("id < 10 or p = 'b'").select("id").collect()) == \
        _live([*range(10), *range(50, 100)])
    old = spark.read.format("pqkit").option("versionAsOf", 0).load(root)
    assert old.count() == 100


def test_the_streaming_source_reads_the_snapshot_without_deleted_rows(root):
    options = {"path": root}
    reader = DatasetStreamReader(options, source_schema(options))
    start = reader.initialOffset()
    end = reader.latestOffset(start, ReadAllAvailable())
    ids = []
    for partition in reader.partitions(start, end):
        fresh = DatasetStreamReader(options, source_schema(options))
        for batch in fresh.read(pickle.loads(pickle.dumps(partition))):
            ids.extend(batch.column("id").to_pylist())
    assert sorted(ids) == _live()
