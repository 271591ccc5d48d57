"""Page compression codecs: the one registry of Parquet codecs.

A page body is compressed as a whole, with no framing of Parquet's own; the
page header carries both sizes, so every decompression is checked to give
exactly ``uncompressed_page_size`` bytes. What each codec id means on disk:

=============  ==============================================================
UNCOMPRESSED   the bytes as they are
SNAPPY         one raw Snappy block (varint length, then tagged elements)
GZIP           one or more concatenated RFC 1952 gzip members
LZO            not supported (:class:`~pqkit.errors.UnsupportedFeatureError`)
BROTLI         one RFC 7932 stream
LZ4            deprecated; read as Hadoop framing, else an LZ4 frame, else a
               raw LZ4 block (writers disagreed); written as Hadoop framing,
               only when asked for by the name ``"lz4_hadoop"``
ZSTD           one or more RFC 8878 frames, with or without a content size
LZ4_RAW        one raw LZ4 block
=============  ==============================================================

Hadoop framing is a sequence of blocks, each ``[u32 BE uncompressed length]``
followed by chunks ``[u32 BE compressed length][raw LZ4 block]`` until the
block's length is reached. Most writers put one chunk in each block, so
``b"abc"`` is written as ``00 00 00 03 | 00 00 00 04 | 30 61 62 63``.

Decompression never allocates much more than the declared size, and for
codecs whose output per input byte is bounded (Snappy 22, LZ4 255) a declared
size beyond that bound is rejected before anything is allocated; for the others
the output buffer grows only as the data actually decompresses. Zero input
bytes with a declared size of 0 give an empty result without calling a codec
(parquet-java writes such empty v2 pages). Bytes after the end of a complete
BROTLI stream are ignored, as cramjam does not report them; every other
codec rejects trailing bytes.
"""
import importlib
import operator
import struct
import threading
import zlib
from typing import Callable, NamedTuple, Optional

from pqkit.errors import (
    CorruptFileError,
    MissingCodecError,
    ParquetError,
    SchemaError,
    UnsupportedFeatureError,
)
from pqkit._native.zstd_frames import zstd_frames_bound
from pqkit.format import CompressionCodec

__all__ = ["CompressionCodec", "codec_from_name", "codec_names", "codec_available", "decompress",
           "compress"]

_GROW_FLOOR = 1 << 20            # first output buffer when the final size is not trusted
_LZ4_HADOOP_CHUNK = 128 * 1024   # uncompressed bytes per Hadoop block when writing
_LZ4_FRAME_MAGIC = b"\x04\x22\x4d\x18"
_ZSTD_MIN_LEVEL = -(1 << 17)     # libzstd's fastest negative level
# ZSTD 1 and BROTLI 8 are pyarrow's defaults (pyarrow's GZIP default is 9).
_DEFAULT_LEVEL = {CompressionCodec.GZIP: 6, CompressionCodec.BROTLI: 8, CompressionCodec.ZSTD: 1}


class _Bad(Exception):
    """A codec rejected its input; the message says why (no codec name or context)."""


# ---------------------------------------------------------------- packages

_modules = {}


def _module(codec):
    """The package behind codec (import name == pip name), imported on first use."""
    name = _CODECS[codec].package
    mod = _modules.get(name)
    if mod is None:
        try:
            mod = _modules[name] = importlib.import_module(name)
        except ImportError:
            raise MissingCodecError(f"the {codec.name} codec needs the {name!r} package: "
                                    f"pip install {name}") from None
    return mod


_local = threading.local()


def _zstd_decompressor(zstd):
    if not hasattr(_local, "zstd_d"):
        _local.zstd_d = zstd.ZstdDecompressor()
    return _local.zstd_d


def _zstd_compressor(zstd, level):
    if not hasattr(_local, "zstd_c"):
        _local.zstd_c = {}
    if level not in _local.zstd_c:
        _local.zstd_c[level] = zstd.ZstdCompressor(level=level)
    return _local.zstd_c[level]


# ---------------------------------------------------------------- helpers

def _byte_view(data):
    if type(data) is memoryview and data.ndim == 1 and data.format == "B":
        return data
    mv = memoryview(data)
    if mv.format != "B" or mv.ndim != 1:
        mv = mv.cast("B")
    return mv


