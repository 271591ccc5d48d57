"""Parquet split-block bloom filters (SBBF).

A column chunk's bloom filter is stored at ``ColumnMetaData.bloom_filter_offset``
as a compact-Thrift ``BloomFilterHeader`` followed by ``numBytes`` bytes of
bitset::

    BloomFilterHeader{numBytes, algorithm=BLOCK, hash=XXHASH, compression=UNCOMPRESSED}
    bitset: numBytes / 32 blocks, each eight little-endian uint32 words

A value is hashed with XXH64 (seed 0) over its PLAIN encoding: INT32, INT64,
FLOAT and DOUBLE as little-endian bytes, INT96 as its 12 bytes,
FIXED_LEN_BYTE_ARRAY as its bytes, and BYTE_ARRAY as its bytes *without* the
4-byte length prefix PLAIN pages carry. The upper 32 bits of the hash pick a
block, the lower 32 bits (the key) pick one bit in each of its eight words:
bit ``(key * SALT[j] mod 2**32) >> 27`` of word j.

Example: in a 1024-byte filter (32 blocks), ``b"hello"`` hashes to
0x26C7827D889F6DA3, so it lives in block (0x26C7827D * 32) >> 32 = 4 and sets
bits 20, 9, 10, 7, 9, 31, 28, 27 of words 0..7 of that block. A value is
"maybe present" when all eight bits are set and certainly absent otherwise.
"""
import math
import numbers
import operator
import struct

import numpy as np

from pqkit import format as fmt
from pqkit._native.hashing import (
    sbbf_check,
    sbbf_check_one,
    sbbf_insert,
    sbbf_insert_one,
    xxh64,
)
from pqkit.errors import AllocationLimitError, CorruptFileError, UnsupportedFeatureError

__all__ = ["SplitBlockBloomFilter", "optimal_num_bytes", "plain_bytes", "hash_value",
           "parse_bloom_filter", "read_bloom_filter_header", "MIN_BYTES", "MAX_BYTES"]

MIN_BYTES = 32                  # one block
MAX_BYTES = 128 * 1024 * 1024   # the largest filter writers produce (and we accept)
_BLOCK = 32
_Type = fmt.Type


