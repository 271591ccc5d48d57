"""The JSON spelling pqkit documents (pqkit.textio.render), computed independently from
pyarrow's Python values, so the CLI's output can be compared with what pyarrow reads.

``binary`` ("base64"/"hex") and ``timestamps`` ("utc": a zoned timestamp as its UTC
instant with Z; "local": local time in the column's zone with its offset) mirror the
choices of pqkit.textio.render.TextStyle.

It works from ``to_pylist()`` objects and the Arrow type (pqkit's converter works from
buffers). Where pyarrow cannot make Python values (timestamps beyond datetime's range),
:func:`table_rows` casts those timestamps to int64 first and spells them with numpy.
"""
import base64
import datetime as dt
import json
import math

import numpy as np
import pyarrow as pa

DIGITS = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def spell(value, type_, binary="base64", timestamps="utc"):
    """The JSON-ready spelling of one pyarrow Python value of Arrow type ``type_``."""
    if value is None:
        return None
    if isinstance(type_, pa.BaseExtensionType):
        if type_.extension_name == "arrow.uuid":
            return str(value)
        return spell(value, type_.storage_type, binary, timestamps)
    if pa.types.is_dictionary(type_):
        return spell(value, type_.value_type, binary, timestamps)
    if pa.types.is_boolean(type_) or pa.types.is_integer(type_):
        return value
    if pa.types.is_floating(type_):
        value = float(value)
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if pa.types.is_string(type_) or pa.types.is_large_string(type_) \
            or pa.types.is_string_view(type_):
        return value
    if pa.types.is_binary(type_) or pa.types.is_large_binary(type_) \
            or pa.types.is_fixed_size_binary(type_) or pa.types.is_binary_view(type_):
        return value.hex() if binary == "hex" else base64.b64encode(value).decode()
    if pa.types.is_decimal(type_):
        return format(value, "f")
    if pa.types.is_date(type_):
        return value.isoformat()
    if pa.types.is_time(type_):
        if isinstance(value, int):      # time64[ns], cast to int64 by table_rows
            secs, nanos = divmod(value % (86400 * 10**9), 10**9)
            return _clock(secs // 3600, secs % 3600 // 60, secs % 60, nanos, type_.unit)
        return _clock(value.hour, value.minute, value.second, value.microsecond * 1000,
                      type_.unit)
    if pa.types.is_timestamp(type_):
        return _timestamp(value, type_, timestamps)
    if pa.types.is_duration(type_):
        return _duration(value, type_.unit)
    if pa.types.is_interval(type_):
        return {"months": value.months, "days": value.days, "nanoseconds": value.nanoseconds}
    if pa.types.is_map(type_):
        return [[spell(k, type_.key_type, binary, timestamps),
                 spell(v, type_.item_type, binary, timestamps)]
                for k, v in value]
    if pa.types.is_list(type_) or pa.types.is_large_list(type_) \
            or pa.types.is_fixed_size_list(type_) or pa.types.is_list_view(type_):
        return [spell(v, type_.value_type, binary, timestamps) for v in value]
    if pa.types.is_struct(type_):
        return {f.name: spell(value[f.name], f.type, binary, timestamps) for f in type_}
    if pa.types.is_null(type_):
        return None
    raise AssertionError(f"no spelling for {type_}")


def _clock(h, m, s, nanos, unit):
    text = f"{h:02d}:{m:02d}:{s:02d}"
    digits = DIGITS[unit]
    return text + (f".{nanos:09d}"[:digits + 1] if digits else "")


def _timestamp(value, type_, timestamps):
    if isinstance(value, int):          # cast to int64 by table_rows: out of datetime's range
        shift, suffix = 0, ("Z" if type_.tz else "")
        if timestamps == "local" and type_.tz and type_.tz[0] in "+-" \
                and type_.tz != "+00:00":
            sign = -1 if type_.tz[0] == "-" else 1
            shift = sign * (int(type_.tz[1:3]) * 3600 + int(type_.tz[4:6]) * 60)
            suffix = type_.tz
        value += shift * 10**DIGITS[type_.unit]
        text = str(np.datetime_as_string(np.datetime64(value, type_.unit), unit=type_.unit))
        return text + suffix
    if type_.tz is not None and timestamps == "utc":
        value = value.astimezone(dt.timezone.utc)
    nanos = value.microsecond * 1000 + getattr(value, "nanosecond", 0)
    text = f"{value.year:04d}-{value.month:02d}-{value.day:02d}T" + _clock(
        value.hour, value.minute, value.second, nanos, type_.unit)
    if type_.tz is None:
        return text
    offset = value.utcoffset()
    if timestamps == "utc" or type_.tz in ("UTC", "+00:00", "Etc/UTC"):
        assert offset == dt.timedelta(0)
        return text + "Z"
    seconds = int(offset.total_seconds())
    hours, rest = divmod(abs(seconds), 3600)
    text += f"{'-' if seconds < 0 else '+'}{hours:02d}:{rest // 60:02d}"
    return text + (f":{rest % 60:02d}" if rest % 60 else "")


def _duration(value, unit):
    if hasattr(value, "value") and unit == "ns":     # pandas.Timedelta
        count = value.value
    else:
        count = (value.days * 86400 + value.seconds) * 10**6 + value.microseconds
        count = count * 10**DIGITS[unit] // 10**6
    sign = "-" if count < 0 else ""
    per = 10**DIGITS[unit]
    secs, frac = divmod(abs(count), per)
    days, rest = divmod(secs, 86400)
    text = f"{sign}P{days}DT{rest // 3600}H{rest % 3600 // 60}M{rest % 60}"
    return text + (f".{frac:0{DIGITS[unit]}d}" if DIGITS[unit] else "") + "S"


def _as_ints(type_, timestamps):
    """type_ with every time64[ns] (whose Python values lose their nanoseconds) and, if
    ``timestamps``, every timestamp replaced by int64 (same layout)."""
    if (timestamps and pa.types.is_timestamp(type_)) or type_ == pa.time64("ns"):
        return pa.int64()
    if pa.types.is_struct(type_):
        return pa.struct([f.with_type(_as_ints(f.type, timestamps)) for f in type_])
    if pa.types.is_list(type_):
        return pa.list_(type_.value_field.with_type(_as_ints(type_.value_type, timestamps)))
    if pa.types.is_large_list(type_):
        return pa.large_list(type_.value_field.with_type(_as_ints(type_.value_type,
                                                                  timestamps)))
    if pa.types.is_map(type_):
        return pa.map_(type_.key_field.with_type(_as_ints(type_.key_type, timestamps)),
                       type_.item_field.with_type(_as_ints(type_.item_type, timestamps)))
    return type_


def spelled_values(column, binary="base64", timestamps="utc"):
    """Every value of a pyarrow Array or ChunkedArray, spelled (not JSON round-tripped)."""
    type_ = column.type
    try:
        values = column.cast(_as_ints(type_, False)).to_pylist()
    except OverflowError:
        values = column.cast(_as_ints(type_, True)).to_pylist()
    return [spell(v, type_, binary, timestamps) for v in values]


def table_rows(table, binary="base64", timestamps="utc"):
    """The rows of a pyarrow Table, spelled as pqinspect spells them (JSON round-tripped)."""
    columns = {name: spelled_values(column, binary, timestamps)
               for name, column in zip(table.column_names, table.columns)}
    rows = [dict(zip(columns, row)) for row in zip(*columns.values())]
    return json.loads(json.dumps(rows))
