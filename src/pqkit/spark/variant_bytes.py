"""VARIANT columns for Spark: a (possibly shredded) variant group -> value and metadata bytes.

Spark takes a variant as its two binaries (pyspark's ``VariantVal(value, metadata)``,
an Arrow ``struct<value, metadata>`` for ``mapInArrow``). A column that is not
shredded already holds them. A shredded one (Spark 4 writes them so by default)
holds some values in ``typed_value`` columns instead; :func:`unshred` encodes
those back into variant value bytes, following the Parquet variant shredding
spec:

* ``typed_value`` non-null: the value is the typed value (a struct's fields each
  another shredded group, an array's elements likewise); for an object the
  ``value`` column may hold an object with the fields that were not shredded,
  which are merged in;
* only ``value`` non-null: the value is those bytes;
* both null: in an object field, the field is absent; elsewhere a variant null.

Primitive encodings (type id after the two basic-type bits): null 0, true 1,
false 2, int8..int64 3..6, double 7, decimal4/8/16 8..10 (a scale byte, then the
little-endian unscaled value), date 11 (int32 days), timestamp 12 / timestamp
without zone 13 (int64 micros), float 14, binary 15 and string 16 (a 4-byte
length, then the bytes), time 17, timestamp nanos 18 / 19, uuid 20 (16 bytes,
big-endian). Strings shorter than 64 bytes use the short-string basic type.

Rebuilding a shredded value runs per row in Python (the values are nested and
of varying shape); unshredded columns are passed through without copying.
"""
import datetime
import decimal
import struct

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn
from pqkit.columnar.nested import StructColumn
from pqkit.errors import SchemaError

__all__ = ["VARIANT_TYPE", "unshred", "variant_values"]

# What the executors hand Spark for a variant: the field order pyspark's Arrow type uses.
VARIANT_TYPE = T.struct([T.field("value", T.binary()), T.field("metadata", T.binary())])

_NULL = b"\x00"
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_EPOCH = datetime.datetime(1970, 1, 1)
_EPOCH_DAY = datetime.date(1970, 1, 1)


def _primitive(type_id, payload=b""):
    return bytes([type_id << 2]) + payload


def _sized(n):
    """Bytes needed for unsigned ``n`` (1 to 4)."""
    return 1 if n < 1 << 8 else 2 if n < 1 << 16 else 3 if n < 1 << 24 else 4


def _uint(n, size):
    return int(n).to_bytes(size, "little")


# --- metadata dictionary ------------------------------------------------------------------
def _dictionary(metadata):
    """Key name -> id of a variant metadata blob."""
    if not metadata:
        raise SchemaError("variant metadata is empty")
    header = metadata[0]
    if header & 0x0F != 1:
        raise SchemaError(f"variant metadata version {header & 0x0F} is not 1")
    size = ((header >> 6) & 0x03) + 1
    count = int.from_bytes(metadata[1:1 + size], "little")
    base = 1 + size
    offsets = [int.from_bytes(metadata[base + i * size:base + (i + 1) * size], "little")
               for i in range(count + 1)]
    start = base + (count + 1) * size
    if start + offsets[-1] > len(metadata):
        raise SchemaError("variant metadata is shorter than its dictionary")
    return {bytes(metadata[start + offsets[i]:start + offsets[i + 1]]).decode("utf-8"): i
            for i in range(count)}


# --- encoding ---------------------------------------------------------------------------------
def _object(fields):
    """An object value from (key id, key name, value bytes), any order."""
    fields = sorted(fields, key=lambda f: f[1].encode("utf-8"))
    n = len(fields)
    total = sum(len(f[2]) for f in fields)
    id_size = _sized(max((f[0] for f in fields), default=0))
    off_size = _sized(total)
    large = n > 255
    header = ((off_size - 1) | (id_size - 1) << 2 | large << 4) << 2 | 2
    out = [bytes([header]), _uint(n, 4 if large else 1)]
    out.extend(_uint(f[0], id_size) for f in fields)
    pos = 0
    for f in fields:
        out.append(_uint(pos, off_size))
        pos += len(f[2])
    out.append(_uint(pos, off_size))
    out.extend(f[2] for f in fields)
    return b"".join(out)


