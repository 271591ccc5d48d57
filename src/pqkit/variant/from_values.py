"""Python values -> Variant bytes: one ``(metadata, value)`` pair per value.

The metadata holds the value's object keys once each, sorted by their UTF-8
bytes (``sorted_strings`` set), with the smallest offset width; values use the
smallest headers :mod:`pqkit.variant.encode` writes. Python types map to Variant
types as :func:`encode_variant` lists; with ``types=True`` a primitive may also be
given as the ``(type_name, value)`` pair that ``decode(..., types=True)`` returns,
which keeps the exact type (``("int32", 5)``, ``("float", 1.5)``) through a round
trip.
"""
import datetime as dt
import math
import struct
import uuid
from decimal import Decimal

from pqkit.errors import SchemaError
from pqkit.variant import encode
from pqkit.variant.binary import MAX_DECIMAL_SCALE, MAX_DEPTH, PRIMITIVES

__all__ = ["Encoder", "encode_metadata", "encode_variant", "object_keys"]

_TYPE_IDS = {}
for _id, (_name, _) in PRIMITIVES.items():
    _TYPE_IDS.setdefault(_name, _id)        # "boolean": 1 (true); false is 2
_INT_RANGES = (("int8", 3, 1), ("int16", 4, 2), ("int32", 5, 4), ("int64", 6, 8))
_DECIMALS = (("decimal4", 8, 4, 9), ("decimal8", 9, 8, 18), ("decimal16", 10, 16, 38))
_EPOCH_DAY = dt.date(1970, 1, 1).toordinal()
_EPOCH = dt.datetime(1970, 1, 1)
_EPOCH_UTC = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_MICRO = dt.timedelta(microseconds=1)


def _bad(value, why):
    return SchemaError(f"cannot encode {type(value).__name__} {value!r:.80} as a variant: "
                       f"{why}")


