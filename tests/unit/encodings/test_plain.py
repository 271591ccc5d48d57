"""PLAIN encoding and the dictionary gathers.

Kernels are compared with the pure-Python oracle in tests/reference/plain_ref.py,
checked on the spec's layouts, and cross-checked against pages written by pyarrow.
"""
import io
import struct

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.reference import plain_ref as ref

from pqkit.encodings import plain
from pqkit.encodings.plain import decode_plain, encode_plain
from pqkit.errors import EncodingError
from pqkit.format import Type

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _arrow(values):
    """Python byte strings -> (int64 offsets, uint8 data)."""
    offsets = np.zeros(len(values) + 1, np.int64)
    offsets[1:] = np.cumsum([len(v) for v in values])
    return offsets, np.frombuffer(b"".join(values), np.uint8)


def _pylist(offsets, data):
    raw = data.tobytes()
    return [raw[offsets[i]:offsets[i + 1]] for i in range(len(offsets) - 1)]


# ----------------------------------------------------------------- golden bytes

def test_golden_layouts():
    assert encode_plain(Type.BOOLEAN, [True, False, True]) == b"\x05"
    assert encode_plain(Type.BYTE_ARRAY, _arrow([b"ab", b""])) == bytes.fromhex(
        "02000000 6162 00000000")
    assert encode_plain(Type.INT32, [1, -1]) == bytes.fromhex("01000000 ffffffff")
    assert encode_plain(Type.DOUBLE, [1.0]) == struct.pack("<d", 1.0)
    (offsets, data), used = decode_plain(Type.BYTE_ARRAY, bytes.fromhex("02000000616200000000"),
                                         0, 2)
    assert offsets.tolist() == [0, 2, 2] and data.tobytes() == b"ab" and used == 10
    values, used = decode_plain(Type.INT32, b"\x01\x00\x00\x00\xff\xff\xff\xff", 0, 2)
    assert values.dtype == np.int32 and values.tolist() == [1, -1] and used == 8


def test_int96_and_flba_rows():
    raw = bytes(range(24))
    rows, used = decode_plain(Type.INT96, raw, 0, 2)
    assert rows.shape == (2, 12) and rows.tobytes() == raw and used == 24
    rows, used = decode_plain(Type.FIXED_LEN_BYTE_ARRAY, raw, 4, 5, type_length=4)
    assert rows.shape == (5, 4) and rows.tobytes() == raw[4:] and used == 20
    assert encode_plain(Type.FIXED_LEN_BYTE_ARRAY, rows, 4) == raw[4:]
    with pytest.raises(ValueError, match="type_length"):
        decode_plain(Type.FIXED_LEN_BYTE_ARRAY, raw, 0, 1)
    with pytest.raises(ValueError, match="rows of 4 bytes, expected 3"):
        encode_plain(Type.FIXED_LEN_BYTE_ARRAY, rows, 3)


# -------------------------------------------------------------- round trips

@FAST
@given(st.lists(st.booleans(), max_size=200), st.integers(0, 3))
def test_booleans_match_oracle(values, offset):
    data = encode_plain(Type.BOOLEAN, np.array(values, dtype=bool))
    assert data == ref.encode_booleans(values)
    out, used = decode_plain(Type.BOOLEAN, bytes(offset) + data, offset, len(values))
    assert out.dtype == np.bool_ and out.tolist() == values and used == len(data)


NUMERIC = {
    "INT32": (Type.INT32, st.integers(-2**31, 2**31 - 1)),
    "INT64": (Type.INT64, st.integers(-2**63, 2**63 - 1)),
    "FLOAT": (Type.FLOAT, st.floats(width=32)),
    "DOUBLE": (Type.DOUBLE, st.floats()),
}


@pytest.mark.parametrize("kind", sorted(NUMERIC))
def test_numeric_match_oracle(kind):
    ptype, strategy = NUMERIC[kind]

    @FAST
    @given(st.lists(strategy, max_size=100))
    def check(values):
        data = encode_plain(ptype, values)
        assert data == ref.encode_fixed(kind, values)
        out, used = decode_plain(ptype, data + b"junk", 0, len(values), base_offset=9)
        assert used == len(data)
        assert out.tobytes() == data                    # NaN payloads survive too
        assert ref.decode_fixed(kind, data, len(values)) == pytest.approx(
            out.tolist(), nan_ok=True)

    check()


@FAST
@given(st.lists(st.binary(max_size=20), max_size=50), st.integers(0, 5))
def test_byte_array_match_oracle(values, offset):
    data = encode_plain(Type.BYTE_ARRAY, _arrow(values))
    assert data == ref.encode_byte_array(values)
    (offsets, blob), used = decode_plain(Type.BYTE_ARRAY, bytes(offset) + data + b"\x07",
                                         offset, len(values))
    assert _pylist(offsets, blob) == values and used == len(data)


