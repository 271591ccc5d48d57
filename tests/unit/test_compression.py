"""Codec registry: round trips, framing variants, exact sizes, hostile input, interop."""
import gzip
import importlib
import os
import random
import struct
import tracemalloc
import zlib

import cramjam
import numpy as np
import pyarrow as pa
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pqkit import compression
from pqkit.compression import codec_available, codec_from_name, compress, decompress
from pqkit.errors import CorruptFileError, MissingCodecError, UnsupportedFeatureError
from pqkit.format import CompressionCodec as C
from thread_runner import run_in_threads

CODECS = [c for c in C if c != C.LZO]
COMPRESSING = [c for c in CODECS if c != C.UNCOMPRESSED]
RNG = np.random.default_rng(7)
MIB = 1 << 20
PAYLOADS = {
    "empty": b"",
    "one": b"x",
    "text": b"hello parquet " * 5000,
    "mib_repetitive": bytes(range(256)) * (MIB // 256),
    "mib_random": RNG.integers(0, 256, MIB, dtype=np.uint8).tobytes(),
}
# pyarrow.Codec names; "lz4" there is the LZ4 frame format, not Parquet's LZ4.
ARROW_NAME = {C.SNAPPY: "snappy", C.GZIP: "gzip", C.BROTLI: "brotli", C.ZSTD: "zstd",
              C.LZ4_RAW: "lz4_raw"}


def lz4_block(data):
    return bytes(cramjam.lz4.compress_block(data, store_size=False))


def hadoop_frames(pieces):
    """Arrow-style Hadoop framing: one [len][clen][block] frame per piece."""
    out = b""
    for p in pieces:
        block = lz4_block(p)
        out += struct.pack(">II", len(p), len(block)) + block
    return out


# ---------------------------------------------------------------- names

def test_codec_from_name():
    assert codec_from_name("zstd") is C.ZSTD
    assert codec_from_name("LZ4_raw") is C.LZ4_RAW
    assert codec_from_name("None") is C.UNCOMPRESSED
    assert codec_from_name(None) is C.UNCOMPRESSED
    assert codec_from_name(2) is C.GZIP
    assert codec_from_name(C.BROTLI) is C.BROTLI
    with pytest.raises(ValueError, match="'lzma'.*lz4_hadoop"):
        codec_from_name("lzma")
    with pytest.raises(ValueError, match="42"):
        codec_from_name(42)


def test_lz4_name_means_lz4_raw_as_in_pyarrow():
    """"lz4" is LZ4_RAW (codec 7), what pyarrow, polars and DuckDB write by that name;
    the deprecated Hadoop-framed LZ4 (codec 5) is written only by its explicit name,
    and codec ids are taken as they are (the reader keeps reading both)."""
    assert codec_from_name("lz4") is C.LZ4_RAW
    assert codec_from_name(" LZ4 ") is C.LZ4_RAW
    assert codec_from_name("lz4_hadoop") is C.LZ4
    assert codec_from_name(5) is C.LZ4 and codec_from_name(C.LZ4) is C.LZ4
    data = b"pqkit " * 100
    assert compress("lz4", data) == compress(C.LZ4_RAW, data)
    assert compress("lz4_hadoop", data)[:4] == len(data).to_bytes(4, "big")
    assert bytes(decompress("lz4_hadoop", compress("lz4_hadoop", data), len(data))) == data


def test_codec_available():
    assert all(codec_available(c) for c in CODECS)
    assert not codec_available("lzo")


# ---------------------------------------------------------------- round trips

@pytest.mark.parametrize("name", PAYLOADS)
@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name)
def test_round_trip(codec, name):
    data = PAYLOADS[name]
    packed = compress(codec, data)
    assert isinstance(packed, bytes)
    assert bytes(decompress(codec, packed, len(data))) == data
    out = np.full(len(data) + 5, 0xAB, dtype=np.uint8)
    got = decompress(codec, packed, len(data), out=out)
    assert bytes(got) == data and out[:len(data)].tobytes() == data
    assert out[len(data):].tolist() == [0xAB] * 5


@pytest.mark.parametrize("codec,level", [(C.GZIP, 1), (C.GZIP, 9), (C.ZSTD, -5), (C.ZSTD, 19),
                                         (C.BROTLI, 0), (C.BROTLI, 11), (C.LZ4_RAW, 9),
                                         (C.LZ4, 12)], ids=str)
