"""Text and JSON values -> the Python values pqkit columns are built from.

For every column type a *coercer* is made once (:func:`text_coercer` for CSV
fields, :func:`json_coercer` for decoded JSON values) and applied to each
non-null value. A coercer returns what :func:`pqkit.convert.column_from_values`
takes for the type: ints for integers, Decimals for decimals, integer counts of
the unit since the epoch (or midnight) for dates, times, timestamps and
durations, lists and dicts for nested types. A value that does not fit raises
:class:`Misfit`, which the batch builder turns into a
:class:`~pqkit.textio.errors.TextValueError` naming the line and column.

The text forms, all as the Parquet -> text writers produce them:

==========================  ===========================================================
type                        text
==========================  ===========================================================
bool                        true / false (also t/f, yes/no, y/n, 1/0 with a schema)
integers                    ``-12``, ``+7``, ``007`` (range-checked)
floats                      ``1.5``, ``-2e-3``, ``.5``, ``NaN``, ``Infinity``, ``-inf``
decimal(p, s)               ``-12.30``: at most ``s`` fractional and ``p - s`` integral
                            digits (no rounding); JSON numbers too
string                      as is; in JSON a non-string value becomes its JSON text
binary, fixed_size_binary   base64
date                        ``2024-02-29``
timestamp                   ``2024-02-29T13:45:00.123456``, space instead of ``T``,
                            seconds and fraction (up to 9 digits) optional, ``Z`` or
                            ``+05:30``: the instant is stored in UTC. A column without
                            time zone refuses values with an offset; a column with one
                            reads values without offset as UTC
time                        ``13:45:00.5``
duration                    ISO-8601 ``PT1.5S``, ``-P2DT3H4M5.000001S``
uuid                        ``12345678-1234-5678-1234-567812345678``
list, struct, map           JSON text in CSV; JSON arrays / objects in JSON Lines.
                            A map is an object or a list of ``[key, value]`` pairs
==========================  ===========================================================

In JSON Lines, ints are also taken as counts of the unit for temporal types
(days for dates), and whole floats (``3.0``) for integer types.
"""
import base64
import binascii
import datetime as _dt
import decimal
import json
import math
import re
import uuid as _uuid

from pqkit import datatypes as T
from pqkit.errors import SchemaError

_EPOCH_ORDINAL = _dt.date(1970, 1, 1).toordinal()
_PER_SECOND = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}
_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}
_INT64_MIN, _INT64_MAX = -2**63, 2**63 - 1

INT_TEXT = re.compile(r"[+-]?[0-9]+")
FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                        r"|[+-]?(?:nan|inf|infinity)", re.I)
FLOAT_WORD = re.compile(r"[+-]?(?:nan|inf|infinity)", re.I)
DECIMAL_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
DATE_TEXT = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
DATETIME_TEXT = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})"
    r"(?::([0-9]{2})(?:[.,]([0-9]{1,9}))?)?)?\s*(Z|z|[+-][0-9]{2}(?::?[0-9]{2})?)?")
TIME_TEXT = re.compile(r"([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:[.,]([0-9]{1,9}))?)?")
DURATION_TEXT = re.compile(r"([+-])?P(?:([0-9]+)D)?(?:T(?:([0-9]+)H)?(?:([0-9]+)M)?"
                           r"(?:([0-9]+)(?:[.,]([0-9]{1,9}))?S)?)?", re.I)
_TRUE = frozenset({"true", "t", "yes", "y", "1"})
_FALSE = frozenset({"false", "f", "no", "n", "0"})
_EXACT = decimal.Context(prec=200, Emin=-10**6, Emax=10**6)
_JSON_TEXT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class Misfit(Exception):
    """A value does not fit a type; ``path`` is its position inside a nested value."""

    def __init__(self, value, type_, reason, path=""):
        super().__init__(reason)
        self.value, self.type, self.reason, self.path = value, type_, reason, path

    def inside(self, step):
        return Misfit(self.value, self.type, self.reason, step + self.path)

    def describe(self):
        shown = repr(self.value)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        return f"value {shown} does not fit {self.type}: {self.reason}"


# --- shared parsing of numbers and dates -------------------------------------------------
_DAYS = {}               # "YYYY-MM-DD" -> days since the epoch; real data repeats dates
_DAYS_CACHED = 20_000


def parse_days(y, m, d, text, t):
    try:
        return _dt.date(int(y), int(m), int(d)).toordinal() - _EPOCH_ORDINAL
    except ValueError as exc:
        raise Misfit(text, t, f"not a calendar date ({exc})") from None


