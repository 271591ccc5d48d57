"""Parquet leaf types -> pqkit data types (what a leaf column is read as).

A leaf's in-memory type comes from its physical type refined by its logical
type (or, in files that predate logical types, its ConvertedType), choosing
what pyarrow chooses by default so that values compare equal::

    INT32  + INT(8, signed)            -> int8        INT64 + TIMESTAMP(MICROS, UTC) -> timestamp[us, tz=UTC]
    INT32  + DATE                      -> date32      INT96                           -> timestamp[ns]
    BYTE_ARRAY + STRING / JSON         -> string      FLBA(16) + UUID                 -> uuid
    FLBA(n) + STRING (fastparquet)     -> string
    FLBA(2) + FLOAT16                  -> float16     FLBA(n) + DECIMAL(p, s)         -> decimal128(p, s)
"""
from pqkit import datatypes as T
from pqkit.errors import SchemaError
from pqkit.format import ConvertedType, Type

_UNIT = {"MILLIS": "ms", "MICROS": "us", "NANOS": "ns"}


_CONVERTED_INT = {
    ConvertedType.INT_8: T.int8, ConvertedType.INT_16: T.int16,
    ConvertedType.INT_32: T.int32, ConvertedType.INT_64: T.int64,
    ConvertedType.UINT_8: T.uint8, ConvertedType.UINT_16: T.uint16,
    ConvertedType.UINT_32: T.uint32, ConvertedType.UINT_64: T.uint64,
}


# The physical types text annotations are read from: the spec allows BYTE_ARRAY
# only, but fastparquet's fixed_text writes UTF8 on FIXED_LEN_BYTE_ARRAY, and
# DuckDB and fastparquet read that as text (pyarrow refuses the file).
_TEXT_PHYSICAL = (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY)

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
    if make is None or physical not in (Type.INT32, Type.INT64) or \
            (physical == Type.INT32) != (bit_width <= 32):
        raise SchemaError(f"{where}: INT({bit_width}, {'signed' if signed else 'unsigned'}) "
                          f"cannot annotate {Type(physical).name}")
    return make()


def _from_logical(lt, e, physical, where):
    """The type for a LogicalType annotation, or None to fall back to the physical type."""
    if lt.STRING is not None or lt.JSON is not None or lt.ENUM is not None:
        return T.string() if physical in _TEXT_PHYSICAL else None
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
        return T.string() if physical in _TEXT_PHYSICAL else None
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
    if physical == Type.INT96:
        # No annotation applies to INT96, which only ever held (deprecated) timestamps.
        return T.timestamp("ns")
    t = None
    if e.logicalType is not None:
        t = _from_logical(e.logicalType, e, physical, where)
    elif e.converted_type is not None:
        t = _from_converted(e.converted_type, e, physical, where)
    if t is not None:
        return t
    if physical == Type.FIXED_LEN_BYTE_ARRAY:
        return T.fixed_size_binary(e.type_length)
    return _PHYSICAL[physical]()