def _array(elements):
    n = len(elements)
    total = sum(len(e) for e in elements)
    off_size = _sized(total)
    large = n > 255
    header = ((off_size - 1) | large << 2) << 2 | 3
    out = [bytes([header]), _uint(n, 4 if large else 1)]
    pos = 0
    for e in elements:
        out.append(_uint(pos, off_size))
        pos += len(e)
    out.append(_uint(pos, off_size))
    out.extend(elements)
    return b"".join(out)


def _object_fields(value, where):
    """(key id, value bytes) of an encoded object value."""
    header = value[0]
    if header & 0x03 != 2:
        raise SchemaError(f"variant {where}: the value column of a shredded object holds "
                          "a non-object")
    h = header >> 2
    off_size, id_size, large = (h & 3) + 1, ((h >> 2) & 3) + 1, (h >> 4) & 1
    count_size = 4 if large else 1
    n = int.from_bytes(value[1:1 + count_size], "little")
    ids_at = 1 + count_size
    offs_at = ids_at + n * id_size
    data_at = offs_at + (n + 1) * off_size
    ids = [int.from_bytes(value[ids_at + i * id_size:ids_at + (i + 1) * id_size], "little")
           for i in range(n)]
    offs = [int.from_bytes(value[offs_at + i * off_size:offs_at + (i + 1) * off_size],
                           "little") for i in range(n + 1)]
    ends = sorted(set(offs))
    out = []
    for i in range(n):
        end = ends[ends.index(offs[i]) + 1]
        out.append((ids[i], bytes(value[data_at + offs[i]:data_at + end])))
    return out


def _decimal(value, t):
    unscaled = int(value.scaleb(t.scale).to_integral_value())
    width, type_id = (4, 8) if t.precision <= 9 else (8, 9) if t.precision <= 18 else (16, 10)
    return _primitive(type_id, bytes([t.scale]) + unscaled.to_bytes(width, "little",
                                                                    signed=True))


def _micros(value, t):
    if isinstance(value, datetime.datetime):
        delta = value - (_EPOCH_UTC if value.tzinfo is not None else _EPOCH)
        us = (delta.days * 86_400 + delta.seconds) * 10**6 + delta.microseconds
        return us * 1000 if t.unit == "ns" else us
    return int(value)


