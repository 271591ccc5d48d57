"""Python, numpy and pandas data -> pqkit columns and tables (the writer's input side).

The reader ends with columns in Arrow layout (:mod:`pqkit.columns`); the writer
starts from them. This module builds them from what users hold:

* a numpy array becomes a column without a Python loop, and shares its memory
  when its dtype already is the column's storage (``np.arange(3)`` is the value
  buffer of an int64 column as is);
* a Python list is checked with C-level passes (``set(map(type, values))``,
  ``map``, ``np.fromiter``, ``"".join``) and packed into numpy buffers;
* a pandas Series uses its numpy or masked buffers, and pandas' missing values
  (NaN, NaT, NA, None) become nulls, as in ``pyarrow.Table.from_pandas``.

For example ``column_from_values(["ab", None, "é"])`` infers ``string`` and
builds, from one ``"".join(...).encode("utf-8")``::

    offsets  = [0, 2, 2, 4]          int64; "é" is two UTF-8 bytes
    data     = b"ab\\xc3\\xa9"
    validity = [True, False, True]

Types inferred from Python values (None does not vote), pyarrow's rules:

===============================  ====================================================
values                           type
===============================  ====================================================
bool                             bool
int                              int64; uint64 if one is > 2**63 - 1 and none < 0
float, or ints and floats        double
str / bytes, bytearray / both    string / binary / binary (str encoded as UTF-8)
decimal.Decimal (and ints)       decimal(p, s), the smallest holding every value
datetime.datetime                timestamp[us]; the first value's zone as "UTC",
                                 "+05:30" or the zone's key; aware values stored UTC
datetime.date / time             date32 / time64[us]
datetime.timedelta               duration[us]
uuid.UUID / MonthDayNano         uuid / month_day_nano_interval
list, tuple, numpy array         list<the type inferred from all the elements>
dict                             struct<the union of the keys, in first-seen order>
numpy scalars only               the type of their numpy dtype (below)
None only, or nothing            null
===============================  ====================================================

numpy dtypes map directly: bool, int*, uint*, float16/32/64; ``datetime64[s|ms|us|ns]``
-> timestamp (``[D]``, and ``[W|M|Y]``, -> date32; ``[h|m]`` -> timestamp[s]);
``timedelta64[unit]`` -> duration (``[D|W|h|m]`` -> duration[s]); ``U`` -> string;
``S`` -> binary; object -> the values' inference. NaT is null. 2-D arrays are lists
of rows. pandas: masked ``Int*``/``UInt*``/``Float*``/``boolean`` keep their
mask, string dtypes -> string, ``Categorical`` -> dictionary<int32, categories'
type>, ``datetime64[unit, tz]`` -> timestamp(unit, tz).

Deliberate differences from pyarrow: bool mixed with numbers is refused (pyarrow
takes ``[1.5, True]`` but not ``[1, True]``); dates mixed with datetimes, and
datetimes given to a date type, are refused (pyarrow drops the time of day);
ints too large for int64 mixed with floats make doubles (pyarrow refuses); a
float with a fraction given to an integer type is refused (pyarrow truncates
it); numpy ``S`` values keep inner NUL bytes (pyarrow cuts at the first NUL);
dict keys that are not fields of an explicit struct type, and data columns not
in the schema, raise (pyarrow drops them); non-nullable fields are enforced;
Categorical indices are int32 (pyarrow keeps pandas' code width).

A value that does not fit raises :class:`~pqkit.errors.SchemaError` naming the
value, its row and where it sits inside the row:
``value 'x' at row 3 [1]['a'] does not fit int64: expected an int, got str``.
"""
import datetime as _dt
import decimal
import operator
import struct as _struct_mod
import sys
import uuid as _uuid
from collections.abc import Mapping
from itertools import chain, repeat

import numpy as np

from . import datatypes as T
from ._native.dictenc import dictionary_encode
from .columns import (BinaryColumn, Column, DecimalColumn, FixedSizeBinaryColumn, NullColumn,
                      PrimitiveColumn, gather_ranges, nulls)
from .errors import SchemaError
from .nested_columns import (DictionaryColumn, FixedSizeListColumn, ListColumn, MapColumn,
                             StructColumn)
from .table import Table

_NONE = type(None)
_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_DATE = _EPOCH.date()
_EPOCH_ORDINAL = _EPOCH.toordinal()
_US = _dt.timedelta(microseconds=1)
_NAT = np.iinfo(np.int64).min
_INT64_MAX = 2**63 - 1
_PER_DAY = {"D": 1, "s": 86_400, "ms": 86_400_000, "us": 86_400 * 10**6, "ns": 86_400 * 10**9}
_MDN = T.month_day_nano_interval()


# --- errors -------------------------------------------------------------------------------
class _Bad(Exception):
    """A value that does not fit, at ``row`` of the list being converted. Nested
    builders re-raise it at their own row, prepending the step into the child."""

    def __init__(self, row, value, type_, reason, path=""):
        super().__init__(reason)
        self.row, self.value, self.type, self.reason, self.path = row, value, type_, reason, path

    def at(self, row, step):
        return _Bad(row, self.value, self.type, self.reason, step + self.path)

    def error(self):
        shown = repr(self.value)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        where = f"row {self.row}" + (f" {self.path}" if self.path else "")
        fit = "" if self.type is None else f" does not fit {self.type}"
        return SchemaError(f"value {shown} at {where}{fit}: {self.reason}")


def _in_lists(err, offsets, suffix=""):
    """``err`` at a child position, re-raised at the list row that holds it."""
    row = int(np.searchsorted(offsets, err.row, "right")) - 1
    return err.at(row, f"[{err.row - int(offsets[row])}]{suffix}")


def _first(values, pred):
    return next(i for i, v in enumerate(values) if pred(v))


# --- value kinds ----------------------------------------------------------------------------
_KIND_ORDER = [("bool", (bool, np.bool_)), ("int", (int, np.integer)),
               ("float", (float, np.floating)), ("str", str),
               ("bytes", (bytes, bytearray, memoryview)), ("decimal", decimal.Decimal),
               ("datetime", _dt.datetime), ("date", _dt.date), ("time", _dt.time),
               ("timedelta", _dt.timedelta), ("uuid", _uuid.UUID), ("mdn", T.MonthDayNano),
               ("list", (list, tuple, np.ndarray)), ("dict", Mapping)]
_KINDS = {}


