"""Probing column-chunk bloom filters: reading them with their headers, and typed probe values.

A probe value is given as text and read according to the column's logical
type, then converted to the physical value a writer would have hashed (the
PLAIN encoding, see :mod:`pqkit.bloom`)::

    column type                     text            hashed bytes (PLAIN, no length prefix)
    INT32 (DATE)                    2024-02-29      days since 1970-01-01, int32 LE
    INT64 (TIMESTAMP(MICROS,UTC))   2024-02-29T12:00:00.25Z   microseconds, int64 LE
    FIXED_LEN_BYTE_ARRAY(5) (DECIMAL(9,2))   12.5   1250 as 5 big-endian bytes
    BYTE_ARRAY (STRING)             Oslo            b"Oslo"
    BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY           hex:00ff or base64:AP8=, else UTF-8 text
    FIXED_LEN_BYTE_ARRAY(16) (UUID) 123e4567-e89b-12d3-a456-426614174000   the 16 bytes

Integers accept decimal or 0x/0o/0b text and must fit the declared width;
dates, times and timestamps also accept the raw stored integer. Timestamps of
a UTC-adjusted column take a trailing ``Z`` or ``+HH:MM`` offset (none means
UTC); local (not UTC-adjusted) columns take none. INT96 timestamps hash the 12
stored bytes (nanoseconds of the day, then the Julian day). A BYTE_ARRAY
decimal hashes its shortest two's complement form, as writers store it.
"""
import base64
import binascii
import datetime as dt
import decimal
import re
import struct
import uuid
from dataclasses import dataclass
from typing import Optional

import numpy as np

from pqkit import datatypes as T
from pqkit.bloom import (
    MAX_BYTES,
    SplitBlockBloomFilter,
    hash_value,
    read_bloom_filter_header,
)
from pqkit.errors import (
    AllocationLimitError,
    CorruptFileError,
    EncryptedFileError,
    SchemaError,
)
from pqkit.format import Type
from pqkit.schema.logical import leaf_type

__all__ = ["ChunkBloomFilter", "read_chunk_bloom_filter", "probe_value", "probe_hash",
           "header_dict"]

# Header plus slack: a BloomFilterHeader is under 20 bytes.
_HEADER_WINDOW = 256
_EPOCH_ORDINAL = dt.date(1970, 1, 1).toordinal()
_JULIAN_EPOCH = 2440588
_PER_SECOND = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}
_DAY_S = 86400
_TIME = r"(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?"
_TIME_RE = re.compile(rf"^{_TIME}$")
_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$")
_TIMESTAMP_RE = re.compile(
    rf"^(\d{{4}})-(\d{{2}})-(\d{{2}})(?:[T ]{_TIME})?(Z|[+-]\d{{2}}:?\d{{2}})?$")


@dataclass
class ChunkBloomFilter:
    """A column chunk's bloom filter as stored.

    Attributes
    ----------
    offset : int
        ``bloom_filter_offset``: where the header starts.
    length : int or None
        ``bloom_filter_length`` (header and bitset), None when the writer left it out.
    header : pqkit.format.BloomFilterHeader
    header_size : int
    filter : pqkit.bloom.SplitBlockBloomFilter
    """
    offset: int
    length: Optional[int]
    header: object
    header_size: int
    filter: SplitBlockBloomFilter


