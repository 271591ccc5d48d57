"""The streaming sink's two halves called directly, as Spark calls them (no session)."""
import datetime
import decimal
import os

import pyarrow as pa
import pytest
from pyspark.sql import types as S
from pyspark.sql.pandas.types import to_arrow_schema

import pqkit.dataset as pds
from pqkit.errors import SchemaError
from pqkit.spark.datasource.stream_sink import DatasetStreamWriter

SCHEMA = S.StructType([
    S.StructField("id", S.LongType()), S.StructField("s", S.StringType()),
    S.StructField("ts", S.TimestampType()), S.StructField("d", S.DecimalType(10, 2)),
    S.StructField("arr", S.ArrayType(S.IntegerType())), S.StructField("p", S.StringType())])
UTC = datetime.timezone.utc


def _batch(ids):
    rows = [{"id": i, "s": f"s{i}", "ts": datetime.datetime(2024, 1, 1, i, tzinfo=UTC),
             "d": decimal.Decimal(f"{i}.25"), "arr": [i, None], "p": ("x", "", None)[i % 3]}
            for i in ids]
    return pa.RecordBatch.from_pylist(rows, schema=to_arrow_schema(SCHEMA, timezone="UTC"))


def _checkpoint(tmp_path, query_id):
    path = tmp_path / f"ck-{query_id}"
    path.mkdir()
    (path / "metadata").write_text('{"id":"%s"}\n' % query_id)
    return str(path)


def _writer(tmp_path, query_id="q1", overwrite=False, **options):
    options = {"path": str(tmp_path / "out"), "checkpointLocation":
               _checkpoint(tmp_path, query_id), "partition_by": "p", **options}
    return DatasetStreamWriter(options, SCHEMA, overwrite)


def _staged_files(root):
    return sorted(os.path.relpath(os.path.join(d, n), root)
                  for d, _, names in os.walk(root) for n in names if ".parquet" in n)


def test_each_batch_is_one_version_and_a_replayed_batch_a_no_op(tmp_path):
    writer = _writer(tmp_path)
    root = str(tmp_path / "out")
    writer.commit([writer.write(iter([_batch([0, 1])])), writer.write(iter([_batch([2])]))], 0)
    writer.commit([writer.write(iter([_batch([3, 4, 5])]))], 1)
    files = _staged_files(root)
    replay = writer.write(iter([_batch([3, 4, 5])]))
    assert _staged_files(root) != files                 # staged, hidden
    writer.commit([replay], 1)
    assert _staged_files(root) == files                 # discarded by the no-op commit
    ds = pds.open(root)
    assert ds.version == 1 and ds.partition_by == ["p"]
    assert [v["run_id"] for v in ds.versions()] == ["spark-stream-q1:0", "spark-stream-q1:1"]
    rows = ds.read().to_pydict()
    assert sorted(rows["id"]) == [0, 1, 2, 3, 4, 5]
    by_id = {i: k for k, i in enumerate(rows["id"])}
    assert rows["p"][by_id[0]] == "x" and rows["p"][by_id[1]] is None   # "" is null, as Spark
    assert rows["d"][by_id[5]] == decimal.Decimal("5.25")
    assert rows["ts"][by_id[2]] == datetime.datetime(2024, 1, 1, 2, tzinfo=UTC)


def test_a_new_checkpoint_is_a_new_stream(tmp_path):
    first = _writer(tmp_path, "q1")
    first.commit([first.write(iter([_batch([0])]))], 0)
    second = _writer(tmp_path, "q2")
    second.commit([second.write(iter([_batch([1])]))], 0)     # batch 0 again, another query
    assert sorted(pds.open(str(tmp_path / "out")).read(columns=["id"]).to_pydict()["id"]) == \
        [0, 1]


def test_abort_removes_the_staged_files(tmp_path):
    writer = _writer(tmp_path)
    writer.commit([writer.write(iter([_batch([0])]))], 0)
    files = _staged_files(str(tmp_path / "out"))
    writer.abort([writer.write(iter([_batch([1, 2, 3])])), None], 1)
    assert _staged_files(str(tmp_path / "out")) == files
    assert pds.latest_version(str(tmp_path / "out")) == 0


def test_complete_mode_overwrites(tmp_path):
    writer = _writer(tmp_path, overwrite=True)
    writer.commit([writer.write(iter([_batch([0, 1])]))], 0)
    writer.commit([writer.write(iter([_batch([7])]))], 1)
    assert pds.open(str(tmp_path / "out")).read(columns=["id"]).to_pydict()["id"] == [7]


def test_without_a_stream_id_the_commit_says_what_to_give(tmp_path):
    writer = DatasetStreamWriter({"path": str(tmp_path / "out")}, SCHEMA, False)
    with pytest.raises(SchemaError, match="checkpointLocation.*streamId"):
        writer.commit([writer.write(iter([_batch([0])]))], 0)
    assert _staged_files(str(tmp_path / "out")) == []
    named = DatasetStreamWriter({"path": str(tmp_path / "out"), "streamId": "etl"}, SCHEMA,
                                False)
    named.commit([named.write(iter([_batch([0])]))], 0)
    assert pds.open(str(tmp_path / "out")).versions()[0]["run_id"] == "spark-stream-etl:0"


def test_partition_by_must_name_columns(tmp_path):
    with pytest.raises(SchemaError, match="partition column 'q' is not a column"):
        _writer(tmp_path, partition_by="q")


def test_without_partition_by_an_existing_dataset_keeps_its_partitioning(tmp_path):
    first = _writer(tmp_path, "q1")
    first.commit([first.write(iter([_batch([0, 1, 2])]))], 0)
    second = DatasetStreamWriter({"path": str(tmp_path / "out"), "streamId": "s2"}, SCHEMA,
                                 False)
    assert second.partition_by == ["p"]
    second.commit([second.write(iter([_batch([3])]))], 0)
    assert pds.open(str(tmp_path / "out")).count() == 4


def test_a_batch_without_rows_adds_no_version(tmp_path):
    writer = _writer(tmp_path)
    writer.commit([writer.write(iter([]))], 0)
    assert not os.path.exists(tmp_path / "out" / "_pqkit" / "versions")
    writer.commit([writer.write(iter([_batch([0])]))], 1)
    writer.commit([writer.write(iter([])), None], 2)
    assert pds.latest_version(str(tmp_path / "out")) == 0