def datetime_parts(text, t):
    """(seconds since the epoch, fraction digits, UTC offset seconds or None) of ISO text."""
    m = DATETIME_TEXT.fullmatch(text)
    if m is None:
        raise Misfit(text, t, "expected an ISO-8601 date-time such as 2024-02-29T13:45:00Z")
    y, mo, d, hh, mi, ss, frac, zone = m.groups()
    days = _DAYS.get(text[:10])
    if days is None:
        days = parse_days(y, mo, d, text, t)
        if len(_DAYS) >= _DAYS_CACHED:
            _DAYS.clear()
        _DAYS[text[:10]] = days
    seconds = days * 86400
    if hh is not None:
        h, mi, s = int(hh), int(mi), int(ss) if ss else 0
        if h > 23 or mi > 59 or s > 59:
            raise Misfit(text, t, "hour, minute or second out of range")
        seconds += h * 3600 + mi * 60 + s
    offset = None
    if zone is not None:
        offset = 0 if zone in "Zz" else _offset_seconds(zone, text, t)
    return seconds, frac or "", offset


def _offset_seconds(zone, text, t):
    digits = zone[1:].replace(":", "")
    h, m = int(digits[:2]), int(digits[2:] or 0)
    if h > 23 or m > 59:
        raise Misfit(text, t, f"UTC offset {zone} out of range")
    return (h * 3600 + m * 60) * (-1 if zone[0] == "-" else 1)


def _scaled(seconds, frac, unit, text, t):
    """``seconds`` plus the fraction digits, counted in ``unit``; Misfit when digits would
    be lost or the count leaves int64."""
    per = _PER_SECOND[unit]
    count = seconds * per
    if frac:
        digits = _DIGITS[unit]
        if len(frac) > digits and frac[digits:].strip("0"):
            raise Misfit(text, t, f"has more fractional digits than unit {unit} holds")
        if digits:
            count += int(frac[:digits].ljust(digits, "0"))
    if not _INT64_MIN <= count <= _INT64_MAX:
        raise Misfit(text, t, f"outside the range of int64 {unit}")
    return count


# --- text coercers -------------------------------------------------------------------------
def _bool_text(t):
    def coerce(s):
        low = s.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        raise Misfit(s, t, "expected true or false")
    return coerce


def _int_bounds(t):
    if t.signed:
        return -(1 << (t.bit_width - 1)), (1 << (t.bit_width - 1)) - 1
    return 0, (1 << t.bit_width) - 1


def _int_text(t):
    lo, hi = _int_bounds(t)

    def coerce(s):
        if not INT_TEXT.fullmatch(s):
            raise Misfit(s, t, "expected an integer")
        v = int(s) if len(s) <= 24 else hi + 1     # never parse a huge digit string
        if not lo <= v <= hi:
            raise Misfit(s, t, f"outside {lo}..{hi}")
        return v
    return coerce


_FLOAT_MAX = {16: 65504.0, 32: 3.4028234663852886e38, 64: math.inf}


def _float_text(t):
    limit = _FLOAT_MAX[t.bit_width]

    def coerce(s):
        if not FLOAT_TEXT.fullmatch(s):
            raise Misfit(s, t, "expected a number")
        v = float(s)
        return _float_range(v, s, t, limit, math.isinf(v) and not FLOAT_WORD.fullmatch(s))
    return coerce


def _float_range(v, shown, t, limit, overflowed=False):
    if overflowed or (abs(v) > limit and not math.isinf(v)):
        raise Misfit(shown, t, f"outside the range of {t}")
    return v


def _decimal_value(d, shown, t):
    if not d.is_finite():
        raise Misfit(shown, t, "a decimal holds no NaN or infinity")
    if d and d.adjusted() >= t.precision - t.scale:
        raise Misfit(shown, t, f"more than {t.precision - t.scale} integral digits")
    unscaled = d.scaleb(t.scale, _EXACT)
    if unscaled != unscaled.to_integral_value(context=_EXACT):
        raise Misfit(shown, t, f"more than {t.scale} fractional digits")
    return decimal.Decimal(int(unscaled)).scaleb(-t.scale, _EXACT)


def _decimal_text(t):
    def coerce(s):
        if not DECIMAL_TEXT.fullmatch(s) or len(s) > 200:
            raise Misfit(s, t, "expected a decimal number")
        return _decimal_value(decimal.Decimal(s), s, t)
    return coerce


def _binary_text(t):
    width = getattr(t, "byte_width", None)

    def coerce(s):
        try:
            data = base64.b64decode(s, validate=True)
        except (binascii.Error, ValueError):
            raise Misfit(s, t, "expected base64 text") from None
        if width is not None and len(data) != width:
            raise Misfit(s, t, f"decodes to {len(data)} bytes, expected {width}")
        return data
    return coerce