def _mismatch(got, size):
    return _Bad(f"decompressed {got} bytes, header says {size}")


def _too_much(size):
    return _Bad(f"decompressed more than {size} bytes, header says {size}")


def _check_ratio(src, size, ratio):
    if size > ratio * len(src):
        raise _Bad(f"{len(src)} compressed bytes cannot expand to {size} bytes "
                   f"(at most {ratio} per byte)")


def _finish(buf, n, size, dst):
    """The first n bytes of buf (our own buffer or dst) once n == size."""
    if n != size:
        raise _mismatch(n, size)
    if dst is not None:
        return dst
    return memoryview(buf)[:n]


def _into_growing(decode_into, error, src, size):
    """Run decode_into(src, buf) -> n with buffers growing up to size + 1 bytes.

    A decoder that runs out of room is retried with a larger buffer, so a
    bogus huge ``size`` costs memory only in step with real output. cramjam
    reports a full buffer with Rust's io::ErrorKind::WriteZero message.
    """
    cap = size + 1
    trial = min(cap, max(_GROW_FLOOR, 64 * len(src)))
    while True:
        buf = bytearray(trial)
        try:
            n = decode_into(src, buf)
            break
        except error as exc:
            if trial == cap or "whole buffer" not in str(exc):
                raise _Bad(f"corrupt data or more than {size} bytes: {exc}") from None
            trial = min(cap, trial * 4)
    if n > size:
        raise _too_much(size)
    return buf, n


# ---------------------------------------------------------------- decoders
# Each takes (src: byte memoryview, size, dst: writable memoryview of size
# bytes or None) and returns exactly size bytes, or raises _Bad.

def _dec_snappy(src, size, dst):
    cj = _module(CompressionCodec.SNAPPY)
    _check_ratio(src, size, 22)
    try:
        declared = cj.snappy.decompress_raw_len(src)
        if declared != size:
            raise _Bad(f"Snappy block declares {declared} bytes, header says {size}")
        buf = dst if dst is not None else bytearray(size)
        n = cj.snappy.decompress_raw_into(src, buf)
    except cj.DecompressionError as exc:
        raise _Bad(str(exc)) from None
    return _finish(buf, n, size, dst)


def _dec_gzip(src, size, dst):
    chunks = []
    total = 0
    rest = src
    try:
        while True:
            # wbits 47 = 32 + 15: accept a gzip or a zlib header, 32 KiB window.
            member = zlib.decompressobj(47)
            chunk = member.decompress(rest, size + 1 - total)
            total += len(chunk)
            chunks.append(chunk)
            if total > size:
                raise _too_much(size)
            if not member.eof:
                raise _Bad(f"truncated gzip member after {total} bytes of output")
            rest = member.unused_data
            if not rest:
                break
    except zlib.error as exc:
        raise _Bad(f"{exc} (after {total} bytes of output)") from None
    if total != size:
        raise _mismatch(total, size)
    if dst is None:
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    pos = 0
    for chunk in chunks:
        dst[pos:pos + len(chunk)] = chunk
        pos += len(chunk)
    return dst


def _zstd_frames(src):
    """The most bytes the frames of src can decompress to (walked in Cython, see
    :mod:`pqkit._native.zstd_frames`); _Bad for a malformed or truncated frame."""
    try:
        return zstd_frames_bound(src)
    except ValueError as exc:
        raise _Bad(str(exc)) from None


def _dec_zstd(src, size, dst):
    zstd = _module(CompressionCodec.ZSTD)
    dctx = _zstd_decompressor(zstd)
    bound = _zstd_frames(src)
    if size > bound:
        raise _Bad(f"the zstd frames hold at most {bound} bytes, header says {size}")
    if dst is None:
        # One frame declaring the expected size is decoded in one call; for
        # anything else (several frames, no content size, corrupt data) the
        # streaming path does the work and reports the error.
        try:
            if zstd.frame_content_size(src) == size:
                out = dctx.decompress(src, max_output_size=size, allow_extra_data=False)
                if len(out) == size:
                    return out
        except zstd.ZstdError:
            pass
    try:
        return _zstd_stream(dctx, src, size, dst)
    except zstd.ZstdError as exc:
        raise _Bad(str(exc)) from None


