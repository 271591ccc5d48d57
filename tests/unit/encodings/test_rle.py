"""Bit-packing, the RLE/bit-packed hybrid and legacy BIT_PACKED levels.

The Cython kernels are compared with the pure-Python oracle in
tests/reference/rle_ref.py, checked against the spec's golden bytes, and
cross-checked against pages written by pyarrow.
"""
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.reference import rle_ref as ref

from pqkit._native import bitpack as bp
from pqkit.encodings import rle
from pqkit.errors import EncodingError

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OUT_TYPES = {np.uint8: 8, np.int16: 16, np.int32: 32}


def _decode(data, width, count, dtype=np.int32, base_offset=0):
    out = np.full(count, 99, dtype=dtype)
    used = bp.decode_hybrid(data, 0, len(data), width, count, out, base_offset)
    return out, used


def _values(width, max_size=300):
    return st.lists(st.integers(0, (1 << width) - 1), max_size=max_size)


# ----------------------------------------------------------------- golden bytes

def test_golden_bit_packing_spec_example():
    assert rle.pack_bits(np.arange(8), 3) == bytes([0b10001000, 0b11000110, 0b11111010])
    out = np.empty(8, np.uint32)
    assert rle.unpack_bits(bytes.fromhex("88c6fa"), 0, 3, 8, out) == 3
    assert out.tolist() == list(range(8))


def test_golden_legacy_bit_packed_spec_example():
    # Encodings.md: 0..7 at width 3, MSB-first = 00000101 00111001 01110111
    assert rle.encode_levels_bit_packed(np.arange(8), 7) == bytes([0x05, 0x39, 0x77])
    levels, used = rle.decode_levels_bit_packed(bytes([0x05, 0x39, 0x77]), 0, 7, 8)
    assert levels.tolist() == list(range(8)) and used == 3


def test_golden_hybrid_rle_then_padded_group():
    data = rle.encode_hybrid([5] * 8 + [1, 2, 3], 3)
    assert data == bytes.fromhex("10 05 03 d1 00 00")
    assert _decode(data, 3, 11)[0].tolist() == [5] * 8 + [1, 2, 3]


def test_golden_prefixed_levels():
    data = rle.encode_levels([1] * 10, 1)
    assert data == bytes.fromhex("02000000 1401")
    levels, used = rle.decode_levels(data, 0, 1, 10)
    assert levels.tolist() == [1] * 10 and used == 6


def test_golden_dictionary_indices():
    data = rle.encode_dictionary_indices([0, 1, 2, 3, 4, 5, 6, 7], 8)
    assert data == bytes.fromhex("03 03 88c6fa")
    out, used = rle.decode_dictionary_indices(data, 0, 8, 8)
    assert out.tolist() == list(range(8)) and used == 5


# ------------------------------------------------------------- pack / unpack

@pytest.mark.parametrize("width", range(33))
def test_pack_unpack_every_width(width):
    rng = np.random.default_rng(width)
    for n in (0, 1, 7, 8, 9, 63, 64, 65, 1000):
        v = rng.integers(0, 1 << width, n, dtype=np.uint64).astype(np.uint32)
        packed = rle.pack_bits(v, width)
        assert packed == ref.pack_lsb(v.tolist(), width)
        out = np.empty(n, np.uint32)
        assert rle.unpack_bits(packed, 0, width, n, out) == len(packed)
        assert out.tolist() == v.tolist()


@FAST
@given(st.integers(0, 32).flatmap(lambda w: st.tuples(st.just(w), st.binary(max_size=200))),
       st.integers(0, 5))
def test_unpack_matches_oracle(w_data, offset):
    width, data = w_data
    data = bytes(offset) + data
    count = (len(data) - offset) * 8 // width if width else 50
    out = np.empty(count, np.uint32)
    rle.unpack_bits(data, offset, width, count, out)
    assert out.tolist() == ref.unpack_lsb(data[offset:], width, count)


