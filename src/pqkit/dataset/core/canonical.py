"""Canonical text of types and values (PQDS/1 §3.3, §3.5).

Every type in a version file is spelled as text (nested types as small JSON
objects), and every partition value and statistics bound is a string, so the
JSON stays lossless: int64/uint64 never pass through a float, NaN and
infinities are legal. One value has exactly one spelling::

    type                 raw value (what a column buffer holds)      text
    bool                 True                                         true
    int64 / uint64       -9223372036854775808                         -9223372036854775808
    float64              -0.0, 1e300, inf                             -0.0  1e+300  inf
    decimal(18,2)        unscaled -1250                               -12.50
    string               "é/x"                                        é/x
    binary               b"\\x00\\xff"                                  AP8=   (base64)
    date32               19753 (days)                                 2024-01-31
    timestamp(us,utc)    1706702400123456 (us since the epoch)        2024-01-31T12:00:00.123456Z
    time64(us)           3723000000                                   01:02:03.000000

A :class:`ValueCodec` converts between a type's *raw* values, its text, and
the *keys* used to compare bounds with filter values: numbers compare as
Python numbers, strings as ``str`` (code-point order equals UTF-8 byte
order), binary as ``bytes``, dates as day numbers and times, timestamps and
durations as integer nanoseconds, so comparisons are exact at every unit.
"""
import base64
import datetime
import decimal
import re

import numpy as np

from pqkit import datatypes as T
from pqkit.errors import SchemaError

_INT_NAMES = {f"{'' if s else 'u'}int{b}": (b, s) for b in (8, 16, 32, 64) for s in (True, False)}
_SIMPLE = {"null": T.null, "bool": T.bool_, "float16": T.float16, "float32": T.float32,
           "float64": T.float64, "string": T.string, "large_string": T.large_string,
           "binary": T.binary, "large_binary": T.large_binary, "date32": T.date32,
           "date64": T.date64, "month_day_nano_interval": T.month_day_nano_interval,
           "uuid": T.uuid, "interval": T.interval}
_PARAM = re.compile(r"^([a-z_0-9]+)\((.*)\)$")
_NS_PER = {"s": 10 ** 9, "ms": 10 ** 6, "us": 10 ** 3, "ns": 1}
_DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}
_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()
_DAY_NS = 86_400 * 10 ** 9
BOUND_BYTES = 64


# --- types ------------------------------------------------------------------------------------
def type_to_json(t):
    """The PQDS/1 spelling of a pqkit type: a string, or a dict for nested types.

    Dictionary types are spelled as their value type (the dataset stores values).
    Child field ids are carried from ``PARQUET:field_id`` metadata.
    """
    if isinstance(t, T.DictionaryType):
        return type_to_json(t.value_type)
    if isinstance(t, T.IntegerType):
        return str(t)
    if isinstance(t, T.FloatingType):
        return {16: "float16", 32: "float32", 64: "float64"}[t.bit_width]
    for name, make in _SIMPLE.items():
        if t == make():
            return name
    if isinstance(t, T.FixedSizeBinaryType):
        return f"fixed_size_binary({t.byte_width})"
    if isinstance(t, T.DecimalType):
        return f"decimal({t.precision},{t.scale})"
    if isinstance(t, T.TimestampType):
        if t.tz is None:
            return f"timestamp({t.unit})"
        return f"timestamp({t.unit},{'utc' if t.tz == 'UTC' else t.tz})"
    if isinstance(t, (T.Time32Type, T.Time64Type, T.DurationType)):
        return f"{t._name}({t.unit})"
    if isinstance(t, T.ListType):
        return {"type": "large_list" if t.large else "list", "item": field_to_json(t.value_field)}
    if isinstance(t, T.FixedSizeListType):
        return {"type": "fixed_size_list", "size": t.list_size,
                "item": field_to_json(t.value_field)}
    if isinstance(t, T.StructType):
        return {"type": "struct", "fields": [field_to_json(f) for f in t.fields]}
    if isinstance(t, T.MapType):
        return {"type": "map", "key": field_to_json(t.key_field),
                "value": field_to_json(t.item_field), "keys_sorted": t.keys_sorted}
    raise SchemaError(f"type {t} cannot be stored in a dataset")