def _date_text(t):
    ms = isinstance(t, T.Date64Type)

    def coerce(s):
        m = DATE_TEXT.fullmatch(s)
        if not m:
            raise Misfit(s, t, "expected an ISO-8601 date such as 2024-02-29")
        days = parse_days(*m.groups(), s, t)
        return days * 86_400_000 if ms else days
    return coerce


def _timestamp_text(t):
    def coerce(s):
        seconds, frac, offset = datetime_parts(s, t)
        if offset is not None:
            if t.tz is None:
                raise Misfit(s, t, "has a UTC offset, but the column has no time zone")
            seconds -= offset
        return _scaled(seconds, frac, t.unit, s, t)
    return coerce


def _time_text(t):
    def coerce(s):
        m = TIME_TEXT.fullmatch(s)
        if not m:
            raise Misfit(s, t, "expected a time of day such as 13:45:00.5")
        h, mi, sec, frac = m.groups()
        if int(h) > 23 or int(mi) > 59 or int(sec or 0) > 59:
            raise Misfit(s, t, "hour, minute or second out of range")
        return _scaled(int(h) * 3600 + int(mi) * 60 + int(sec or 0), frac or "", t.unit, s, t)
    return coerce


def _duration_text(t):
    def coerce(s):
        m = DURATION_TEXT.fullmatch(s)
        if not m or not any(m.groups()[1:]) or s.upper().endswith("T"):
            raise Misfit(s, t, "expected an ISO-8601 duration such as PT1.5S or P1DT2H")
        sign, d, h, mi, sec, frac = m.groups()
        total = ((int(d or 0) * 24 + int(h or 0)) * 60 + int(mi or 0)) * 60 + int(sec or 0)
        count = _scaled(total, frac or "", t.unit, s, t)
        return -count if sign == "-" else count
    return coerce


def _uuid_text(t):
    def coerce(s):
        try:
            return _uuid.UUID(s)
        except ValueError:
            raise Misfit(s, t, "expected a UUID") from None
    return coerce


def _nested_text(t):
    inner = json_coercer(t)

    def coerce(s):
        try:
            v = json.loads(s)
        except (ValueError, RecursionError) as exc:
            raise Misfit(s, t, f"expected JSON text ({exc})") from None
        return None if v is None else inner(v)
    return coerce


def _null_coercer(t):
    def coerce(v):
        raise Misfit(v, t, "the column holds only nulls")
    return coerce


_TEXT = {T.BooleanType: _bool_text, T.IntegerType: _int_text, T.FloatingType: _float_text,
         T.DecimalType: _decimal_text, T.BinaryType: _binary_text,
         T.FixedSizeBinaryType: _binary_text, T.Date32Type: _date_text,
         T.Date64Type: _date_text, T.TimestampType: _timestamp_text,
         T.Time32Type: _time_text, T.Time64Type: _time_text,
         T.DurationType: _duration_text, T.UuidType: _uuid_text,
         T.ListType: _nested_text, T.FixedSizeListType: _nested_text,
         T.StructType: _nested_text, T.MapType: _nested_text, T.NullType: _null_coercer}


def text_coercer(t):
    """A function text -> Python value for non-null CSV fields of type ``t`` (strings are
    returned as they are: the caller skips the call for string columns)."""
    if isinstance(t, T.DictionaryType):
        return text_coercer(t.value_type)
    if type(t) is T.StringType:
        return str
    make = _TEXT.get(type(t))
    if make is None:
        raise SchemaError(f"type {t} cannot be read from text")
    return make(t)


# --- JSON coercers -------------------------------------------------------------------------
def _json_bool(t):
    def coerce(v):
        if v is True or v is False:
            return v
        raise Misfit(v, t, f"expected true or false, got {_json_kind(v)}")
    return coerce


def _json_int(t):
    lo, hi = _int_bounds(t)

    def coerce(v):
        if type(v) is float and v.is_integer():
            v = int(v)
        elif type(v) is not int:
            raise Misfit(v, t, f"expected an integer, got {_json_kind(v)}")
        if not lo <= v <= hi:
            raise Misfit(v, t, f"outside {lo}..{hi}")
        return v
    return coerce


def _json_float(t):
    limit = _FLOAT_MAX[t.bit_width]

    def coerce(v):
        kind = type(v)
        if kind is float:
            return _float_range(v, v, t, limit)
        if kind is int:
            try:
                return _float_range(float(v), v, t, limit)
            except OverflowError:
                raise Misfit(v, t, f"outside the range of {t}") from None
        if kind is str and FLOAT_WORD.fullmatch(v):
            return float(v)
        raise Misfit(v, t, f"expected a number, got {_json_kind(v)}")
    return coerce