def test_unpack_needs_the_bytes():
    with pytest.raises(EncodingError, match=r"need 4 bytes, 3 remain"):
        rle.unpack_bits(b"\0\0\0", 0, 4, 8, np.empty(8, np.uint32), 0)


# ------------------------------------------------------------------- hybrid

@st.composite
def hybrid_streams(draw):
    """A width, a stream of mixed runs built by the oracle, and its values."""
    width = draw(st.integers(1, 32))
    top = (1 << width) - 1
    data, values = b"", []
    for _ in range(draw(st.integers(0, 8))):
        if draw(st.booleans()):
            v, n = draw(st.integers(0, top)), draw(st.integers(1, 40))
            data += ref.rle_run(v, n, width)
            values += [v] * n
        else:
            vals = draw(st.lists(st.integers(0, top), min_size=1, max_size=40))
            data += ref.packed_run(vals, width)
            values += vals + [0] * (-len(vals) % 8)
    return width, data, values


@FAST
@given(hybrid_streams(), st.data())
def test_hybrid_decode_matches_oracle(stream, data):
    width, encoded, values = stream
    count = data.draw(st.integers(0, len(values)))
    expect, expect_used = ref.decode_hybrid(encoded, width, count)
    for dtype, limit in OUT_TYPES.items():
        if width <= limit:
            out, used = _decode(encoded, width, count, dtype)
            # the kernels store the low bits: int16 / int32 views of the values
            assert out.tolist() == np.array(expect, np.uint64).astype(dtype).tolist()
            assert used == expect_used


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 32), st.binary(max_size=40), st.integers(0, 70))
def test_random_bytes_agree_with_oracle(width, data, count):
    """Fuzz: on arbitrary bytes both decoders fail, or agree on values and size."""
    try:
        expect = ref.decode_hybrid(data, width, count)
    except ValueError:
        with pytest.raises(EncodingError):
            _decode(data, width, count)
        return
    out, used = _decode(data, width, count)
    assert (out.view(np.uint32).tolist(), used) == expect


@FAST
@given(st.integers(0, 32).flatmap(lambda w: st.tuples(st.just(w), _values(w))),
       st.booleans())
def test_encode_round_trip(w_values, prefixed):
    width, values = w_values
    data = rle.encode_hybrid(np.array(values, dtype=np.uint64), width, prefixed)
    body = data[4:] if prefixed else data
    if prefixed:
        assert int.from_bytes(data[:4], "little") == len(body)
    assert len(body) <= ref.encoded_size_all_packed(len(values), width) + 5
    assert ref.decode_hybrid(body, width, len(values))[0] == values
    out = np.empty(len(values), np.int32)
    if prefixed:
        assert bp.decode_hybrid_prefixed(data, 0, width, len(values), out) == len(data)
    else:
        bp.decode_hybrid(data, 0, len(data), width, len(values), out)
    assert out.view(np.uint32).tolist() == values


@FAST
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 30)), max_size=30))
def test_encode_round_trip_runs(runs):
    values = [v for v, n in runs for _ in range(n)]
    data = rle.encode_hybrid(values, 3)
    assert ref.decode_hybrid(data, 3, len(values))[0] == values
    assert _decode(data, 3, len(values), np.int16)[0].tolist() == values


def test_encode_prefers_rle_for_repeats():
    data = rle.encode_hybrid([7] * 1000, 3)
    assert data == ref.rle_run(7, 1000, 3)
    # a repeat after 3 literals lends 5 values to fill their group
    data = rle.encode_hybrid([1, 2, 3] + [4] * 20, 3)
    assert data == ref.packed_run([1, 2, 3, 4, 4, 4, 4, 4], 3) + ref.rle_run(4, 15, 3)


def test_encode_long_literal_runs_split_at_63_groups():
    values = np.arange(2000) % 2
    data = rle.encode_hybrid(values, 1)
    assert data[0] == (63 << 1 | 1)
    assert _decode(data, 1, 2000, np.uint8)[0].tolist() == values.tolist()


