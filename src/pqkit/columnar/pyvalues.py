"""Buffers to Python values: the conversions behind ``Column.to_pylist()``.

Each function takes a column's value buffer and its validity mask (True =
valid, or None) and returns a list with ``None`` at the null slots, giving the
same Python objects as pyarrow's ``to_pylist()``. Work is done with numpy where
possible; slots under nulls may hold anything, so they are zeroed before any
conversion that could fail. For example a ``timestamp[ms, tz=+01:00]`` buffer
``[0, 86_400_000]`` is shifted by one hour in numpy, turned into naive
datetimes by ``astype("M8[ms]").tolist()``, then given the fixed-offset tzinfo:
``[datetime(1970, 1, 1, 1, 0, tzinfo=+01:00), datetime(1970, 1, 2, 1, 0, ...)]``.

Choices that differ from pyarrow (all for values pyarrow also cannot show):

* A value outside what ``datetime``/``date``/``timedelta`` can hold raises
  :class:`ValueRangeError` naming the value and the row.
* Times of day are taken modulo one day, as pyarrow does for most values.
* Nanosecond timestamps and durations become ``pandas.Timestamp`` /
  ``pandas.Timedelta`` (as pyarrow gives) when pandas is importable, and are
  truncated to microseconds as ``datetime``/``timedelta`` when it is not.
* Invalid UTF-8 in a string column raises :class:`pqkit.errors.EncodingError`
  (pyarrow raises too); read such a column as binary to see the bytes.
"""
import datetime as _dt
import re
import uuid as _uuid
import zoneinfo
from decimal import Decimal

import numpy as np

from pqkit import datatypes as T
from pqkit._native.pyobjects import decimal_objects
from pqkit.errors import EncodingError, ParquetError, SchemaError


class ValueRangeError(ParquetError, OverflowError):
    """A stored value cannot be represented as the Python object its type calls for."""


_PER_SECOND = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}
_MIN_DATE_DAYS = -719162          # 0001-01-01
_MAX_DATE_DAYS = 2932896          # 9999-12-31
_DAY_S = 86400
_MAX_TD_DAYS = 999999999          # datetime.timedelta's limit
_OFFSET_RE = re.compile(r"^([+-])(\d{2}):?(\d{2})$")


def null_filled(values, validity, fill=0):
    """``values`` with the null slots set to ``fill`` (no copy when there are no nulls)."""
    if validity is None:
        return values
    return np.where(validity, values, np.asarray(fill, dtype=values.dtype))


def apply_nulls(out, validity):
    """Put None into the list ``out`` at the null slots; return ``out``."""
    if validity is not None:
        for i in np.flatnonzero(~validity).tolist():
            out[i] = None
    return out


def _check_range(values, lo, hi, type_):
    if values.size == 0:
        return
    if values.min() >= lo and values.max() <= hi:
        return
    i = int(np.flatnonzero((values < lo) | (values > hi))[0])
    raise ValueRangeError(f"{type_} value {int(values[i])} at row {i} is outside the range "
                          f"a Python value of this type can hold")


def _pandas():
    try:
        import pandas
    except ImportError:
        return None
    return pandas


def tzinfo_for(tz):
    """The tzinfo pyarrow uses for a timestamp ``tz`` string."""
    m = _OFFSET_RE.match(tz)
    if m:
        minutes = int(m.group(2)) * 60 + int(m.group(3))
        if minutes >= 24 * 60:
            raise SchemaError(f"time zone offset {tz!r} is not less than 24 hours")
        sign = -1 if m.group(1) == "-" else 1
        return _dt.timezone(_dt.timedelta(minutes=sign * minutes))
    try:
        return zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError) as e:
        raise SchemaError(f"unknown time zone {tz!r} in timestamp type") from e


def _datetimes(values, unit, type_, shift_seconds=0):
    """Naive datetimes for int64 counts of ``unit`` (s/ms/us) since the epoch, each moved
    by ``shift_seconds`` (a fixed time zone offset)."""
    per = _PER_SECOND[unit]
    shift = shift_seconds * per
    _check_range(values, _MIN_DATE_DAYS * _DAY_S * per - shift,
                 (_MAX_DATE_DAYS + 1) * _DAY_S * per - 1 - shift, type_)
    if shift:
        values = values + np.int64(shift)
    return values.astype(f"M8[{unit}]").tolist()