def optimal_num_bytes(ndv, fpp):
    """Bitset size for ``ndv`` distinct values at false-positive rate ``fpp``.

    Uses the spec's formula ``m = -8 * ndv / ln(1 - fpp ** (1/8))`` bits, rounded
    up to a power of two and clamped to [32 bytes, 128 MiB], as parquet-cpp does.

    Parameters
    ----------
    ndv : int
        Expected number of distinct values (>= 0).
    fpp : float
        Target false-positive probability, 0 < fpp < 1.

    Returns
    -------
    int
    """
    ndv = operator.index(ndv)
    if ndv < 0:
        raise ValueError(f"ndv must be >= 0, got {ndv}")
    if not 0.0 < fpp < 1.0:
        raise ValueError(f"fpp must be in (0, 1), got {fpp}")
    bits = -8.0 * ndv / math.log(1.0 - fpp ** 0.125)
    if bits >= MAX_BYTES * 8:
        return MAX_BYTES
    bits = int(bits)
    if bits & (bits - 1):
        bits = 1 << bits.bit_length()
    return max(bits // 8, MIN_BYTES)


def _physical(physical_type):
    if isinstance(physical_type, str):
        try:
            return _Type[physical_type.upper()]
        except KeyError:
            raise ValueError(f"unknown physical type {physical_type!r}") from None
    return _Type(operator.index(physical_type))


def _int_bytes(value, bits):
    v = operator.index(value)
    if not -(1 << (bits - 1)) <= v < (1 << bits):
        raise ValueError(f"{v} does not fit a {bits}-bit integer column")
    return (v & ((1 << bits) - 1)).to_bytes(bits // 8, "little")


def _float_bytes(value, code):
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"expected a float, got {type(value).__name__}")
    try:
        return struct.pack(code, float(value))
    except OverflowError:
        raise ValueError(f"{value} is out of range for a FLOAT column") from None


def _raw_bytes(value, what):
    if isinstance(value, str):
        return value.encode("utf-8")
    try:
        return bytes(memoryview(value))
    except TypeError:
        raise TypeError(f"expected str or bytes for a {what} column, "
                        f"got {type(value).__name__}") from None


def plain_bytes(value, physical_type, type_length=None):
    """The bytes a bloom filter hashes for ``value`` in a column of ``physical_type``.

    Parameters
    ----------
    value : int, float, str or bytes-like
        An integer for INT32/INT64 (signed or the unsigned bit pattern), a real
        number for FLOAT/DOUBLE, 12 bytes for INT96, and ``str`` (UTF-8) or
        bytes for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY.
    physical_type : pqkit.format.Type, int or str
    type_length : int, optional
        The FIXED_LEN_BYTE_ARRAY width, checked when given.

    Returns
    -------
    bytes
    """
    ptype = _physical(physical_type)
    if ptype == _Type.INT32:
        return _int_bytes(value, 32)
    if ptype == _Type.INT64:
        return _int_bytes(value, 64)
    if ptype == _Type.FLOAT:
        return _float_bytes(value, "<f")
    if ptype == _Type.DOUBLE:
        return _float_bytes(value, "<d")
    if ptype == _Type.BYTE_ARRAY:
        return _raw_bytes(value, "BYTE_ARRAY")
    if ptype == _Type.INT96:
        raw = _raw_bytes(value, "INT96")
        if len(raw) != 12:
            raise ValueError(f"an INT96 value has 12 bytes, got {len(raw)}")
        return raw
    if ptype == _Type.FIXED_LEN_BYTE_ARRAY:
        raw = _raw_bytes(value, "FIXED_LEN_BYTE_ARRAY")
        if type_length is not None and len(raw) != type_length:
            raise ValueError(f"a FIXED_LEN_BYTE_ARRAY({type_length}) value has "
                             f"{type_length} bytes, got {len(raw)}")
        return raw
    raise ValueError(f"bloom filters do not apply to {ptype.name} columns")


def hash_value(value, physical_type, type_length=None):
    """XXH64 of the PLAIN encoding of ``value`` (see :func:`plain_bytes`)."""
    return xxh64(plain_bytes(value, physical_type, type_length))


class SplitBlockBloomFilter:
    """A split-block bloom filter over 64-bit hashes.

    Parameters
    ----------
    bitset : bytes-like, optional
        An existing bitset (copied), a positive multiple of 32 bytes.
    num_bytes : int, optional
        Size of a new empty filter, rounded up to a power of two within
        [32, 128 MiB]. With ``bitset`` it must equal its length.
    """

    def __init__(self, bitset=None, num_bytes=None):
        if bitset is None:
            if num_bytes is None:
                raise ValueError("give a bitset or num_bytes")
            n = operator.index(num_bytes)
            if not 0 < n <= MAX_BYTES:
                raise ValueError(f"num_bytes must be in 1..{MAX_BYTES}, got {n}")
            n = max(MIN_BYTES, 1 << (n - 1).bit_length())
            self._bits = bytearray(n)
            return
        self._bits = bytearray(memoryview(bitset).cast("B"))
        n = len(self._bits)
        if n == 0 or n % _BLOCK or n > MAX_BYTES:
            raise ValueError(f"a bitset needs a positive multiple of 32 bytes up to "
                             f"{MAX_BYTES}, got {n}")
        if num_bytes is not None and operator.index(num_bytes) != n:
            raise ValueError(f"num_bytes {num_bytes} does not match the {n}-byte bitset")

    @property
    def num_bytes(self):
        """Size of the bitset in bytes."""
        return len(self._bits)

    @property
    def bitset(self):
        """A copy of the bitset as stored on disk."""
        return bytes(self._bits)

    def insert_hash(self, h):
        """Add one 64-bit hash."""
        sbbf_insert_one(self._bits, h)

    def check_hash(self, h):
        """False if the hash was certainly never inserted, True if it may have been."""
        return sbbf_check_one(self._bits, h)

    def insert_hashes(self, hashes):
        """Add every hash of a uint64 array."""
        sbbf_insert(self._bits, np.asarray(hashes, dtype=np.uint64))

    def check_hashes(self, hashes):
        """Bool array: :meth:`check_hash` of each element of a uint64 array."""
        return sbbf_check(self._bits, np.asarray(hashes, dtype=np.uint64))

    def insert(self, value, physical_type, type_length=None):
        """Add a value of a column of ``physical_type`` (see :func:`plain_bytes`)."""
        self.insert_hash(hash_value(value, physical_type, type_length))

    def might_contain(self, value, physical_type, type_length=None):
        """False if ``value`` is certainly absent, True if it may be present.

        Parameters
        ----------
        value : int, float, str or bytes-like
            Converted to the column's physical type first (see :func:`plain_bytes`).
        physical_type : pqkit.format.Type, int or str
        type_length : int, optional
            FIXED_LEN_BYTE_ARRAY width.

        Returns
        -------
        bool
        """
        return self.check_hash(hash_value(value, physical_type, type_length))

    def header(self):
        """The ``BloomFilterHeader`` describing this filter."""
        return fmt.BloomFilterHeader(
            numBytes=len(self._bits),
            algorithm=fmt.BloomFilterAlgorithm(BLOCK=fmt.SplitBlockAlgorithm()),
            hash=fmt.BloomFilterHash(XXHASH=fmt.XxHash()),
            compression=fmt.BloomFilterCompression(UNCOMPRESSED=fmt.Uncompressed()))

    def serialize(self):
        """Header and bitset, as written at ``bloom_filter_offset``."""
        return fmt.encode(self.header()) + bytes(self._bits)

    def __eq__(self, other):
        if not isinstance(other, SplitBlockBloomFilter):
            return NotImplemented
        return self._bits == other._bits

    __hash__ = None

    def __repr__(self):
        ones = int(np.unpackbits(np.frombuffer(self._bits, dtype=np.uint8)).sum())
        return f"SplitBlockBloomFilter(num_bytes={len(self._bits)}, bits_set={ones})"


def read_bloom_filter_header(data, offset=0, *, origin=0):
    """Decode and validate the ``BloomFilterHeader`` at ``data[offset:]``.

    Parameters
    ----------
    data : bytes-like
    offset : int
        Where the header starts in ``data``.
    origin : int
        File offset of ``data[0]``, for error messages.

    Returns
    -------
    (pqkit.format.BloomFilterHeader, int)
        The header and its length in bytes.

    Raises
    ------
    ThriftDecodeError, CorruptFileError
        Malformed header, or numBytes not a positive multiple of 32.
    AllocationLimitError
        numBytes above 128 MiB.
    UnsupportedFeatureError
        An algorithm, hash or compression other than BLOCK / XXHASH / UNCOMPRESSED.
    """
    header, consumed = fmt.decode(fmt.BloomFilterHeader, data, offset, origin=origin)
    at = origin + offset
    for name in ("numBytes", "algorithm", "hash", "compression"):
        if getattr(header, name) is None:
            raise CorruptFileError(f"bloom filter header at offset {at} has no {name}")
    for name, field, wanted in (("algorithm", header.algorithm, "BLOCK"),
                                ("hash", header.hash, "XXHASH"),
                                ("compression", header.compression, "UNCOMPRESSED")):
        if getattr(field, wanted) is None:
            raise UnsupportedFeatureError(f"bloom filter {name} {field!r} at offset {at} "
                                          f"is not supported (only {wanted})")
    size = header.numBytes
    if size <= 0 or size % _BLOCK:
        raise CorruptFileError(f"bloom filter numBytes {size} at offset {at} is not a "
                               f"positive multiple of 32")
    if size > MAX_BYTES:
        raise AllocationLimitError(f"bloom filter numBytes {size} at offset {at} exceeds "
                                   f"the {MAX_BYTES}-byte limit")
    return header, consumed


def parse_bloom_filter(data, offset=0, *, origin=0):
    """Read a bloom filter (header and bitset) from ``data[offset:]``.

    Parameters
    ----------
    data : bytes-like
        Holds at least the header and the whole bitset.
    offset : int
        Where the header starts in ``data``.
    origin : int
        File offset of ``data[0]``, for error messages.

    Returns
    -------
    (pqkit.format.BloomFilterHeader, SplitBlockBloomFilter, int)
        The header, the filter, and the bytes consumed (header + bitset).

    Raises
    ------
    AllocationLimitError
        The bitset is longer than the bytes after the header.
    CorruptFileError, UnsupportedFeatureError
        See :func:`read_bloom_filter_header`.
    """
    view = memoryview(data).cast("B")
    header, consumed = read_bloom_filter_header(view, offset, origin=origin)
    start = offset + consumed
    available = len(view) - start
    if header.numBytes > available:
        raise AllocationLimitError(f"bloom filter at offset {origin + offset} declares "
                                   f"{header.numBytes} bitset bytes, only {available} follow "
                                   f"its header")
    bloom = SplitBlockBloomFilter(view[start:start + header.numBytes])
    return header, bloom, consumed + header.numBytes