def _kind(cls):
    """The kind of value a class holds ("int", "str", ... "na" for pandas' NA/NaT, "?")."""
    k = _KINDS.get(cls)
    if k is None:
        if cls.__module__.startswith("pandas") and cls.__name__ in ("NAType", "NaTType"):
            k = "na"                      # pyarrow reads pandas' missing markers as null
        else:
            k = next((name for name, bases in _KIND_ORDER if issubclass(cls, bases)), "?")
        _KINDS[cls] = k
    return k


def _classes(values):
    """(values with pandas NA/NaT as None, the set of classes of the non-None values)."""
    classes = set(map(type, values))
    classes.discard(_NONE)
    na = {c for c in classes if _kind(c) == "na"}
    if na:
        values = [None if type(v) in na else v for v in values]
        classes -= na
    return values, classes


def _numpy_only(classes):
    """True when every value is a numpy scalar of one kind (numbers may mix)."""
    if not classes or not all(issubclass(c, np.generic) for c in classes):
        return False
    kinds = {np.dtype(c).kind for c in classes}
    return len(kinds) == 1 or kinds <= set("iuf")


def _allow(values, classes, t, kinds, what):
    """The kinds of ``classes``; _Bad at the first value of a kind not in ``kinds``."""
    bad = {c for c in classes if _kind(c) not in kinds}
    if bad:
        row = _first(values, lambda v: type(v) in bad)
        raise _Bad(row, values[row], t, f"expected {what}, got {type(values[row]).__name__}")
    return {_kind(c) for c in classes}


def _validity(values):
    """(bool mask of non-None values, the same or None when nothing is null)."""
    n = len(values)
    valid = np.fromiter(map(operator.is_not, values, repeat(None, n)), np.bool_, n)
    return valid, (None if valid.all() else valid)


def _filled(values, fill):
    return [fill if v is None else v for v in values]


def _offsets(lengths):
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def _valid(*masks):
    """AND of the masks given (None = all valid); None when nothing is null."""
    out = None
    for m in masks:
        if m is not None:
            out = m if out is None else out & m
    return None if out is None or out.all() else out


# --- inference ------------------------------------------------------------------------------
def infer_type(values):
    """The pqkit type of a sequence of Python values (None is null), as in the module table.

    Raises
    ------
    SchemaError
        Values of kinds that do not share a type, or of a class with no type.
    """
    try:
        return _infer(values if isinstance(values, list) else list(values))
    except _Bad as err:
        raise err.error() from None


_MIXED = {frozenset({"int", "float"}): "float", frozenset({"str", "bytes"}): "bytes",
          frozenset({"int", "decimal"}): "decimal"}


def _infer(values):
    values, classes = _classes(values)
    if not classes:
        return T.null()
    if _numpy_only(classes):
        return _numpy_scalars(values).type
    kinds = {_kind(c) for c in classes}
    if "?" in kinds:
        row = _first(values, lambda v: v is not None and _kind(type(v)) == "?")
        raise _Bad(row, values[row], None,
                   f"cannot infer a column type for {type(values[row]).__name__} values")
    kind = kinds.pop() if len(kinds) == 1 else _MIXED.get(frozenset(kinds))
    if kind is None:
        first = _first(values, lambda v: v is not None)
        k0 = _kind(type(values[first]))
        row = _first(values, lambda v: v is not None and _kind(type(v)) != k0 and
                     frozenset({k0, _kind(type(v))}) not in _MIXED)
        raise _Bad(row, values[row], None, f"mixed value types in one column: "
                   f"{type(values[row]).__name__} after {type(values[first]).__name__}")
    return _INFER[kind](values)


def _infer_int(values):
    present = [v for v in values if v is not None]
    lo, hi = min(present), max(present)
    if lo >= -2**63 and hi <= _INT64_MAX:
        return T.int64()
    if lo >= 0 and hi < 2**64:
        return T.uint64()
    row = next((i for i, v in enumerate(values)
                if v is not None and not -2**63 <= v < 2**64), None)
    if row is not None:
        raise _Bad(row, values[row], None, "an int beyond both int64 and uint64")
    row = _first(values, lambda v: v is not None and v > _INT64_MAX)
    raise _Bad(row, values[row], None, "needs uint64, but the column also holds negative ints")


def _decimal_shape(v):
    """(precision, scale) of one value, by Arrow's rule (leading and trailing zeros count)."""
    if not isinstance(v, decimal.Decimal):
        return len(str(abs(int(v)))), 0
    _, digits, exp = v.as_tuple()
    if exp < 0:
        return max(len(digits), -exp), -exp
    return len(digits) + exp, 0


def _infer_decimal(values):
    integral = scale = 0
    rows = [0, 0]
    for i, v in enumerate(values):
        if v is None:
            continue
        if isinstance(v, decimal.Decimal) and not v.is_finite():
            raise _Bad(i, v, None, "a decimal column cannot hold NaN or infinity")
        p, s = _decimal_shape(v)
        if p - s > integral:
            integral, rows[0] = p - s, i
        if s > scale:
            scale, rows[1] = s, i
    precision = max(integral + scale, 1)
    if precision > 76:
        row = rows[0] if integral >= scale else rows[1]
        raise _Bad(row, values[row], None, f"the values need decimal precision {precision} "
                   f"({integral} integral + {scale} fractional digits), more than 76")
    return T.decimal(precision, scale)


def _infer_datetime(values):
    first = values[_first(values, lambda v: v is not None)]
    aware = first.tzinfo is not None and first.utcoffset() is not None
    return T.timestamp("us", _tz_name(first.tzinfo) if aware else None)


def _infer_list(values):
    filled = _filled(values, ())
    offsets = _offsets(np.fromiter(map(len, filled), np.int64, len(filled)))
    try:
        return T.list_(_infer(list(chain.from_iterable(filled))))
    except _Bad as err:
        raise _in_lists(err, offsets) from None


def _infer_struct(values):
    keys = dict.fromkeys(chain.from_iterable(v for v in values if v is not None))
    fields = []
    for k in keys:
        if not isinstance(k, str):
            row = _first(values, lambda v: v is not None and k in v)
            raise _Bad(row, values[row], None, f"struct field names must be str, not {k!r}")
        try:
            fields.append((k, _infer([None if v is None else v.get(k) for v in values])))
        except _Bad as err:
            raise err.at(err.row, f"[{k!r}]") from None
    return T.struct(fields)


