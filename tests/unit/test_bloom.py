"""XXH64 kernels against a pure-Python oracle, and the split-block bloom filter."""
import io
import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.reference import xxhash_ref as ref

import pqkit
from pqkit import format as fmt
from pqkit._native.hashing import (
    sbbf_check,
    sbbf_insert,
    xxh64,
    xxh64_byte_arrays,
    xxh64_fixed,
)
from pqkit.bloom import (
    MAX_BYTES,
    SplitBlockBloomFilter,
    hash_value,
    optimal_num_bytes,
    parse_bloom_filter,
    plain_bytes,
    read_bloom_filter_header,
)
from pqkit.errors import (
    AllocationLimitError,
    CorruptFileError,
    ThriftDecodeError,
    UnsupportedFeatureError,
)

T = fmt.Type
U64 = st.integers(0, 2**64 - 1)


# ---------------------------------------------------------------- XXH64

@pytest.mark.parametrize("data,seed,expected", [
    (b"", 0, 0xEF46DB3751D8E999),
    (b"a", 0, 0xD24EC4F1A98C6E5B),
    (b"abc", 0, 0x44BC2CF5AD770999),
    (b"Nobody inspects the spammish repetition", 0, 0xFBCEA83C8A378BF1),
])
def test_known_vectors(data, seed, expected):
    assert xxh64(data, seed) == expected
    assert ref.xxh64(data, seed) == expected


def test_every_length_up_to_100():
    data = bytes(np.random.default_rng(1).integers(0, 256, 100, dtype=np.uint8))
    for n in range(101):
        for seed in (0, 1, 2**64 - 1):
            assert xxh64(data[:n], seed) == ref.xxh64(data[:n], seed), (n, seed)


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=300), seed=U64)
def test_xxh64_matches_oracle(data, seed):
    assert xxh64(data, seed) == ref.xxh64(data, seed)


def test_xxh64_accepts_any_contiguous_buffer():
    arr = np.arange(10, dtype=np.int32)
    assert xxh64(arr) == xxh64(arr.tobytes()) == xxh64(memoryview(arr.tobytes()))
    assert xxh64(bytearray(b"abc")) == xxh64(b"abc")
    with pytest.raises((TypeError, BufferError)):
        xxh64(np.arange(10, dtype=np.uint8)[::2])


@pytest.mark.parametrize("dtype", ["<i4", "<i8", "<f4", "<f8", ">i4", ">f8", "S5", "V12", "u1"])
def test_xxh64_fixed_hashes_le_bytes(dtype):
    rng = np.random.default_rng(3)
    arr = rng.integers(0, 256, 40 * np.dtype(dtype).itemsize, dtype=np.uint8).view(dtype)
    expected = [xxh64(np.asarray(v).astype(np.dtype(dtype).newbyteorder("<")).tobytes())
                for v in arr]
    assert xxh64_fixed(arr).tolist() == expected
    assert xxh64_fixed(arr[:0]).tolist() == []


def test_xxh64_fixed_two_dimensional_rows():
    rows = np.random.default_rng(4).integers(0, 256, (30, 12), dtype=np.uint8)
    assert xxh64_fixed(rows).tolist() == [xxh64(r.tobytes()) for r in rows]
    assert xxh64_fixed(rows, seed=9).tolist() == [xxh64(r.tobytes(), 9) for r in rows]


def test_xxh64_fixed_rejects_objects_and_bad_shapes():
    with pytest.raises(TypeError):
        xxh64_fixed(np.array(["a", 1], dtype=object))
    with pytest.raises(ValueError, match="shape"):
        xxh64_fixed(np.zeros((2, 2, 2), dtype=np.uint8))


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.binary(max_size=40), max_size=30), seed=U64)
def test_xxh64_byte_arrays_matches_oracle(values, seed):
    offsets = np.concatenate([[0], np.cumsum([len(v) for v in values])]).astype(np.int64)
    got = xxh64_byte_arrays(offsets, b"".join(values), seed)
    assert got.dtype == np.uint64
    assert got.tolist() == [ref.xxh64(v, seed) for v in values]


@pytest.mark.parametrize("offsets,message", [([0, 5, 3], "index 2"), ([0, 11], "offset 11"),
                                             ([-1, 2], "offset -1")])
