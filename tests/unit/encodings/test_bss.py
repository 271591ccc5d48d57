"""BYTE_STREAM_SPLIT kernels: round trips, the oracle, bad input, pyarrow and corpus pages."""
import io
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pqkit.encodings.bss import (
    decode_bss,
    decode_byte_stream_split,
    encode_bss,
    encode_byte_stream_split,
)
from pqkit.errors import EncodingError
from pqkit.format import Type
from reference import bss_ref as ref
from reference.delta_ref import value_sections


def test_spec_example():
    # Two 2-byte values 01 02 and 03 04 -> streams 01 03 | 02 04.
    assert encode_byte_stream_split(b"\x01\x02\x03\x04", 2) == b"\x01\x03\x02\x04"
    assert bytes(decode_byte_stream_split(b"\x01\x03\x02\x04", 0, 2, 2)) == b"\x01\x02\x03\x04"


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 33), st.data())
def test_round_trip_and_oracle(width, data):
    count = data.draw(st.integers(0, 70))
    raw = data.draw(st.binary(min_size=count * width, max_size=count * width))
    encoded = encode_byte_stream_split(raw, width)
    assert encoded == ref.encode_bss(raw, width)
    out = decode_byte_stream_split(b"pad" + encoded + b"tail", 3, count, width)
    assert out.dtype == np.uint8 and bytes(out) == raw == ref.decode_bss(encoded, count, width)


@pytest.mark.parametrize("width", [1, 2, 3, 4, 8, 16])
def test_sizes_across_tiles(width):
    rng = np.random.default_rng(width)
    for count in (0, 1, 2047, 2048, 2049, 5000):
        raw = rng.integers(0, 256, count * width, dtype=np.uint8)
        encoded = encode_byte_stream_split(raw, width)
        assert encoded == raw.reshape(count, width).T.tobytes()
        assert np.array_equal(decode_byte_stream_split(encoded, 0, count, width), raw)


@pytest.mark.parametrize("physical,dtype", [(Type.FLOAT, "<f4"), (Type.DOUBLE, "<f8"),
                                            (Type.INT32, "<i4"), (Type.INT64, "<i8")])
def test_typed_helpers(physical, dtype):
    values = np.array([0, 1, -2, 3.5, 1e4, -0.0]).astype(dtype)
    encoded = encode_bss(physical, values)
    decoded, used = decode_bss(physical, b"x" + encoded, 1, len(values))
    assert decoded.dtype == np.dtype(dtype) and np.array_equal(decoded, values)
    assert used == len(encoded) == values.nbytes
    assert encode_bss(physical, values.astype(np.dtype(dtype).newbyteorder(">"))) == encoded


def test_flba_helper_and_float16():
    values = np.arange(30, dtype=np.uint8).reshape(10, 3)
    encoded = encode_bss(Type.FIXED_LEN_BYTE_ARRAY, values, 3)
    decoded, used = decode_bss(Type.FIXED_LEN_BYTE_ARRAY, encoded, 0, 10, 3)
    assert decoded.shape == (10, 3) and np.array_equal(decoded, values) and used == 30
    halves = np.array([1.5, -2, np.inf], np.float16)
    encoded = encode_bss(Type.FIXED_LEN_BYTE_ARRAY, halves.view(np.uint8), 2)
    decoded, _ = decode_bss(Type.FIXED_LEN_BYTE_ARRAY, encoded, 0, 3, 2)
    assert np.array_equal(decoded.reshape(-1).view(np.float16), halves)
    with pytest.raises(ValueError):
        encode_bss(Type.FIXED_LEN_BYTE_ARRAY, values, 4)
    with pytest.raises(EncodingError, match="BYTE_ARRAY"):
        decode_bss(Type.BYTE_ARRAY, encoded, 0, 1)