def test_levels(codec, level):
    data = PAYLOADS["text"]
    assert bytes(decompress(codec, compress(codec, data, level), len(data))) == data


@pytest.mark.parametrize("codec,level", [(C.GZIP, 10), (C.ZSTD, 23), (C.BROTLI, 12),
                                         (C.LZ4_RAW, 0)], ids=str)
def test_bad_level(codec, level):
    with pytest.raises(ValueError, match=str(level)):
        compress(codec, b"abc", level)


@pytest.mark.parametrize("codec", ARROW_NAME, ids=lambda c: c.name)
def test_pyarrow_interop(codec):
    data = PAYLOADS["text"] + PAYLOADS["mib_random"][:5000]
    theirs = pa.compress(data, codec=ARROW_NAME[codec], asbytes=True)
    assert bytes(decompress(codec, theirs, len(data))) == data
    ours = compress(codec, data)
    assert pa.decompress(ours, len(data), codec=ARROW_NAME[codec], asbytes=True) == data


def test_threads_reuse_their_own_zstd_contexts():
    def work(seed):
        rng = np.random.default_rng(seed)
        for _ in range(20):
            data = rng.integers(0, 4, int(rng.integers(0, 50_000)), dtype=np.uint8).tobytes()
            level = int(rng.integers(1, 6))
            assert bytes(decompress(C.ZSTD, compress(C.ZSTD, data, level), len(data))) == data

    assert run_in_threads(work) == []


# ---------------------------------------------------------------- framing variants

def test_gzip_concatenated_members():
    a, b = b"first member " * 100, b"second" * 7
    data = gzip.compress(a) + gzip.compress(b"") + gzip.compress(b)
    assert bytes(decompress(C.GZIP, data, len(a) + len(b))) == a + b


def test_gzip_accepts_zlib_wrapper():
    data = PAYLOADS["text"]
    assert bytes(decompress(C.GZIP, zlib.compress(data), len(data))) == data


def test_zstd_without_content_size():
    data = PAYLOADS["mib_repetitive"]
    frame = zstandard.ZstdCompressor(write_content_size=False).compress(data)
    assert zstandard.frame_content_size(frame) == -1
    assert bytes(decompress(C.ZSTD, frame, len(data))) == data
    out = bytearray(len(data))
    assert decompress(C.ZSTD, frame, len(data), out=out) is not None and out == data


def test_zstd_concatenated_and_skippable_frames():
    a, b = PAYLOADS["text"], b"tail" * 100
    skippable = struct.pack("<II", 0x184D2A50, 3) + b"xyz"
    first = zstandard.ZstdCompressor().compress(a)
    data = (first + skippable +
            zstandard.ZstdCompressor(write_content_size=False, write_checksum=True).compress(b))
    total = len(a) + len(b)
    assert bytes(decompress(C.ZSTD, data, total)) == a + b
    assert bytes(decompress(C.ZSTD, data, total, out=bytearray(total))) == a + b
    with pytest.raises(CorruptFileError, match="truncated zstd frame checksum"):
        decompress(C.ZSTD, data[:-1], len(a) + len(b))
    with pytest.raises(CorruptFileError, match="truncated zstd skippable frame"):
        decompress(C.ZSTD, first + skippable[:-1], len(a))


def test_lz4_writes_hadoop_frames_of_128k():
    data = PAYLOADS["mib_random"][:300_000]
    packed = compress(C.LZ4, data)
    sizes, pos = [], 0
    while pos < len(packed):
        n, clen = struct.unpack_from(">II", packed, pos)
        sizes.append(n)
        pos += 8 + clen
    assert sizes == [131072, 131072, 300_000 - 262144] and pos == len(packed)


def test_lz4_hadoop_several_frames():
    pieces = [b"alpha" * 3000, b"", b"beta" * 10, os.urandom(1000)]
    data = b"".join(pieces)
    assert bytes(decompress(C.LZ4, hadoop_frames(pieces), len(data))) == data


def test_lz4_hadoop_block_with_several_chunks():
    # Hadoop's BlockCompressorStream: one block length, then several chunks.
    a, b = b"chunk one " * 50, b"chunk two " * 70
    ca, cb = lz4_block(a), lz4_block(b)
    data = (struct.pack(">I", len(a) + len(b)) + struct.pack(">I", len(ca)) + ca +
            struct.pack(">I", len(cb)) + cb)
    assert bytes(decompress(C.LZ4, data, len(a) + len(b))) == a + b


