"""The writer's dictionary kernel against the pure-Python oracle: fixed-width values (the
4- and 8-byte word path and the generic one), byte arrays, the size limit, table growth."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pqkit._native.dictenc import dictionary_encode
from pqkit.encodings.dictionary import build_binary, build_fixed
from reference.dictenc_ref import dictionary_encode_ref


def _fixed(values, limit, overhead=0):
    arr = np.ascontiguousarray(values)
    width = arr.dtype.itemsize * (arr.shape[1] if arr.ndim == 2 else 1)
    got = dictionary_encode(arr.reshape(-1).view(np.uint8), None, width, len(arr), limit,
                            overhead)
    rows = [arr[i].tobytes() for i in range(len(arr))]
    return got, dictionary_encode_ref(rows, limit, overhead)


def _same(got, expected):
    indices, first, done = got
    assert done == expected[2]
    assert indices.tolist() == expected[0]
    assert first.tolist() == expected[1]


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.integers(-5, 5) | st.integers(-2**63, 2**63 - 1), max_size=300),
       dtype=st.sampled_from([np.int64, np.int32, np.int16, np.uint8]),
       limit=st.integers(0, 400))
def test_fixed_width_matches_oracle(values, dtype, limit):
    arr = np.array(values, np.int64).astype(dtype)
    _same(*_fixed(arr, limit))
    _same(*_fixed(arr, 1 << 40, overhead=3))


def test_float_bits_stay_distinct():
    nan2 = np.frombuffer(np.uint64(0x7FF8000000000001).tobytes(), np.float64)[0]
    for dtype in (np.float64, np.float32):
        arr = np.array([0.0, -0.0, np.nan, nan2, 0.0, -0.0], dtype)
        got, expected = _fixed(arr, 1 << 30)
        _same(got, expected)
        assert len(got[1]) == (4 if dtype == np.float64 else 3)   # the float32 NaNs coincide


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64, np.float32])
def test_growth_across_many_table_sizes(dtype):
    rng = np.random.default_rng(3)
    arr = rng.integers(0, 50_000, 200_000).astype(dtype)
    _same(*_fixed(arr, 1 << 40))


@pytest.mark.parametrize("width", [4, 8])
def test_limit_reached_when_the_table_is_half_full(width):
    # 1 MiB of 8-byte entries is exactly 2**17: the limit and a full table coincide.
    arr = np.arange(300_000, dtype=np.int64 if width == 8 else np.int32)
    indices, first, done = dictionary_encode(arr.view(np.uint8), None, width, len(arr),
                                             (1 << 20) * width // 8)
    assert done == len(first) == 1 << 17
    assert np.array_equal(indices, np.arange(1 << 17))


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.binary(min_size=3, max_size=3) | st.sampled_from([b"abc", b"xyz"]),
                     max_size=200), limit=st.integers(0, 200))
def test_other_widths_use_the_generic_path(rows, limit):
    arr = np.frombuffer(b"".join(rows), np.uint8).reshape(len(rows), 3) if rows \
        else np.zeros((0, 3), np.uint8)
    _same(*_fixed(arr, limit))


@settings(max_examples=150, deadline=None)
@given(values=st.lists(st.binary(max_size=6) | st.sampled_from([b"", b"a", b"ab"]),
                       max_size=200), limit=st.integers(0, 300))
def test_byte_arrays_match_oracle(values, limit):
    data = np.frombuffer(b"".join(values), np.uint8) if any(values) else np.zeros(0, np.uint8)
    offsets = np.concatenate([[0], np.cumsum([len(v) for v in values])]).astype(np.int64)
    got = dictionary_encode(data, offsets, 0, len(values), limit, 4)
    _same(got, dictionary_encode_ref(values, limit, 4))
    d = build_binary(offsets, data, limit)
    dict_offsets, dict_data = d.values
    expected = [values[i] for i in got[1]]
    assert [dict_data[a:b].tobytes() for a, b in zip(dict_offsets[:-1], dict_offsets[1:])] \
        == expected


def test_build_fixed_dictionary_values_in_first_seen_order():
    d = build_fixed(np.array([5, 3, 5, 9, 3], np.int64), 1 << 20)
    assert d.values.tolist() == [5, 3, 9] and d.indices.tolist() == [0, 1, 0, 2, 1]
    assert d.encoded == 5 and len(d) == 3


def test_bad_arguments():
    with pytest.raises(ValueError, match="need"):
        dictionary_encode(np.zeros(7, np.uint8), None, 8, 1, 100)
    with pytest.raises(ValueError, match="offsets"):
        dictionary_encode(np.zeros(2, np.uint8), np.array([0, 3]), 0, 1, 100)


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.binary(min_size=0, max_size=40), min_size=1, max_size=40),
       repeat=st.integers(1, 60), limit=st.sampled_from([1 << 40, 2000]))
def test_byte_arrays_of_every_length_class_and_growth(values, repeat, limit):
    # Lengths 0-3, 4-7, 8-16 and above 16 take different hashing and comparing paths;
    # the suffixes make well over 512 entries, so the table grows during the loop.
    values = [v + str(i % 700).encode() for i in range(repeat) for v in values]
    data = np.frombuffer(b"".join(values), np.uint8) if any(values) else np.zeros(0, np.uint8)
    offsets = np.concatenate([[0], np.cumsum([len(v) for v in values])]).astype(np.int64)
    _same(dictionary_encode(data, offsets, 0, len(values), limit, 4),
          dictionary_encode_ref(values, limit, 4))


def test_values_differing_only_in_their_middle_bytes_stay_distinct():
    # The short-value hash reads the first and last 8 bytes; a 24-byte value is read in
    # full. Values equal at both ends must still compare unequal.
    values = [b"A" * 8 + bytes([i, j]) + b"Z" * 14 for i in range(40) for j in range(40)]
    data = np.frombuffer(b"".join(values), np.uint8)
    offsets = np.arange(len(values) + 1, dtype=np.int64) * 24
    indices, first, done = dictionary_encode(data, offsets, 0, len(values), 1 << 40, 4)
    assert done == len(values) and len(first) == len(values)
    assert np.array_equal(indices, np.arange(len(values)))
