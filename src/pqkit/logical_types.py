"""Parquet leaf types -> pqkit data types, and physical values -> typed leaf columns.

A leaf's in-memory type comes from its physical type refined by its logical
type (or, in files that predate logical types, its ConvertedType), choosing
what pyarrow chooses by default so that values compare equal::

    INT32  + INT(8, signed)            -> int8        INT64 + TIMESTAMP(MICROS, UTC) -> timestamp[us, tz=UTC]
    INT32  + DATE                      -> date32      INT96                           -> timestamp[ns]
    BYTE_ARRAY + STRING / JSON         -> string      FLBA(16) + UUID                 -> uuid
    FLBA(2) + FLOAT16                  -> float16     FLBA(n) + DECIMAL(p, s)         -> decimal128(p, s)

INT96 holds nanoseconds of the day (little-endian int64) followed by the
Julian day (little-endian, read as unsigned 32 bits as Arrow C++ does, which
matters only for the absurd values some test files hold); Julian day 2440588
is 1970-01-01. Results wrap modulo 2**64 like the other readers'.
"""
import numpy as np

from . import datatypes as T
from . import values as V
from .columns import BinaryColumn, NullColumn, PrimitiveColumn
from .errors import SchemaError
from .fixed_columns import DecimalColumn, FixedSizeBinaryColumn
from .format import ConvertedType, Type
from .levels import expand_offsets, expand_values
from .nested_columns import DictionaryColumn

_JULIAN_EPOCH = 2440588
_NS_PER_DAY = 86_400_000_000_000
_UNIT = {"MILLIS": "ms", "MICROS": "us", "NANOS": "ns"}

_CONVERTED_INT = {
    ConvertedType.INT_8: T.int8, ConvertedType.INT_16: T.int16,
    ConvertedType.INT_32: T.int32, ConvertedType.INT_64: T.int64,
    ConvertedType.UINT_8: T.uint8, ConvertedType.UINT_16: T.uint16,
    ConvertedType.UINT_32: T.uint32, ConvertedType.UINT_64: T.uint64,
}
_PHYSICAL = {
    Type.BOOLEAN: T.bool_, Type.INT32: T.int32, Type.INT64: T.int64,
    Type.FLOAT: T.float32, Type.DOUBLE: T.float64, Type.BYTE_ARRAY: T.binary,
}


def _unit(time_unit):
    for name, short in _UNIT.items():
        if getattr(time_unit, name, None) is not None:
            return short
    raise SchemaError(f"unknown time unit {time_unit!r}")


def _decimal(precision, scale, where):
    if precision is None or not 1 <= precision <= 76:
        raise SchemaError(f"{where}: DECIMAL with invalid precision {precision}")
    return T.decimal(precision, scale or 0)


def _integer(bit_width, signed, physical, where):
    names = {(8, True): T.int8, (16, True): T.int16, (32, True): T.int32, (64, True): T.int64,
             (8, False): T.uint8, (16, False): T.uint16, (32, False): T.uint32,
             (64, False): T.uint64}
    make = names.get((bit_width, bool(signed)))
    if make is None or (physical == Type.INT32) != (bit_width <= 32):
        raise SchemaError(f"{where}: INT({bit_width}, {'signed' if signed else 'unsigned'}) "
                          f"cannot annotate {Type(physical).name}")
    return make()


def _from_logical(lt, e, physical, where):
    """The type for a LogicalType annotation, or None to fall back to the physical type."""
    if lt.STRING is not None or lt.JSON is not None or lt.ENUM is not None:
        return T.string() if physical == Type.BYTE_ARRAY else None
    if lt.DECIMAL is not None:
        return _decimal(lt.DECIMAL.precision, lt.DECIMAL.scale, where)
    if lt.DATE is not None:
        return T.date32() if physical == Type.INT32 else None
    if lt.TIME is not None:
        unit = _unit(lt.TIME.unit)
        if unit == "ms" and physical == Type.INT32:
            return T.time32("ms")
        if unit != "ms" and physical == Type.INT64:
            return T.time64(unit)
        return None
    if lt.TIMESTAMP is not None:
        if physical != Type.INT64:
            return None
        return T.timestamp(_unit(lt.TIMESTAMP.unit), "UTC" if lt.TIMESTAMP.isAdjustedToUTC
                           else None)
    if lt.INTEGER is not None:
        return _integer(lt.INTEGER.bitWidth, lt.INTEGER.isSigned, physical, where)
    if lt.UNKNOWN is not None:
        return T.null()
    if lt.UUID is not None:
        return T.uuid() if physical == Type.FIXED_LEN_BYTE_ARRAY and e.type_length == 16 \
            else None
    if lt.FLOAT16 is not None:
        return T.float16() if physical == Type.FIXED_LEN_BYTE_ARRAY and e.type_length == 2 \
            else None
    return None