def test_xxh64_byte_arrays_bad_offsets(offsets, message):
    with pytest.raises(ValueError, match=message):
        xxh64_byte_arrays(np.array(offsets), b"0123456789")


def test_xxh64_byte_arrays_empty():
    assert xxh64_byte_arrays(np.array([0]), b"").tolist() == []
    assert xxh64_byte_arrays(np.array([], dtype=np.int64), b"").tolist() == []
    assert xxh64_byte_arrays(np.array([0, 0]), b"").tolist() == [0xEF46DB3751D8E999]


# ---------------------------------------------------------------- SBBF kernels

@settings(max_examples=200, deadline=None)
@given(hashes=st.lists(U64, max_size=60), blocks=st.integers(1, 40), probes=st.lists(U64))
def test_sbbf_kernels_match_oracle(hashes, blocks, probes):
    ours = bytearray(blocks * 32)
    theirs = bytearray(blocks * 32)
    sbbf_insert(ours, np.array(hashes, dtype=np.uint64))
    for h in hashes:
        ref.sbbf_insert(theirs, h)
    assert ours == theirs
    checks = sbbf_check(ours, np.array(hashes + probes, dtype=np.uint64))
    assert checks.tolist() == [ref.sbbf_check(theirs, h) for h in hashes + probes]


def test_sbbf_kernels_reject_bad_bitsets():
    for size in (0, 31, 33):
        with pytest.raises(ValueError, match=str(size)):
            sbbf_insert(bytearray(size), np.zeros(1, np.uint64))
    with pytest.raises(BufferError):
        sbbf_insert(bytes(32), np.zeros(1, np.uint64))  # read-only


# ---------------------------------------------------------------- filter API

def test_insert_and_check_scalar_and_vector_agree():
    rng = np.random.default_rng(5)
    inserted = rng.integers(0, 2**64, 5000, dtype=np.uint64)
    others = rng.integers(0, 2**64, 20000, dtype=np.uint64)
    bloom = SplitBlockBloomFilter(num_bytes=optimal_num_bytes(5000, 0.01))
    scalar = SplitBlockBloomFilter(num_bytes=bloom.num_bytes)
    bloom.insert_hashes(inserted)
    for h in inserted[:100].tolist():
        scalar.insert_hash(h)
    assert bloom.check_hashes(inserted).all()
    assert all(bloom.check_hash(h) for h in inserted[:100].tolist())
    assert scalar.check_hashes(inserted[:100]).all()
    rate = bloom.check_hashes(others).mean()
    assert rate < 0.02
    assert bloom.check_hashes(others[:50]).tolist() == [bloom.check_hash(h)
                                                        for h in others[:50].tolist()]


def test_constructor():
    assert SplitBlockBloomFilter(num_bytes=1).num_bytes == 32
    assert SplitBlockBloomFilter(num_bytes=33).num_bytes == 64
    assert SplitBlockBloomFilter(num_bytes=4096).bitset == bytes(4096)
    bits = bytes(range(96))
    bloom = SplitBlockBloomFilter(bits, num_bytes=96)
    assert bloom.bitset == bits and bloom == SplitBlockBloomFilter(bits)
    for bad in ({}, {"num_bytes": 0}, {"num_bytes": MAX_BYTES + 1}, {"bitset": b""},
                {"bitset": bytes(40)}, {"bitset": bytes(64), "num_bytes": 32}):
        with pytest.raises(ValueError):
            SplitBlockBloomFilter(**bad)


@pytest.mark.parametrize("ndv,fpp,expected", [(1048576, 0.05, 1048576), (100, 0.01, 128),
                                              (2000, 0.01, 4096), (0, 0.5, 32), (1, 0.99, 32),
                                              (10**12, 0.001, MAX_BYTES)])
def test_optimal_num_bytes(ndv, fpp, expected):
    assert optimal_num_bytes(ndv, fpp) == expected


def test_optimal_num_bytes_rejects_bad_arguments():
    for ndv, fpp in ((-1, 0.1), (10, 0.0), (10, 1.0)):
        with pytest.raises(ValueError):
            optimal_num_bytes(ndv, fpp)