def test_large_int16_decode_crosses_staging_chunks():
    rng = np.random.default_rng(1)
    levels = rng.integers(0, 4, 5000)
    levels[1000:3000] = 2
    data = rle.encode_levels(levels, 3)
    out, used = rle.decode_levels(data, 0, 3, 5000)
    assert out.tolist() == levels.tolist() and used == len(data)


def test_reader_stops_at_count_and_ignores_padding():
    data = ref.packed_run([1, 2, 3, 4, 5, 6, 7, 0], 3) + b"\xff\xff"  # trailing junk
    out, used = _decode(data, 3, 3)
    assert out.tolist() == [1, 2, 3] and used == 4


def test_missing_padding_of_last_group_is_tolerated():
    # fastparquet #979: the last group's padding bytes were not written
    full = ref.packed_run(list(range(1, 4)), 7)        # 1 group: header + 7 bytes
    short = full[:1 + 3]                                 # 3 values need 21 bits
    assert _decode(short, 7, 3)[0].tolist() == [1, 2, 3]
    with pytest.raises(EncodingError, match="truncated bit-packed run"):
        _decode(full[:1 + 2], 7, 3)


def test_rle_booleans_round_trip():
    values = np.array([True] * 20 + [False, True] * 7)
    data = rle.encode_rle_booleans(values)
    out, used = rle.decode_rle_booleans(data, 0, len(values))
    assert out.dtype == np.bool_ and out.tolist() == values.tolist() and used == len(data)


def test_dictionary_indices_max_and_range_check():
    data = rle.encode_dictionary_indices([1, 5, 5, 2], 6)
    out = np.empty(4, np.int32)
    assert bp.decode_dict_indices(data, 0, -1, 4, out, 6) == (len(data), 5)
    with pytest.raises(EncodingError, match=r"dictionary index 5 \(value 1\).*has 5 entries"):
        bp.decode_dict_indices(data, 0, -1, 4, out, 5)
    assert bp.decode_dict_indices(b"", 0, -1, 0, out[:0]) == (0, -1)


@FAST
@given(st.integers(1, 5000).flatmap(
    lambda k: st.tuples(st.just(k), st.lists(st.integers(0, k - 1), max_size=200))),
    st.integers(1, 20))
def test_dictionary_indices_equal_the_generic_encoder(k_indices, repeat):
    # The writer's int32 indices go to the encoder without a copy; the bytes are those of
    # the width byte and encode_hybrid of the same values.
    k, indices = k_indices
    arr = np.repeat(np.array(indices, np.int32), repeat)
    width = rle.bit_width_of(k - 1)
    assert rle.encode_dictionary_indices(arr, k) == \
        bytes([width]) + rle.encode_hybrid(arr.astype(np.uint32), width)


def test_dictionary_indices_outside_the_dictionary_are_refused():
    with pytest.raises(ValueError, match="index 6 at 1 is not below 6"):
        rle.encode_dictionary_indices(np.array([0, 6], np.int32), 6)
    with pytest.raises(ValueError, match="index -1 at 0"):
        rle.encode_dictionary_indices(np.array([-1], np.int32), 6)


def test_dictionary_indices_width_zero():
    out, used = rle.decode_dictionary_indices(b"\x00" + ref.rle_run(0, 5, 0), 0, 5, 1)
    assert out.tolist() == [0] * 5
    with pytest.raises(EncodingError, match="index 0 .* has 0 entries"):
        rle.decode_dictionary_indices(b"\x00", 0, 5, 0)


# --------------------------------------------------------------- edge cases

def test_zero_bit_width():
    out, used = _decode(b"", 0, 10)
    assert out.tolist() == [0] * 10 and used == 0
    assert rle.encode_hybrid([0] * 10, 0) == ref.rle_run(0, 10, 0)
    assert rle.decode_levels(b"\0\0\0\0", 0, 0, 3)[0].tolist() == [0, 0, 0]


