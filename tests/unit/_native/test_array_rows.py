"""List rows as numpy views of one flat array (pqkit._native.array_rows)."""
import numpy as np
import pytest

from pqkit._native.array_rows import array_rows


def test_docstring_example():
    flat = np.array([1, 2, 3, 4])
    rows = array_rows(flat, np.array([0, 2, 2, 4]), np.array([True, False, True]))
    assert rows.dtype == object and len(rows) == 3
    assert rows[0].tolist() == [1, 2] and rows[1] is None and rows[2].tolist() == [3, 4]
    assert rows[0].base is flat and rows[2].base is flat
    assert not rows[0].flags.writeable


def test_offsets_need_not_start_at_zero_and_empty_rows_are_arrays():
    flat = np.array(["a", "b", "c"], dtype=object)
    rows = array_rows(flat, np.array([5, 5, 6, 8]))
    assert [r.tolist() for r in rows] == [[], ["a"], ["b", "c"]]
    assert rows[0].dtype == object


def test_views_keep_the_flat_array_alive():
    rows = array_rows(np.arange(6, dtype=np.float32) * 2, np.array([0, 3, 6]))
    assert rows[1].tolist() == [6.0, 8.0, 10.0] and rows[1].dtype == np.float32


@pytest.mark.parametrize("offsets", [[0, 2, 1], [0, 5], [1, 0], []])
def test_bad_offsets_raise(offsets):
    with pytest.raises(ValueError):
        array_rows(np.arange(3), np.array(offsets, dtype=np.int64))


def test_flat_must_be_contiguous_and_validity_sized():
    with pytest.raises(ValueError, match="C-contiguous"):
        array_rows(np.arange(6)[::2], np.array([0, 1]))
    with pytest.raises(ValueError, match="validity of 1 entries for 2 rows"):
        array_rows(np.arange(3), np.array([0, 1, 2]), np.array([True]))
