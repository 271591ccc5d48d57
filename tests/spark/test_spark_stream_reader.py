"""The streaming reader's calls made directly, as Spark's planner and executors make them
(no session: each call is what one Python worker does)."""
import pickle

import pytest
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadMaxBytes, ReadMaxFiles

import pqkit.dataset as pds
from pqkit.errors import SchemaError
from pqkit.spark.datasource.read import source_schema
from pqkit.spark.datasource.stream_source import DatasetStreamReader


@pytest.fixture
def root(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"id": [0, 1, 2], "p": ["a", "b", "a"]}, mode="create", partition_by=["p"])
    pds.write(root, {"id": [3, 4], "p": ["b", "c"]}, mode="append")
    return root


def _reader(root, **options):
    options = {"path": root, **options}
    return DatasetStreamReader(options, source_schema(options))


def _rows(reader, start, end):
    """Rows of a micro-batch, each partition read by a fresh reader (as on an executor)."""
    out = []
    for partition in reader.partitions(start, end):
        fresh = _reader(reader.root)
        for batch in fresh.read(pickle.loads(pickle.dumps(partition))):
            out.extend(zip(batch.column("id").to_pylist(), batch.column("p").to_pylist()))
    return sorted(out)


def test_micro_batches_in_file_order_under_a_file_limit(root):
    reader = _reader(root, maxFilesPerTrigger="2")
    limit = reader.getDefaultReadLimit()
    assert limit == ReadMaxFiles(2)
    start = reader.initialOffset()
    first = reader.latestOffset(start, limit)
    second = reader.latestOffset(first, limit)
    assert reader.latestOffset(second, limit) == second
    assert _rows(reader, start, first) == [(0, "a"), (1, "b"), (2, "a")]    # 2 files
    assert _rows(reader, first, second) == [(3, "b"), (4, "c")]


def test_all_available_ignores_the_options_limit(root):
    reader = _reader(root, maxBytesPerTrigger="1")
    assert reader.getDefaultReadLimit() == ReadMaxBytes(1)
    start = reader.initialOffset()
    end = reader.latestOffset(start, ReadAllAvailable())
    assert len(_rows(reader, start, end)) == 5


def test_available_now_stops_at_the_version_of_its_start(root):
    reader = _reader(root, startingVersion="1")
    reader.prepareForTriggerAvailableNow()
    pds.write(root, {"id": [5], "p": ["d"]}, mode="append")
    start = reader.initialOffset()
    end = reader.latestOffset(start, ReadAllAvailable())
    assert _rows(reader, start, end) == [(3, "b"), (4, "c")]
    assert reader.latestOffset(end, ReadAllAvailable()) == end


def test_an_empty_range_has_no_partitions(root):
    reader = _reader(root, startingVersion="latest")
    start = reader.initialOffset()
    end = reader.latestOffset(start, ReadAllAvailable())
    assert end != start and reader.partitions(start, end) == []


@pytest.mark.parametrize("options, message", [
    ({"startingVersion": "first"}, "startingVersion must be a version number or 'latest'"),
    ({"maxBytesPerTrigger": "lots"}, "maxBytesPerTrigger must be a positive size"),
    ({"maxFilesPerTrigger": "0"}, "maxfilespertrigger must be an integer >= 1"),
    ({"skipChangeCommits": "yes"}, "skipchangecommits must be true or false"),
    ({"maxFilesPerTriger": "2"}, "unknown read option 'maxfilespertriger'.*maxfilespertrigger"),
])
def test_bad_options_say_what_is_wrong(root, options, message):
    with pytest.raises(SchemaError, match=message):
        _reader(root, **options)


def test_sizes_take_units(root):
    assert _reader(root, maxBytesPerTrigger="64m").max_bytes == 64 << 20
    assert _reader(root, maxBytesPerTrigger="2 GiB").max_bytes == 2 << 30


def test_a_plain_directory_is_no_stream_source(tmp_path):
    import pqkit
    pqkit.write_table({"id": [1]}, str(tmp_path / "a.parquet"))
    reader = _reader(str(tmp_path))
    with pytest.raises(pds.DatasetNotFound, match="reads a PQDS/1 dataset.*holds none"):
        reader.initialOffset()