def test_empty_values():
    assert _decode(b"", 3, 0)[0].size == 0
    assert rle.encode_hybrid([], 3) == b""
    assert rle.encode_hybrid([], 3, prefixed=True) == b"\0\0\0\0"
    levels, used = rle.decode_levels(b"\0\0\0\0", 0, 1, 0)
    assert levels.size == 0 and used == 4
    assert rle.decode_rle_booleans(b"\0\0\0\0", 0, 0)[1] == 4


def test_truncated_rle():
    data = ref.rle_run(300, 10, 12)[:-1]                  # value needs 2 bytes
    with pytest.raises(EncodingError, match=r"truncated RLE run value at offset 1001"):
        _decode(data, 12, 10, base_offset=1000)


def test_truncated_run_header():
    with pytest.raises(EncodingError, match=r"truncated RLE run header at offset 50"):
        _decode(b"\x80", 3, 1, base_offset=50)


def test_overlong_varint():
    with pytest.raises(EncodingError, match=r"run header at offset 7 is longer than 32 bits"):
        _decode(b"\x80\x80\x80\x80\x80\x01\x00", 1, 1, base_offset=7)
    with pytest.raises(EncodingError, match="longer than 32 bits"):
        _decode(b"\xfe\xff\xff\xff\x1f\x00", 1, 1)         # 2^33 - 2
    with pytest.raises(ValueError):
        ref.read_uleb128(b"\x80\x80\x80\x80\x80\x01", 0)


def test_bit_width_33():
    with pytest.raises(EncodingError, match=r"RLE bit width 33 at offset 9: at most 32"):
        _decode(b"\x02\x00", 33, 1, base_offset=9)
    with pytest.raises(EncodingError, match=r"RLE bit width 254 at offset 4121: at most 32"):
        rle.decode_dictionary_indices(b"\xfe\x02\x00", 0, 1, base_offset=4121)


def test_count_larger_than_data():
    data = ref.rle_run(1, 4, 2) + ref.packed_run([1, 2, 3, 0, 1, 2, 3, 0], 2)
    with pytest.raises(EncodingError, match=r"ends at offset 105 after 12 of 13 values"):
        _decode(data, 2, 13, base_offset=100)


def test_empty_run_and_wide_value_and_huge_run():
    with pytest.raises(EncodingError, match="empty RLE run"):
        _decode(b"\x00\x01", 2, 1)
    with pytest.raises(EncodingError, match="empty RLE run"):
        _decode(b"\x01", 2, 1)
    with pytest.raises(EncodingError, match=r"RLE run value 255 at offset 1 does not fit"):
        _decode(b"\x02\xff", 3, 1)
    huge = ref.uleb128((1 << 28) << 1 | 1)
    with pytest.raises(EncodingError, match="bit-packed run of 268435456 groups"):
        _decode(huge + bytes(64), 1, 8)


def test_length_prefix_past_end():
    with pytest.raises(EncodingError, match=r"length prefix 100 at offset 20: only 2 bytes"):
        rle.decode_levels(b"\x64\0\0\0\x02\x01", 0, 1, 1, base_offset=20)
    with pytest.raises(EncodingError, match="truncated RLE length prefix"):
        rle.decode_levels(b"\x01\0", 0, 1, 1)


def test_v2_levels_length_past_buffer():
    with pytest.raises(EncodingError, match="10 bytes declared, only 2 remain"):
        rle.decode_levels(b"\x02\x01", 0, 1, 1, prefixed=False, length=10)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="does not fit the output"):
        _decode(b"\x02\x00\x00", 17, 1, np.int16)
    with pytest.raises(ValueError, match="output holds 1 values, 2 requested"):
        bp.decode_hybrid(b"\x04\x01", 0, 2, 1, 2, np.empty(1, np.int32))
    with pytest.raises(ValueError, match="value 8 does not fit bit width 3"):
        rle.encode_hybrid([1, 8], 3)
    with pytest.raises(ValueError, match="value -1"):
        rle.encode_hybrid([-1], 3)


# ---------------------------------------------------------- legacy BIT_PACKED