def _zstd_stream(dctx, src, size, dst):
    reader = dctx.stream_reader(src, read_across_frames=True)
    if dst is not None:
        filled = 0
        while filled < size:
            got = reader.readinto(dst[filled:])
            if not got:
                raise _mismatch(filled, size)
            filled += got
        if reader.read(1):
            raise _too_much(size)
        return dst
    buf = bytearray(min(size + 1, max(_GROW_FLOOR, 64 * len(src))))
    filled = 0
    while True:
        if filled == len(buf):
            if filled > size:
                raise _too_much(size)
            buf += bytes(min(len(buf), size + 1 - len(buf)))
        got = reader.readinto(memoryview(buf)[filled:])
        if not got:
            break
        filled += got
    return _finish(buf, filled, size, None)


def _dec_brotli(src, size, dst):
    cj = _module(CompressionCodec.BROTLI)
    if dst is not None:
        try:
            n = cj.brotli.decompress_into(src, dst)
        except cj.DecompressionError as exc:
            raise _Bad(f"corrupt data or more than {size} bytes: {exc}") from None
        return _finish(dst, n, size, dst)
    buf, n = _into_growing(cj.brotli.decompress_into, cj.DecompressionError, src, size)
    return _finish(buf, n, size, None)


def _dec_lz4_raw(src, size, dst):
    cj = _module(CompressionCodec.LZ4_RAW)
    _check_ratio(src, size, 255)
    buf = dst if dst is not None else bytearray(size)
    try:
        n = cj.lz4.decompress_block_into(src, buf)
    except cj.DecompressionError as exc:
        raise _Bad(f"corrupt LZ4 block or more than {size} bytes: {exc}") from None
    return _finish(buf, n, size, dst)


def _lz4_hadoop_into(cj, src, out):
    """Decode Hadoop framing into out; the byte count, or None if src is not such data."""
    end = len(src)
    size = len(out)
    pos = filled = 0
    while pos < end:
        if end - pos < 8:
            return None
        (block_len,) = struct.unpack_from(">I", src, pos)
        pos += 4
        if block_len > size - filled:
            return None
        block_end = filled + block_len
        while True:  # at least one chunk per block, even an empty one
            if end - pos < 4:
                return None
            (chunk_len,) = struct.unpack_from(">I", src, pos)
            pos += 4
            if chunk_len > end - pos:
                return None
            try:
                n = cj.lz4.decompress_block_into(src[pos:pos + chunk_len], out[filled:block_end])
            except cj.DecompressionError:
                return None
            filled += n
            pos += chunk_len
            if filled >= block_end:
                break
    return filled


def _dec_lz4(src, size, dst):
    cj = _module(CompressionCodec.LZ4)
    _check_ratio(src, size, 255)
    buf = dst if dst is not None else bytearray(size)
    out = memoryview(buf)
    hadoop = _lz4_hadoop_into(cj, src, out)
    if hadoop == size:
        return _finish(buf, size, size, dst)
    try:
        if bytes(src[:4]) == _LZ4_FRAME_MAGIC:
            n = cj.lz4.decompress_into(src, out)
        else:
            n = cj.lz4.decompress_block_into(src, out)
    except cj.DecompressionError as exc:
        if hadoop is not None:  # well-formed Hadoop framing of the wrong size
            raise _mismatch(hadoop, size) from None
        raise _Bad(f"neither Hadoop-framed LZ4, an LZ4 frame nor a raw LZ4 block "
                   f"of {size} bytes: {exc}") from None
    return _finish(buf, n, size, dst)


def _lzo(*args):
    raise UnsupportedFeatureError("LZO compression is not supported")


# ---------------------------------------------------------------- encoders

def _enc_snappy(data, level):
    return bytes(_module(CompressionCodec.SNAPPY).snappy.compress_raw(data))


def _enc_gzip(data, level):
    try:
        comp = zlib.compressobj(level, zlib.DEFLATED, 31)
    except (ValueError, zlib.error) as exc:
        raise SchemaError(f"invalid GZIP level {level}: {exc}") from None
    return comp.compress(data) + comp.flush()