def type_from_json(spec, where="schema"):
    """The pqkit type for a PQDS/1 type spelling (inverse of :func:`type_to_json`)."""
    try:
        return _type_from_json(spec)
    except (KeyError, TypeError, ValueError, SchemaError) as exc:
        raise SchemaError(f"{where}: bad type {spec!r}: {exc}") from None


def _type_from_json(spec):
    if isinstance(spec, dict):
        kind = spec["type"]
        if kind in ("list", "large_list"):
            return T.ListType(field_from_json(spec["item"]), large=kind == "large_list")
        if kind == "fixed_size_list":
            return T.FixedSizeListType(field_from_json(spec["item"]), int(spec["size"]))
        if kind == "struct":
            return T.StructType([field_from_json(f) for f in spec["fields"]])
        if kind == "map":
            return T.MapType(field_from_json(spec["key"]), field_from_json(spec["value"]),
                             bool(spec.get("keys_sorted", False)))
        raise ValueError(f"unknown nested type {kind!r}")
    if not isinstance(spec, str):
        raise TypeError("a type is a string or an object")
    if spec in _INT_NAMES:
        return T.IntegerType(*_INT_NAMES[spec])
    if spec in _SIMPLE:
        return _SIMPLE[spec]()
    m = _PARAM.match(spec)
    if not m:
        raise ValueError("unknown type")
    name, args = m.group(1), [a.strip() for a in m.group(2).split(",")]
    if name == "fixed_size_binary":
        return T.FixedSizeBinaryType(int(args[0]))
    if name == "decimal":
        return T.DecimalType(int(args[0]), int(args[1]))
    if name == "timestamp":
        tz = None if len(args) == 1 else ("UTC" if args[1] == "utc" else ",".join(args[1:]))
        return T.TimestampType(args[0], tz)
    makers = {"time32": T.Time32Type, "time64": T.Time64Type, "duration": T.DurationType}
    return makers[name](args[0])


def field_to_json(f):
    """``{"name", "type", "nullable"}`` plus ``"id"`` when the field carries a field id."""
    out = {}
    fid = field_id(f)
    if fid is not None:
        out["id"] = fid
    out.update(name=f.name, type=type_to_json(f.type), nullable=f.nullable)
    return out


def field_from_json(d):
    if not isinstance(d, dict):
        raise TypeError(f"a field is an object, got {d!r:.40}")
    md = None if d.get("id") is None else {"PARQUET:field_id": str(int(d["id"]))}
    return T.Field(d["name"], _type_from_json(d["type"]), bool(d.get("nullable", True)), md)


def field_id(f):
    md = f.metadata
    if not md:
        return None
    raw = md.get("PARQUET:field_id", md.get(b"PARQUET:field_id"))
    return None if raw is None else int(raw)


# --- calendar arithmetic (valid far beyond datetime's years 1..9999) -----------------------------
def civil_from_days(days):
    """(year, month, day) of a day number counted from 1970-01-01, proleptic Gregorian."""
    z = days + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    day = doy - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, day


def days_from_civil(year, month, day):
    year -= month <= 2
    era = year // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _year_text(y):
    # ISO 8601 expanded years: a sign outside 0000..9999, at least four digits.
    return f"{y:04d}" if 0 <= y <= 9999 else f"{'-' if y < 0 else '+'}{abs(y):04d}"


def date_text(days):
    y, m, d = civil_from_days(days)
    return f"{_year_text(y)}-{m:02d}-{d:02d}"


_DATE_RE = r"([+-]?\d{4,})-(\d\d)-(\d\d)"
_TIME_RE = r"(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?"


def _parse_date(text):
    m = re.fullmatch(_DATE_RE, text)
    if not m:
        raise ValueError(f"{text!r} is not a YYYY-MM-DD date")
    y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if not (1 <= mo <= 12 and 1 <= d <= 31):
        raise ValueError(f"{text!r} is not a valid date")
    return days_from_civil(y, mo, d)