def _typed(value, t, names, where):
    """Variant bytes of the typed (shredded) Python ``value`` of pqkit type ``t``."""
    if isinstance(t, T.BooleanType):
        return _primitive(1 if value else 2)
    if isinstance(t, T.IntegerType):
        type_id = {8: 3, 16: 4, 32: 5, 64: 6}[t.bit_width]
        return _primitive(type_id, int(value).to_bytes(t.bit_width // 8, "little", signed=True))
    if isinstance(t, T.FloatingType):
        if t.bit_width == 32:
            return _primitive(14, struct.pack("<f", value))
        return _primitive(7, struct.pack("<d", value))
    if isinstance(t, T.DecimalType):
        return _decimal(decimal.Decimal(value), t)
    if isinstance(t, T.Date32Type):
        return _primitive(11, struct.pack("<i", (value - _EPOCH_DAY).days))
    if isinstance(t, T.TimestampType):
        type_id = (12 if t.tz is not None else 13) if t.unit != "ns" else \
            (18 if t.tz is not None else 19)
        return _primitive(type_id, struct.pack("<q", _micros(value, t)))
    if isinstance(t, T.UuidType):
        return _primitive(20, bytes(value.bytes if hasattr(value, "bytes") else value))
    if isinstance(t, (T.BinaryType, T.FixedSizeBinaryType)):     # BinaryType is a StringType
        raw = bytes(value)
        return _primitive(15, struct.pack("<I", len(raw)) + raw)
    if isinstance(t, T.StringType):
        raw = value.encode("utf-8")
        if len(raw) < 64:
            return bytes([len(raw) << 2 | 1]) + raw
        return _primitive(16, struct.pack("<I", len(raw)) + raw)
    if isinstance(t, T.Time64Type):
        us = ((value.hour * 60 + value.minute) * 60 + value.second) * 10**6 + value.microsecond
        return _primitive(17, struct.pack("<q", us))
    if isinstance(t, T.ListType):
        item = t.value_type
        return _array([_group(v, item, names, f"{where}[]", top=True) for v in value])
    if isinstance(t, T.StructType):
        fields = []
        for f in t.fields:
            encoded = _group(value.get(f.name), f.type, names, f"{where}.{f.name}", top=False)
            if encoded is not None:
                fields.append((_key_id(names, f.name, where), f.name, encoded))
        return fields
    raise SchemaError(f"variant {where}: cannot rebuild a shredded value of type {t}")


def _key_id(names, key, where):
    try:
        return names[key]
    except KeyError:
        raise SchemaError(f"variant {where}: shredded field {key!r} is not in the variant "
                          "metadata") from None


def _group(group, t, names, where, top):
    """Bytes of one shredded group (a dict with ``value`` / ``typed_value``); None for an
    absent object field."""
    if group is None:
        return _NULL if top else None
    value, typed = group.get("value"), group.get("typed_value")
    typed_t = next((f.type for f in t.fields if f.name == "typed_value"), None)
    if typed is None:
        if value is None:
            return _NULL if top else None
        return bytes(value)
    encoded = _typed(typed, typed_t, names, where)
    if isinstance(typed_t, T.StructType):
        fields = encoded
        if value is not None:
            inv = {i: k for k, i in names.items()}
            shredded = {f[1] for f in fields}
            for key_id, raw in _object_fields(value, where):
                key = inv.get(key_id)
                if key is None:
                    raise SchemaError(f"variant {where}: field id {key_id} is not in the "
                                      "variant metadata")
                if key in shredded:
                    raise SchemaError(f"variant {where}: field {key!r} is both shredded and "
                                      "in the value column")
                fields.append((key_id, key, raw))
        return _object(fields)
    if value is not None:
        raise SchemaError(f"variant {where}: both value and typed_value are set")
    return encoded


def unshred(col, where):
    """A variant group column -> a :data:`VARIANT_TYPE` column (value, metadata)."""
    names = col.type.names
    if "metadata" not in names:
        raise SchemaError(f"variant column {where} has no metadata field")
    metadata = col.field("metadata")
    valid = col.validity
    if "typed_value" not in names:
        value = col.field("value")
        if value.null_count == 0 or (valid is not None and
                                     not (value.validity is not None and
                                          (valid & ~value.validity).any())):
            return StructColumn(VARIANT_TYPE, [value, metadata], valid, len(col))
    rows = col.to_pylist()
    values = []
    for i, row in enumerate(rows):
        if row is None:
            values.append(None)
            continue
        names_map = _dictionary(row["metadata"])
        values.append(_group(row, col.type, names_map, f"{where} row {i}", top=True))
    return StructColumn(VARIANT_TYPE, [_binary(values), metadata], valid, len(col))


def _binary(values):
    lengths = np.array([0 if v is None else len(v) for v in values], np.int64)
    offsets = np.zeros(len(values) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    data = np.frombuffer(b"".join(v for v in values if v is not None), np.uint8)
    validity = np.array([v is not None for v in values], np.bool_)
    return BinaryColumn(T.binary(), offsets, data, None if validity.all() else validity)


def variant_values(col):
    """A variant column's rows as ``(value, metadata)`` byte pairs (None for null)."""
    value, metadata = col.field("value").to_pylist(), col.field("metadata").to_pylist()
    valid = col.validity
    return [None if (valid is not None and not valid[i]) else (value[i], metadata[i])
            for i in range(len(col))]