def _enc_zstd(data, level):
    zstd = _module(CompressionCodec.ZSTD)
    if not _ZSTD_MIN_LEVEL <= level <= zstd.MAX_COMPRESSION_LEVEL:
        raise SchemaError(f"invalid ZSTD level {level}: expected "
                         f"{_ZSTD_MIN_LEVEL}..{zstd.MAX_COMPRESSION_LEVEL}")
    return _zstd_compressor(zstd, level).compress(data)


def _enc_brotli(data, level):
    if not 0 <= level <= 11:
        raise SchemaError(f"invalid BROTLI level {level}: expected 0..11")
    return bytes(_module(CompressionCodec.BROTLI).brotli.compress(data, level=level))


def _lz4_block(cj, data, level):
    if level is None:
        return bytes(cj.lz4.compress_block(data, store_size=False))
    if not 1 <= level <= 12:
        raise SchemaError(f"invalid LZ4 level {level}: expected 1..12")
    return bytes(cj.lz4.compress_block(data, mode="high_compression", compression=level,
                                       store_size=False))


def _enc_lz4_raw(data, level):
    return _lz4_block(_module(CompressionCodec.LZ4_RAW), data, level)


def _enc_lz4(data, level):
    cj = _module(CompressionCodec.LZ4)
    parts = []
    # Small blocks keep Hadoop readers, whose block buffers are fixed, happy.
    for start in range(0, max(len(data), 1), _LZ4_HADOOP_CHUNK):
        piece = data[start:start + _LZ4_HADOOP_CHUNK]
        block = _lz4_block(cj, piece, level)
        parts.append(struct.pack(">II", len(piece), len(block)))
        parts.append(block)
    return b"".join(parts)


# ---------------------------------------------------------------- registry

class _Codec(NamedTuple):
    package: Optional[str]   # None: the standard library (or nothing)
    decode: Optional[Callable]
    encode: Optional[Callable]


_CODECS = {
    CompressionCodec.UNCOMPRESSED: _Codec(None, None, None),
    CompressionCodec.SNAPPY: _Codec("cramjam", _dec_snappy, _enc_snappy),
    CompressionCodec.GZIP: _Codec(None, _dec_gzip, _enc_gzip),
    CompressionCodec.LZO: _Codec(None, _lzo, _lzo),
    CompressionCodec.BROTLI: _Codec("cramjam", _dec_brotli, _enc_brotli),
    CompressionCodec.LZ4: _Codec("cramjam", _dec_lz4, _enc_lz4),
    CompressionCodec.ZSTD: _Codec("zstandard", _dec_zstd, _enc_zstd),
    CompressionCodec.LZ4_RAW: _Codec("cramjam", _dec_lz4_raw, _enc_lz4_raw),
}


# Names that are not an enum member's name. "lz4" is LZ4_RAW, as in pyarrow, polars and
# DuckDB: the LZ4 codec id (5) is deprecated, its framing ambiguous, and readers such as
# fastparquet cannot read it; it stays writable by an explicit name.
_NAME_ALIASES = {"NONE": CompressionCodec.UNCOMPRESSED, "LZ4": CompressionCodec.LZ4_RAW,
                 "LZ4_HADOOP": CompressionCodec.LZ4}


def codec_names():
    """The names :func:`codec_from_name` accepts (lower case), each with its codec."""
    names = {c.name.lower(): c for c in CompressionCodec}
    names.update((k.lower(), c) for k, c in _NAME_ALIASES.items())
    return names


def codec_from_name(name):
    """The :class:`CompressionCodec` for a name such as ``"zstd"`` (any case) or a number.

    ``None`` and ``"none"`` mean UNCOMPRESSED; ``"lz4"`` means LZ4_RAW (as in pyarrow)
    and ``"lz4_hadoop"`` the deprecated Hadoop-framed LZ4 (codec id 5). A
    :class:`CompressionCodec` or an integer is taken as the codec id itself. Anything
    else unknown raises :class:`~pqkit.SchemaError` (a ValueError), as does an
    invalid level.
    """
    if name is None or isinstance(name, CompressionCodec):
        return name or CompressionCodec.UNCOMPRESSED
    if isinstance(name, str):
        codec = codec_names().get(name.strip().lower())
        if codec is not None:
            return codec
        known = ", ".join(sorted(codec_names()))
        raise SchemaError(f"unknown compression codec {name!r}; expected one of {known}")
    try:
        return CompressionCodec(operator.index(name))
    except ValueError:
        raise SchemaError(f"unknown compression codec {name!r}") from None