def read_chunk_bloom_filter(parquet_file, column, row_group):
    """Read the bloom filter of one column chunk, or None when it has none.

    An offset of 0 or below counts as "no filter": some parquet-mr builds wrote 0.

    Parameters
    ----------
    parquet_file : pqkit.ParquetFile
    column : str, tuple or int
    row_group : int

    Returns
    -------
    ChunkBloomFilter or None

    Raises
    ------
    CorruptFileError, ThriftDecodeError, AllocationLimitError
        The filter lies outside the file's data, or its header or size is bad.
    UnsupportedFeatureError
        An algorithm, hash or compression other than BLOCK / XXHASH / UNCOMPRESSED.
    """
    md = parquet_file.metadata
    node = parquet_file.schema.column(column)
    if not 0 <= row_group < md.num_row_groups:
        raise IndexError(f"row group {row_group} out of range (file has {md.num_row_groups})")
    chunks = md.row_group(row_group).thrift.columns or []
    where = f"bloom filter of column {node.dotted_path}, row group {row_group}"
    if node.column_index >= len(chunks):
        raise CorruptFileError(f"{where}: the row group has only {len(chunks)} column chunks")
    chunk = chunks[node.column_index]
    cmd = chunk.meta_data
    if cmd is None:
        if chunk.crypto_metadata is not None:
            raise EncryptedFileError(f"{where}: the column chunk's metadata is encrypted "
                                     f"(chunk file_offset {chunk.file_offset})")
        raise CorruptFileError(f"{where}: the column chunk has no meta_data")
    offset, length = cmd.bloom_filter_offset, cmd.bloom_filter_length
    if offset is None or offset <= 0:
        return None
    if chunk.crypto_metadata is not None:
        raise EncryptedFileError(f"{where}: the filter at offset {offset} is encrypted")
    limit = md.footer_offset
    if offset < 4 or offset >= limit or (length is not None and (
            length <= 0 or offset + length > limit)):
        raise CorruptFileError(f"{where}: offset {offset} length {length} lies outside the "
                               f"data of the file, which ends at offset {limit}")
    end = offset + length if length is not None else limit
    read = parquet_file.read_bytes
    window = read(offset, min(end - offset, _HEADER_WINDOW))
    header, header_size = read_bloom_filter_header(window, 0, origin=offset)
    size = header.numBytes
    if offset + header_size + size > end:
        raise AllocationLimitError(
            f"{where}: the header at offset {offset} declares {size} bitset bytes, but only "
            f"{end - offset - header_size} follow it before offset {end}")
    if size > MAX_BYTES:        # read_bloom_filter_header refuses this already
        raise AllocationLimitError(f"{where}: {size} bitset bytes")
    bits = read(offset + header_size, size)
    return ChunkBloomFilter(offset, length, header, header_size, SplitBlockBloomFilter(bits))


def probe_hash(node, text):
    """The XXH64 hash a writer would have inserted for the value ``text`` in column ``node``.

    Parameters
    ----------
    node : pqkit.SchemaNode
        A leaf column.
    text : str

    Returns
    -------
    int

    Raises
    ------
    ValueError
        ``text`` cannot be read as a value of the column's type, or the type has no
        bloom filter (BOOLEAN, null).
    """
    return hash_value(probe_value(node, text), node.physical_type, node.element.type_length)


def probe_value(node, text):
    """``text`` read as a value of leaf ``node`` and turned into its physical value:
    an int (INT32/INT64), a float (FLOAT/DOUBLE) or bytes (the others); see the module
    docstring. Raises ValueError when it does not fit."""
    physical = node.physical_type
    if physical == Type.BOOLEAN:
        raise ValueError("bloom filters do not apply to BOOLEAN columns")
    try:
        type_ = leaf_type(node)
    except SchemaError:
        type_ = None        # an annotation that does not fit: read by the physical type
    if physical == Type.INT96:
        return _int96(_timestamp(text, "ns", "UTC"))
    if isinstance(type_, T.NullType):
        raise ValueError("the column holds only nulls; it has no bloom filter values")
    if isinstance(type_, T.DecimalType):
        return _decimal(text, type_, physical, node.element.type_length)
    if isinstance(type_, T.IntegerType):
        return _integer(text, type_.bit_width, type_.signed)
    if isinstance(type_, T.Date32Type):
        return _date(text)
    if isinstance(type_, (T.Time32Type, T.Time64Type)):
        return _time(text, type_.unit)
    if isinstance(type_, T.TimestampType):
        return _timestamp(text, type_.unit, type_.tz)
    if isinstance(type_, T.UuidType):
        return uuid.UUID(text).bytes
    if isinstance(type_, T.FloatingType) and type_.bit_width == 16:
        return np.float16(_float(text)).tobytes()
    if T.is_text_type(type_):
        return text.encode("utf-8")
    if physical in (Type.INT32, Type.INT64):
        return _integer(text, 32 if physical == Type.INT32 else 64, True)
    if physical in (Type.FLOAT, Type.DOUBLE):
        return _float(text)
    return _raw_bytes(text)


def _float(text):
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None


def _integer(text, bits, signed):
    try:
        value = int(text)
    except ValueError:
        try:
            value = int(text, 0)
        except ValueError:
            raise ValueError(f"{text!r} is not an integer") from None
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if not lo <= value <= hi:
        raise ValueError(f"{value} is outside the {'' if signed else 'u'}int{bits} range "
                         f"[{lo}, {hi}]")
    return value


def _raw_bytes(text):
    if text.startswith("hex:"):
        try:
            return bytes.fromhex(text[4:])
        except ValueError:
            raise ValueError(f"{text!r} is not valid hex after 'hex:'") from None
    if text.startswith("base64:"):
        try:
            return base64.b64decode(text[7:], validate=True)
        except binascii.Error:
            raise ValueError(f"{text!r} is not valid base64 after 'base64:'") from None
    return text.encode("utf-8")