@FAST
@given(st.binary(max_size=60), st.integers(0, 12))
def test_byte_array_random_bytes_agree_with_oracle(data, count):
    try:
        expect = ref.decode_byte_array(data, count)
    except ValueError:
        expect = None
    if expect is None:
        with pytest.raises(EncodingError):
            plain.decode_byte_array(data, 0, count)
    else:
        offsets, blob, used = plain.decode_byte_array(data, 0, count)
        assert (_pylist(offsets, blob), used) == expect


def test_encode_from_offset_slices():
    offsets = np.array([3, 5, 5, 8], np.int64)               # starts inside the data
    data = np.frombuffer(b"xyzabcdefgh", np.uint8)
    assert plain.encode_byte_array(offsets, data) == ref.encode_byte_array([b"ab", b"", b"cde"])


# --------------------------------------------------------------- edge cases

def test_empty_values():
    for ptype in (Type.BOOLEAN, Type.INT32, Type.DOUBLE, Type.INT96):
        out, used = decode_plain(ptype, b"", 0, 0)
        assert len(out) == 0 and used == 0
        assert encode_plain(ptype, np.zeros((0, 12) if ptype == Type.INT96 else 0,
                                            np.uint8 if ptype == Type.INT96 else None)) == b""
    (offsets, data), used = decode_plain(Type.BYTE_ARRAY, b"", 0, 0)
    assert offsets.tolist() == [0] and data.size == 0 and used == 0
    assert encode_plain(Type.BYTE_ARRAY, _arrow([])) == b""


def test_byte_array_length_past_end():
    data = ref.encode_byte_array([b"abc"]) + struct.pack("<I", 0xFFFFFFF0) + b"xy"
    with pytest.raises(EncodingError, match=r"BYTE_ARRAY value 1 at offset 1007: "
                                            r"length 4294967280 but only 2 bytes remain"):
        plain.decode_byte_array(data, 0, 2, base_offset=1000)


def test_byte_array_truncated_length_prefix():
    data = ref.encode_byte_array([b"abcd"]) + b"\x01\x00"
    with pytest.raises(EncodingError, match=r"value 1 at offset 8: truncated length prefix"):
        plain.decode_byte_array(data, 0, 2)


def test_count_larger_than_data():
    with pytest.raises(EncodingError, match=r"at offset 40: 3 values of 4 bytes need 12 "
                                            r"bytes, 11 remain"):
        decode_plain(Type.INT32, bytes(11), 0, 3, base_offset=40)
    with pytest.raises(EncodingError, match="17 values need 3 bytes, 2 remain"):
        decode_plain(Type.BOOLEAN, bytes(2), 0, 17)
    with pytest.raises(EncodingError, match="at least 12 bytes, 11 remain"):
        decode_plain(Type.BYTE_ARRAY, bytes(11), 0, 3)


def test_huge_count_is_refused_before_allocating():
    for ptype in (Type.INT64, Type.BYTE_ARRAY, Type.BOOLEAN):
        with pytest.raises(EncodingError):
            decode_plain(ptype, bytes(16), 0, 10**15)


def test_offset_outside_buffer():
    with pytest.raises(EncodingError, match="start 9 is outside the 4-byte buffer"):
        decode_plain(Type.INT32, bytes(4), 9, 0)


def test_bad_encoder_input():
    with pytest.raises(ValueError, match="offset 2 .* is below offset 1"):
        plain.encode_byte_array(np.array([0, 3, 1], np.int64), np.zeros(4, np.uint8))
    with pytest.raises(ValueError, match="outside the 4 data bytes"):
        plain.encode_byte_array(np.array([0, 5], np.int64), np.zeros(4, np.uint8))
    with pytest.raises(ValueError, match="not a whole number"):
        encode_plain(Type.INT96, np.zeros(13, np.uint8))


# ------------------------------------------------------------------ gathers

@FAST
@given(st.sampled_from(["<i4", "<i8", "<f8", "u1", "<u2", "S5", "<c16"]),
       st.integers(1, 20), st.lists(st.integers(0, 10**6), max_size=100))
def test_take_fixed_matches_numpy(dtype, dict_len, raw_idx):
    rng = np.random.default_rng(dict_len)
    dictionary = rng.integers(0, 255, dict_len * np.dtype(dtype).itemsize,
                              dtype=np.uint8).view(dtype)
    idx = np.array([i % dict_len for i in raw_idx], np.int32)
    out = plain.take_fixed(dictionary, idx)
    assert out.dtype == dictionary.dtype and out.tobytes() == dictionary[idx].tobytes()


def test_take_fixed_rows_and_wide_indices():
    rows = np.arange(36, dtype=np.uint8).reshape(3, 12)      # INT96 dictionary
    assert plain.take_fixed(rows, np.array([2, 0], np.int64)).tolist() == rows[[2, 0]].tolist()
    assert plain.take_fixed(rows, np.array([], np.int32)).shape == (0, 12)


