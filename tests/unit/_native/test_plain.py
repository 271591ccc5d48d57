"""The PLAIN byte-array kernels that write into caller buffers (the reader decodes a
chunk's pages into one pair of Arrow buffers with them), and the index narrowing
helpers, against the allocating kernels and plain Python."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pqkit._native.plain import decode_byte_array, decode_byte_array_into
from pqkit._native.take import (compress_byte_array, narrow_positions, take_byte_array,
                               take_byte_array_into)
from pqkit.errors import EncodingError


def _plain(values):
    return b"".join(len(v).to_bytes(4, "little") + v for v in values)


def _rows(offsets, data, first, count):
    return [data[offsets[i]:offsets[i + 1]].tobytes() for i in range(first, first + count)]


@settings(max_examples=150, deadline=None)
@given(pages=st.lists(st.lists(st.binary(max_size=20), max_size=15), max_size=5),
       capacity=st.integers(0, 200))
def test_pages_decode_into_one_buffer(pages, capacity):
    total = sum(len(p) for p in pages)
    offsets = np.empty(total + 1, np.int64)
    offsets[0] = 0                                  # each page sets its own first offset
    data = np.empty(capacity, np.uint8)
    count, end = 0, 0
    for page in pages:
        body = b"xx" + _plain(page)                  # values start at offset 2
        while True:
            used, new_end = decode_byte_array_into(body, 2, len(page), offsets, count, data,
                                                   end, 1000)
            if used >= 0:
                break
            grown = np.empty(new_end, np.uint8)     # too small: grow and decode again
            grown[:end] = data[:end]
            data = grown
        assert used == len(body) - 2
        count, end = count + len(page), new_end
    assert offsets[0] == 0 and offsets[count] == end
    assert _rows(offsets, data, 0, count) == [v for p in pages for v in p]


def test_decode_into_errors():
    offsets, data = np.empty(4, np.int64), np.empty(10, np.uint8)
    with pytest.raises(EncodingError, match="length 9 but only 1 bytes remain"):
        decode_byte_array_into(b"\x09\x00\x00\x00x", 0, 1, offsets, 0, data, 0, 0)
    with pytest.raises(ValueError, match="cannot take 3 values at 1"):
        decode_byte_array_into(_plain([b"a", b"b", b"c"]), 0, 3, offsets, 1, data, 0)
    with pytest.raises(ValueError, match="data position 11"):
        decode_byte_array_into(_plain([b"a"]), 0, 1, offsets, 0, data, 11)
    with pytest.raises(EncodingError, match="need at least"):
        decode_byte_array(bytes(16), 0, 10**15)


@settings(max_examples=150, deadline=None)
@given(dictionary=st.lists(st.binary(max_size=20), min_size=1, max_size=10), data=st.data())
def test_take_into_matches_take(dictionary, data):
    d_off = np.concatenate([[0], np.cumsum([len(v) for v in dictionary])]).astype(np.int64)
    d_data = np.frombuffer(b"".join(dictionary), np.uint8) if any(dictionary) \
        else np.zeros(0, np.uint8)
    idx = np.array(data.draw(st.lists(st.integers(0, len(dictionary) - 1), max_size=30)),
                   np.int32)
    offsets, values = take_byte_array(d_off, d_data, idx.astype(np.int64))
    assert _rows(offsets, values, 0, len(idx)) == [dictionary[i] for i in idx]
    out_offsets = np.empty(len(idx) + 3, np.int64)
    out = np.zeros(3, np.uint8)
    fits, end = take_byte_array_into(d_off, d_data, idx, out_offsets, 2, out, 3)
    if not fits:
        out = np.concatenate([out, np.zeros(end - 3, np.uint8)])
        fits, end = take_byte_array_into(d_off, d_data, idx, out_offsets, 2, out, 3)
    assert fits and out_offsets[2] == 3 and end == 3 + len(values)
    assert _rows(out_offsets, out, 2, len(idx)) == [dictionary[i] for i in idx]


def test_take_rejects_bad_indices_of_any_width():
    d_off, d_data = np.array([0, 1, 2], np.int64), np.frombuffer(b"ab", np.uint8)
    for bad in (np.array([0, 2], np.int64), np.array([-1], np.int64),
                np.array([2**40], np.int64), np.array([2**32 - 1], np.uint32)):
        with pytest.raises(EncodingError, match="out of range"):
            take_byte_array(d_off, d_data, bad)
    offsets, data = take_byte_array(d_off, d_data, np.array([1, 0], np.uint16))
    assert data.tobytes() == b"ba" and offsets.tolist() == [0, 1, 2]


@pytest.mark.parametrize("limit,dtype", [(1, np.uint8), (256, np.uint8), (257, np.uint16),
                                         (65536, np.uint16), (65537, np.uint32),
                                         (2**32, np.uint32), (2**32 + 1, np.int64)])
def test_narrow_positions(limit, dtype):
    positions = np.array([0, limit - 1, limit // 2], np.int64)
    out = narrow_positions(positions, limit)
    assert out.dtype == dtype and out.tolist() == positions.tolist()
    with pytest.raises(IndexError, match=f"position {limit} at 1"):
        narrow_positions(np.array([0, limit]), limit)
    with pytest.raises(IndexError, match="position -1 at 0"):
        narrow_positions(np.array([-1]), limit)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.tuples(st.binary(max_size=6), st.booleans()), max_size=60),
       wide=st.booleans())
def test_compress_byte_array_keeps_the_flagged_values_in_order(values, wide):
    lengths = [len(v) for v, _ in values]
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).astype(
        np.int64 if wide else np.int32)
    data = np.frombuffer(b"".join(v for v, _ in values), np.uint8)
    keep = np.array([k for _, k in values], np.bool_)
    out_offsets, out_data = compress_byte_array(offsets, data, keep)
    kept = [v for v, k in values if k]
    assert out_offsets.dtype == np.int64 and out_offsets[0] == 0
    assert [out_data[a:b].tobytes() for a, b in zip(out_offsets[:-1], out_offsets[1:])] == kept


@pytest.mark.parametrize("offsets, size, flags", [
    ([0, 3, 2], 3, 2),        # offsets fall
    ([0, 5], 3, 1),           # past the data
    ([-1, 2], 3, 1),          # before the data
    ([0, 1], 3, 2),           # one flag too many
])
def test_compress_byte_array_rejects_offsets_outside_the_data(offsets, size, flags):
    with pytest.raises(ValueError):
        compress_byte_array(np.array(offsets, np.int64), np.zeros(size, np.uint8),
                            np.ones(flags, np.bool_))