def _decimal(text, type_, physical, type_length):
    try:
        value = decimal.Decimal(text)
    except decimal.InvalidOperation:
        raise ValueError(f"{text!r} is not a decimal number") from None
    if not value.is_finite():
        raise ValueError(f"{text!r} is not a finite decimal")
    with decimal.localcontext() as ctx:
        ctx.prec = 100
        scaled = value.scaleb(type_.scale)
        if scaled != scaled.to_integral_value():
            raise ValueError(f"{text} has more than {type_.scale} digits after the point "
                             f"({type_})")
        unscaled = int(scaled)
    if len(str(abs(unscaled))) > type_.precision:
        raise ValueError(f"{text} has more than {type_.precision} digits ({type_})")
    if physical == Type.INT32:
        return _integer(str(unscaled), 32, True)
    if physical == Type.INT64:
        return _integer(str(unscaled), 64, True)
    if physical == Type.FIXED_LEN_BYTE_ARRAY:
        try:
            return unscaled.to_bytes(type_length, "big", signed=True)
        except OverflowError:
            raise ValueError(f"{text} does not fit {type_length} bytes") from None
    width = ((unscaled if unscaled >= 0 else ~unscaled).bit_length() + 8) // 8
    return unscaled.to_bytes(width, "big", signed=True)


def _days(year, month, day, text):
    try:
        return dt.date(int(year), int(month), int(day)).toordinal() - _EPOCH_ORDINAL
    except ValueError as exc:
        raise ValueError(f"{text!r}: {exc}") from None


def _date(text):
    m = _DATE_RE.match(text)
    if m is None:
        return _raw_count(text, "a date (YYYY-MM-DD)", 32)
    return _days(*m.groups(), text)


def _fraction(digits, unit, text):
    """The fraction of a second in ``digits`` as a count of ``unit``."""
    if not digits:
        return 0
    places = len(str(_PER_SECOND[unit])) - 1
    if len(digits) > places and int(digits[places:]):
        raise ValueError(f"{text!r} is more precise than the column's unit ({unit})")
    return int(digits[:places].ljust(places, "0")) if places else 0


def _clock(h, m, s, frac, unit, text):
    h, m, s = int(h), int(m), int(s or 0)
    if h > 23 or m > 59 or s > 59:
        raise ValueError(f"{text!r} is not a valid time of day")
    return (h * 3600 + m * 60 + s) * _PER_SECOND[unit] + _fraction(frac, unit, text)


def _time(text, unit):
    m = _TIME_RE.match(text)
    if m is None:
        return _raw_count(text, "a time (HH:MM:SS[.fraction])", 32 if unit == "ms" else 64)
    return _clock(*m.groups(), unit, text)


def _timestamp(text, unit, tz):
    m = _TIMESTAMP_RE.match(text)
    if m is None:
        return _raw_count(text, "a timestamp (YYYY-MM-DDTHH:MM:SS[.fraction][Z|+HH:MM])", 64)
    year, month, day, h, mi, s, frac, zone = m.groups()
    per = _PER_SECOND[unit]
    count = _days(year, month, day, text) * _DAY_S * per
    if h is not None:
        count += _clock(h, mi, s, frac, unit, text)
    if zone is not None:
        if tz is None:
            raise ValueError(f"{text!r} has a zone offset, but the column holds local "
                             "date-times (not adjusted to UTC): leave the offset out")
        if zone != "Z":
            sign = -1 if zone[0] == "-" else 1
            digits = zone[1:].replace(":", "")
            count -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60) * per
    return _integer(str(count), 64, True)


def _raw_count(text, what, bits):
    try:
        return _integer(text, bits, True)
    except ValueError:
        raise ValueError(f"{text!r} is neither {what} nor a stored integer") from None


def _int96(nanos):
    days, in_day = divmod(nanos, _DAY_S * 10**9)
    julian = days + _JULIAN_EPOCH
    if not 0 <= julian < 1 << 32:
        raise ValueError(f"timestamp {nanos} ns lies outside what INT96 can hold")
    return struct.pack("<qI", in_day, julian)


def header_dict(header):
    """A JSON-ready view of a BloomFilterHeader: numBytes and the name of each union."""
    def union(value):
        if value is None:
            return None
        for name in value.FIELD_NAMES:
            if getattr(value, name) is not None:
                return name
        return "UNKNOWN"
    return {"num_bytes": header.numBytes, "algorithm": union(header.algorithm),
            "hash": union(header.hash), "compression": union(header.compression)}