@pytest.mark.parametrize("bad", [-1, 3, 2**31, -2**40])
def test_take_fixed_bad_index(bad):
    with pytest.raises(EncodingError, match=rf"dictionary index {bad} at position 1 is out of "
                                            r"range: the dictionary has 3 entries"):
        plain.take_fixed(np.arange(3.0), np.array([0, bad, 1], np.int64))


def test_take_from_empty_dictionary():
    assert plain.take_fixed(np.zeros(0), np.zeros(0, np.int32)).size == 0
    with pytest.raises(EncodingError, match="has 0 entries"):
        plain.take_fixed(np.zeros(0), np.zeros(1, np.int32))
    with pytest.raises(EncodingError, match="has 0 entries"):
        plain.take_byte_array(np.zeros(1, np.int64), np.zeros(0, np.uint8), [0])


@FAST
@given(st.lists(st.binary(max_size=10), min_size=1, max_size=20),
       st.lists(st.integers(0, 10**6), max_size=60))
def test_take_byte_array_matches_python(dictionary, raw_idx):
    idx = np.array([i % len(dictionary) for i in raw_idx], np.int32)
    offsets, data = plain.take_byte_array(*_arrow(dictionary), idx)
    assert offsets[0] == 0 and _pylist(offsets, data) == [dictionary[i] for i in idx]


def test_take_byte_array_bad_index_and_bad_dictionary():
    offsets, data = _arrow([b"a", b"bc"])
    with pytest.raises(EncodingError, match="index 2 at position 0 .* has 2 entries"):
        plain.take_byte_array(offsets, data, np.array([2], np.int32))
    with pytest.raises(ValueError, match="outside the 3 data bytes"):
        plain.take_byte_array(np.array([0, 1, 9], np.int64), data, np.array([0], np.int32))
    with pytest.raises(ValueError, match="below offset"):
        plain.take_byte_array(np.array([0, 2, 1], np.int64), data, np.array([0], np.int32))


# ------------------------------------------------------- pyarrow cross-check

def _pyarrow_column(array, **kw):
    """Write one required column with pyarrow (PLAIN/dictionary, v1, uncompressed)."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from pqkit import format as fmt
    table = pa.table([array], schema=pa.schema([pa.field("x", array.type, nullable=False)]))
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="none", data_page_version="1.0", **kw)
    data = buf.getvalue()
    col = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0)
    pos = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
    end = pos + col.total_compressed_size
    pages = []
    while pos < end:
        header, used = fmt.decode(fmt.PageHeader, data, pos)
        pages.append((header, data, pos + used))
        pos += used + header.compressed_page_size
    return pages


@pytest.mark.parametrize("kind", ["bool", "int32", "int64", "float32", "float64", "string",
                                  "fixed"])
def test_pyarrow_plain_pages(kind):
    pa = pytest.importorskip("pyarrow")
    n = 3000
    if kind == "string":
        array = pa.array([f"v{i * 7919 % 1000}" * (i % 4) for i in range(n)])
    elif kind == "fixed":
        array = pa.array([i.to_bytes(3, "little") for i in range(n)], pa.binary(3))
    elif kind == "bool":
        array = pa.array([i % 3 == 0 for i in range(n)])
    else:
        scale = 1.5 if kind.startswith("float") else 3
        array = pa.array(np.arange(n) * scale - 7, type=getattr(pa, kind)())
    ptype = {"bool": Type.BOOLEAN, "int32": Type.INT32, "int64": Type.INT64,
             "float32": Type.FLOAT, "float64": Type.DOUBLE, "string": Type.BYTE_ARRAY,
             "fixed": Type.FIXED_LEN_BYTE_ARRAY}[kind]
    got = []
    for header, data, start in _pyarrow_column(array, use_dictionary=False,
                                               column_encoding={"x": "PLAIN"}):
        count = header.data_page_header.num_values
        values, used = decode_plain(ptype, data, start, count, type_length=3,
                                    base_offset=start)
        assert used == header.compressed_page_size
        if kind == "string":
            got += [v.decode() for v in _pylist(*values)]
        elif kind == "fixed":
            got += [bytes(r) for r in values]
        else:
            got += values.tolist()
    assert got == array.to_pylist()


def test_pyarrow_string_dictionary_gather():
    pa = pytest.importorskip("pyarrow")
    from pqkit.encodings import rle
    values = [f"s{(i * 31) % 17}" for i in range(2000)]
    pages = _pyarrow_column(pa.array(values), use_dictionary=True)
    dict_header, data, start = pages[0]
    dict_len = dict_header.dictionary_page_header.num_values
    (d_off, d_data), _ = decode_plain(Type.BYTE_ARRAY, data, start, dict_len)
    got = []
    for header, data, start in pages[1:]:
        count = header.data_page_header.num_values
        idx, _ = rle.decode_dictionary_indices(data, start, count, dict_len,
                                               length=header.compressed_page_size)
        got += [v.decode() for v in _pylist(*plain.take_byte_array(d_off, d_data, idx))]
    assert got == values