_INFER = {"bool": lambda v: T.bool_(), "int": _infer_int, "float": lambda v: T.float64(),
          "str": lambda v: T.string(), "bytes": lambda v: T.binary(),
          "decimal": _infer_decimal, "datetime": _infer_datetime,
          "date": lambda v: T.date32(), "time": lambda v: T.time64("us"),
          "timedelta": lambda v: T.duration("us"), "uuid": lambda v: T.uuid(),
          "mdn": lambda v: _MDN, "list": _infer_list, "dict": _infer_struct}


def _tz_name(tz):
    """The timestamp ``tz`` string for a tzinfo: its zone key, "UTC" or "+HH:MM"."""
    key = getattr(tz, "key", None) or getattr(tz, "zone", None)       # zoneinfo, pytz
    if isinstance(key, str):
        return key
    off = tz.utcoffset(None)
    if off is None:
        raise SchemaError(f"time zone {tz!r} has neither a zone name nor a fixed offset")
    if not off:
        return "UTC"
    minutes = abs(int(off.total_seconds())) // 60
    return f"{'-' if off < _dt.timedelta(0) else '+'}{minutes // 60:02d}:{minutes % 60:02d}"


# --- Python values -> columns ---------------------------------------------------------------
def _build(values, t):
    """A column of type ``t`` from a list of Python values (None is null); raises _Bad."""
    values, classes = _classes(values)
    if not t.fields and _numpy_only(classes):
        return _cast(_numpy_scalars(values), t)
    if isinstance(t, T.DictionaryType):
        return _dictionary_encode(_build(values, t.value_type), t)
    builder = _BUILDERS.get(type(t))
    if builder is None:
        raise SchemaError(f"cannot build a column of type {t}")
    return builder(values, classes, t)


def _numpy_scalars(values):
    """The numpy path for a list of numpy scalars (and None)."""
    valid, validity = _validity(values)
    present = np.array([v for v in values if v is not None])
    full = np.zeros(len(values), present.dtype)
    full[valid] = present
    return _numpy_column(full, validity)


def _null(values, classes, t):
    if classes:
        row = _first(values, lambda v: v is not None)
        raise _Bad(row, values[row], t, "a null column holds only None")
    return NullColumn(len(values))


def _bool(values, classes, t):
    _allow(values, classes, t, {"bool"}, "a bool")
    _, validity = _validity(values)
    return PrimitiveColumn(t, np.fromiter(_filled(values, False), np.bool_, len(values)),
                           validity)


def _int(values, classes, t):
    kinds = _allow(values, classes, t, {"int", "float"}, "an int")
    _, validity = _validity(values)
    filled = _filled(values, 0)
    if "float" in kinds:
        for i, v in enumerate(filled):
            if _kind(type(v)) == "float":
                if not float(v).is_integer():
                    raise _Bad(i, v, t, "not a whole number")
                filled[i] = int(v)
    info = np.iinfo(t.numpy_dtype)
    if filled and (min(filled) < info.min or max(filled) > info.max):
        row = _first(filled, lambda v: not info.min <= v <= info.max)
        raise _Bad(row, values[row], t, f"outside {info.min}..{info.max}")
    return PrimitiveColumn(t, np.fromiter(filled, t.numpy_dtype, len(filled)), validity)


def _float(values, classes, t):
    _allow(values, classes, t, {"float", "int", "bool"}, "a float")
    _, validity = _validity(values)
    filled = _filled(values, 0.0)
    try:
        data = np.fromiter(filled, t.numpy_dtype, len(filled))
    except OverflowError:
        row = _first(filled, lambda v: _kind(type(v)) == "int" and abs(v) > 2**1023)
        raise _Bad(row, values[row], t, "too large for a float") from None
    return PrimitiveColumn(t, data, validity)


def _utf8(strings, t):
    """(offsets, data) of str values, from one join and one encode."""
    joined = "".join(strings)
    try:
        data = joined.encode("utf-8")
    except UnicodeEncodeError:
        row = _first(strings, lambda s: not _encodes(s))
        raise _Bad(row, strings[row], t, "not encodable as UTF-8 (a lone surrogate)") from None
    ends = np.cumsum(np.fromiter(map(len, strings), np.int64, len(strings)))
    if len(data) != len(joined):           # not ASCII: count UTF-8 bytes per code point
        ends = _utf8_ends(np.frombuffer(joined.encode("utf-32-le"), np.uint32))[ends]
    offsets = np.zeros(len(strings) + 1, np.int64)
    offsets[1:] = ends
    return offsets, np.frombuffer(data, np.uint8)


def _utf8_ends(cp):
    """For code points ``cp``: entry k is the UTF-8 length of the first k of them."""
    ends = np.zeros(len(cp) + 1, np.int64)
    width = (cp >= 0x80).view(np.uint8) + (cp >= 0x800) + (cp >= 0x10000) + np.uint8(1)
    np.cumsum(width, dtype=np.int64, out=ends[1:])
    return ends


def _encodes(s):
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _string(values, classes, t):
    kinds = _allow(values, classes, t, {"str", "bytes"}, "a str")
    _, validity = _validity(values)
    if "bytes" in kinds:                   # pyarrow takes UTF-8 bytes for strings too
        values = list(values)
        for i, v in enumerate(values):
            if v is not None and _kind(type(v)) == "bytes":
                try:
                    values[i] = bytes(v).decode("utf-8")
                except UnicodeDecodeError:
                    raise _Bad(i, v, t, "not valid UTF-8") from None
    return BinaryColumn(t, *_utf8(_filled(values, ""), t), validity)


def _as_bytes(values, classes, t, kinds, what):
    """Values as bytes objects (str as UTF-8, UUID as its 16 bytes); None stays None."""
    found = _allow(values, classes, t, kinds, what)
    if found <= {"bytes"} and memoryview not in classes:
        return values
    out = list(values)
    for i, v in enumerate(out):
        k = None if v is None else _kind(type(v))
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
            raise _Bad(i, v, t, str(exc)) from None
    return out


def _binary(values, classes, t):
    items = _filled(_as_bytes(values, classes, t, {"bytes", "str"}, "bytes"), b"")
    _, validity = _validity(values)
    lengths = np.fromiter(map(len, items), np.int64, len(items))
    return BinaryColumn(t, _offsets(lengths), b"".join(items), validity)