def _fraction_ns(frac):
    return int((frac or "").ljust(9, "0"))


def _time_of_day_text(ns, unit):
    secs, rest = divmod(ns, 10 ** 9)
    h, rem = divmod(secs, 3600)
    out = f"{h:02d}:{rem // 60:02d}:{rem % 60:02d}"
    if _DIGITS[unit]:
        out += "." + f"{rest:09d}"[:_DIGITS[unit]]
    return out


# --- value codecs -------------------------------------------------------------------------------
class ValueCodec:
    """Raw values <-> canonical text <-> comparison keys for one type.

    *Raw* values are what a column buffer holds: bool, int (also for
    temporal types, counted in the type's unit, and for decimals, unscaled),
    float, str or bytes.
    """

    kind = "other"
    bounded = False          # whether statistics bounds are kept for the type

    def __init__(self, type_):
        self.type = type_

    def text(self, raw):
        raise NotImplementedError

    def raw(self, text):
        raise NotImplementedError

    def key(self, raw):
        """Comparison key of a raw value."""
        return raw

    def text_key(self, text):
        return self.key(self.raw(text))

    def value_key(self, value):
        """Comparison key of a filter value, or None when it cannot be compared."""
        return None


def _number_key(value):
    if isinstance(value, (bool, int, float, decimal.Decimal)):
        return value
    if isinstance(value, np.generic) and value.dtype.kind in "biuf":
        return value.item()
    return None


class BoolCodec(ValueCodec):
    kind, bounded = "bool", True

    def text(self, raw):
        return "true" if raw else "false"

    def raw(self, text):
        if text not in ("true", "false"):
            raise ValueError(f"{text!r} is not true/false")
        return text == "true"

    def value_key(self, value):
        return _number_key(value)


class IntCodec(ValueCodec):
    kind, bounded = "int", True

    def text(self, raw):
        return str(int(raw))

    def raw(self, text):
        if not re.fullmatch(r"-?\d+", text):
            raise ValueError(f"{text!r} is not an integer")
        v = int(text)
        info = np.iinfo(self.type.numpy_dtype)
        if not info.min <= v <= info.max:
            raise ValueError(f"{v} is out of range for {self.type}")
        return v

    def value_key(self, value):
        return _number_key(value)


class FloatCodec(ValueCodec):
    kind, bounded = "float", True

    def text(self, raw):
        # The shortest repr of the value as a double, for every width: exact, and still
        # right when a float32 column is later widened to float64 (schema evolution).
        return repr(float(raw))

    def raw(self, text):
        if text not in ("nan", "inf", "-inf") and not re.fullmatch(
                r"-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?", text):
            raise ValueError(f"{text!r} is not a float")
        if self.type.bit_width == 64:
            return float(text)
        return float(np.float32(text) if self.type.bit_width == 32 else np.float16(text))

    def value_key(self, value):
        return _number_key(value)


class DecimalCodec(ValueCodec):
    kind, bounded = "decimal", True

    def text(self, raw):
        u, s = int(raw), self.type.scale
        if s <= 0:
            return str(u * 10 ** -s)
        digits = str(abs(u)).rjust(s + 1, "0")
        return f"{'-' if u < 0 else ''}{digits[:-s]}.{digits[-s:]}"

    def raw(self, text):
        s = self.type.scale
        m = re.fullmatch(r"(-?)(\d+)(?:\.(\d+))?", text)
        if not m or len(m.group(3) or "") != max(s, 0):
            raise ValueError(f"{text!r} is not a decimal with {max(s, 0)} fraction digits")
        u = int(m.group(2) + (m.group(3) or ""))
        if s < 0:
            u //= 10 ** -s
        return -u if m.group(1) else u

    def key(self, raw):
        return decimal.Decimal(int(raw)).scaleb(-self.type.scale)

    def value_key(self, value):
        return _number_key(value)