def codec_available(codec):
    """Whether ``codec`` can be used here (its package is installed and it is not LZO)."""
    codec = codec_from_name(codec)
    if codec == CompressionCodec.LZO:
        return False
    if _CODECS[codec].package is None:
        return True
    try:
        _module(codec)
    except MissingCodecError:
        return False
    return True


def _resolve(codec, where):
    if type(codec) is CompressionCodec:         # the usual case, once per page
        return codec
    if codec is None or isinstance(codec, str):
        return codec_from_name(codec)
    try:
        return CompressionCodec(operator.index(codec))
    except (TypeError, ValueError):
        raise UnsupportedFeatureError(
            f"unknown compression codec {codec!r}{_where(where)}") from None


def _where(where):
    return f" ({where})" if where else ""


def _target(out, size):
    mv = _byte_view(out)
    if mv.readonly:
        raise ValueError("out must be a writable buffer")
    if len(mv) < size:
        raise ValueError(f"out holds {len(mv)} bytes, the page needs {size}")
    return mv[:size]


def decompress(codec, data, uncompressed_size, *, out=None, where=None):
    """Decompress one page body.

    Parameters
    ----------
    codec : CompressionCodec, int or str
        The codec id from the column chunk metadata (or a name).
    data : bytes-like
        The compressed bytes.
    uncompressed_size : int
        The size the page header declares; the result has exactly this length.
    out : writable bytes-like, optional
        Decompress into the first ``uncompressed_size`` bytes of this buffer.
    where : str, optional
        Context appended to error messages, e.g. ``"column a.b, page at offset 4"``.

    Returns
    -------
    bytes or memoryview
        ``uncompressed_size`` bytes (a view of ``out`` when given).

    Raises
    ------
    CorruptFileError
        The data does not decompress, or not to exactly ``uncompressed_size`` bytes.
    UnsupportedFeatureError
        LZO or an unknown codec id.
    MissingCodecError
        The codec's Python package is not installed.
    """
    codec = _resolve(codec, where)
    size = operator.index(uncompressed_size)
    src = _byte_view(data)
    dst = None if out is None else _target(out, max(size, 0))
    if size < 0:
        raise CorruptFileError(f"{codec.name}: negative uncompressed size {size}{_where(where)}")
    if codec == CompressionCodec.UNCOMPRESSED:
        if len(src) != size:
            raise CorruptFileError(f"UNCOMPRESSED: page has {len(src)} bytes, header says "
                                   f"{size}{_where(where)}")
        if dst is None:
            return data
        dst[:] = src
        return dst
    if len(src) == 0:
        if size == 0:
            return b"" if dst is None else dst
        raise CorruptFileError(f"{codec.name}: 0 compressed bytes, header says {size}"
                               f"{_where(where)}")
    try:
        return _CODECS[codec].decode(src, size, dst)
    except _Bad as exc:
        raise CorruptFileError(f"{codec.name}: {exc}{_where(where)}") from None
    except ParquetError as exc:
        if where:
            raise type(exc)(f"{exc}{_where(where)}") from None
        raise


def compress(codec, data, level=None):
    """Compress one page body.

    Parameters
    ----------
    codec : CompressionCodec, int or str
    data : bytes-like
    level : int, optional
        Codec-specific level (GZIP 0-9, default 6; ZSTD up to 22, default 1;
        BROTLI 0-11, default 8; LZ4/LZ4_RAW 1-12 selects high-compression mode).
        Ignored by SNAPPY and UNCOMPRESSED.

    Returns
    -------
    bytes
    """
    codec = codec_from_name(codec)
    src = _byte_view(data)
    if codec == CompressionCodec.UNCOMPRESSED:
        return bytes(src)
    level = _DEFAULT_LEVEL.get(codec) if level is None else operator.index(level)
    return _CODECS[codec].encode(src, level)
