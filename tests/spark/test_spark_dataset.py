"""PQDS/1 datasets through pqkit.spark: staged and committed writes, manifest-planned reads."""
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from pyspark.sql import functions as F
from spark_helpers import same_rows

import pqkit
import pqkit.dataset as pds
import pqkit.spark

pytestmark = [pytest.mark.interop, pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas:FutureWarning")]


@pytest.fixture(scope="module")
def events(spark):
    # p decides the partition; within a partition ids ascend, so row groups of 40 rows
    # hold disjoint id ranges and statistics can prune them.
    return spark.sql("""
        select id, cast(id % 3 as int) as p, concat('e', id % 7) as kind,
               cast(id * 0.25 as double) as x
        from range(0, 1800)""").repartition(2, "p").sortWithinPartitions("p", "id").cache()


@pytest.fixture(scope="module")
def dataset_root(events, tmp_path_factory):
    root = str(tmp_path_factory.mktemp("ds") / "events")
    result = pqkit.spark.write(events, root, partition_by=["p"], dataset=True,
                               row_group_size=40)
    assert result.version == 0 and result.num_rows == 1800
    return root


def _row_group_id_ranges(path):
    md = pqkit.read_metadata(path)
    node = md.schema.column("id")
    out = []
    for g in range(md.num_row_groups):
        st = md.row_group(g).thrift.columns[node.column_index].meta_data.statistics
        out.append((int.from_bytes(st.min_value, "little", signed=True),
                    int.from_bytes(st.max_value, "little", signed=True)))
    return out


def test_partitioned_dataset_prunes_partitions_and_row_groups(spark, events, dataset_root):
    ds = pds.open(dataset_root)
    assert ds.partition_by == ["p"] and ds.row_count == 1800
    filters = [("p", "=", 1), ("id", ">=", 1500)]
    plan = pqkit.spark.plan(dataset_root, filters=filters)
    # Oracle: the row groups of p=1 files whose id range reaches 1500.
    expected, total = 0, 0
    for f in ds.files():
        if f.partition_values["p"] != 1:
            continue
        ranges = _row_group_id_ranges(f.location)
        total += len(ranges)
        expected += sum(1 for lo, hi in ranges if hi >= 1500)
    assert len(plan.splits) == expected
    assert 0 < expected < total
    assert all(s.partition == (1,) for s in plan.splits)
    got = pqkit.spark.read(spark, dataset_root, filters=filters)
    assert got.columns == ["id", "kind", "x", "p"]
    assert same_rows(got, events.filter("p = 1 and id >= 1500"))
    # Plain Spark sees the same data in the published Hive tree.
    assert same_rows(spark.read.parquet(dataset_root), events)


def test_versions_append_overwrite_and_time_travel(spark, events, tmp_path):
    root = str(tmp_path / "versions")
    pqkit.spark.write(events.filter("id < 100"), root, partition_by=["p"], dataset=True)
    r1 = pqkit.spark.write(events.filter("id >= 100 and id < 150"), root)
    assert r1.version == 1 and pds.open(root).row_count == 150
    r2 = pqkit.spark.write(events.filter("id >= 1000"), root, mode="overwrite",
                           partition_by=["p"])
    assert r2.version == 2
    assert same_rows(pqkit.spark.read(spark, root), events.filter("id >= 1000"))
    assert same_rows(pqkit.spark.read(spark, root, version=1), events.filter("id < 150"))
    assert same_rows(spark.read.parquet(root), events.filter("id >= 1000"))


def test_failed_dataset_write_commits_nothing(spark, events, tmp_path):
    root = str(tmp_path / "failing")
    pqkit.spark.write(events.filter("id < 60"), root, partition_by=["p"], dataset=True)
    visible_before = sorted(os.path.relpath(os.path.join(d, n), root)
                            for d, dirs, names in os.walk(root) if "_pqkit" not in d
                            for n in names)

    def fail_late(frames):
        for i, frame in enumerate(frames):
            if i == 3:
                raise RuntimeError("injected failure")
            yield frame
    failing = events.mapInPandas(fail_late, events.schema)
    old = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "50")
    try:
        with pytest.raises(Exception, match="injected failure"):
            pqkit.spark.write(failing, root)
    finally:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", old)
    assert pds.latest_version(root) == 0
    visible_after = sorted(os.path.relpath(os.path.join(d, n), root)
                           for d, dirs, names in os.walk(root) if "_pqkit" not in d
                           for n in names)
    assert visible_after == visible_before
    assert same_rows(pqkit.spark.read(spark, root), events.filter("id < 60"))


def test_plain_write_refuses_a_dataset(spark, dataset_root):
    with pytest.raises(pqkit.SchemaError, match="PQDS/1 dataset"):
        pqkit.spark.write(spark.range(1).withColumn("p", F.lit(1)), dataset_root,
                          dataset=False)


def test_dataset_write_refuses_a_plain_hive_directory_on_the_driver(spark, tmp_path):
    root = tmp_path / "hive"
    (root / "p=1").mkdir(parents=True)
    pq.write_table(pa.table({"x": [1]}), root / "p=1" / "part-0.parquet")
    jobs_before = len(spark.sparkContext.statusTracker().getJobIdsForGroup())
    with pytest.raises(pqkit.DatasetError, match="Hive"):
        pqkit.spark.write(spark.range(1).withColumn("p", F.lit(1)), str(root), dataset=True)
    assert len(spark.sparkContext.statusTracker().getJobIdsForGroup()) == jobs_before
    assert sorted(os.listdir(root)) == ["p=1"]
