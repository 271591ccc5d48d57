"""Offsets of the streaming source over a PQDS/1 dataset (no SparkSession needed)."""
import pytest

import pqkit.dataset as pds
from pqkit.errors import SchemaError
from pqkit.spark.datasource.stream_offsets import DatasetChanged, Offset, StreamLog, StreamPlanner


def _append(root, ids, **options):
    return pds.write(str(root), {"id": list(ids)}, mode="append", **options)


def _planner(root, **options):
    log = StreamLog(str(root))
    ds = pds.open(str(root))
    schema = (tuple((f.name, f.type) for f in ds.table_schema.fields),
              tuple((c.name, c.type) for c in ds.partitioning.columns))
    return StreamPlanner(log, schema, **options)


def _drain(planner, start, **limits):
    """Every micro-batch from ``start`` until nothing is pending: [(end, [(version, rows)])]."""
    batches = []
    while True:
        end = planner.latest(start, **limits)
        if end == start:
            return batches
        batches.append((end, [(v, f.row_count) for v, f in planner.files(start, end)]))
        start = end


@pytest.fixture
def root(tmp_path):
    root = tmp_path / "ds"
    pds.write(str(root), {"id": [0, 1]}, mode="create")          # version 0
    for v in range(1, 4):
        _append(root, range(10 * v, 10 * v + v))                   # v adds v rows
    return root


def test_default_start_reads_the_latest_snapshot_then_later_versions(root):
    planner = _planner(root)
    start = planner.initial()
    assert start == Offset(-1, 0, True)
    batches = _drain(planner, start)
    assert batches == [(Offset(4), [(3, 2), (3, 1), (3, 2), (3, 3)])]
    _append(root, [100, 101])
    assert _drain(planner, batches[-1][0]) == [(Offset(5), [(4, 2)])]


def test_the_first_batch_is_replanned_identically_from_the_initial_offset(root):
    planner = _planner(root)
    end = planner.latest(planner.initial(), max_files=2)
    assert end == Offset(3, 2, True)
    _append(root, [7])                           # committed before the restart
    again = _planner(root)
    keys = [(v, f.key) for v, f in planner.files(planner.initial(), end)]
    assert [(v, f.key) for v, f in again.files(again.initial(), end)] == keys
    assert len(keys) == 2


def test_starting_version_reads_the_files_each_version_added(root):
    planner = _planner(root, starting_version=2)
    assert _drain(planner, planner.initial()) == [(Offset(4), [(2, 2), (3, 3)])]


def test_starting_latest_reads_only_versions_after_the_start(root):
    planner = _planner(root, starting_version="latest")
    first = planner.latest(planner.initial())
    assert first == Offset(4) and planner.files(planner.initial(), first) == []
    _append(root, [5])
    assert _drain(planner, first) == [(Offset(5), [(4, 1)])]


def test_max_files_cuts_versions_into_several_batches(root):
    planner = _planner(root, starting_version=0)
    batches = _drain(planner, planner.initial(), max_files=2)
    assert [end for end, _ in batches] == [Offset(2), Offset(4)]
    assert [files for _, files in batches] == [[(0, 2), (1, 1)], [(2, 2), (3, 3)]]


def test_max_files_cuts_inside_a_version(tmp_path):
    root = str(tmp_path / "parts")
    pds.write(root, {"id": [0], "p": [0]}, mode="create", partition_by=["p"])
    pds.write(root, {"id": [1, 2, 3], "p": [1, 2, 3]}, mode="append")
    planner = _planner(root, starting_version=1)
    batches = _drain(planner, planner.initial(), max_files=2)
    assert [end for end, _ in batches] == [Offset(1, 2), Offset(2)]
    assert [len(files) for _, files in batches] == [2, 1]


def test_max_bytes_admits_at_least_one_file(root):
    planner = _planner(root, starting_version=0)
    batches = _drain(planner, planner.initial(), max_bytes=1)
    assert [len(files) for _, files in batches] == [1, 1, 1, 1]
    assert [end for end, _ in batches] == [Offset(1), Offset(2), Offset(3), Offset(4)]


def test_snapshot_cut_by_max_files_stays_apart_from_later_versions(root):
    planner = _planner(root)
    first = planner.latest(planner.initial(), max_files=3)
    assert first == Offset(3, 3, True)
    _append(root, [9])
    batches = _drain(planner, first, max_files=3)
    assert [end for end, _ in batches] == [Offset(4), Offset(5)]
    assert [files for _, files in batches] == [[(3, 3)], [(4, 1)]]


def test_a_delete_fails_the_stream_after_the_rows_before_it(root):
    planner = _planner(root, starting_version=2)
    pds.delete(str(root), [("id", "==", 10)])                      # version 4
    _append(root, [50])                                            # version 5
    first = planner.latest(planner.initial())
    assert first == Offset(4)                                      # versions 2 and 3 first
    with pytest.raises(DatasetChanged, match="version 4 .* skipChangeCommits"):
        planner.latest(first)


def test_skip_change_commits_skips_the_whole_version(root):
    planner = _planner(root, starting_version=2, skip_change_commits=True)
    pds.delete(str(root), [("id", "==", 10)])
    _append(root, [50])
    assert _drain(planner, planner.initial()) == [(Offset(6), [(2, 2), (3, 3), (5, 1)])]


def test_compaction_changes_no_row_and_is_skipped(root):
    planner = _planner(root, starting_version=3)
    assert pds.compact(str(root)) == 4
    _append(root, [50])
    assert _drain(planner, planner.initial()) == [(Offset(6), [(3, 3), (5, 1)])]


def test_a_schema_change_fails_with_the_two_schemas(root):
    planner = _planner(root, starting_version=3)
    pds.write(str(root), {"id": [1], "x": ["a"]}, mode="append", evolve_schema=True)
    first = planner.latest(planner.initial())
    assert first == Offset(4)
    with pytest.raises(SchemaError, match="changed at version 4: the stream reads id int64, "
                                          "version 4 has id int64, x string; restart"):
        planner.latest(first)
