"""pqkit columns -> JSON-ready values and CSV field text: the one text spelling of each type.

``pqinspect head``, ``cat`` and ``dictionary`` print values this way, and the CSV and
JSON Lines writers of ``pqinspect convert`` (:mod:`pqkit.textio.writers`) write them
this way. A column is rendered as a whole from its buffers, child columns first, so
that the per-type work is chosen once per column, temporal values are formatted by
numpy, and values Python's ``datetime`` cannot hold (years past 9999, nanoseconds)
are still shown.

==========================  ============================================================
type                        JSON-ready value (CSV field text in brackets where it differs)
==========================  ============================================================
null                        None (CSV: the empty field, or the chosen null text)
bool, integers              True/False, ints; 64-bit integers stay exact (``true``, ``12``)
float, double, halffloat    floats; NaN and the infinities as the strings ``"NaN"``,
                            ``"Infinity"`` and ``"-Infinity"`` (JSON has no such numbers)
string                      str
binary, fixed_size_binary   base64 text (style ``binary="hex"``: lowercase hex)
decimal(p, s)               str in plain notation with exactly ``s`` digits after the
                            point: ``"-12.30"``
date                        ``"2024-02-29"``
time                        ``"13:45:00.250"``: as many fraction digits as the unit has
                            (s 0, ms 3, us 6, ns 9); stored values are taken modulo a day
timestamp                   ``"2024-02-29T13:45:00.250000"`` (fraction digits as for
                            times); with a time zone, the UTC instant with ``Z``
                            (style ``zoned_timestamps="local"``: see below)
duration                    ISO 8601 ``"P1DT2H3M4.500000S"``, ``"-P0DT0H1M30S"``
month_day_nano_interval     ``{"months": 1, "days": 2, "nanoseconds": 3}``
interval (Parquet)          ``{"months": 1, "days": 2, "milliseconds": 3}``
uuid                        ``"12345678-1234-5678-1234-567812345678"``
list, fixed_size_list       list (CSV: compact JSON text, as for struct and map)
struct                      dict of field name -> value
map                         list of ``[key, value]`` pairs (keys need not be strings,
                            and may repeat)
dictionary                  the spelling of its value type
==========================  ============================================================

A timestamp or date whose stored count is the smallest int64 (which numpy reads as
"not a time") is shown as that count, ``"-9223372036854775808"``.

Where two spellings are both legitimate a :class:`TextStyle` chooses:

* ``binary``: ``"base64"`` (default; what the text readers take back) or ``"hex"``.
* ``zoned_timestamps``: ``"utc"`` (default) or ``"local"``: the wall-clock time in the
  column's own zone followed by that zone's offset at the instant,
  ``"2023-11-14T17:13:20.123-05:00"`` (an offset with seconds, such as a local mean
  time before 1900, as ``+00:09:21``); ``Z`` where the zone is UTC, unknown to the
  zone database or cannot place the value.
  UTC is the default because it is what the file stores (the zone is a property of
  the column, not of the value): the text reads back through the convert readers to
  exactly the stored instant for every year from 1 to 9999, does not depend on the
  zone database of the machine that wrote it, and is formatted by numpy in one pass.
  Local text needs a zone lookup per value, and does not read back where the offset
  has seconds (the readers take ``+hh:mm``) or where the local time leaves the years
  1 to 9999 that the readers take.
* ``invalid_utf8``: ``"error"`` (default: invalid UTF-8 in a string column raises
  :class:`pqkit.errors.EncodingError` naming the row, so that text is never silently
  changed) or ``"replace"`` (each bad byte sequence becomes U+FFFD; for viewers).

For example a row ``{"id": 7, "at": datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
"tags": ["a", "b"]}`` of a ``timestamp[ms, UTC]`` column renders as JSON
``{"id":7,"at":"2024-01-02T03:04:05.000Z","tags":["a","b"]}`` and as CSV
``7,2024-01-02T03:04:05.000Z,"[""a"",""b""]"``.
"""
import base64
import datetime as dt
import functools
import json
import struct
import zoneinfo
from dataclasses import dataclass

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, NullColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.columnar.nested import (
    DictionaryColumn,
    FixedSizeListColumn,
    ListColumn,
    MapColumn,
    StructColumn,
)
from pqkit.errors import EncodingError, SchemaError

BINARY_FORMATS = ("base64", "hex")
ZONED_TIMESTAMPS = ("utc", "local")
INVALID_UTF8 = ("error", "replace")
JSON_TEXT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

