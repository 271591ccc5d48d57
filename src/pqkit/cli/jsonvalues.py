"""Column values as JSON-ready Python values: what pqinspect head, cat and dictionary print.

Values are converted from a column's buffers by its type (not through
``to_pylist()``), so values Python's datetime cannot hold are still shown.
One spelling per type:

=========================  ==============================================================
type                       JSON value
=========================  ==============================================================
null                       null
bool, integers             true/false, numbers (64-bit integers stay exact)
float, double, halffloat   numbers; NaN, +inf and -inf as the strings "NaN", "Infinity"
                           and "-Infinity" (JSON has no such numbers)
string                     string (invalid UTF-8 bytes become U+FFFD)
binary, fixed_size_binary  base64 string (``--binary hex``: lowercase hex)
decimal                    string, plain notation, exactly ``scale`` digits after the point
date                       "2024-02-29"
time                       "12:30:00.250" (as many fraction digits as the unit: s 0, ms 3,
                           us 6, ns 9; stored values are taken modulo one day)
timestamp                  "2024-02-29T12:30:00.250000" (fraction digits as for times);
                           UTC: suffix "Z"; a fixed offset or a zone name: local time plus
                           its "+01:00" offset (UTC with "Z" where the zone database
                           cannot place the value)
duration                   ISO 8601 duration "P1DT2H3M4.500000S" ("-P..." when negative)
month_day_nano_interval    {"months": m, "days": d, "nanoseconds": n}
interval (Parquet)         {"months": m, "days": d, "milliseconds": ms}
uuid                       "123e4567-e89b-12d3-a456-426614174000"
list, fixed_size_list      array
struct                     object of field name -> value
map                        array of [key, value] pairs (keys need not be strings)
dictionary                 the value's own spelling
=========================  ==============================================================

For example a ``timestamp[ms, tz=UTC]`` column holding ``[0, None]`` gives
``["1970-01-01T00:00:00.000Z", None]``.
"""
import base64
import datetime as dt
import json
import math
import struct
import zoneinfo

import numpy as np

from .. import datatypes as T
from ..columns import (BinaryColumn, DecimalColumn, FixedSizeBinaryColumn, NullColumn,
                       PrimitiveColumn)
from ..errors import ParquetError
from ..nested_columns import (DictionaryColumn, FixedSizeListColumn, ListColumn, MapColumn,
                              StructColumn)

BINARY_FORMATS = ("base64", "hex")
_PER_SECOND = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}
_DAY_S = 86400
_INT64_MIN = np.iinfo(np.int64).min
_NON_FINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}


def column_values(column, binary="base64"):
    """JSON-ready values of every row of ``column`` (None at nulls).

    Parameters
    ----------
    column : pqkit.columns.Column
    binary : {"base64", "hex"}
        How bytes are spelled.

    Returns
    -------
    list
    """
    if isinstance(column, NullColumn):
        return [None] * len(column)
    if isinstance(column, DictionaryColumn):
        return _dictionary(column, binary)
    if isinstance(column, PrimitiveColumn):
        out = _primitive(column.type, column.values, column.validity)
    elif isinstance(column, BinaryColumn):
        out = _binary(column, binary)
    elif isinstance(column, FixedSizeBinaryColumn):
        out = _fixed_binary(column, binary)
    elif isinstance(column, DecimalColumn):
        out = [_decimal_text(v, column.type.scale) for v in column.unscaled()]
    elif isinstance(column, ListColumn):
        child = column_values(column.flatten(), binary)
        offsets = (column.offsets - column.offsets[0]).tolist()
        out = [child[a:b] for a, b in zip(offsets, offsets[1:])]
    elif isinstance(column, FixedSizeListColumn):
        child = column_values(column.child, binary)
        size = column.type.list_size
        out = [child[i * size:(i + 1) * size] for i in range(len(column))]
    elif isinstance(column, StructColumn):
        names = column.type.names
        kids = [column_values(c, binary) for c in column.children]
        out = [dict(zip(names, row)) for row in zip(*kids)] if kids \
            else [{} for _ in range(len(column))]
    elif isinstance(column, MapColumn):
        keys, items = column.flatten()
        pairs = [list(p) for p in zip(column_values(keys, binary),
                                      column_values(items, binary))]
        offsets = (column.offsets - column.offsets[0]).tolist()
        out = [pairs[a:b] for a, b in zip(offsets, offsets[1:])]
    else:
        out = [python_value(v, binary) for v in column.to_pylist()]
    return _apply_nulls(out, column.validity)


def python_value(value, binary="base64"):
    """A JSON-ready form of a Python value (for column classes without a converter)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return float_value(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes_text(bytes(value), binary)
    if isinstance(value, dict):
        return {str(k): python_value(v, binary) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [python_value(v, binary) for v in value]
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return str(value)


def float_value(value):
    """A float as JSON allows: the number, or "NaN" / "Infinity" / "-Infinity"."""
    if math.isfinite(value):
        return value
    return "NaN" if value != value else _NON_FINITE[value]


def bytes_text(raw, binary="base64"):
    return raw.hex() if binary == "hex" else base64.b64encode(raw).decode("ascii")


def cell_text(value):
    """One JSON-ready value as flat text for CSV and tables: null as "", strings as they
    are, nested values as compact JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# --- per type ------------------------------------------------------------------------

def _apply_nulls(out, validity):
    if validity is not None:
        for i in np.flatnonzero(~validity).tolist():
            out[i] = None
    return out


def _filled(values, validity):
    if validity is None:
        return values
    return np.where(validity, values, np.zeros(1, values.dtype))