class StringCodec(ValueCodec):
    kind, bounded = "string", True

    def text(self, raw):
        return raw.decode("utf-8") if isinstance(raw, (bytes, bytearray)) else str(raw)

    def raw(self, text):
        return text

    def value_key(self, value):
        return value if isinstance(value, str) else None


class BinaryCodec(ValueCodec):
    kind, bounded = "binary", True

    def text(self, raw):
        return base64.b64encode(bytes(raw)).decode("ascii")

    def raw(self, text):
        return base64.b64decode(text.encode("ascii"), validate=True)

    def value_key(self, value):
        return bytes(value) if isinstance(value, (bytes, bytearray, memoryview)) else None


class DateCodec(ValueCodec):
    """Raw values are day numbers (date64 columns are reduced to days as Parquet stores them)."""
    kind, bounded = "date", True

    def text(self, raw):
        return date_text(int(raw))

    def raw(self, text):
        return _parse_date(text)

    def value_key(self, value):
        if isinstance(value, datetime.datetime) or not isinstance(value, datetime.date):
            return None
        return value.toordinal() - _EPOCH_ORDINAL


class TimestampCodec(ValueCodec):
    """Raw values count the type's unit from the epoch; keys are nanoseconds."""
    kind, bounded = "timestamp", True

    def text(self, raw):
        ns = int(raw) * _NS_PER[self.type.unit]
        days, rest = divmod(ns, _DAY_NS)
        tail = "Z" if self.type.tz is not None else ""
        return f"{date_text(days)}T{_time_of_day_text(rest, self.type.unit)}{tail}"

    def raw(self, text):
        m = re.fullmatch(_DATE_RE + "T" + _TIME_RE + "(Z?)", text)
        if not m or bool(m.group(8)) != (self.type.tz is not None):
            raise ValueError(f"{text!r} is not an ISO-8601 timestamp of {self.type}")
        days = days_from_civil(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        ns = days * _DAY_NS + (int(m.group(4)) * 3600 + int(m.group(5)) * 60 +
                               int(m.group(6))) * 10 ** 9 + _fraction_ns(m.group(7))
        per = _NS_PER[self.type.unit]
        if ns % per:
            raise ValueError(f"{text!r} has more precision than {self.type.unit}")
        return ns // per

    def key(self, raw):
        return int(raw) * _NS_PER[self.type.unit]

    def value_key(self, value):
        return timestamp_ns(value, self.type.tz is not None)

    def path_text(self, text):
        """Hive's spelling in directory names: ``2024-01-31 12:00:00[.fraction]``."""
        body = text.rstrip("Z").replace("T", " ")
        if "." in body:
            body = body.rstrip("0").rstrip(".")
        return body

    def from_path_text(self, path_text):
        m = re.fullmatch(_DATE_RE + "[ T]" + _TIME_RE + "Z?", path_text)
        if not m:
            raise ValueError(f"{path_text!r} is not a Hive timestamp")
        days = days_from_civil(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        ns = days * _DAY_NS + (int(m.group(4)) * 3600 + int(m.group(5)) * 60 +
                               int(m.group(6))) * 10 ** 9 + _fraction_ns(m.group(7))
        return self.text(ns // _NS_PER[self.type.unit])


def timestamp_ns(value, aware):
    """Nanoseconds since the epoch of a datetime-like filter value, or None.

    An aware value only compares with an aware column and a naive one with a
    naive column (Python refuses the other comparisons).
    """
    nanos = 0
    if isinstance(value, np.datetime64):
        if aware or np.isnat(value):
            return None
        return int(value.astype("datetime64[ns]").astype(np.int64)) \
            if np.datetime_data(value.dtype)[0] in ("ns", "us", "ms", "s") else None
    if not isinstance(value, datetime.datetime):
        return None
    if (value.tzinfo is not None and value.utcoffset() is not None) != aware:
        return None
    if hasattr(value, "nanosecond"):
        nanos = int(value.nanosecond)
    if aware:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    delta = value - datetime.datetime(1970, 1, 1)
    return (delta.days * 86_400 + delta.seconds) * 10 ** 9 + delta.microseconds * 1000 + nanos


class TimeCodec(ValueCodec):
    kind, bounded = "time", True

    def text(self, raw):
        return _time_of_day_text(int(raw) * _NS_PER[self.type.unit], self.type.unit)

    def raw(self, text):
        m = re.fullmatch(_TIME_RE, text)
        if not m:
            raise ValueError(f"{text!r} is not HH:MM:SS[.fraction]")
        ns = (int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))) * 10 ** 9 \
            + _fraction_ns(m.group(4))
        return ns // _NS_PER[self.type.unit]

    def key(self, raw):
        return int(raw) * _NS_PER[self.type.unit]

    def value_key(self, value):
        if not isinstance(value, datetime.time) or value.tzinfo is not None:
            return None
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 10 ** 9 \
            + value.microsecond * 1000 + int(getattr(value, "nanosecond", 0))


class DurationCodec(ValueCodec):
    kind, bounded = "duration", True

    def text(self, raw):
        return str(int(raw))

    def raw(self, text):
        if not re.fullmatch(r"-?\d+", text):
            raise ValueError(f"{text!r} is not an integer")
        return int(text)

    def key(self, raw):
        return int(raw) * _NS_PER[self.type.unit]

    def value_key(self, value):
        if isinstance(value, datetime.timedelta):
            return (value.days * 86_400 + value.seconds) * 10 ** 9 + value.microseconds * 1000 \
                + int(getattr(value, "nanoseconds", 0))
        return None


def codec_for(type_):
    """The :class:`ValueCodec` of a type; a plain ValueCodec (no bounds) for the rest."""
    if isinstance(type_, T.DictionaryType):
        type_ = type_.value_type
    if isinstance(type_, T.BooleanType):
        return BoolCodec(type_)
    if isinstance(type_, T.IntegerType):
        return IntCodec(type_)
    if isinstance(type_, T.FloatingType):
        return FloatCodec(type_)
    if isinstance(type_, T.DecimalType):
        return DecimalCodec(type_)
    if isinstance(type_, T.BinaryType) or isinstance(type_, T.UuidType) or \
            type(type_) is T.FixedSizeBinaryType:
        return BinaryCodec(type_)
    if isinstance(type_, T.StringType):
        return StringCodec(type_)
    if isinstance(type_, (T.Date32Type, T.Date64Type)):
        return DateCodec(type_)
    if isinstance(type_, T.TimestampType):
        return TimestampCodec(type_)
    if isinstance(type_, (T.Time32Type, T.Time64Type)):
        return TimeCodec(type_)
    if isinstance(type_, T.DurationType):
        return DurationCodec(type_)
    return ValueCodec(type_)


# --- bound truncation (strings and binary) ------------------------------------------------------
def truncate_min(raw, limit=BOUND_BYTES):
    """(bound, exact) for a lower bound of at most ``limit`` bytes: a prefix stays a lower bound."""
    if isinstance(raw, str):
        data = raw.encode("utf-8")
        if len(data) <= limit:
            return raw, True
        return data[:limit].decode("utf-8", "ignore"), False
    if len(raw) <= limit:
        return bytes(raw), True
    return bytes(raw[:limit]), False


def truncate_max(raw, limit=BOUND_BYTES):
    """(bound, exact) for an upper bound of at most ``limit`` bytes, or (None, False).

    The prefix's last code point (byte, for binary) is incremented so that the
    result stays above every value it stands for; when no code point can be
    incremented the bound is dropped.
    """
    if isinstance(raw, str):
        data = raw.encode("utf-8")
        if len(data) <= limit:
            return raw, True
        chars = list(data[:limit].decode("utf-8", "ignore"))
        while chars:
            cp = ord(chars.pop()) + 1
            if 0xD800 <= cp <= 0xDFFF:
                cp = 0xE000
            if cp <= 0x10FFFF:
                return "".join(chars) + chr(cp), False
        return None, False
    if len(raw) <= limit:
        return bytes(raw), True
    out = bytearray(raw[:limit])
    while out:
        if out[-1] < 0xFF:
            out[-1] += 1
            return bytes(out), False
        out.pop()
    return None, False
