"""The deletion file format (core/deletion_file.py): positions round-trip, runs stay small,
and a file that disagrees with its entry is ManifestCorrupted."""
import numpy as np
import pytest

from pqkit.dataset.core.deletion_file import (
    deleted_count,
    deletion_bytes,
    live_rows,
    read_deletion_file,
)
from pqkit.errors import ManifestCorrupted


def _record(rows):
    return {"path": "_pqkit/deletions/_x.pqdel", "rows": rows, "size": 0}


def test_positions_round_trip_and_a_run_is_small():
    rows = np.array([0, 5, 6, 7, 99], np.int64)
    back = read_deletion_file(deletion_bytes(rows), _record(5), 100, "here")
    assert back.dtype == np.int64 and back.tolist() == rows.tolist()
    assert len(deletion_bytes(np.arange(1_000_000))) < 16_384      # one run, compressed


@pytest.mark.parametrize("rows, count, row_count", [
    ([1, 2], 3, 10),            # the entry says another count
    ([2, 1], 2, 10),            # unsorted
    ([1, 1], 2, 10),            # repeated
    ([1, 10], 2, 10),           # past the data file
])
def test_a_deletion_file_that_disagrees_with_its_entry_is_corrupted(rows, count, row_count):
    with pytest.raises(ManifestCorrupted, match="deletion file"):
        read_deletion_file(deletion_bytes(rows), _record(count), row_count, "here")


def test_unreadable_bytes_are_corrupted():
    with pytest.raises(ManifestCorrupted, match="unreadable"):
        read_deletion_file(b"not parquet", _record(1), 10, "here")


def test_live_rows_of_an_entry():
    assert live_rows({"row_count": 10}) == 10 and deleted_count({"row_count": 10}) == 0
    assert live_rows({"row_count": 10, "deletions": _record(3)}) == 7