def _dictionary(column, binary):
    entries = column_values(column.dictionary, binary)
    if not entries:
        return [None] * len(column)
    idx = _filled(column.indices, column.validity).tolist()
    return _apply_nulls([entries[i] for i in idx], column.validity)


def _primitive(type_, values, validity):
    if isinstance(type_, (T.BooleanType, T.IntegerType)):
        return values.tolist()
    if isinstance(type_, T.FloatingType):
        out = values.tolist()
        for i in np.flatnonzero(~np.isfinite(values)).tolist():
            out[i] = float_value(out[i])
        return out
    values = _filled(values, validity)
    if isinstance(type_, T.TimestampType):
        return _timestamps(values.astype(np.int64), type_.unit, type_.tz)
    if isinstance(type_, T.Date32Type):
        return _iso(values.astype(np.int64), "D", "D")
    if isinstance(type_, T.Date64Type):
        return _iso(np.floor_divide(values, _DAY_S * 1000), "D", "D")
    if isinstance(type_, (T.Time32Type, T.Time64Type)):
        per_day = _DAY_S * _PER_SECOND[type_.unit]
        return [s[11:] for s in _iso(np.mod(values.astype(np.int64), per_day), type_.unit,
                                     type_.unit)]
    if isinstance(type_, T.DurationType):
        return [_duration(v, type_.unit) for v in values.tolist()]
    if isinstance(type_, T.MonthDayNanoIntervalType):
        return [{"months": m, "days": d, "nanoseconds": n} for m, d, n in
                zip(values["months"].tolist(), values["days"].tolist(),
                    values["nanoseconds"].tolist())]
    raise ParquetError(f"pqinspect cannot show values of type {type_}")


def _iso(counts, unit, text_unit):
    """ISO 8601 text of int64 counts of ``unit`` since the epoch (any year numpy holds)."""
    text = np.datetime_as_string(counts.view(f"M8[{unit}]"), unit=text_unit).tolist()
    # numpy reads int64 min as NaT: show the stored count instead.
    for i in np.flatnonzero(counts == _INT64_MIN).tolist():
        text[i] = str(int(counts[i]))
    return text


def _timestamps(values, unit, tz):
    if tz is None:
        return _iso(values, unit, unit)
    zone = _zone(tz)
    if zone is None or zone == dt.timezone.utc:
        return [t + "Z" for t in _iso(values, unit, unit)]
    if isinstance(zone, dt.timezone):
        shift = int(zone.utcoffset(None).total_seconds()) * _PER_SECOND[unit]
        suffix = _offset_text(zone.utcoffset(None))
        with np.errstate(over="ignore"):
            return [t + suffix for t in _iso(values + np.int64(shift), unit, unit)]
    return _zoned(values, unit, zone)


def _zoned(values, unit, zone):
    """Local time and offset in a named zone, value by value (offsets change over time)."""
    per = _PER_SECOND[unit]
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    out = []
    for v in values.tolist():
        try:
            offset = (epoch + dt.timedelta(seconds=v // per)).astimezone(zone).utcoffset()
        except OverflowError:
            offset = None
        if offset is None:
            out.append(_iso(np.array([v], np.int64), unit, unit)[0] + "Z")
            continue
        local = v + int(offset.total_seconds()) * per
        out.append(_iso(np.array([local], np.int64), unit, unit)[0] + _offset_text(offset))
    return out


def _zone(tz):
    if tz.upper() in ("UTC", "Z", "+00:00", "ETC/UTC"):
        return None
    if tz[:1] in "+-":
        sign = -1 if tz[0] == "-" else 1
        digits = tz[1:].replace(":", "")
        try:
            minutes = int(digits[:2]) * 60 + int(digits[2:] or 0)
            return dt.timezone(dt.timedelta(minutes=sign * minutes))
        except ValueError:
            return None
    try:
        return zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return None


def _offset_text(offset):
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    h, m = divmod(abs(minutes), 60)
    return f"{sign}{h:02d}:{m:02d}"


def _duration(count, unit):
    per = _PER_SECOND[unit]
    sign = "-" if count < 0 else ""
    seconds, frac = divmod(abs(count), per)
    minutes, s = divmod(seconds, 60)
    hours, m = divmod(minutes, 60)
    days, h = divmod(hours, 24)
    digits = len(str(per)) - 1
    fraction = f".{frac:0{digits}d}" if digits else ""
    return f"{sign}P{days}DT{h}H{m}M{s}{fraction}S"


def _decimal_text(unscaled, scale):
    if scale <= 0:
        return str(unscaled * 10 ** -scale)
    sign = "-" if unscaled < 0 else ""
    digits = str(abs(unscaled)).rjust(scale + 1, "0")
    return f"{sign}{digits[:-scale]}.{digits[-scale:]}"


def _binary(column, binary):
    if isinstance(column.type, T.BinaryType):
        return [None if v is None else bytes_text(v, binary) for v in column.to_pylist()]
    try:
        return column.to_pylist()
    except ParquetError:        # invalid UTF-8: show what can be shown
        return [None if v is None else v.decode("utf-8", "replace")
                for v in column.as_binary().to_pylist()]


def _fixed_binary(column, binary):
    type_ = column.type
    if isinstance(type_, T.UuidType):
        return [None if v is None else str(v) for v in column.to_pylist()]
    data = column.data
    if isinstance(type_, T.IntervalType):
        return [{"months": m, "days": d, "milliseconds": ms}
                for m, d, ms in struct.iter_unpack("<III", data.tobytes())]
    width = data.shape[1]
    raw = data.tobytes()
    return [bytes_text(raw[i:i + width], binary) for i in range(0, len(raw), width)] \
        if width else [bytes_text(b"", binary)] * len(column)