def _fixed(values, classes, t):
    width = t.byte_width if isinstance(t, T.FixedSizeBinaryType) else t.storage_type.byte_width
    kinds = {"bytes", "str"} | ({"uuid"} if isinstance(t, T.UuidType) else set()) | \
        ({"list"} if isinstance(t, T.IntervalType) else set())
    items = _filled(_as_bytes(values, classes, t, kinds, "bytes"), bytes(width))
    valid, validity = _validity(values)
    lengths = np.fromiter(map(len, items), np.int64, len(items))
    if (lengths != width).any():
        row = int(np.argmax(lengths != width))
        raise _Bad(row, values[row], t, f"{lengths[row]} bytes, expected {width}")
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
    _allow(values, classes, t, {"decimal", "int"}, "a Decimal or an int")
    _, validity = _validity(values)
    unscaled = []
    for i, v in enumerate(values):
        if v is None:
            unscaled.append(0)
            continue
        u, why = _unscaled(v, t)
        if why:
            raise _Bad(i, v, t, why)
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
        limit = _INT64_MAX // 1000
        bad = (micros > limit) | (micros < -limit)
        if bad.any():
            row = int(np.argmax(bad))
            raise _Bad(row, values[row], t, "outside the nanosecond range (years 1677-2262)")
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
                raise _Bad(i, v, t, "outside the datetime range in UTC") from None
        naive.append(v)
    micros = np.fromiter(map(_US.__rfloordiv__, map(_EPOCH.__rsub__, naive)), np.int64,
                         len(naive))
    return _from_micros(micros, values, t, _nanos(values, classes, "nanosecond"))


def _date_counts(values, classes, t):
    days = np.fromiter(map(_dt.date.toordinal, _filled(values, _EPOCH_DATE)), np.int64,
                       len(values)) - _EPOCH_ORDINAL
    return days * 86_400_000 if isinstance(t, T.Date64Type) else days


def _time_counts(values, classes, t):
    micros = np.fromiter((((v.hour * 60 + v.minute) * 60 + v.second) * 10**6 + v.microsecond
                          for v in _filled(values, _dt.time())), np.int64, len(values))
    return _from_micros(micros, values, t)


