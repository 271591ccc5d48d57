"""Python values -> columns of the non-nested types (numbers, text, decimals, time).

Each builder takes the list (None is null), the classes of its non-None values and
the target type, checks every value's kind with one pass over the classes, and packs
the values with C-level passes (``np.fromiter``, ``map``, ``"".join``). Strings are
encoded once, joined: ``["ab", None, "é"]`` is ``"abé".encode("utf-8")`` with offsets
``[0, 2, 2, 4]``; for non-ASCII text the offsets come from the UTF-8 width of each code
point, counted on the UTF-32 form of the same join.
"""
import datetime as _dt
import decimal
import struct as _struct_mod

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, NullColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.convert.common import (
    INT64_MAX,
    BadValue,
    allow_kinds,
    fill_nulls,
    first_index,
    kind_of,
    offsets_of,
    utf8_ends,
    validity_of,
)

_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_DATE = _EPOCH.date()
_EPOCH_ORDINAL = _EPOCH.toordinal()
_US = _dt.timedelta(microseconds=1)


def _null(values, classes, t):
    if classes:
        row = first_index(values, lambda v: v is not None)
        raise BadValue(row, values[row], t, "a null column holds only None")
    return NullColumn(len(values))


def _bool(values, classes, t):
    allow_kinds(values, classes, t, {"bool"}, "a bool")
    _, validity = validity_of(values)
    return PrimitiveColumn(t, np.fromiter(fill_nulls(values, False), np.bool_, len(values)),
                           validity)


def _int(values, classes, t):
    kinds = allow_kinds(values, classes, t, {"int", "float"}, "an int")
    _, validity = validity_of(values)
    filled = fill_nulls(values, 0)
    if "float" in kinds:
        for i, v in enumerate(filled):
            if kind_of(type(v)) == "float":
                if not float(v).is_integer():
                    raise BadValue(i, v, t, "not a whole number")
                filled[i] = int(v)
    info = np.iinfo(t.numpy_dtype)
    if filled and (min(filled) < info.min or max(filled) > info.max):
        row = first_index(filled, lambda v: not info.min <= v <= info.max)
        raise BadValue(row, values[row], t, f"outside {info.min}..{info.max}")
    return PrimitiveColumn(t, np.fromiter(filled, t.numpy_dtype, len(filled)), validity)


def _float(values, classes, t):
    allow_kinds(values, classes, t, {"float", "int", "bool"}, "a float")
    _, validity = validity_of(values)
    filled = fill_nulls(values, 0.0)
    try:
        data = np.fromiter(filled, t.numpy_dtype, len(filled))
    except OverflowError:
        row = first_index(filled, lambda v: kind_of(type(v)) == "int" and abs(v) > 2**1023)
        raise BadValue(row, values[row], t, "too large for a float") from None
    return PrimitiveColumn(t, data, validity)


def _utf8(strings, t):
    """(offsets, data) of str values, from one join and one encode."""
    joined = "".join(strings)
    try:
        data = joined.encode("utf-8")
    except UnicodeEncodeError:
        row = first_index(strings, lambda s: not _encodes(s))
        raise BadValue(row, strings[row], t, "not encodable as UTF-8 (a lone surrogate)") from None
    ends = np.cumsum(np.fromiter(map(len, strings), np.int64, len(strings)))
    if len(data) != len(joined):           # not ASCII: count UTF-8 bytes per code point
        ends = utf8_ends(np.frombuffer(joined.encode("utf-32-le"), np.uint32))[ends]
    offsets = np.zeros(len(strings) + 1, np.int64)
    offsets[1:] = ends
    return offsets, np.frombuffer(data, np.uint8)


def _encodes(s):
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _string(values, classes, t):
    kinds = allow_kinds(values, classes, t, {"str", "bytes"}, "a str")
    _, validity = validity_of(values)
    if "bytes" in kinds:                   # pyarrow takes UTF-8 bytes for strings too
        values = list(values)
        for i, v in enumerate(values):
            if v is not None and kind_of(type(v)) == "bytes":
                try:
                    values[i] = bytes(v).decode("utf-8")
                except UnicodeDecodeError:
                    raise BadValue(i, v, t, "not valid UTF-8") from None
    return BinaryColumn(t, *_utf8(fill_nulls(values, ""), t), validity)


