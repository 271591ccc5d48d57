"""pqkit.read.budget: one read's total allocation, held to max(floor, ratio * bytes read)."""
import io
import threading

import numpy as np
import pytest

import pqkit
from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn
from pqkit.columnar.nested import ListColumn, StructColumn
from pqkit.read.budget import ReadBudget, gathered_text_bytes


def test_the_limit_is_the_floor_until_the_ratio_of_the_bytes_read_passes_it():
    budget = ReadBudget(pqkit.ReadOptions(budget_ratio=10, budget_floor=100))
    budget.charge(100, "a", "here")                     # up to the floor
    with pytest.raises(pqkit.AllocationLimitError) as exc:
        budget.charge(1, "one more byte", "column x, row group 0")
    assert str(exc.value).startswith("column x, row group 0: one more byte would bring what "
                                     "this read allocates to 101 bytes, over its budget of "
                                     "100: the larger of ReadOptions.budget_floor = 100 and "
                                     "ReadOptions.budget_ratio = 10 times the 0 bytes")
    assert exc.value.limit == "budget_ratio"
    assert budget.allocated == 100                      # a refused charge is not counted
    budget.add_read(50)                                 # now 10 * 50 = 500
    budget.charge(400, "b", "here")
    with pytest.raises(pqkit.AllocationLimitError):
        budget.charge(1, "c", "here")


def test_charges_from_many_threads_add_up():
    budget = ReadBudget(pqkit.ReadOptions(budget_floor=10**9))

    def work():
        for _ in range(1000):
            budget.charge(1, "x", "here")
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert budget.allocated == 4000


def test_gathered_text_bytes_counts_rows_held_by_reference_nested_too():
    distinct = BinaryColumn(T.string(), np.array([0, 3, 10], np.int64),
                            np.frombuffer(b"abcdefghij", np.uint8))
    gathered = distinct.take(np.array([1, 1, 0, 1, 1, 1]))     # repeats: by reference
    assert gathered.gathered() is not None
    assert gathered_text_bytes([gathered]) == 5 * 7 + 3
    plain = BinaryColumn(T.string(), np.array([0, 2], np.int64), np.zeros(2, np.uint8))
    assert gathered_text_bytes([plain]) == 0
    nested = StructColumn(T.struct([T.Field("s", T.string())]), [gathered], length=6)
    listed = ListColumn(T.list_(T.string()), np.array([0, 6], np.int32), gathered)
    assert gathered_text_bytes([nested, listed]) == 2 * 38


def test_a_read_over_its_budget_is_not_corrupt_and_reads_with_the_budget_raised():
    out = io.BytesIO()
    pqkit.write_table({"x": np.zeros(100_000, np.int64)}, out, compression="zstd")
    data = out.getvalue()
    tight = pqkit.ReadOptions(budget_floor=0, budget_ratio=2)
    with pytest.raises(pqkit.AllocationLimitError, match=r"ReadOptions\.budget_ratio = 2 "):
        pqkit.read_table(data, options=tight)
    with pytest.raises(pqkit.AllocationLimitError):
        pqkit.ParquetFile(data, options=tight).take([5])
    assert not issubclass(pqkit.AllocationLimitError, pqkit.CorruptFileError)
    assert pqkit.read_table(data).num_rows == 100_000


def test_byte_arrays_expanded_from_a_dictionary_are_charged_before_they_are_copied():
    """A chunk that falls back from dictionary to PLAIN pages expands its dictionary
    pages' values: 1000 rows of one 10,000-byte value, 10 MB from a 4 KB file."""
    out = io.BytesIO()
    pqkit.write_table({"s": ["x" * 10000] * 1000 + [f"u{i}" for i in range(3000)]}, out,
                      dictionary_page_size_limit=12000, compression="zstd")
    data = out.getvalue()
    chunk = pqkit.read_metadata(data).row_group(0).column(0)
    with pytest.raises(pqkit.AllocationLimitError,
                       match=r"^column s, row group 0: expanding \d+ dictionary-encoded byte "
                             r"arrays \(\d+ bytes\) would bring .* ReadOptions\.budget_ratio "
                             rf"= 30 times the {chunk.total_compressed_size} bytes it read"):
        pqkit.read_table(data, options=pqkit.ReadOptions(budget_ratio=30, budget_floor=0))
    assert pqkit.read_table(data).column("s").to_pylist()[999] == "x" * 10000