def _json_decimal(t):
    text = _decimal_text(t)

    def coerce(v):
        kind = type(v)
        if kind is int:
            return _decimal_value(decimal.Decimal(v), v, t)
        if kind is float:
            return _decimal_value(decimal.Decimal(repr(v)), v, t)
        if kind is str:
            return text(v)
        raise Misfit(v, t, f"expected a decimal number or string, got {_json_kind(v)}")
    return coerce


def _json_string(t):
    def coerce(v):
        return v if type(v) is str else _JSON_TEXT(v)
    return coerce


def _json_via_text(t):
    """Types whose JSON form is a string (binary, temporal, uuid); temporal types also take
    ints as counts of their unit."""
    text = _TEXT[type(t)](t)
    counts = isinstance(t, (T.Date32Type, T.Date64Type, T.TimestampType, T.Time32Type,
                            T.Time64Type, T.DurationType))
    info = None if not counts else (-2**(t.numpy_dtype.itemsize * 8 - 1),
                                    2**(t.numpy_dtype.itemsize * 8 - 1) - 1)

    def coerce(v):
        if type(v) is str:
            return text(v)
        if counts and type(v) is int:
            if not info[0] <= v <= info[1]:
                raise Misfit(v, t, f"outside {info[0]}..{info[1]}")
            return v
        raise Misfit(v, t, f"expected a string, got {_json_kind(v)}")
    return coerce


def _element(f):
    inner = json_coercer(f.type)
    nullable = f.nullable

    def coerce(v):
        if v is None:
            if not nullable:
                raise Misfit(v, f.type, "null where the type says not null")
            return None
        return inner(v)
    return coerce


def _json_list(t):
    item = _element(t.value_field)
    size = getattr(t, "list_size", None)

    def coerce(v):
        if type(v) is not list:
            raise Misfit(v, t, f"expected a JSON array, got {_json_kind(v)}")
        if size is not None and len(v) != size:
            raise Misfit(v, t, f"has {len(v)} elements, expected {size}")
        out = []
        try:
            for x in v:
                out.append(item(x))
        except Misfit as exc:
            raise exc.inside(f"[{len(out)}]") from None
        return out
    return coerce


def _json_struct(t):
    members = [(f.name, _element(f)) for f in t.fields]
    names = frozenset(f.name for f in t.fields)

    def coerce(v):
        if type(v) is not dict:
            raise Misfit(v, t, f"expected a JSON object, got {_json_kind(v)}")
        if not names.issuperset(v):
            extra = next(k for k in v if k not in names)
            raise Misfit(v, t, f"key {extra!r} is not a field of the struct")
        out = {}
        for name, item in members:
            try:
                out[name] = item(v.get(name))
            except Misfit as exc:
                raise exc.inside(f"[{name!r}]") from None
        return out
    return coerce


def _json_map(t):
    key_text = text_coercer(t.key_type)
    key_json = json_coercer(t.key_type)
    item = _element(t.item_field)

    def pairs(v):
        if type(v) is dict:
            return [(key_text(k), x, k) for k, x in v.items()]
        if type(v) is list and all(type(p) is list and len(p) == 2 for p in v):
            return [(key_json(k) if k is not None else _null_key(v, t), x, k) for k, x in v]
        raise Misfit(v, t, f"expected a JSON object or [key, value] pairs, got "
                     f"{_json_kind(v)}")

    def coerce(v):
        out = []
        for k, x, shown in pairs(v):
            try:
                out.append((k, item(x)))
            except Misfit as exc:
                raise exc.inside(f"[{shown!r}]") from None
        return out
    return coerce


def _null_key(v, t):
    raise Misfit(v, t, "a map key is null")


def _json_kind(v):
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "an array", dict: "an object"}.get(type(v), type(v).__name__)


_JSON = {T.BooleanType: _json_bool, T.IntegerType: _json_int, T.FloatingType: _json_float,
         T.DecimalType: _json_decimal, T.StringType: _json_string,
         T.BinaryType: _json_via_text, T.FixedSizeBinaryType: _json_via_text,
         T.Date32Type: _json_via_text, T.Date64Type: _json_via_text,
         T.TimestampType: _json_via_text, T.Time32Type: _json_via_text,
         T.Time64Type: _json_via_text, T.DurationType: _json_via_text,
         T.UuidType: _json_via_text, T.ListType: _json_list,
         T.FixedSizeListType: _json_list, T.StructType: _json_struct, T.MapType: _json_map,
         T.NullType: _null_coercer}


def json_coercer(t):
    """A function JSON value -> Python value for non-null values of type ``t``."""
    if isinstance(t, T.DictionaryType):
        return json_coercer(t.value_type)
    make = _JSON.get(type(t))
    if make is None:
        raise SchemaError(f"type {t} cannot be read from JSON")
    return make(t)


__all__ = ["Misfit", "text_coercer", "json_coercer", "datetime_parts"]