_PER_SECOND = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}
_DAY_SECONDS = 86_400
_INT64_MIN = int(np.iinfo(np.int64).min)
_UTC_NAMES = frozenset({"UTC", "Z", "+00:00", "-00:00", "ETC/UTC", "GMT", "ETC/GMT"})
_BYTES_TEXT = {"base64": lambda raw: base64.b64encode(raw).decode("ascii"),
               "hex": bytes.hex}


@dataclass(frozen=True)
class TextStyle:
    """The choices where two text spellings of a type are both legitimate.

    Parameters
    ----------
    binary : {"base64", "hex"}, default "base64"
        How binary and fixed_size_binary values are spelled.
    zoned_timestamps : {"utc", "local"}, default "utc"
        A timestamp with a time zone as its UTC instant with ``Z``, or as the local time
        in the column's zone with the zone's offset.
    invalid_utf8 : {"error", "replace"}, default "error"
        Raise EncodingError on invalid UTF-8 in a string column, or show U+FFFD.

    Examples
    --------
    >>> TextStyle(binary="hex", zoned_timestamps="local", invalid_utf8="replace")
    TextStyle(binary='hex', zoned_timestamps='local', invalid_utf8='replace')
    """

    binary: str = "base64"
    zoned_timestamps: str = "utc"
    invalid_utf8: str = "error"

    def __post_init__(self):
        for name, allowed in (("binary", BINARY_FORMATS),
                              ("zoned_timestamps", ZONED_TIMESTAMPS),
                              ("invalid_utf8", INVALID_UTF8)):
            value = getattr(self, name)
            if value not in allowed:
                raise SchemaError(f"{name} must be one of {allowed}, not {value!r}")


DEFAULT_STYLE = TextStyle()


def json_values(column, style=DEFAULT_STYLE):
    """The values of a pqkit column as JSON-ready Python values (the module table).

    Parameters
    ----------
    column : pqkit.columnar.column.Column
    style : TextStyle, optional

    Returns
    -------
    list
        One value per row, None at nulls.

    Examples
    --------
    >>> from pqkit.convert import column_from_values
    >>> json_values(column_from_values([b"\\x00\\xff", None]))
    ['AP8=', None]
    >>> json_values(column_from_values([b"\\x00\\xff"]), TextStyle(binary="hex"))
    ['00ff']
    """
    for cls in type(column).__mro__:
        render = _RENDER.get(cls)
        if render is not None:
            return _with_nulls(render(column, style), column.validity)
    raise SchemaError(f"no text spelling for a {type(column).__name__} of type {column.type}")


def cell_text(value, null_text=""):
    """One JSON-ready value as flat text (a CSV field, a table cell).

    Strings are as they are, booleans ``true``/``false``, numbers their shortest
    round-tripping text, lists and dicts compact JSON, None ``null_text``.
    """
    if value is None:
        return null_text
    kind = type(value)
    if kind is str:
        return value
    if kind is bool:
        return "true" if value else "false"
    if kind is int or kind is float:      # str() of a float is its JSON text (repr)
        return str(value)
    return JSON_TEXT(value)


def csv_texts(column, null_text="", style=DEFAULT_STYLE):
    """The CSV field text of each value of ``column`` (``null_text`` for nulls)."""
    values = json_values(column, style)
    value_type = column.type.value_type if isinstance(column.type, T.DictionaryType) \
        else column.type
    if type(value_type) is T.StringType:    # every value is a str already
        return [null_text if v is None else v for v in values]
    return [cell_text(v, null_text) for v in values]


# --- shared steps -----------------------------------------------------------------------
def _with_nulls(out, validity):
    if validity is not None:
        for i in np.flatnonzero(~validity).tolist():
            out[i] = None
    return out


def _split(flat, offsets):
    starts = (offsets - offsets[0]).tolist()
    return [flat[a:b] for a, b in zip(starts, starts[1:])]


def _iso(counts, unit, timezone="naive"):
    """ISO 8601 text of int64 counts of ``unit`` since the epoch (any year numpy holds);
    numpy reads the smallest int64 as NaT, so such a count is shown as its number."""
    text = np.datetime_as_string(counts.view(f"M8[{unit}]"), unit=unit,
                                 timezone=timezone).tolist()
    for i in np.flatnonzero(counts == _INT64_MIN).tolist():
        text[i] = str(_INT64_MIN)
    return text