def test_lz4_raw_block_fallback():
    data = PAYLOADS["text"]
    assert bytes(decompress(C.LZ4, lz4_block(data), len(data))) == data


def test_lz4_frame_fallback():
    data = PAYLOADS["text"]
    frame = pa.compress(data, codec="lz4", asbytes=True)
    assert frame[:4] == b"\x04\x22\x4d\x18"
    assert bytes(decompress(C.LZ4, frame, len(data))) == data


def test_lz4_hadoop_wrong_total_reports_sizes():
    data = b"abc" * 1000
    with pytest.raises(CorruptFileError, match="decompressed 3000 bytes, header says 3001"):
        decompress(C.LZ4, hadoop_frames([data]), 3001)


# ---------------------------------------------------------------- sizes and bad input

def test_zero_bytes_never_reach_the_codec():
    for codec in C:
        if codec != C.LZO:
            assert bytes(decompress(codec, b"", 0)) == b""
        if codec not in (C.UNCOMPRESSED, C.LZO):
            with pytest.raises(CorruptFileError, match="0 compressed bytes, header says 5"):
                decompress(codec, b"", 5)


@pytest.mark.parametrize("codec", CODECS, ids=lambda c: c.name)
@pytest.mark.parametrize("delta", [-1, 1, 1000])
def test_wrong_declared_size(codec, delta):
    data = PAYLOADS["text"]
    packed = compress(codec, data)
    for out in (None, bytearray(len(data) + delta)):
        with pytest.raises(CorruptFileError, match=f"{codec.name}: .*{len(data) + delta}"):
            decompress(codec, packed, len(data) + delta, out=out)