def timestamp_to_pylist(type_, values, validity):
    values = null_filled(values, validity)
    if type_.unit == "ns":
        out = _nano_timestamps(type_, values)
    elif type_.tz is None:
        out = _datetimes(values, type_.unit, type_)
    else:
        tz = tzinfo_for(type_.tz)
        if isinstance(tz, _dt.timezone) or type_.tz == "UTC":
            # A fixed offset is applied in numpy; only the local time must be in range.
            off = tz.utcoffset(None) if isinstance(tz, _dt.timezone) else _dt.timedelta(0)
            local = _datetimes(values, type_.unit, type_, int(off.total_seconds()))
            out = [d.replace(tzinfo=tz) for d in local]
        else:
            utc = _dt.timezone.utc
            try:
                out = [d.replace(tzinfo=utc).astimezone(tz)
                       for d in _datetimes(values, type_.unit, type_)]
            except OverflowError:
                _raise_zone_overflow(type_, values, lambda d: d.replace(tzinfo=utc).astimezone(tz),
                                     _datetimes(values, type_.unit, type_))
    return apply_nulls(out, validity)


def _raise_zone_overflow(type_, values, convert, items):
    """Find the first item ``convert`` fails on and raise ValueRangeError naming it."""
    for row, item in enumerate(items):
        try:
            convert(item)
        except (OverflowError, ValueError):
            raise ValueRangeError(f"{type_} value {int(values[row])} at row {row} is outside "
                                  f"the representable range in time zone {type_.tz}") from None
    raise ValueRangeError(f"a {type_} value is outside the representable range")


def _nano_timestamps(type_, values):
    pd = _pandas()
    if pd is None:
        us = np.floor_divide(values, 1000)
        out = _datetimes(us, "us", type_)
        if type_.tz is not None:
            tz, utc = tzinfo_for(type_.tz), _dt.timezone.utc
            out = [d.replace(tzinfo=utc).astimezone(tz) for d in out]
        return out
    idx = pd.DatetimeIndex(values.view("M8[ns]"))
    if type_.tz is None:
        return idx.tolist()
    idx = idx.tz_localize("UTC").tz_convert(tzinfo_for(type_.tz))
    try:
        return idx.tolist()
    except pd.errors.OutOfBoundsDatetime:
        tz = tzinfo_for(type_.tz)
        _raise_zone_overflow(type_, values, lambda v: pd.Timestamp(v, tz="UTC").tz_convert(tz),
                             values.tolist())


def duration_to_pylist(type_, values, validity):
    values = null_filled(values, validity)
    if type_.unit == "ns":
        pd = _pandas()
        if pd is not None:
            return apply_nulls(pd.TimedeltaIndex(values.view("m8[ns]")).tolist(), validity)
        values = np.floor_divide(values, 1000)
        unit = "us"
    else:
        unit = type_.unit
    per = _PER_SECOND[unit]
    _check_range(values, -_MAX_TD_DAYS * _DAY_S * per,
                 (_MAX_TD_DAYS + 1) * _DAY_S * per - 1, type_)
    out = values.astype(f"m8[{unit}]").tolist()
    # numpy reads int64 min as NaT; as microseconds it is a valid timedelta.
    for i in np.flatnonzero(values == np.iinfo(np.int64).min).tolist():
        out[i] = _dt.timedelta(microseconds=int(values[i]))
    return apply_nulls(out, validity)


def date_to_pylist(type_, values, validity):
    values = null_filled(values, validity)
    if isinstance(type_, T.Date64Type):
        ms = _DAY_S * 1000
        _check_range(values, _MIN_DATE_DAYS * ms, (_MAX_DATE_DAYS + 1) * ms - 1, type_)
        values = np.floor_divide(values, ms)
    else:
        _check_range(values, _MIN_DATE_DAYS, _MAX_DATE_DAYS, type_)
    return apply_nulls(values.astype("M8[D]").tolist(), validity)