# --- primitive types ----------------------------------------------------------------------
def _floats(col, style):
    values = col.values
    out = values.tolist()
    for i in np.flatnonzero(~np.isfinite(values)).tolist():
        v = out[i]
        out[i] = "NaN" if v != v else "Infinity" if v > 0 else "-Infinity"
    return out


def _dates(col, style):
    days = col.values.astype(np.int64)
    if isinstance(col.type, T.Date64Type):
        days = np.floor_divide(days, _DAY_SECONDS * 1000)
    return _iso(days, "D")


def _times(col, style):
    unit = col.type.unit
    within_day = np.mod(col.values.astype(np.int64), _DAY_SECONDS * _PER_SECOND[unit])
    return [text[11:] for text in _iso(within_day, unit)]


def _durations(col, style):
    per = _PER_SECOND[col.type.unit]
    digits = len(str(per)) - 1
    out = []
    for count in col.values.tolist():
        seconds, fraction = divmod(abs(count), per)
        minutes, s = divmod(seconds, 60)
        hours, m = divmod(minutes, 60)
        days, h = divmod(hours, 24)
        tail = f".{fraction:0{digits}d}" if digits else ""
        out.append(f"{'-' if count < 0 else ''}P{days}DT{h}H{m}M{s}{tail}S")
    return out


def _month_day_nano(col, style):
    v = col.values
    return [{"months": m, "days": d, "nanoseconds": n} for m, d, n in
            zip(v["months"].tolist(), v["days"].tolist(), v["nanoseconds"].tolist())]


def _timestamps(col, style):
    t = col.type
    counts = col.values.astype(np.int64, copy=False)
    if t.tz is None:
        return _iso(counts, t.unit)
    zone = _zone(t.tz) if style.zoned_timestamps == "local" else None
    if zone is None:
        return _iso(counts, t.unit, "UTC")
    return _local_timestamps(counts, t.unit, zone)


def _local_timestamps(counts, unit, zone):
    """Local time in ``zone`` plus its offset; the UTC instant with Z where the zone cannot
    place a value or the local count would leave int64."""
    if not len(counts):
        return []
    per = _PER_SECOND[unit]
    offsets, placed = _zone_offsets(np.floor_divide(counts, per), zone)
    shift = offsets * per
    with np.errstate(over="ignore"):
        local = counts + shift
    placed &= ~(((shift > 0) & (local < counts)) | ((shift < 0) & (local > counts)))
    placed &= counts != _INT64_MIN
    distinct, where = np.unique(offsets, return_inverse=True)
    suffixes = np.array([_offset_text(int(s)) for s in distinct.tolist()])[where.ravel()]
    texts = np.char.add(np.datetime_as_string(np.where(placed, local, counts).view(
        f"M8[{unit}]"), unit=unit), np.where(placed, suffixes, "Z")).tolist()
    for i in np.flatnonzero(counts == _INT64_MIN).tolist():
        texts[i] = str(_INT64_MIN)
    return texts


def _zone_offsets(seconds, zone):
    """(UTC offset in seconds, whether the zone places the instant) of each epoch second."""
    if isinstance(zone, dt.timezone):
        offset = int(zone.utcoffset(None).total_seconds())
        return np.full(len(seconds), offset, np.int64), np.ones(len(seconds), bool)
    distinct, where = np.unique(seconds, return_inverse=True)
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    offsets, placed = [], []
    for s in distinct.tolist():
        try:
            offset = (epoch + dt.timedelta(seconds=s)).astimezone(zone).utcoffset()
        except (OverflowError, ValueError):     # outside datetime's years 1..9999
            offset = None
        offsets.append(0 if offset is None else int(offset.total_seconds()))
        placed.append(offset is not None)
    where = where.ravel()
    return np.array(offsets, np.int64)[where], np.array(placed, bool)[where]


@functools.lru_cache(maxsize=64)
def _zone(tz):
    """A fixed offset (datetime.timezone) or a ZoneInfo for a column's time zone text;
    None for UTC and for zones the zone database does not know."""
    if tz.upper() in _UTC_NAMES:
        return None
    if tz[:1] in "+-":
        digits = tz[1:].replace(":", "")
        if not digits.isdigit() or len(digits) not in (2, 4):
            return None
        minutes = int(digits[:2]) * 60 + int(digits[2:] or 0)
        if not minutes or minutes >= 24 * 60:
            return None
        return dt.timezone(dt.timedelta(minutes=-minutes if tz[0] == "-" else minutes))
    try:
        return zoneinfo.ZoneInfo(tz)
    except (KeyError, ValueError, OSError):    # ZoneInfoNotFoundError is a KeyError
        return None


