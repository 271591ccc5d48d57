"""The Python-object kernels of pqkit._native.pyobjects against plain Python."""
import gc
import random
import sys
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pqkit import datatypes as T
from pqkit._native.pyobjects import (
    decimal_objects,
    first_invalid_utf8,
    list_rows,
    struct_rows,
    utf8_objects,
)
from pqkit.columnar.column import BinaryColumn


def _binary(values):
    data = b"".join(values)
    offsets = np.concatenate([[0], np.cumsum([len(v) for v in values])]).astype(np.int64)
    return offsets, np.frombuffer(data, np.uint8) if data else np.zeros(0, np.uint8)


# --- list_rows / struct_rows ------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(0, 4), max_size=12), start=st.integers(0, 3),
       data=st.data())
def test_list_rows_match_slicing(lengths, start, data):
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64) + start
    values = list(range(int(offsets[-1]) - start))
    validity = np.array(data.draw(st.lists(st.booleans(), min_size=len(lengths),
                                           max_size=len(lengths))), bool)
    expected = [values[a - start:b - start] if ok else None
                for a, b, ok in zip(offsets[:-1], offsets[1:], validity)]
    assert list_rows(values, offsets, validity, False) == expected
    got = list_rows(values, offsets, validity, True)
    assert got.dtype == object and got.tolist() == expected
    assert list_rows(values, offsets, None, False) == \
        [values[a - start:b - start] for a, b in zip(offsets[:-1], offsets[1:])]


def test_list_rows_reject_bad_offsets():
    with pytest.raises(ValueError, match="spans values"):
        list_rows([1, 2], np.array([0, 3]))
    with pytest.raises(ValueError, match="spans values"):
        list_rows([1, 2], np.array([0, 2, 1]))
    with pytest.raises(ValueError, match="validity"):
        list_rows([1, 2], np.array([0, 1, 2]), np.array([True]))
    with pytest.raises(ValueError, match="at least one"):
        list_rows([], np.zeros(0, np.int64))


def test_struct_rows_build_dicts_with_nulls():
    rows = struct_rows(("a", "b"), [[1, 2, 3], ["x", "y", None]], 3,
                       np.array([True, False, True]), False)
    assert rows == [{"a": 1, "b": "x"}, None, {"a": 3, "b": None}]
    as_array = struct_rows(("a",), [[1, 2]], 2)
    assert as_array.dtype == object and as_array.tolist() == [{"a": 1}, {"a": 2}]
    assert struct_rows(("a", "a"), [[1], [2]], 1, None, False) == [{"a": 2}]   # last wins
    with pytest.raises(ValueError, match="expected a list of 2"):
        struct_rows(("a",), [[1]], 2)
    with pytest.raises(ValueError, match="2 field names but 1"):
        struct_rows(("a", "b"), [[1]], 1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-2**63, 2**63 - 1), st.floats(allow_nan=False),
                          st.booleans(), st.booleans(), st.booleans()), max_size=40),
       st.booleans())
def test_struct_rows_make_numbers_from_arrays_as_from_lists(rows, as_array):
    """A field given as (int64 or float64 numbers, validity) gives the same dicts as
    the list of those numbers' Python objects."""
    n = len(rows)
    ints = np.array([r[0] for r in rows], np.int64)
    floats = np.array([r[1] for r in rows], np.float64)
    int_valid = np.array([r[2] for r in rows], np.bool_)
    struct_valid = np.array([r[4] for r in rows], np.bool_)
    labels = [str(i) for i in range(n)]
    from_lists = struct_rows(("i", "f", "s"), [
        [v if ok else None for v, ok in zip(ints.tolist(), int_valid)],
        floats.tolist(), labels], n, struct_valid, False)
    direct = struct_rows(("i", "f", "s"), [(ints, int_valid), (floats, None), labels], n,
                         struct_valid, as_array)
    assert list(direct) == from_lists
    got = [type(r["i"]) for r in direct if r is not None and r["i"] is not None]
    assert set(got) <= {int}


def test_struct_rows_refuse_numbers_of_another_shape_or_dtype():
    with pytest.raises(ValueError, match="expected 3 contiguous numbers"):
        struct_rows(("a",), [(np.zeros(2, np.int64), None)], 3)
    with pytest.raises(ValueError, match="int64 or float64 expected"):
        struct_rows(("a",), [(np.zeros(3, np.int32), None)], 3)
    with pytest.raises(ValueError, match="validity of shape"):
        struct_rows(("a",), [(np.zeros(3, np.int64), np.ones(2, np.bool_))], 3)
    with pytest.raises(ValueError, match="numbers, validity"):
        struct_rows(("a",), [np.zeros(3, np.int64)], 3)


def test_row_kernels_keep_reference_counts():
    v = object()
    values = [v] * 3
    base = sys.getrefcount(v)
    for _ in range(50):
        rows = list_rows(values, np.array([0, 1, 3]), np.array([True, False]))
        dicts = struct_rows(("a",), [values], 3, None, False)
        del rows, dicts
    assert sys.getrefcount(v) == base


# --- utf8_objects / first_invalid_utf8 ----------------------------------------------------------
def test_utf8_objects_decode_positions():
    offsets, data = _binary([b"ab", b"", "€".encode()])
    assert utf8_objects(offsets, data, np.array([2, 0, 0, 1])).tolist() == ["€", "ab", "ab", ""]
    with pytest.raises(ValueError, match="outside"):
        utf8_objects(offsets, data, np.array([3]))