@pytest.mark.parametrize("codec", COMPRESSING, ids=lambda c: c.name)
def test_truncated_and_garbage(codec):
    data = PAYLOADS["text"]
    packed = compress(codec, data)
    trailing = packed + b"\x01\x02\x03\x04"
    # Seeded garbage: unseeded random bytes are now and then a valid (tiny) brotli stream.
    garbage = random.Random(20261123).randbytes(64)
    for bad in (packed[:len(packed) // 2], packed[:-1], packed[1:], garbage,
                bytes(64), trailing):
        for size in (len(data), 10, 0):
            if bad is trailing and size == len(data) and codec == C.BROTLI:
                # cramjam's brotli stops at the end of the stream: a documented tolerance.
                assert bytes(decompress(codec, bad, size)) == data
                continue
            with pytest.raises(CorruptFileError, match=codec.name):
                decompress(codec, bad, size)


@pytest.mark.parametrize("codec", COMPRESSING, ids=lambda c: c.name)
def test_huge_declared_size_is_not_allocated(codec):
    bomb = compress(codec, bytes(4 * MIB))
    tracemalloc.start()
    try:
        for data in (bomb, bomb[:10], os.urandom(10)):
            with pytest.raises(CorruptFileError):
                decompress(codec, data, 1 << 40)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * MIB


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(codec=st.sampled_from(COMPRESSING), seed=st.integers(0, 2**32 - 1),
       size_delta=st.sampled_from([0, 0, 0, -1, 1, 17]), flips=st.integers(0, 4))
def test_fuzz_mutated_input_never_crashes(codec, seed, size_delta, flips):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 3, int(rng.integers(1, 3000)), dtype=np.uint8).tobytes()
    packed = bytearray(compress(codec, data))
    for _ in range(flips):
        packed[int(rng.integers(0, len(packed)))] ^= 1 << int(rng.integers(0, 8))
    cut = int(rng.integers(len(packed) // 2, len(packed) + 1))
    size = max(len(data) + size_delta, 0)
    try:
        got = decompress(codec, bytes(packed[:cut]), size)
    except CorruptFileError:
        return
    assert len(got) == size


def test_uncompressed_size_mismatch_and_negative_size():
    with pytest.raises(CorruptFileError, match="page has 3 bytes, header says 4"):
        decompress(C.UNCOMPRESSED, b"abc", 4)
    with pytest.raises(CorruptFileError, match="negative uncompressed size -1"):
        decompress(C.SNAPPY, b"abc", -1)


def test_where_is_appended():
    with pytest.raises(CorruptFileError, match=r"ZSTD: .* \(column a.b, page 3\)$"):
        decompress(C.ZSTD, b"junk", 10, where="column a.b, page 3")


def test_out_must_be_writable_and_large_enough():
    packed = compress(C.SNAPPY, b"abcdef")
    with pytest.raises(ValueError, match="writable"):
        decompress(C.SNAPPY, packed, 6, out=b"\0" * 6)
    with pytest.raises(ValueError, match="holds 5 bytes"):
        decompress(C.SNAPPY, packed, 6, out=bytearray(5))


def test_lzo_and_unknown_codecs():
    with pytest.raises(UnsupportedFeatureError, match="LZO"):
        decompress(C.LZO, b"abc", 3)
    with pytest.raises(UnsupportedFeatureError, match="LZO"):
        compress("lzo", b"abc")
    with pytest.raises(UnsupportedFeatureError, match="unknown compression codec 42"):
        decompress(42, b"abc", 3)


def test_missing_package(monkeypatch):
    real = importlib.import_module

    def fake(name, *args):
        if name == "zstandard":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(compression, "_modules", {})
    monkeypatch.setattr(compression.importlib, "import_module", fake)
    with pytest.raises(MissingCodecError, match="pip install zstandard"):
        decompress(C.ZSTD, b"abc", 3)
    with pytest.raises(MissingCodecError, match="pip install zstandard"):
        compress(C.ZSTD, b"abc")
    assert not codec_available(C.ZSTD)
    assert codec_available(C.SNAPPY)


# ---------------------------------------------------------------- corpus pages

CORPUS_FILES = ["concatenated_gzip_members.parquet", "hadoop_lz4_compressed.parquet",
                "hadoop_lz4_compressed_larger.parquet", "non_hadoop_lz4_compressed.parquet",
                "lz4_raw_compressed_larger.parquet",
                "byte_stream_split.zstd.parquet", "page_v2_empty_compressed.parquet",
                "datapage_v2_empty_datapage.snappy.parquet"]


def page_bodies(data):
    """(codec, compressed body, uncompressed size) of every page of a file."""
    import pqkit
    from pqkit import format as fmt
    md = pqkit.read_metadata(data)
    for rg in md.raw.row_groups:
        for cc in rg.columns:
            m = cc.meta_data
            pos = m.data_page_offset
            if m.dictionary_page_offset and 0 < m.dictionary_page_offset < pos:
                pos = m.dictionary_page_offset
            end = pos + m.total_compressed_size
            while pos < end:
                ph, n = fmt.decode(fmt.PageHeader, data, pos)
                body = data[pos + n:pos + n + ph.compressed_page_size]
                pos += n + ph.compressed_page_size
                size, codec = ph.uncompressed_page_size, m.codec
                v2 = ph.data_page_header_v2
                if v2 is not None:
                    levels = v2.repetition_levels_byte_length + v2.definition_levels_byte_length
                    body, size = body[levels:], size - levels
                    codec = C.UNCOMPRESSED if v2.is_compressed is False else codec
                yield codec, body, size


@pytest.mark.corpus
@pytest.mark.parametrize("name", CORPUS_FILES)
def test_corpus_pages_decompress(corpus, name):
    data = (corpus / "data" / name).read_bytes()
    pages = list(page_bodies(data))
    assert pages
    for codec, body, size in pages:
        assert len(decompress(codec, body, size)) == size


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.binary(max_size=3000), st.sampled_from([1, 3, 19]),
                          st.booleans(), st.booleans()), min_size=1, max_size=3),
       st.data())
def test_zstd_frame_walk_bounds_the_output_and_names_where_a_cut_frame_ends(frames, data):
    """The native frame walk: at least the decompressed size of whole frames (exactly it
    when every frame declares its size), and a ValueError naming a byte position for
    every cut inside the frames."""
    from pqkit._native.zstd_frames import zstd_frames_bound
    blob, total, declared, ends = b"", 0, True, set()
    for payload, level, with_size, with_checksum in frames:
        blob += zstandard.ZstdCompressor(level=level, write_content_size=with_size,
                                         write_checksum=with_checksum).compress(payload)
        ends.add(len(blob))
        total += len(payload)
        declared &= with_size
    bound = zstd_frames_bound(blob)
    assert bound >= total and (bound == total or not declared)
    cut = data.draw(st.integers(1, len(blob) - 1).filter(lambda k: k not in ends))
    with pytest.raises(ValueError, match=r"at byte \d+"):
        zstd_frames_bound(blob[:cut])
    assert zstd_frames_bound(b"") == 0
