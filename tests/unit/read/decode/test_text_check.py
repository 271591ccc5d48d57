"""check_utf8 names the row of the first bad value, through levels and dictionaries."""
import numpy as np
import pytest

from pqkit.errors import InvalidStringError
from pqkit.read.decode.chunk import ChunkData
from pqkit.read.decode.text_check import check_utf8, value_rows
from pqkit.read.decode.values import BinaryValues, DictionaryValues, FixedValues


def _binary(values):
    offsets = np.zeros(len(values) + 1, np.int64)
    offsets[1:] = np.cumsum([len(v) for v in values])
    return BinaryValues(offsets, np.frombuffer(b"".join(values), np.uint8).copy())


def test_valid_values_pass():
    check_utf8(_binary([b"a", "é".encode()]), "column s", int)


def test_the_row_comes_from_the_levels_of_a_list_column():
    # rows [[a], [], [b, BAD]]: entries rep [0, 0, 0, 1], def [2, 0, 2, 2]
    values = _binary([b"a", b"b", b"\xff"])
    chunk = ChunkData(np.array([2, 0, 2, 2], np.int16), np.array([0, 0, 0, 1], np.int16),
                      4, values)
    with pytest.raises(InvalidStringError, match=r"^column s, row 2: b'\\xff' is not"):
        check_utf8(values, "column s", value_rows(chunk, 2))
    # The same chunk standing for rows 10, 20, 30 of a row group (a selection)
    with pytest.raises(InvalidStringError, match=r"^column s, row 30: "):
        check_utf8(values, "column s", value_rows(chunk, 2, lambda: np.array([10, 20, 30])))


def test_a_dictionary_names_the_first_row_using_any_bad_value():
    dictionary = _binary([b"ok", b"\xfe", b"\xff"])
    values = DictionaryValues(np.array([0, 2, 1], np.int32), dictionary)
    with pytest.raises(InvalidStringError, match=r"row 1: b'\\xff'"):
        check_utf8(values, "column s", int)
    # A null row's 0 index in a placed chunk stands for nothing.
    values = DictionaryValues(np.array([1, 0], np.int32), dictionary)
    with pytest.raises(InvalidStringError, match="no row read uses it"):
        check_utf8(values, "column s", int, present=np.array([False, True]))


def test_fixed_width_text():
    values = FixedValues(np.frombuffer(b"ab\xc3\xa9\xc3\xc3", np.uint8).reshape(3, 2))
    with pytest.raises(InvalidStringError, match=r"row 2: b'\\xc3\\xc3'"):
        check_utf8(values, "column s", int)