def _as_bytes(values, classes, t, kinds, what):
    """Values as bytes objects (str as UTF-8, UUID as its 16 bytes); None stays None."""
    found = allow_kinds(values, classes, t, kinds, what)
    if found <= {"bytes"} and memoryview not in classes:
        return values
    out = list(values)
    for i, v in enumerate(out):
        k = None if v is None else kind_of(type(v))
        try:
            if k == "str":
                out[i] = v.encode("utf-8")
            elif k == "uuid":
                out[i] = v.bytes
            elif k == "list":              # interval as (months, days, milliseconds)
                out[i] = _struct_mod.pack("<III", *v)
            elif k == "bytes":
                out[i] = bytes(v)
        except (UnicodeEncodeError, _struct_mod.error, TypeError) as exc:
            raise BadValue(i, v, t, str(exc)) from None
    return out


def _binary(values, classes, t):
    items = fill_nulls(_as_bytes(values, classes, t, {"bytes", "str"}, "bytes"), b"")
    _, validity = validity_of(values)
    lengths = np.fromiter(map(len, items), np.int64, len(items))
    return BinaryColumn(t, offsets_of(lengths), b"".join(items), validity)


def _fixed(values, classes, t):
    width = t.byte_width if isinstance(t, T.FixedSizeBinaryType) else t.storage_type.byte_width
    kinds = {"bytes", "str"} | ({"uuid"} if isinstance(t, T.UuidType) else set()) | \
        ({"list"} if isinstance(t, T.IntervalType) else set())
    items = fill_nulls(_as_bytes(values, classes, t, kinds, "bytes"), bytes(width))
    _, validity = validity_of(values)
    lengths = np.fromiter(map(len, items), np.int64, len(items))
    if (lengths != width).any():
        row = int(np.argmax(lengths != width))
        raise BadValue(row, values[row], t, f"{lengths[row]} bytes, expected {width}")
    data = np.frombuffer(b"".join(items), np.uint8).reshape(len(items), width)
    return FixedSizeBinaryColumn(t, data, validity)


# Scaling must never round: 100 digits hold any decimal256 value, and a value with more
# significant digits than that raises Inexact instead of being rounded.
_EXACT = decimal.Context(prec=100, Emin=-10**9, Emax=10**9, traps=[decimal.Inexact])


def _unscaled(v, t):
    """The unscaled integer of ``v`` at ``t``'s scale, or a reason it does not fit."""
    too_many = f"more than {t.precision} digits with scale {t.scale}"
    if not isinstance(v, decimal.Decimal):
        u = int(v) * 10**t.scale if t.scale >= 0 else int(v)
        if t.scale < 0 and u % 10**-t.scale:
            return None, f"not a multiple of 10**{-t.scale}"
        u = u if t.scale >= 0 else u // 10**-t.scale
    elif not v.is_finite():
        return None, "a decimal column cannot hold NaN or infinity"
    elif v and v.adjusted() >= t.precision - t.scale:       # before int(): v may be 1E+999999
        return None, too_many
    else:
        try:
            q = _EXACT.scaleb(v, t.scale)
        except decimal.Inexact:
            return None, f"more than {t.scale} fractional digits"
        u = int(q)
        if u != q:
            return None, f"more than {t.scale} fractional digits"
    if not -10**t.precision < u < 10**t.precision:
        return None, too_many
    return u, None


def _decimal(values, classes, t):
    allow_kinds(values, classes, t, {"decimal", "int"}, "a Decimal or an int")
    _, validity = validity_of(values)
    unscaled = []
    for i, v in enumerate(values):
        if v is None:
            unscaled.append(0)
            continue
        u, why = _unscaled(v, t)
        if why:
            raise BadValue(i, v, t, why)
        unscaled.append(u)
    if t.precision <= 18:
        return DecimalColumn(t, np.array(unscaled, np.int64), validity)
    width = t.bit_width // 8
    data = b"".join(u.to_bytes(width, "big", signed=True) for u in unscaled)
    return DecimalColumn(t, np.frombuffer(data, np.uint8).reshape(len(unscaled), width),
                         validity)