@pytest.mark.parametrize("value,ptype,length,expected", [
    (1, T.INT32, None, b"\x01\0\0\0"),
    (-1, "int32", None, b"\xff" * 4),
    (2**32 - 1, T.INT32, None, b"\xff" * 4),      # UINT_32 bit pattern
    (np.int16(-2), T.INT32, None, b"\xfe\xff\xff\xff"),
    (-2, T.INT64, None, b"\xfe" + b"\xff" * 7),
    (1.5, T.FLOAT, None, struct.pack("<f", 1.5)),
    (np.float32(0.1), T.FLOAT, None, np.float32(0.1).tobytes()),
    (-0.0, T.DOUBLE, None, struct.pack("<d", -0.0)),
    ("héllo", T.BYTE_ARRAY, None, "héllo".encode()),
    (b"raw", 6, None, b"raw"),
    (bytes(12), T.INT96, None, bytes(12)),
    (b"\x01\x02", T.FIXED_LEN_BYTE_ARRAY, 2, b"\x01\x02"),
])
def test_plain_bytes(value, ptype, length, expected):
    assert plain_bytes(value, ptype, length) == expected
    assert hash_value(value, ptype, length) == ref.xxh64(expected)


@pytest.mark.parametrize("value,ptype,length,error", [
    (2**31 * 2, T.INT32, None, ValueError), (-(2**31) - 1, T.INT32, None, ValueError),
    (2**64, T.INT64, None, ValueError), (1.0, T.INT32, None, TypeError),
    ("1.5", T.DOUBLE, None, TypeError), (1e300, T.FLOAT, None, ValueError),
    (bytes(11), T.INT96, None, ValueError), (b"abc", T.FIXED_LEN_BYTE_ARRAY, 2, ValueError),
    (3, T.BYTE_ARRAY, None, TypeError), (True, T.BOOLEAN, None, ValueError),
    (1, "INT128", None, ValueError),
])
def test_plain_bytes_rejects(value, ptype, length, error):
    with pytest.raises(error):
        plain_bytes(value, ptype, length)


# ---------------------------------------------------------------- serialized filters

@pytest.mark.corpus
def test_reference_filter_file(corpus):
    data = (corpus / "data" / "bloom_filter.xxhash.bin").read_bytes()
    header, bloom, consumed = parse_bloom_filter(data)
    assert consumed == len(data) and header.numBytes == bloom.num_bytes == 1024
    for word in ("hello", "parquet", "bloom", "filter"):
        assert bloom.might_contain(word, T.BYTE_ARRAY)
        assert bloom.might_contain(word.encode(), T.BYTE_ARRAY)
    rng = np.random.default_rng(6)
    others = [f"other-{i}-{rng.integers(1 << 30)}" for i in range(1000)]
    assert sum(bloom.might_contain(s, T.BYTE_ARRAY) for s in others) < 20
    assert bloom.serialize() == data


def test_serialize_round_trip_with_offset_and_origin():
    bloom = SplitBlockBloomFilter(num_bytes=64)
    for v in range(50):
        bloom.insert(v, T.INT64)
    blob = b"junk" + bloom.serialize() + b"tail"
    header, back, consumed = parse_bloom_filter(blob, 4, origin=100)
    assert back == bloom and consumed == len(blob) - 8
    assert read_bloom_filter_header(blob, 4)[1] == consumed - 64
    assert all(back.might_contain(v, T.INT64) for v in range(50))


def header_bytes(**changes):
    h = SplitBlockBloomFilter(num_bytes=32).header()
    for name, value in changes.items():
        setattr(h, name, value)
    return fmt.encode(h)


@pytest.mark.parametrize("changes,error,message", [
    ({"numBytes": 0}, CorruptFileError, "numBytes 0 at offset 7"),
    ({"numBytes": -32}, CorruptFileError, "numBytes -32"),
    ({"numBytes": 48}, CorruptFileError, "numBytes 48"),
    ({"numBytes": 2 * MAX_BYTES}, AllocationLimitError, "exceeds"),
    ({"numBytes": None}, CorruptFileError, "no numBytes"),
    ({"algorithm": fmt.BloomFilterAlgorithm()}, UnsupportedFeatureError, "only BLOCK"),
    ({"hash": fmt.BloomFilterHash()}, UnsupportedFeatureError, "only XXHASH"),
    ({"compression": fmt.BloomFilterCompression()}, UnsupportedFeatureError, "only UNCOMP"),
])
def test_bad_headers(changes, error, message):
    blob = b"\0" * 7 + header_bytes(**changes) + bytes(64)
    with pytest.raises(error, match=message):
        parse_bloom_filter(blob, 7)