def _from_converted(ct, e, physical, where):
    if ct in (ConvertedType.UTF8, ConvertedType.JSON, ConvertedType.ENUM):
        return T.string() if physical == Type.BYTE_ARRAY else None
    if ct == ConvertedType.DECIMAL:
        return _decimal(e.precision, e.scale, where)
    if ct in _CONVERTED_INT:
        t = _CONVERTED_INT[ct]()
        return t if (physical == Type.INT32) == (t.bit_width <= 32) else None
    if ct == ConvertedType.DATE:
        return T.date32() if physical == Type.INT32 else None
    if ct == ConvertedType.TIME_MILLIS:
        return T.time32("ms") if physical == Type.INT32 else None
    if ct == ConvertedType.TIME_MICROS:
        return T.time64("us") if physical == Type.INT64 else None
    if ct in (ConvertedType.TIMESTAMP_MILLIS, ConvertedType.TIMESTAMP_MICROS):
        if physical != Type.INT64:
            return None
        return T.timestamp("ms" if ct == ConvertedType.TIMESTAMP_MILLIS else "us", "UTC")
    if ct == ConvertedType.INTERVAL:
        return T.interval() if physical == Type.FIXED_LEN_BYTE_ARRAY and e.type_length == 12 \
            else None
    return None


def leaf_type(node):
    """The pqkit DataType a leaf column is read as."""
    e = node.element
    physical = Type(e.type)
    where = f"column {node.dotted_path}"
    t = None
    if e.logicalType is not None:
        t = _from_logical(e.logicalType, e, physical, where)
    elif e.converted_type is not None:
        t = _from_converted(e.converted_type, e, physical, where)
    if t is not None:
        return t
    if physical == Type.INT96:
        return T.timestamp("ns")
    if physical == Type.FIXED_LEN_BYTE_ARRAY:
        return T.fixed_size_binary(e.type_length)
    return _PHYSICAL[physical]()


def int96_to_ns(raw):
    """(n, 12) uint8 INT96 values -> int64 nanoseconds since the epoch (wrapping, as others do)."""
    raw = np.ascontiguousarray(raw)
    nanos = raw[:, :8].copy().view("<i8").reshape(-1)
    days = raw[:, 8:].copy().view("<u4").reshape(-1).astype(np.int64)
    with np.errstate(over="ignore"):
        return (days - _JULIAN_EPOCH) * _NS_PER_DAY + nanos


def leaf_column(type_, physical, values, value_mask, validity, num_slots):
    """Build the typed leaf column over ``num_slots`` slots.

    ``values`` are the chunk's dense non-null values (FixedValues, BinaryValues
    or DictionaryValues); ``value_mask`` places them in the slots (None: one
    per slot); ``validity`` is the leaf's own validity (None: no nulls).
    """
    if isinstance(type_, T.NullType):
        return NullColumn(num_slots)
    if isinstance(values, V.DictionaryValues):
        if physical == Type.BYTE_ARRAY and isinstance(type_, T.StringType):
            dictionary = leaf_column(type_, physical, values.dictionary, None, None,
                                     len(values.dictionary))
            indices = expand_values(values.indices, value_mask)
            return DictionaryColumn(T.dictionary(T.int32(), type_), indices, dictionary,
                                    validity)
        values = V.take(values.dictionary, values.indices, "dictionary")
    if isinstance(values, V.BinaryValues):
        offsets = expand_offsets(values.offsets, value_mask)
        if isinstance(type_, T.DecimalType):
            return DecimalColumn.from_variable_bytes(type_, offsets, values.data, validity)
        return BinaryColumn(type_, offsets, values.data, validity)
    arr = expand_values(values.array, value_mask)
    if physical == Type.INT96:
        return PrimitiveColumn(type_, int96_to_ns(arr), validity)
    if physical == Type.FIXED_LEN_BYTE_ARRAY:
        if isinstance(type_, T.DecimalType):
            return DecimalColumn(type_, arr, validity)
        if isinstance(type_, T.FloatingType):
            return PrimitiveColumn(type_, np.ascontiguousarray(arr).view("<f2").reshape(-1),
                                   validity)
        return FixedSizeBinaryColumn(type_, arr, validity)
    if isinstance(type_, T.DecimalType):
        return DecimalColumn(type_, arr, validity)
    dtype = type_.numpy_dtype
    if arr.dtype != dtype:
        # Narrow ints wrap as other readers do; unsigned types reinterpret the bits.
        arr = arr.view(dtype) if arr.dtype.itemsize == dtype.itemsize else arr.astype(dtype)
    return PrimitiveColumn(type_, arr, validity)