def _from_micros(micros, values, t, nanos=None):
    """Microsecond counts in ``t.unit`` (s and ms round down, as the value's second lies)."""
    unit = t.unit
    if unit in ("s", "ms"):
        return np.floor_divide(micros, 10**6 // (1 if unit == "s" else 1000))
    if unit == "ns":
        limit = INT64_MAX // 1000
        bad = (micros > limit) | (micros < -limit)
        if bad.any():
            row = int(np.argmax(bad))
            raise BadValue(row, values[row], t, "outside the nanosecond range (years 1677-2262)")
        return micros * 1000 + (0 if nanos is None else nanos)
    return micros


def _nanos(values, classes, attr):
    """pandas' sub-microsecond part of Timestamp/Timedelta values, or None."""
    if not any(hasattr(c, attr) for c in classes):
        return None
    return np.fromiter((getattr(v, attr, 0) or 0 for v in values), np.int64, len(values))


def _datetime_counts(values, classes, t):
    naive = []
    for i, v in enumerate(values):
        if v is None:
            v = _EPOCH
        elif v.tzinfo is not None and v.utcoffset() is not None:
            try:
                v = (v - v.utcoffset()).replace(tzinfo=None)
            except OverflowError:
                raise BadValue(i, v, t, "outside the datetime range in UTC") from None
        naive.append(v)
    micros = np.fromiter(map(_US.__rfloordiv__, map(_EPOCH.__rsub__, naive)), np.int64,
                         len(naive))
    return _from_micros(micros, values, t, _nanos(values, classes, "nanosecond"))


def _date_counts(values, classes, t):
    days = np.fromiter(map(_dt.date.toordinal, fill_nulls(values, _EPOCH_DATE)), np.int64,
                       len(values)) - _EPOCH_ORDINAL
    return days * 86_400_000 if isinstance(t, T.Date64Type) else days


def _time_counts(values, classes, t):
    micros = np.fromiter((((v.hour * 60 + v.minute) * 60 + v.second) * 10**6 + v.microsecond
                          for v in fill_nulls(values, _dt.time())), np.int64, len(values))
    return _from_micros(micros, values, t)


def _duration_counts(values, classes, t):
    try:
        micros = np.fromiter(map(_US.__rfloordiv__, fill_nulls(values, _dt.timedelta())),
                             np.int64, len(values))
    except OverflowError:                  # timedelta reaches 999999999 days, int64 us does not
        row = first_index(values, lambda v: v is not None and not -2**63 <= v // _US <= INT64_MAX)
        raise BadValue(row, values[row], t, "outside the int64 range of microseconds") from None
    return _from_micros(micros, values, t, _nanos(values, classes, "nanoseconds"))


_TEMPORAL = {T.TimestampType: ("datetime", _datetime_counts), T.Date32Type: ("date", _date_counts),
             T.Date64Type: ("date", _date_counts), T.Time32Type: ("time", _time_counts),
             T.Time64Type: ("time", _time_counts),
             T.DurationType: ("timedelta", _duration_counts)}


def _temporal(values, classes, t):
    kind, counts = _TEMPORAL[type(t)]
    found = allow_kinds(values, classes, t, {kind, "int"}, f"a {kind}")
    _, validity = validity_of(values)
    raw = {}
    if "int" in found:                     # ints are counts of the type's unit, as in pyarrow
        raw = {i: v for i, v in enumerate(values) if v is not None and kind_of(type(v)) == "int"}
        values = [None if i in raw else v for i, v in enumerate(values)]
        classes = {c for c in classes if kind_of(c) != "int"}
    out = counts(values, classes, t)
    info = np.iinfo(t.numpy_dtype)
    for i, v in raw.items():
        if not info.min <= v <= info.max:
            raise BadValue(i, v, t, f"outside {info.min}..{info.max}")
        out[i] = v
    if t.numpy_dtype != np.int64:
        bad = (out < info.min) | (out > info.max)
        if bad.any():
            row = int(np.argmax(bad))
            raise BadValue(row, values[row], t, f"outside the range of {t}")
    return PrimitiveColumn(t, out.astype(t.numpy_dtype), validity)


def _month_day_nano(values, classes, t):
    allow_kinds(values, classes, t, {"mdn", "list"}, "a (months, days, nanoseconds) tuple")
    _, validity = validity_of(values)
    for i, v in enumerate(values):
        if v is not None and (len(v) != 3 or any(kind_of(type(x)) != "int" for x in v)):
            raise BadValue(i, v, t, "expected three ints (months, days, nanoseconds)")
    try:
        data = np.array([tuple(v) for v in fill_nulls(values, (0, 0, 0))], t.numpy_dtype)
    except OverflowError:
        row = first_index(values, lambda v: v is not None and not (
            all(-2**31 <= x < 2**31 for x in v[:2]) and -2**63 <= v[2] <= INT64_MAX))
        raise BadValue(row, values[row], t, "outside int32 months/days or int64 nanoseconds") \
            from None
    return PrimitiveColumn(t, data, validity)


# Builder of each non-nested type: ``builder(values, classes, t)`` with ``classes`` from
# value_classes(values).
FLAT_BUILDERS = {T.NullType: _null, T.BooleanType: _bool, T.IntegerType: _int,
                 T.FloatingType: _float, T.StringType: _string, T.BinaryType: _binary,
                 T.FixedSizeBinaryType: _fixed, T.UuidType: _fixed, T.IntervalType: _fixed,
                 T.DecimalType: _decimal, T.MonthDayNanoIntervalType: _month_day_nano,
                 **{cls: _temporal for cls in _TEMPORAL}}