def test_truncated_filters():
    blob = SplitBlockBloomFilter(num_bytes=64).serialize()
    with pytest.raises(AllocationLimitError, match="declares 64 bitset bytes, only 63"):
        parse_bloom_filter(blob[:-1])
    with pytest.raises(ThriftDecodeError):
        parse_bloom_filter(blob[:5])


# ---------------------------------------------------------------- pyarrow interop

def arrow_table(n=3000):
    rng = np.random.default_rng(8)
    return pa.table({
        "i32": pa.array(rng.integers(-2**31, 2**31, n), pa.int32()),
        "u32": pa.array(rng.integers(0, 2**32, n), pa.uint32()),
        "i8": pa.array(rng.integers(-128, 128, n), pa.int8()),
        "i64": pa.array(rng.integers(-2**63, 2**63, n, dtype=np.int64)),
        "f32": pa.array(rng.standard_normal(n).astype(np.float32)),
        "f64": pa.array(rng.standard_normal(n)),
        "str": pa.array([f"value {i}" for i in rng.integers(0, 10**6, n)]),
        "bin": pa.array([bytes(rng.integers(0, 256, i % 9, dtype=np.uint8)) for i in range(n)]),
        "flba": pa.array([int(i).to_bytes(6, "little") for i in rng.integers(0, 2**40, n)],
                         pa.binary(6)),
    })


def our_filter(column, physical, num_bytes):
    """Our filter of a pyarrow column's values, through the batch hashing kernels."""
    bloom = SplitBlockBloomFilter(num_bytes=num_bytes)
    if physical in (T.BYTE_ARRAY, T.FIXED_LEN_BYTE_ARRAY):
        values = [v if isinstance(v, bytes) else v.encode() for v in column.to_pylist()]
        offsets = np.concatenate([[0], np.cumsum([len(v) for v in values])])
        bloom.insert_hashes(xxh64_byte_arrays(offsets, b"".join(values)))
    else:
        dtype = {T.INT32: "<i4", T.INT64: "<i8", T.FLOAT: "<f4", T.DOUBLE: "<f8"}[physical]
        raw = column.to_numpy()
        values = raw.view("<i4") if raw.dtype == np.uint32 else raw.astype(dtype)
        bloom.insert_hashes(xxh64_fixed(values))
    return bloom


@pytest.mark.interop
def test_pyarrow_written_filters_match_ours_bit_for_bit():
    table = arrow_table()
    buf = io.BytesIO()
    pq.write_table(table, buf, bloom_filter_options={c: {"ndv": 3000, "fpp": 0.01}
                                                     for c in table.column_names})
    data = buf.getvalue()
    md = pqkit.read_metadata(data)
    for name, chunk in zip(table.column_names, md.row_group(0).thrift.columns):
        meta = chunk.meta_data
        header, bloom, consumed = parse_bloom_filter(data, meta.bloom_filter_offset)
        assert consumed == meta.bloom_filter_length
        column = table[name]
        width = 6 if name == "flba" else None
        assert all(bloom.might_contain(v, meta.type, width) for v in column.to_pylist()), name
        assert our_filter(column, meta.type, header.numBytes) == bloom, name


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["data_index_bloom_encoding_stats.parquet",
                                  "data_index_bloom_encoding_with_length.parquet"])
def test_corpus_files_with_filters(corpus, name):
    path = corpus / "data" / name
    data = path.read_bytes()
    meta = pqkit.read_metadata(data).row_group(0).thrift.columns[0].meta_data
    header, bloom, consumed = parse_bloom_filter(data, meta.bloom_filter_offset)
    if meta.bloom_filter_length is not None:
        assert consumed == meta.bloom_filter_length
    values = pq.read_table(path).column(0).to_pylist()
    assert values and all(bloom.might_contain(v, meta.type) for v in values)
    assert sum(bloom.might_contain(f"absent {i}", meta.type) for i in range(500)) < 25