def _duration_counts(values, classes, t):
    try:
        micros = np.fromiter(map(_US.__rfloordiv__, _filled(values, _dt.timedelta())),
                             np.int64, len(values))
    except OverflowError:                  # timedelta reaches 999999999 days, int64 us does not
        row = _first(values, lambda v: v is not None and not -2**63 <= v // _US <= _INT64_MAX)
        raise _Bad(row, values[row], t, "outside the int64 range of microseconds") from None
    return _from_micros(micros, values, t, _nanos(values, classes, "nanoseconds"))


_TEMPORAL = {T.TimestampType: ("datetime", _datetime_counts), T.Date32Type: ("date", _date_counts),
             T.Date64Type: ("date", _date_counts), T.Time32Type: ("time", _time_counts),
             T.Time64Type: ("time", _time_counts),
             T.DurationType: ("timedelta", _duration_counts)}


def _temporal(values, classes, t):
    kind, counts = _TEMPORAL[type(t)]
    found = _allow(values, classes, t, {kind, "int"}, f"a {kind}")
    _, validity = _validity(values)
    raw = {}
    if "int" in found:                     # ints are counts of the type's unit, as in pyarrow
        raw = {i: v for i, v in enumerate(values) if v is not None and _kind(type(v)) == "int"}
        values = [None if i in raw else v for i, v in enumerate(values)]
        classes = {c for c in classes if _kind(c) != "int"}
    out = counts(values, classes, t)
    info = np.iinfo(t.numpy_dtype)
    for i, v in raw.items():
        if not info.min <= v <= info.max:
            raise _Bad(i, v, t, f"outside {info.min}..{info.max}")
        out[i] = v
    if t.numpy_dtype != np.int64:
        bad = (out < info.min) | (out > info.max)
        if bad.any():
            row = int(np.argmax(bad))
            raise _Bad(row, values[row], t, f"outside the range of {t}")
    return PrimitiveColumn(t, out.astype(t.numpy_dtype), validity)


def _month_day_nano(values, classes, t):
    _allow(values, classes, t, {"mdn", "list"}, "a (months, days, nanoseconds) tuple")
    _, validity = _validity(values)
    for i, v in enumerate(values):
        if v is not None and (len(v) != 3 or any(_kind(type(x)) != "int" for x in v)):
            raise _Bad(i, v, t, "expected three ints (months, days, nanoseconds)")
    try:
        data = np.array([tuple(v) for v in _filled(values, (0, 0, 0))], t.numpy_dtype)
    except OverflowError:
        row = _first(values, lambda v: v is not None and not (
            all(-2**31 <= x < 2**31 for x in v[:2]) and -2**63 <= v[2] <= _INT64_MAX))
        raise _Bad(row, values[row], t, "outside int32 months/days or int64 nanoseconds") \
            from None
    return PrimitiveColumn(t, data, validity)


def _list(values, classes, t):
    _allow(values, classes, t, {"list"}, "a list or tuple")
    _, validity = _validity(values)
    filled = _filled(values, ())
    offsets = _offsets(np.fromiter(map(len, filled), np.int64, len(filled)))
    try:
        child = _build(list(chain.from_iterable(filled)), t.value_type)
    except _Bad as err:
        raise _in_lists(err, offsets) from None
    return ListColumn(t, offsets, child, validity)


def _fixed_list(values, classes, t):
    _allow(values, classes, t, {"list"}, "a list or tuple")
    _, validity = _validity(values)
    size = t.list_size
    for i, v in enumerate(values):
        if v is not None and len(v) != size:
            raise _Bad(i, v, t, f"{len(v)} values, expected {size}")
    # A null row still takes ``size`` (null) slots of the child.
    flat = list(chain.from_iterable(repeat(None, size) if v is None else v for v in values))
    try:
        child = _build(flat, t.value_type)
    except _Bad as err:
        raise err.at(err.row // size, f"[{err.row % size}]") from None
    return FixedSizeListColumn(t, child, validity, len(values))


def _struct(values, classes, t):
    kinds = _allow(values, classes, t, {"dict", "list"}, "a dict")
    _, validity = _validity(values)
    names = t.names
    if "list" in kinds:                    # tuples are records in field order, as in pyarrow
        values = list(values)
        for i, v in enumerate(values):
            if v is not None and not isinstance(v, Mapping):
                if len(v) != len(names):
                    raise _Bad(i, v, t, f"{len(v)} values for {len(names)} fields")
                values[i] = dict(zip(names, v))
    known = set(names)
    for i, v in enumerate(values):
        if v is not None and not known.issuperset(v):
            key = next(k for k in v if k not in known)
            raise _Bad(i, v, t, f"key {key!r} is not a field of the struct")
    children = []
    for f in t.fields:
        try:
            children.append(_build([None if v is None else v.get(f.name) for v in values],
                                   f.type))
        except _Bad as err:
            raise err.at(err.row, f"[{f.name!r}]") from None
    return StructColumn(t, children, validity, len(values))


def _map(values, classes, t):
    _allow(values, classes, t, {"dict", "list"}, "a dict or a list of (key, value) pairs")
    _, validity = _validity(values)
    rows = [() if v is None else list(v.items()) if isinstance(v, Mapping) else v
            for v in values]
    offsets = _offsets(np.fromiter(map(len, rows), np.int64, len(rows)))
    flat = list(chain.from_iterable(rows))
    for j, pair in enumerate(flat):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise _in_lists(_Bad(j, pair, t, "not a (key, value) pair"), offsets)
        if pair[0] is None:
            raise _in_lists(_Bad(j, pair, t, "map keys cannot be null"), offsets)
    try:
        keys = _build([p[0] for p in flat], t.key_type)
    except _Bad as err:
        raise _in_lists(err, offsets, "[0]") from None
    try:
        items = _build([p[1] for p in flat], t.item_type)
    except _Bad as err:
        raise _in_lists(err, offsets, "[1]") from None
    return MapColumn(t, offsets, keys, items, validity)


_BUILDERS = {T.NullType: _null, T.BooleanType: _bool, T.IntegerType: _int,
             T.FloatingType: _float, T.StringType: _string, T.BinaryType: _binary,
             T.FixedSizeBinaryType: _fixed, T.UuidType: _fixed, T.IntervalType: _fixed,
             T.DecimalType: _decimal, T.MonthDayNanoIntervalType: _month_day_nano,
             T.ListType: _list, T.FixedSizeListType: _fixed_list, T.StructType: _struct,
             T.MapType: _map, **{cls: _temporal for cls in _TEMPORAL}}


def _dictionary_encode(col, t):
    """A dictionary column of ``t`` holding the values of ``col`` (of ``t.value_type``)."""
    valid = col.valid_mask()
    rows = np.flatnonzero(valid)
    sub = col if col.validity is None else col._take(rows)
    if isinstance(sub, BinaryColumn):
        idx, first, _ = dictionary_encode(sub.data, sub.offsets, 0, len(sub), 1 << 62, 0)
    elif isinstance(sub, (PrimitiveColumn, FixedSizeBinaryColumn)):
        raw = np.ascontiguousarray(sub.values if isinstance(sub, PrimitiveColumn) else sub.data)
        width = raw.dtype.itemsize * (raw.shape[1] if raw.ndim == 2 else 1)
        idx, first, _ = dictionary_encode(raw.view(np.uint8).reshape(-1), None, width,
                                          len(sub), 1 << 62, 0)
    else:                                  # nested values: no deduplication
        idx, first = np.arange(len(sub), dtype=np.int32), np.arange(len(sub))
    dtype = t.index_type.numpy_dtype
    if len(first) and len(first) - 1 > np.iinfo(dtype).max:
        raise SchemaError(f"{len(first)} distinct values do not fit the {t.index_type} "
                          f"indices of {t}")
    indices = np.zeros(len(col), dtype)
    indices[rows] = idx
    return DictionaryColumn(t, indices, sub._take(first), col.validity)


# --- numpy --------------------------------------------------------------------------------
def _from_numpy(arr, t, validity=None):
    """A column from a numpy (masked) array: no Python loop unless the dtype is object."""
    if isinstance(arr, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(arr)
        arr = np.ma.getdata(arr)
    else:
        mask = None
    if arr.ndim == 0:
        raise SchemaError("a 0-d numpy array is not a column; put the value in a list")
    if arr.dtype.kind == "O":
        values = list(arr) if arr.ndim == 1 else arr.tolist()
        for m in (mask if mask is None or arr.ndim == 1 else None,
                  None if validity is None else ~validity):
            for i in ([] if m is None else np.flatnonzero(m).tolist()):
                values[i] = None
        return _build(values, _infer(values) if t is None else t)
    if arr.ndim > 1:                       # rows of a 2-D array are lists
        inner = arr.reshape((-1,) + arr.shape[2:])
        if mask is not None:
            inner = np.ma.MaskedArray(inner, mask.reshape(inner.shape))
        child = _from_numpy(inner, None)
        col = ListColumn(T.list_(child.type), np.arange(len(arr) + 1) * arr.shape[1], child,
                         _valid(validity))
    else:
        col = _numpy_column(arr, _valid(validity, None if mask is None else ~mask))
    return col if t is None or col.type == t else _cast(col, t)


def _numpy_column(arr, validity):
    """The column of a 1-D numpy array in its natural type."""
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    arr = np.ascontiguousarray(arr)
    kind = arr.dtype.kind
    if kind == "b":
        return PrimitiveColumn(T.bool_(), arr, validity)
    if kind in "iu":
        return PrimitiveColumn(T.IntegerType(arr.dtype.itemsize * 8, kind == "i"), arr, validity)
    if kind == "f" and arr.dtype.itemsize in (2, 4, 8):
        return PrimitiveColumn(T.FloatingType(arr.dtype.itemsize * 8), arr, validity)
    if kind in "Mm":
        return _numpy_temporal(arr, validity)
    if kind in "US":
        return _numpy_strings(arr, validity)
    if arr.dtype == _MDN.numpy_dtype:
        return PrimitiveColumn(_MDN, arr, validity)
    raise SchemaError(f"numpy dtype {arr.dtype} has no pqkit column type")


# numpy units without a pqkit unit: the unit they convert to exactly (None: no type).
_DATETIME_UNITS = {"D": "D", "W": "D", "M": "D", "Y": "D", "h": "s", "m": "s", "generic": "s"}
_TIMEDELTA_UNITS = {"D": "s", "W": "s", "h": "s", "m": "s", "generic": "s"}


def _numpy_temporal(arr, validity):
    kind = arr.dtype.kind
    unit, count = np.datetime_data(arr.dtype)
    if unit in _PER_DAY and unit != "D":
        target = unit
    else:
        target = (_DATETIME_UNITS if kind == "M" else _TIMEDELTA_UNITS).get(unit)
    if target is None:
        raise SchemaError(f"numpy {arr.dtype} has no pqkit type (units are s, ms, us, ns"
                          f"{' and days' if kind == 'M' else ''})")
    if target != unit or count != 1:
        converted = arr.astype(f"{kind}8[{target}]")
        lost = (converted.astype(arr.dtype) != arr) & ~np.isnat(arr)
        if lost.any():
            row = int(np.argmax(lost))
            raise _Bad(row, arr[row], None, f"does not convert exactly to {target} units")
        arr = converted
    ints = arr.view(np.int64)
    nat = ints == _NAT
    validity = _valid(validity, ~nat if nat.any() else None)
    if target == "D":
        bad = ((ints < -2**31) | (ints >= 2**31)) & ~nat
        if bad.any():
            row = int(np.argmax(bad))
            raise _Bad(row, arr[row], T.date32(), "outside the date32 range")
        return PrimitiveColumn(T.date32(), ints.astype(np.int32), validity)
    typ = T.timestamp(target) if kind == "M" else T.duration(target)
    return PrimitiveColumn(typ, ints, validity)


def _numpy_strings(arr, validity):
    """Fixed-width numpy strings to offsets + data. numpy pads values with zero units and
    so cannot hold trailing NULs: a value ends after its last non-zero unit."""
    n = len(arr)
    if arr.dtype.kind == "S":
        width, units = arr.dtype.itemsize, arr.view(np.uint8)
    else:
        width, units = arr.dtype.itemsize // 4, arr.view(np.uint32)
    units = units.reshape(n, width)
    nonzero = units != 0
    lengths = np.where(nonzero.any(axis=1), width - np.argmax(nonzero[:, ::-1], axis=1), 0) \
        if width else np.zeros(n, np.int64)
    if validity is not None:
        lengths[~validity] = 0
    flat = units[np.arange(width) < lengths[:, None]]
    offsets = _offsets(lengths)
    if arr.dtype.kind == "S":
        return BinaryColumn(T.binary(), offsets, flat, validity)
    if not flat.size or flat.max() < 0x80:
        return BinaryColumn(T.string(), offsets, flat.astype(np.uint8), validity)
    try:
        data = flat.tobytes().decode("utf-32-le").encode("utf-8")
    except UnicodeError:
        row = _first(range(n), lambda i: lengths[i] and not _utf32_ok(units[i, :lengths[i]]))
        raise _Bad(row, arr[row], T.string(), "not valid Unicode (a surrogate or a code "
                   "point beyond U+10FFFF)") from None
    return BinaryColumn(T.string(), _utf8_ends(flat)[offsets], data, validity)


def _utf32_ok(units):
    try:
        units.tobytes().decode("utf-32-le")
    except UnicodeError:
        return False
    return True


# --- pandas -------------------------------------------------------------------------------
def _pandas():
    # A pandas object can exist only once pandas is imported; never import it here.
    return sys.modules.get("pandas")


def _from_pandas(pd, obj, t):
    if isinstance(obj, (pd.Series, pd.Index)):
        obj = obj.array
    dtype = obj.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        col = _categorical(obj, t)
    elif isinstance(dtype, pd.DatetimeTZDtype):
        ints = np.asarray(obj.asi8)
        col = PrimitiveColumn(T.timestamp(dtype.unit, _tz_name(dtype.tz)), ints,
                              _valid(ints != _NAT))
    elif isinstance(getattr(obj, "_mask", None), np.ndarray) and \
            isinstance(getattr(obj, "_data", None), np.ndarray):
        # Masked arrays (Int64, boolean, Float64...): no public accessor gives their
        # value buffer and mask without a copy.
        col = _from_numpy(obj._data, None, _valid(~obj._mask))
    elif _numpy_backed(pd, obj) and np.asarray(obj).dtype.kind != "O":
        arr = np.asarray(obj)
        col = _from_numpy(arr, None, _valid(~np.isnan(arr)) if arr.dtype.kind == "f" else None)
    elif type(dtype).__name__ == "ArrowDtype" and dtype.numpy_dtype.kind in "biuf":
        na = np.asarray(obj.isna())
        arr = obj.to_numpy(dtype=dtype.numpy_dtype, na_value=dtype.numpy_dtype.type(0))
        col = _from_numpy(arr, None, _valid(~na))
    else:                                  # object, string, Arrow-backed, sparse...
        values = list(obj.to_numpy(dtype=object))
        for i in np.flatnonzero(np.asarray(obj.isna())).tolist():
            values[i] = None
        return _build(values, _infer(values) if t is None else t)
    return col if t is None or col.type == t else _cast(col, t)


def _numpy_backed(pd, obj):
    """Plain numpy data: NumpyExtensionArray (PandasArray before pandas 2.1) or naive
    datetime/timedelta arrays, whose dtype is a numpy dtype."""
    cls = getattr(pd.arrays, "NumpyExtensionArray", None) or pd.arrays.PandasArray
    return isinstance(obj, cls) or isinstance(obj.dtype, np.dtype)


def _categorical(cat, t):
    want = t if isinstance(t, T.DictionaryType) else None
    dictionary = _convert(cat.categories, None if want is None else want.value_type)
    index_type = T.int32() if want is None else want.index_type
    if len(dictionary) and len(dictionary) - 1 > np.iinfo(index_type.numpy_dtype).max:
        raise SchemaError(f"{len(dictionary)} categories do not fit {index_type} indices")
    codes = np.asarray(cat.codes)
    typ = T.dictionary(index_type, dictionary.type,
                       bool(cat.ordered) if want is None else want.ordered)
    return DictionaryColumn(typ, np.where(codes >= 0, codes, 0).astype(index_type.numpy_dtype),
                            dictionary, _valid(codes >= 0))


# --- casts between columns ------------------------------------------------------------------
def _cast(col, t):
    """``col`` as type ``t``: numpy casts where there is one, else through Python values."""
    if col.type == t:
        return col
    if isinstance(t, T.DictionaryType):
        if isinstance(col, DictionaryColumn):
            col = col.decode()
        return _dictionary_encode(_cast(col, t.value_type), t)
    if isinstance(col, DictionaryColumn):
        return _cast(col.decode(), t)
    out = None
    if isinstance(col, NullColumn):
        out = nulls(t, len(col))
    elif isinstance(col, PrimitiveColumn):
        out = _cast_primitive(col, t)
    elif isinstance(col, BinaryColumn) and isinstance(t, T.StringType):
        out = _cast_binary(col, t)
    elif isinstance(col, (ListColumn, StructColumn)):
        out = _cast_nested(col, t)
    return out if out is not None else _build(col.to_pylist(), t)


def _check(bad, col, t, reason):
    """_Bad at the first True of ``bad`` (a mask over ``col``'s rows)."""
    if bad.any():
        row = int(np.argmax(bad))
        try:
            value = col[row]
        except (ValueError, OverflowError):            # not representable in Python
            value = col.values[row].item()
        raise _Bad(row, value, t, reason)


def _outside(v, info):
    """Mask of the ints in ``v`` outside ``info``'s range, compared in v's own kind: numpy 1
    compares uint64 with a Python int as float64, which cannot tell 2**63 - 1 from 2**63."""
    if v.dtype.kind == "u":
        return v > np.uint64(info.max)
    return (v < np.int64(info.min)) | (v > np.int64(min(info.max, _INT64_MAX)))


def _unit(t):
    if isinstance(t, T.TimestampType):
        return "instant", t.unit
    if isinstance(t, (T.Date32Type, T.Date64Type)):
        return "instant", "D" if isinstance(t, T.Date32Type) else "ms"
    if isinstance(t, T.DurationType):
        return "duration", t.unit
    if isinstance(t, (T.Time32Type, T.Time64Type)):
        return "time", t.unit
    return None, None


def _cast_primitive(col, t):
    s, v, valid = col.type, col.values, col.valid_mask()
    numbers = (T.IntegerType, T.FloatingType)
    if isinstance(s, numbers) and isinstance(t, numbers):
        return PrimitiveColumn(t, _cast_numbers(col, t), col.validity)
    if isinstance(t, T.DecimalType) and isinstance(s, T.IntegerType) and \
            t.precision <= 18 and t.scale >= 0:
        limit = 10 ** (t.precision - t.scale)
        _check(valid & ((v >= limit) | (v <= -limit)), col, t,
               f"more than {t.precision} digits with scale {t.scale}")
        return DecimalColumn(t, np.where(valid, v, 0).astype(np.int64) * 10**t.scale,
                             col.validity)
    family, unit = _unit(t)
    if family is None:
        return None
    if isinstance(s, T.IntegerType):       # counts of the target's unit, as in pyarrow
        _check(valid & _outside(v, np.iinfo(t.numpy_dtype)), col, t, f"outside {t}'s range")
        return PrimitiveColumn(t, v.astype(t.numpy_dtype), col.validity)
    from_family, from_unit = _unit(s)
    if from_family != family:
        return None
    out = _rescale(col, valid, _PER_DAY[from_unit], _PER_DAY[unit], t)
    if isinstance(t, T.Date64Type):
        _check(valid & (out % 86_400_000 != 0), col, t, "not a whole day")
    info = np.iinfo(t.numpy_dtype)
    _check(valid & ((out < info.min) | (out > info.max)), col, t, f"outside {t}'s range")
    return PrimitiveColumn(t, out.astype(t.numpy_dtype), col.validity)


def _rescale(col, valid, per_day_from, per_day_to, t):
    v = col.values.astype(np.int64)
    if per_day_to >= per_day_from:
        k = per_day_to // per_day_from
        limit = _INT64_MAX // k
        _check(valid & ((v > limit) | (v < -limit)), col, t, f"outside {t}'s range")
        return v * k
    k = per_day_from // per_day_to
    _check(valid & (v % k != 0), col, t, f"would lose precision as {t}")
    return v // k


def _cast_numbers(col, t):
    v, valid, dst = col.values, col.valid_mask(), t.numpy_dtype
    if dst.kind == "f":
        if v.dtype.kind in "iu":           # as pyarrow: ints must convert exactly
            limit = 2 ** (np.finfo(dst).nmant + 1)
            _check(valid & ((v > limit) | (v < -limit)), col, t,
                   f"not exactly representable as {t}")
        return v.astype(dst)
    info = np.iinfo(dst)
    if v.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(v) & (v == np.floor(v)) & (v >= info.min) & (v < info.max + 1.0)
        _check(valid & ~ok, col, t, f"not a whole number in {info.min}..{info.max}")
        return np.where(valid, v, 0).astype(dst)
    _check(valid & _outside(v, info), col, t, f"outside {info.min}..{info.max}")
    return v.astype(dst)


def _cast_binary(col, t):
    out = BinaryColumn(t, col.offsets, col.data, col.validity)
    if isinstance(t, T.BinaryType) or not isinstance(col.type, T.BinaryType):
        return out
    if len(col.data) and col.data.max() >= 0x80:        # binary -> string: UTF-8 only
        for i, v in enumerate(col.to_pylist()):
            if v is not None and not _decodes(v):
                raise _Bad(i, v, t, "not valid UTF-8")
    return out


def _decodes(b):
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _cast_nested(col, t):
    if isinstance(col, ListColumn) and isinstance(t, (T.ListType, T.FixedSizeListType)):
        child, offsets = col.child, col.offsets
        if isinstance(t, T.FixedSizeListType):
            if (np.diff(offsets) != t.list_size).any():
                return None                # null rows need size slots: go through values
            child = col.flatten()
            offsets = offsets - offsets[0]
        try:
            child = _cast(child, t.value_type)
        except _Bad as err:
            raise _in_lists(err, offsets) from None
        if isinstance(t, T.FixedSizeListType):
            return FixedSizeListColumn(t, child, col.validity, len(col))
        return ListColumn(t, offsets, child, col.validity)
    if isinstance(col, StructColumn) and isinstance(t, T.StructType) and \
            col.type.names == t.names:
        children = []
        for f, c in zip(t.fields, col.children):
            try:
                children.append(_cast(c, f.type))
            except _Bad as err:
                raise err.at(err.row, f"[{f.name!r}]") from None
        return StructColumn(t, children, col.validity, len(col))
    return None


# --- non-nullable fields ------------------------------------------------------------------
def _has_required(t):
    fields = (t.item_field,) if isinstance(t, T.MapType) else t.fields  # keys: MapColumn checks
    return any(not f.nullable or _has_required(f.type) for f in fields)


def _check_required(col, live, rows, path):
    """SchemaError for a null under a non-nullable child field of ``col``. ``live`` marks
    the slots whose ancestors are all valid, ``rows`` their top-level row."""
    live = live & col.valid_mask()
    t = col.type
    if isinstance(col, StructColumn):
        for f, child in zip(t.fields, col.children):
            _check_child(f, child, live, rows, path)
    elif isinstance(col, FixedSizeListColumn):
        size = t.list_size
        _check_child(t.value_field, col.child, np.repeat(live, size), np.repeat(rows, size), path)
    elif isinstance(col, (ListColumn, MapColumn)):
        child = col.child if isinstance(col, ListColumn) else col.items
        field = t.value_field if isinstance(col, ListColumn) else t.item_field
        starts, lengths = col.offsets[:-1][live], np.diff(col.offsets)[live]
        pos = gather_ranges(starts, lengths)
        child_live = np.zeros(len(child), np.bool_)
        child_live[pos] = True
        child_rows = np.zeros(len(child), np.int64)
        child_rows[pos] = np.repeat(rows[live], lengths)
        _check_child(field, child, child_live, child_rows, path)


def _check_child(f, child, live, rows, path):
    path = f"{path}.{f.name}" if path else f.name
    if not f.nullable:
        bad = live & ~child.valid_mask()
        if bad.any():
            raise SchemaError(f"non-nullable field {path} is null at row "
                              f"{int(rows[np.argmax(bad)])}")
    if _has_required(f.type):
        _check_required(child, live, rows, path)


# --- public API -------------------------------------------------------------------------------
def column_from_values(values, type=None):
    """A pqkit column from Python values, a numpy array or a pandas Series.

    Parameters
    ----------
    values : list or other iterable, numpy.ndarray (masked too), pandas Series, Index or
        ExtensionArray, or a pqkit Column
        None (and pandas' NA/NaT; NaN in pandas float data) is null. numpy arrays are used
        without a Python loop, and without a copy when their dtype is the column's storage.
    type : pqkit DataType, optional
        Convert to exactly this type; inferred when omitted (see the module docstring).
        Maps are built only with an explicit ``map_`` type, from dicts or lists of
        ``(key, value)`` pairs.

    Returns
    -------
    Column

    Raises
    ------
    SchemaError
        A value does not fit ``type`` (wrong Python type, out of range, too many decimal
        digits, ...) or values of different kinds share a column; the message names the
        value and its row. Also a null under a non-nullable field of ``type``.

    Examples
    --------
    >>> column_from_values([1, None, 3]).type
    pqkit.DataType<int64>
    >>> column_from_values([[1, 2], None], T.list_(T.int8())).to_pylist()
    [[1, 2], None]
    """
    if type is not None and not isinstance(type, T.DataType):
        raise SchemaError(f"type {type!r} is not a pqkit DataType")
    try:
        col = _convert(values, type)
    except _Bad as err:
        raise err.error() from None
    if type is not None and _has_required(type):
        _check_required(col, np.ones(len(col), np.bool_), np.arange(len(col)), "")
    return col


def _convert(values, t):
    if isinstance(values, Column):
        return values if t is None else _cast(values, t)
    pd = _pandas()
    if pd is not None and isinstance(values, (pd.Series, pd.Index,
                                              pd.api.extensions.ExtensionArray)):
        return _from_pandas(pd, values, t)
    if isinstance(values, np.ndarray):
        return _from_numpy(values, t)
    if isinstance(values, (str, bytes, bytearray, Mapping)) or not hasattr(values, "__iter__"):
        raise SchemaError(f"column values must be a list, a numpy array or a pandas Series, "
                          f"not {values.__class__.__name__}")
    values = values if isinstance(values, list) else list(values)
    return _build(values, _infer(values) if t is None else t)


def _schema_fields(schema):
    if schema is None:
        return None
    if isinstance(schema, T.StructType):
        fields = list(schema.fields)
    elif isinstance(schema, Mapping):
        fields = [T.field(name, t) for name, t in schema.items()]
    else:
        fields = [f if isinstance(f, T.Field) else T.field(*f) for f in schema]
    names = [f.name for f in fields]
    if len(set(names)) != len(names):
        raise SchemaError(f"the schema names a column twice: {names}")
    return fields


def table_from_data(data, schema=None):
    """A pqkit Table from a Table, a dict of name -> values, or a pandas DataFrame.

    Parameters
    ----------
    data : pqkit.Table, mapping of str -> values, or pandas.DataFrame
        Values are anything :func:`column_from_values` takes. A DataFrame's index is
        not written (reset it first to keep it); column labels become ``str``.
    schema : list of Field or (name, type), StructType, or mapping of name -> DataType
        Types, nullability and field metadata, in column order. Every schema column must
        be in ``data`` and every data column in the schema. A Table without a schema is
        returned as it is.

    Returns
    -------
    Table

    Raises
    ------
    SchemaError
        A value does not fit its column's type (the message names the column and row),
        a non-nullable field holds a null, or the names of data and schema differ.
    """
    fields = _schema_fields(schema)
    metadata = None
    pd = _pandas()
    if isinstance(data, Table):
        if fields is None:
            return data
        metadata = data.metadata
        columns = dict(zip(data.column_names, data.columns))
    elif pd is not None and isinstance(data, pd.DataFrame):
        names = [str(c) for c in data.columns]
        if len(set(names)) != len(names):
            raise SchemaError(f"the DataFrame has repeated column names: {names}")
        columns = {name: data.iloc[:, i] for i, name in enumerate(names)}
    elif isinstance(data, Mapping):
        columns = dict(data)
    else:
        raise SchemaError(f"cannot make a table of {data.__class__.__name__}: give a "
                          "pqkit.Table, a dict of columns or a pandas DataFrame")
    if fields is not None:
        missing = [f.name for f in fields if f.name not in columns]
        extra = [name for name in columns if name not in {f.name for f in fields}]
        if missing or extra:
            raise SchemaError(f"the data has no column {missing[0]!r} of the schema" if missing
                              else f"the data column {extra[0]!r} is not in the schema")
    cols, out = [], []
    for i, name in enumerate(list(columns) if fields is None else [f.name for f in fields]):
        f = None if fields is None else fields[i]
        try:
            col = column_from_values(columns[name], None if f is None else f.type)
        except SchemaError as exc:
            raise SchemaError(f"column {name!r}: {exc}") from None
        if f is None:
            f = T.field(str(name), col.type)
        elif not f.nullable and col.null_count:
            raise SchemaError(f"column {name!r} is not nullable but row "
                              f"{int(np.argmin(col.valid_mask()))} is null")
        cols.append(col)
        out.append(f)
    return Table(cols, out, metadata)


__all__ = ["column_from_values", "table_from_data", "infer_type"]