_BYTES = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
          0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]


def _first_bad(values, validity):
    for i, (v, ok) in enumerate(zip(values, validity)):
        if not ok:
            continue
        try:
            v.decode("utf-8")
        except UnicodeDecodeError:
            return i
    return -1


@pytest.mark.parametrize("check_order", [True, False])
def test_first_invalid_utf8_agrees_with_python(check_order):
    rng = random.Random(7)
    for _ in range(3000):
        values = [bytes(rng.choice(_BYTES) for _ in range(rng.randint(0, 5)))
                  for _ in range(rng.randint(1, 5))]
        validity = np.array([rng.random() < 0.8 for _ in values])
        offsets, data = _binary(values)
        assert first_invalid_utf8(offsets, data, validity, check_order) == \
            _first_bad(values, validity)
        assert first_invalid_utf8(offsets, data, None, check_order) == \
            _first_bad(values, [True] * len(values))


def test_first_invalid_utf8_on_every_code_point_and_edges():
    good = [chr(cp).encode("utf-8", "surrogatepass") for cp in range(0, 0x110000, 97)
            if not 0xD800 <= cp <= 0xDFFF]
    offsets, data = _binary(good)
    assert first_invalid_utf8(offsets, data) == -1
    for bad in (b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe0\x80\x80", b"\xc3", b"\x80"):
        offsets, data = _binary([b"ok", bad])
        assert first_invalid_utf8(offsets, data) == 1
    # a sequence split across two values is invalid in both
    offsets, data = _binary([b"\xc3", b"\xa9"])
    assert first_invalid_utf8(offsets, data) == 0
    assert first_invalid_utf8(np.zeros(1, np.int64), np.zeros(0, np.uint8)) == -1
    with pytest.raises(ValueError, match="decrease"):
        first_invalid_utf8(np.array([0, 2, 1]), np.zeros(2, np.uint8))


def test_first_invalid_utf8_without_the_order_pass():
    """check_order=False skips the order pass only where the bytes are all ASCII: rows of
    non-ASCII bytes are still read only after their order is checked."""
    offsets, data = _binary([b"ab", b"c\xc3\xa9", b"\xff", b"d"])
    assert first_invalid_utf8(offsets, data, check_order=False) == 2
    assert first_invalid_utf8(offsets, data, np.array([1, 1, 0, 1], bool),
                              check_order=False) == -1
    assert first_invalid_utf8(np.array([0, 2, 1, 3]), np.frombuffer(b"abc", np.uint8),
                              check_order=False) == -1
    with pytest.raises(ValueError, match="decrease at row 1"):
        first_invalid_utf8(np.array([0, 2, 1, 3]), np.frombuffer(b"a\xc3\xa9", np.uint8),
                           check_order=False)
    with pytest.raises(ValueError, match="outside"):
        first_invalid_utf8(np.array([0, 2, 9]), np.frombuffer(b"abc", np.uint8),
                           check_order=False)


# --- large views for pandas' Arrow-backed strings ----------------------------------------------
def test_large_view_is_exported_without_copy():
    values = [b"ab", None, b"", "€".encode(), None]
    offsets, data = _binary([v or b"" for v in values])
    valid = np.array([v is not None for v in values])
    col = BinaryColumn(T.string(), offsets, data, valid).as_large()
    arr = pa.array(col)
    assert arr.type == pa.large_string() and arr.null_count == 2
    assert arr.to_pylist() == [None if v is None else v.decode() for v in values]
    assert arr.buffers()[2].address == data.ctypes.data
    assert arr.buffers()[1].address == offsets.ctypes.data
    arr.validate(full=True)
    binary = pa.array(BinaryColumn(T.binary(), offsets[1:], data).as_large())
    assert binary.type == pa.large_binary()
    assert binary.to_pylist() == [b"", b"", "€".encode(), b""]


def test_large_view_keeps_buffers_alive_until_released():
    offsets, data = _binary([b"abc"] * 10)
    base = sys.getrefcount(data)
    arr = pa.array(BinaryColumn(T.string(), offsets, data).as_large())
    assert sys.getrefcount(data) > base
    del arr
    gc.collect()
    assert sys.getrefcount(data) == base


def test_large_view_of_empty_data():
    col = BinaryColumn(T.string(), np.zeros(3, np.int64), np.zeros(0, np.uint8)).as_large()
    assert pa.array(col).to_pylist() == ["", ""]


# --- decimal_objects ---------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-2**63, 2**63 - 1), max_size=40), st.integers(0, 38),
       st.data())
def test_decimal_objects_equal_decimal_from_exponent_string(values, scale, data):
    validity = np.array(data.draw(st.lists(st.booleans(), min_size=len(values),
                                           max_size=len(values))), dtype=bool)
    out = decimal_objects(np.array(values, np.int64), scale, validity)
    assert out.dtype == object and len(out) == len(values)
    for got, v, ok in zip(out, values, validity):
        if not ok:
            assert got is None
            continue
        want = Decimal(f"{v}E{-scale}")
        assert got.as_tuple() == want.as_tuple() and str(got) == str(want)


def test_decimal_objects_int32_and_bad_scale():
    out = decimal_objects(np.array([-123456, 7], np.int32), 4)
    assert [str(d) for d in out] == ["-12.3456", "0.0007"]
    with pytest.raises(ValueError, match="scale 39"):
        decimal_objects(np.array([1]), 39)