def time_to_pylist(type_, values, validity):
    v = null_filled(values, validity).astype(np.int64)
    per = _PER_SECOND[type_.unit]
    v = np.mod(v, _DAY_S * per)
    if type_.unit == "ns":
        us = v // 1000
    else:
        us = v * (10**6 // per)
    hours, rest = np.divmod(us, 3600 * 10**6)
    minutes, rest = np.divmod(rest, 60 * 10**6)
    seconds, micros = np.divmod(rest, 10**6)
    out = list(map(_dt.time, hours.tolist(), minutes.tolist(), seconds.tolist(),
                   micros.tolist()))
    return apply_nulls(out, validity)


def month_day_nano_to_pylist(values, validity):
    out = list(map(T.MonthDayNano, values["months"].tolist(), values["days"].tolist(),
                   values["nanoseconds"].tolist()))
    return apply_nulls(out, validity)


def primitive_to_pylist(type_, values, validity):
    """Python values of a fixed-width column (numbers, bools, temporal, intervals)."""
    if isinstance(type_, (T.IntegerType, T.FloatingType, T.BooleanType)):
        return apply_nulls(values.tolist(), validity)
    if isinstance(type_, T.TimestampType):
        return timestamp_to_pylist(type_, values, validity)
    if isinstance(type_, (T.Date32Type, T.Date64Type)):
        return date_to_pylist(type_, values, validity)
    if isinstance(type_, (T.Time32Type, T.Time64Type)):
        return time_to_pylist(type_, values, validity)
    if isinstance(type_, T.DurationType):
        return duration_to_pylist(type_, values, validity)
    if isinstance(type_, T.MonthDayNanoIntervalType):
        return month_day_nano_to_pylist(values, validity)
    raise SchemaError(f"type {type_} is not a fixed-width primitive type")


def binary_to_pylist(type_, offsets, data, validity):
    """bytes (or str for string types) for each ``data[offsets[i]:offsets[i + 1]]``."""
    base = int(offsets[0]) if len(offsets) else 0
    rel = offsets - base
    starts, ends = rel[:-1], rel[1:]
    if validity is not None:
        starts, ends = null_filled(starts, validity), null_filled(ends, validity)
    buf = data[base:base + (int(rel[-1]) if len(rel) else 0)].tobytes()
    starts, ends = starts.tolist(), ends.tolist()
    if not isinstance(type_, T.BinaryType):
        if buf.isascii():
            text = buf.decode("ascii")
            out = [text[s:e] for s, e in zip(starts, ends)]
        else:
            try:
                out = [buf[s:e].decode("utf-8") for s, e in zip(starts, ends)]
            except UnicodeDecodeError:
                _raise_utf8(type_, buf, starts, ends, base)
    else:
        out = [buf[s:e] for s, e in zip(starts, ends)]
    return apply_nulls(out, validity)


def _raise_utf8(type_, buf, starts, ends, base):
    for row, (s, e) in enumerate(zip(starts, ends)):
        try:
            buf[s:e].decode("utf-8")
        except UnicodeDecodeError as err:
            raise EncodingError(
                f"invalid UTF-8 in {type_} value at row {row}: byte {err.start} of "
                f"{buf[s:e][:40]!r} (data offset {base + s + err.start}); "
                f"read the column as binary to get the raw bytes") from None


def fixed_binary_to_pylist(type_, data, validity):
    """bytes per row of an (n, width) uint8 array; uuid.UUID for the uuid type."""
    n, width = data.shape
    buf = data.tobytes()
    if isinstance(type_, T.UuidType):
        out = [_uuid.UUID(bytes=buf[i:i + 16]) for i in range(0, n * 16, 16)]
    else:
        out = [buf[i:i + width] for i in range(0, n * width, width)] if width else [b""] * n
    return apply_nulls(out, validity)


def be_bytes_to_int64(data):
    """Sign-extend big-endian two's complement rows of <= 8 bytes to int64."""
    n, width = data.shape
    if width == 8:
        return data.view(">i8").reshape(n).astype(np.int64)
    pad = np.where(data[:, :1] >= 0x80, np.uint8(0xFF), np.uint8(0)) if width \
        else np.zeros((n, 1), np.uint8)
    full = np.concatenate([np.repeat(pad, 8 - width, axis=1), data], axis=1)
    return np.ascontiguousarray(full).view(">i8").reshape(n).astype(np.int64)


def unscaled_ints(values):
    """Python ints of decimal storage: int32/int64 values, or (n, w) big-endian bytes."""
    if values.ndim == 1:
        return values.tolist()
    n, width = values.shape
    if width <= 8:
        return be_bytes_to_int64(values).tolist()
    buf = values.tobytes()
    frm = int.from_bytes
    return [frm(buf[i:i + width], "big", signed=True) for i in range(0, n * width, width)]


def decimal_objects_of(type_, values, validity):
    """An object array of decimal.Decimal (None for nulls) with exactly ``type_.scale``
    fractional digits, as pyarrow gives; digits made in C for values that fit int64."""
    if values.ndim == 2 and values.shape[1] <= 8:
        values = be_bytes_to_int64(values)
    if values.ndim == 1 and 0 <= type_.scale <= 38:
        return decimal_objects(values, type_.scale, validity)
    out = np.empty(len(values), dtype=object)
    out[:] = decimal_to_pylist(type_, values, validity)
    return out


def decimal_to_pylist(type_, values, validity):
    """decimal.Decimal with exactly ``type_.scale`` fractional digits, as pyarrow gives."""
    if (values.ndim == 1 or values.shape[1] <= 8) and 0 <= type_.scale <= 38:
        return decimal_objects_of(type_, values, validity).tolist()
    exp = f"E{-type_.scale}"
    out = [Decimal(f"{v}{exp}") for v in unscaled_ints(values)]
    return apply_nulls(out, validity)