@FAST
@given(st.integers(0, 16).flatmap(lambda w: st.tuples(st.just(w), _values(w))))
def test_legacy_bit_packed_round_trip(w_values):
    width, values = w_values
    max_level = (1 << width) - 1
    data = rle.encode_levels_bit_packed(values, max_level)
    assert data == ref.pack_msb(values, width)
    out, used = rle.decode_levels_bit_packed(b"\x01" + data + b"\xff", 1, max_level,
                                             len(values))
    assert used == len(data)
    assert out.tolist() == np.array(ref.unpack_msb(data, width, len(values)),
                                    np.int64).astype(np.int16).tolist()
    assert out.astype(np.uint16).tolist() == values


def test_legacy_bit_packed_truncated():
    with pytest.raises(EncodingError, match=r"BIT_PACKED levels at offset 3: 9 values of 3 "
                                            r"bits need 4 bytes, 3 remain"):
        rle.decode_levels_bit_packed(b"\0\0\0", 0, 7, 9, base_offset=3)


# ------------------------------------------------------- pyarrow cross-check

def _pyarrow_pages(table, version="1.0", **kw):
    """Write one column with pyarrow (uncompressed) and walk its pages."""
    pq = pytest.importorskip("pyarrow.parquet")
    from pqkit import format as fmt
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="none", data_page_version=version, **kw)
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


def test_pyarrow_dictionary_page_levels_and_indices():
    pa = pytest.importorskip("pyarrow")
    values = [None if i % 7 == 3 else (i * 37) % 13 for i in range(1000)]
    pages = _pyarrow_pages(pa.table({"x": pa.array(values, pa.int32())}),
                           use_dictionary=True)
    dict_header, data, start = pages[0]
    dict_len = dict_header.dictionary_page_header.num_values
    from pqkit.encodings.plain import decode_plain
    dictionary, _ = decode_plain(1, data, start, dict_len)
    got = []
    for header, data, start in pages[1:]:
        n = header.data_page_header.num_values
        defs, used = rle.decode_levels(data, start, 1, n, base_offset=start)
        body = start + used
        end = start + header.compressed_page_size
        nonnull = int(defs.sum())
        idx, _ = rle.decode_dictionary_indices(data, body, nonnull, dict_len,
                                               length=end - body, base_offset=body)
        dense = iter(dictionary[idx].tolist())
        got += [next(dense) if d else None for d in defs.tolist()]
    assert got == values


def test_pyarrow_rle_booleans():
    pa = pytest.importorskip("pyarrow")
    values = [bool(i % 3) or i > 500 for i in range(2000)]
    pages = _pyarrow_pages(pa.table({"b": pa.array(values)}), use_dictionary=False,
                           column_encoding={"b": "RLE"})
    got = []
    for header, data, start in pages:
        assert header.data_page_header.encoding == 3
        n = header.data_page_header.num_values
        defs, used = rle.decode_levels(data, start, 1, n, base_offset=start)
        assert defs.tolist() == [1] * n            # nullable column, no nulls
        out, used2 = rle.decode_rle_booleans(data, start + used, n, base_offset=start + used)
        assert used + used2 == header.compressed_page_size
        got += out.tolist()
    assert got == values


def test_pyarrow_v2_levels_without_prefix():
    pa = pytest.importorskip("pyarrow")
    values = [None if i % 5 == 0 or 300 < i < 700 else i % 9 for i in range(3000)]
    pages = _pyarrow_pages(pa.table({"x": pa.array(values, pa.int64())}), version="2.0",
                           use_dictionary=True)
    got = []
    for header, data, start in pages[1:]:
        h = header.data_page_header_v2
        assert h.repetition_levels_byte_length == 0
        defs, used = rle.decode_levels(data, start, 1, h.num_values, prefixed=False,
                                       length=h.definition_levels_byte_length)
        assert used == h.definition_levels_byte_length
        assert int((defs == 0).sum()) == h.num_nulls
        got += defs.tolist()
    assert got == [0 if v is None else 1 for v in values]