def _offset_text(seconds):
    sign = "-" if seconds < 0 else "+"
    minutes, s = divmod(abs(seconds), 60)
    h, m = divmod(minutes, 60)
    return f"{sign}{h:02d}:{m:02d}" + (f":{s:02d}" if s else "")


_PRIMITIVE = {T.FloatingType: _floats, T.TimestampType: _timestamps, T.Date32Type: _dates,
              T.Date64Type: _dates, T.Time32Type: _times, T.Time64Type: _times,
              T.DurationType: _durations, T.MonthDayNanoIntervalType: _month_day_nano}


def _primitive(col, style):
    render = _PRIMITIVE.get(type(col.type))
    if render is not None:
        return render(col, style)
    if isinstance(col.type, (T.BooleanType, T.IntegerType)):
        return col.values.tolist()
    raise SchemaError(f"no text spelling for a primitive column of type {col.type}")


# --- bytes, decimals ----------------------------------------------------------------------
def _binary(col, style):
    if isinstance(col.type, T.BinaryType):
        encode = _BYTES_TEXT[style.binary]
        return [None if v is None else encode(v) for v in col.to_pylist()]
    if style.invalid_utf8 == "error":
        return col.to_pylist()
    try:
        return col.to_pylist()
    except EncodingError:
        return [None if v is None else v.decode("utf-8", "replace")
                for v in col.as_binary().to_pylist()]


def _fixed_binary(col, style):
    t = col.type
    raw = col.data.tobytes()
    width = col.data.shape[1]
    if isinstance(t, T.IntervalType):
        return [{"months": m, "days": d, "milliseconds": ms}
                for m, d, ms in struct.iter_unpack("<3I", raw)]
    if not width:
        return [_BYTES_TEXT[style.binary](b"")] * len(col)
    if isinstance(t, T.UuidType):
        hexes = [raw[i:i + width].hex() for i in range(0, len(raw), width)]
        return [f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}" for h in hexes]
    encode = _BYTES_TEXT[style.binary]
    return [encode(raw[i:i + width]) for i in range(0, len(raw), width)]


def _decimal(col, style):
    scale = col.type.scale
    if scale <= 0:
        return [str(v * 10 ** -scale) for v in col.unscaled()]
    out = []
    for v in col.unscaled():
        digits = str(abs(v)).rjust(scale + 1, "0")
        out.append(f"{'-' if v < 0 else ''}{digits[:-scale]}.{digits[-scale:]}")
    return out


# --- nested types -------------------------------------------------------------------------
def _list(col, style):
    return _split(json_values(col.flatten(), style), col.offsets)


def _fixed_list(col, style):
    size = col.type.list_size
    if not size:
        return [[] for _ in range(len(col))]
    flat = json_values(col.child, style)
    return [flat[i:i + size] for i in range(0, len(col) * size, size)]


def _struct(col, style):
    names = col.type.names
    if not names:
        return [{} for _ in range(len(col))]
    children = [json_values(c, style) for c in col.children]
    return [dict(zip(names, row)) for row in zip(*children)]


def _map(col, style):
    keys, items = col.flatten()
    pairs = [[k, v] for k, v in zip(json_values(keys, style), json_values(items, style))]
    return _split(pairs, col.offsets)


def _dictionary(col, style):
    """Each dictionary entry is rendered once, then looked up by index."""
    entries = json_values(col.dictionary, style)
    if not entries:                        # every row is null
        return [None] * len(col)
    indices = col.indices
    if col.validity is not None:           # null rows may hold any index
        indices = np.where(col.validity, indices, np.zeros(1, indices.dtype))
    return [entries[i] for i in indices.tolist()]


_RENDER = {NullColumn: lambda col, style: [None] * len(col), PrimitiveColumn: _primitive,
           BinaryColumn: _binary, FixedSizeBinaryColumn: _fixed_binary,
           DecimalColumn: _decimal, ListColumn: _list, FixedSizeListColumn: _fixed_list,
           StructColumn: _struct, MapColumn: _map, DictionaryColumn: _dictionary}

__all__ = ["BINARY_FORMATS", "ZONED_TIMESTAMPS", "INVALID_UTF8", "JSON_TEXT", "TextStyle",
           "DEFAULT_STYLE", "json_values", "cell_text", "csv_texts"]