def object_keys(value, types=False, out=None, depth=0):
    """Every object key in ``value`` (a set); raises SchemaError for a non-string key."""
    out = set() if out is None else out
    if depth > MAX_DEPTH:
        raise _bad(value, f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                raise _bad(k, "object keys must be str")
            out.add(k)
            object_keys(v, types, out, depth + 1)
    elif isinstance(value, list) or (isinstance(value, tuple) and not types):
        for v in value:
            object_keys(v, types, out, depth + 1)
    return out


def encode_metadata(names):
    """Metadata bytes for the sorted, unique ``names``, with the smallest offset width."""
    data = [n.encode("utf-8") for n in names]
    total = sum(len(d) for d in data)
    largest = max(total, len(data))
    width = next((w for w in (1, 2, 3, 4) if largest < 1 << (8 * w)), None)
    if width is None:
        raise SchemaError(f"variant metadata of {len(data)} names and {total} bytes does not "
                          f"fit 4-byte offsets")
    sorted_flag = 0x10 if names == sorted(set(names), key=lambda n: n.encode("utf-8")) else 0
    header = bytes((1 | sorted_flag | (width - 1) << 6,))
    offsets, at = [0], 0
    for d in data:
        at += len(d)
        offsets.append(at)
    return header + b"".join(x.to_bytes(width, "little")
                             for x in [len(data)] + offsets) + b"".join(data)


def encode_variant(value, types=False):
    """``(metadata, value)`` bytes of one Python value.

    None -> null, bool -> boolean, int -> the smallest of int8..int64 (beyond int64:
    decimal16 with scale 0), float -> double, numpy float32 -> float,
    :class:`~decimal.Decimal` -> decimal4/8/16 by its precision, str -> string, bytes ->
    binary, date -> date, time -> time, naive datetime -> timestamp_ntz, aware datetime
    -> timestamp (UTC), a pandas Timestamp -> the nanosecond timestamps, UUID -> uuid,
    dict -> object, list (and tuple, unless ``types``) -> array.

    Raises
    ------
    pqkit.SchemaError
        A value has no Variant type, or does not fit the one its pair names.
    """
    names = sorted(object_keys(value, types), key=lambda n: n.encode("utf-8"))
    ids = {n: i for i, n in enumerate(names)}
    return encode_metadata(names), Encoder(ids, types).value(value, 0)


class Encoder:
    """Encodes values against one metadata dictionary (``ids``: name -> field id);
    ``types`` as in :func:`encode_variant`."""

    __slots__ = ("ids", "types")

    def __init__(self, ids, types):
        self.ids, self.types = ids, types

    def value(self, v, depth):
        if isinstance(v, dict):
            return encode.encode_object([(k, self.ids[k], self.value(x, depth + 1))
                                         for k, x in v.items()])
        if isinstance(v, tuple) and self.types:
            if len(v) != 2 or not isinstance(v[0], str):
                raise _bad(v, "a typed primitive is a (type name, value) pair")
            return typed_primitive(v[0], v[1])
        if isinstance(v, (list, tuple)):
            return encode.encode_array([self.value(x, depth + 1) for x in v])
        return primitive(v)


def primitive(v):
    """The encoded bytes of a Python scalar, its Variant type chosen from its Python type."""
    if v is None:
        return encode.NULL
    if isinstance(v, bool) or type(v).__name__ == "bool_":
        return encode.primitive(1 if v else 2)
    if isinstance(v, str):
        return encode.string(v.encode("utf-8"))
    if isinstance(v, (bytes, bytearray, memoryview)):
        return encode.binary(bytes(v))
    if isinstance(v, float) or type(v).__name__ in ("float64", "float16"):
        return encode.primitive(7, struct.pack("<d", float(v)))
    if type(v).__name__ == "float32":
        return encode.primitive(14, struct.pack("<f", float(v)))
    if hasattr(v, "__index__") and not isinstance(v, Decimal):
        n = v.__index__()
        for name, _, width in _INT_RANGES:
            if -(1 << (8 * width - 1)) <= n < 1 << (8 * width - 1):
                return typed_primitive(name, n)
        return typed_primitive("decimal16", Decimal(n))
    if isinstance(v, Decimal):
        return _decimal(None, v)
    if isinstance(v, uuid.UUID):
        return typed_primitive("uuid", v)
    if hasattr(v, "nanosecond") and isinstance(v, dt.datetime):    # pandas.Timestamp
        return typed_primitive("timestamp_nanos" if v.tzinfo is not None
                               else "timestamp_ntz_nanos", v)
    if isinstance(v, dt.datetime):
        return typed_primitive("timestamp" if v.tzinfo is not None else "timestamp_ntz", v)
    if isinstance(v, dt.date):
        return typed_primitive("date", v)
    if isinstance(v, dt.time):
        return typed_primitive("time", v)
    raise _bad(v, "no Variant type holds it")


def _int_payload(name, n, width):
    try:
        return n.to_bytes(width, "little", signed=True)
    except OverflowError:
        raise _bad(n, f"out of the range of {name}") from None


def _decimal(name, v):
    """A decimal as ``name`` (None: the smallest width its precision allows)."""
    if not v.is_finite():
        raise _bad(v, "not a finite decimal")
    sign, digits, exponent = v.as_tuple()
    unscaled = int("".join(map(str, digits)) or "0")
    scale = max(0, -exponent)
    if exponent > 0:
        unscaled *= 10 ** exponent
    if sign:
        unscaled = -unscaled
    precision = len(str(abs(unscaled)))
    if scale > MAX_DECIMAL_SCALE:
        raise _bad(v, f"scale {scale} is above {MAX_DECIMAL_SCALE}")
    for dec_name, type_id, width, max_precision in _DECIMALS:
        if name not in (None, dec_name):
            continue
        if precision <= max_precision:
            return encode.primitive(type_id, bytes((scale,)) +
                                    unscaled.to_bytes(width, "little", signed=True))
        if name is not None:
            break
    raise _bad(v, f"precision {precision} does not fit {name or 'a variant decimal'}")


def _ticks(v, name):
    """A datetime as the integer a timestamp type ``name`` stores (micros or nanos)."""
    if not isinstance(v, dt.datetime):
        raise _bad(v, f"{name} needs a datetime")
    aware, naive_type = v.tzinfo is not None, "ntz" in name
    if aware == naive_type:
        raise _bad(v, f"{name} needs a{' naive' if naive_type else 'n aware'} datetime")
    nanos = name.endswith("nanos")
    if hasattr(v, "nanosecond") and hasattr(v, "value"):    # pandas.Timestamp: ns, UTC
        if not nanos and v.value % 1000:
            raise _bad(v, f"{name} holds microseconds; the value has nanoseconds")
        return v.value if nanos else v.value // 1000
    micros = (v - (_EPOCH_UTC if aware else _EPOCH)) // _MICRO
    return micros * 1000 if nanos else micros


def typed_primitive(name, v):
    """The encoded bytes of ``v`` as the Variant primitive type ``name``."""
    if name not in _TYPE_IDS:
        raise _bad(v, f"{name!r} is not a Variant primitive type (one of "
                      f"{', '.join(sorted(_TYPE_IDS))})")
    type_id = _TYPE_IDS[name]
    if name == "null":
        return encode.NULL
    if name == "boolean":
        return encode.primitive(1 if v else 2)
    for int_name, int_id, width in _INT_RANGES:
        if name == int_name:
            if not hasattr(v, "__index__") or isinstance(v, bool):
                raise _bad(v, f"{name} needs an int")
            return encode.primitive(int_id, _int_payload(name, v.__index__(), width))
    if name in ("double", "float"):
        f = float(v)
        if name == "float" and math.isfinite(f) and abs(f) > 3.4028234663852886e38:
            raise _bad(v, "out of the range of float")
        return encode.primitive(type_id, struct.pack("<d" if name == "double" else "<f", f))
    if name.startswith("decimal"):
        return _decimal(name, v if isinstance(v, Decimal) else Decimal(v))
    if name == "string":
        if not isinstance(v, str):
            raise _bad(v, "string needs a str")
        return encode.string(v.encode("utf-8"))
    if name == "binary":
        return encode.binary(bytes(v))
    if name == "uuid":
        if not isinstance(v, uuid.UUID):
            raise _bad(v, "uuid needs a uuid.UUID")
        return encode.primitive(type_id, v.bytes)
    if name == "date":
        if not isinstance(v, dt.date) or isinstance(v, dt.datetime):
            raise _bad(v, "date needs a datetime.date")
        return encode.primitive(type_id, _int_payload(name, v.toordinal() - _EPOCH_DAY, 4))
    if name == "time":
        if not isinstance(v, dt.time):
            raise _bad(v, "time needs a datetime.time")
        micros = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000 + v.microsecond
        return encode.primitive(type_id, micros.to_bytes(8, "little", signed=True))
    return encode.primitive(type_id, _int_payload(name, _ticks(v, name), 8))