def test_not_enough_bytes():
    with pytest.raises(EncodingError, match=r"needs 3 x 4 bytes but only 11 remain at offset 900"):
        decode_byte_stream_split(b"\0" * 12, 1, 3, 4, base_offset=900)
    with pytest.raises(EncodingError, match="outside"):
        decode_byte_stream_split(b"\0" * 4, 5, 0, 4)
    # A count whose byte size overflows is refused, not wrapped.
    with pytest.raises(EncodingError):
        decode_byte_stream_split(b"\0" * 16, 0, 2**62, 8)


def test_bad_arguments():
    with pytest.raises(ValueError):
        decode_byte_stream_split(b"\0" * 4, 0, 1, 0)
    with pytest.raises(ValueError):
        encode_byte_stream_split(b"\0" * 5, 2)
    with pytest.raises(ValueError):
        decode_bss(Type.FIXED_LEN_BYTE_ARRAY, b"", 0, 0)


def _write_required(arr):
    table = pa.Table.from_arrays([arr], schema=pa.schema([pa.field("x", arr.type, False)]))
    sink = io.BytesIO()
    pq.write_table(table, sink, column_encoding={"x": "BYTE_STREAM_SPLIT"}, compression="none",
                   use_dictionary=False, data_page_version="2.0", data_page_size=4096)
    return sink.getvalue()


@pytest.mark.parametrize("kind", ["float32", "float64", "int32", "int64", "float16", "flba5"])
def test_pyarrow_pages(kind):
    rng = np.random.default_rng(11)
    if kind == "flba5":
        raw = rng.integers(0, 256, (3000, 5), dtype=np.uint8)
        arr = pa.array([bytes(r) for r in raw], pa.binary(5))
        width, expected = 5, raw.tobytes()
    else:
        values = (rng.standard_normal(3000) * 1000).astype(kind)
        arr = pa.array(values)
        width, expected = values.dtype.itemsize, values.tobytes()
    got = []
    for _, page, count in value_sections(_write_required(arr)):
        assert len(page) == count * width
        got.append(bytes(decode_byte_stream_split(page, 0, count, width)))
        assert encode_byte_stream_split(got[-1], width) == page
    assert len(got) > 1 and b"".join(got) == expected


def _bss_columns(path):
    pf = pq.ParquetFile(path)
    for col in range(pf.metadata.num_columns):
        if "BYTE_STREAM_SPLIT" in pf.metadata.row_group(0).column(col).encodings:
            desc = pf.schema.column(col)
            width = desc.length if desc.physical_type == "FIXED_LEN_BYTE_ARRAY" else \
                {"FLOAT": 4, "DOUBLE": 8, "INT32": 4, "INT64": 8}[desc.physical_type]
            yield col, width


def _decode_column(buf, col, width):
    got = b""
    for _, page, _count in value_sections(buf, col):
        # BSS values run to the end of the page: K * N bytes for N non-null values.
        assert len(page) % width == 0
        got += bytes(decode_byte_stream_split(page, 0, len(page) // width, width))
    return got


@pytest.mark.corpus
def test_corpus_against_pyarrow(corpus):
    path = Path(corpus) / "data" / "byte_stream_split.zstd.parquet"
    table = pq.read_table(path)
    columns = list(_bss_columns(path))
    assert len(columns) == 2
    for col, width in columns:
        expected = table.column(col).drop_null().combine_chunks()
        assert _decode_column(path.read_bytes(), col, width) == \
            expected.buffers()[1].to_pybytes()[:len(expected) * width]


@pytest.mark.corpus
def test_corpus_against_plain_twins(corpus):
    # Each BYTE_STREAM_SPLIT column has a PLAIN twin just before it holding the
    # same values; PLAIN pages of fixed-width types are the raw value bytes.
    path = Path(corpus) / "data" / "byte_stream_split_extended.gzip.parquet"
    buf = path.read_bytes()
    columns = list(_bss_columns(path))
    assert len(columns) == 7
    for col, width in columns:
        plain = b"".join(page for _, page, _ in value_sections(buf, col - 1))
        assert _decode_column(buf, col, width) == plain
