"""pqkit columns -> JSON-ready values and CSV field text (the Parquet -> text direction).

A column is rendered as a whole, child columns first, so that the per-type work
is chosen once per column and temporal values are formatted by numpy. The
spellings are those of ``pqinspect head``/``cat``, except that a timestamp with a
time zone is always written as its UTC instant (``Z``), which reads back exactly:

==========================  ===========================================================
type                        rendered as
==========================  ===========================================================
bool, integers              JSON true/false and numbers (CSV: ``true``, ``12``)
floats                      numbers; NaN and infinities as the strings ``"NaN"``,
                            ``"Infinity"``, ``"-Infinity"`` (JSON has no such numbers)
decimal(p, s)               strings with exactly ``s`` fractional digits: ``"-12.30"``
string                      strings
binary, fixed_size_binary   base64 strings
uuid                        ``"12345678-1234-5678-1234-567812345678"``
date                        ``"2024-02-29"``
timestamp                   ``"2024-02-29T13:45:00.123456"``, as many fractional digits
                            as the unit has (none for seconds); with a time zone the
                            instant in UTC with ``Z``
time                        ``"13:45:00.500"`` (digits as for timestamps)
duration                    ISO-8601 ``"P1DT2H3M4.500000S"`` (fraction digits as for
                            timestamps), ``"-P0DT0H1M30S"``
month_day_nano_interval     ``{"months": 1, "days": 2, "nanoseconds": 3}``
interval (Parquet)          ``{"months": 1, "days": 2, "milliseconds": 3}``
list, fixed_size_list       arrays
struct                      objects
map                         arrays of ``[key, value]`` pairs (keys need not be strings,
                            and may repeat)
dictionary                  its values
==========================  ===========================================================

In CSV, null is the empty field (or the chosen null text) and lists, structs and
maps are their compact JSON text. For example a row ``{"id": 7, "at":
datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), "tags": ["a", "b"]}`` of a
``timestamp[ms, UTC]`` column renders as JSON
``{"id":7,"at":"2024-01-02T03:04:05.000Z","tags":["a","b"]}`` and as CSV
``7,2024-01-02T03:04:05.000Z,"[""a"",""b""]"``.
"""
import base64
import json
import struct

import numpy as np

from .. import datatypes as T
from ..columns import (BinaryColumn, DecimalColumn, FixedSizeBinaryColumn, NullColumn,
                       PrimitiveColumn)
from ..nested_columns import (DictionaryColumn, FixedSizeListColumn, ListColumn, MapColumn,
                              StructColumn)

_PER_SECOND = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}
_NONFINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
JSON_TEXT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode


def _with_nulls(out, validity):
    if validity is not None:
        for i in np.flatnonzero(~validity).tolist():
            out[i] = None
    return out


def _split(flat, offsets):
    rel = (offsets - offsets[0]).tolist()
    return [flat[rel[i]:rel[i + 1]] for i in range(len(rel) - 1)]


# --- temporal values ---------------------------------------------------------------------
def _as_datetime64(counts, unit):
    return np.asarray(counts, np.int64).view(f"datetime64[{unit}]")


def _timestamps(col):
    t = col.type
    return np.datetime_as_string(_as_datetime64(col.values, t.unit), unit=t.unit,
                                 timezone="naive" if t.tz is None else "UTC").tolist()


def _dates(col):
    days = col.values.astype(np.int64)
    if isinstance(col.type, T.Date64Type):
        days = days // 86_400_000
    return np.datetime_as_string(_as_datetime64(days, "D"), unit="D").tolist()


def _times(col):
    unit = col.type.unit
    texts = np.datetime_as_string(_as_datetime64(col.values, unit), unit=unit).tolist()
    return [s[s.index("T") + 1:] for s in texts]


def _durations(col):
    per = _PER_SECOND[col.type.unit]
    digits = len(str(per)) - 1
    out = []
    for count in col.values.tolist():
        seconds, frac = divmod(abs(count), per)
        minutes, s = divmod(seconds, 60)
        hours, m = divmod(minutes, 60)
        days, h = divmod(hours, 24)
        fraction = f".{frac:0{digits}d}" if digits else ""
        out.append(f"{'-' if count < 0 else ''}P{days}DT{h}H{m}M{s}{fraction}S")
    return out


def _month_day_nano(col):
    v = col.values
    return [{"months": m, "days": d, "nanoseconds": n} for m, d, n in
            zip(v["months"].tolist(), v["days"].tolist(), v["nanoseconds"].tolist())]


# --- one column ------------------------------------------------------------------------------
def _floats(col):
    out = col.to_pylist()
    finite = np.isfinite(col.values)
    if col.validity is not None:
        finite |= ~col.validity
    if not finite.all():
        for i in np.flatnonzero(~finite).tolist():
            out[i] = _NONFINITE[repr(out[i])]
    return out


_PRIMITIVE = {T.TimestampType: _timestamps, T.Date32Type: _dates, T.Date64Type: _dates,
              T.Time32Type: _times, T.Time64Type: _times, T.DurationType: _durations,
              T.MonthDayNanoIntervalType: _month_day_nano, T.FloatingType: _floats}


def _primitive(col):
    render = _PRIMITIVE.get(type(col.type))
    if render is None:                       # bool and integers are JSON values already
        return col.to_pylist()
    return render(col) if render is _floats else _with_nulls(render(col), col.validity)


def _binary(col):
    if isinstance(col.type, T.StringType) and not isinstance(col.type, T.BinaryType):
        return col.to_pylist()
    return [None if v is None else base64.b64encode(v).decode("ascii") for v in col.to_pylist()]


def _fixed_binary(col):
    values = col.to_pylist()
    if isinstance(col.type, T.UuidType):
        return [None if v is None else str(v) for v in values]
    if isinstance(col.type, T.IntervalType):
        return [None if v is None else dict(zip(("months", "days", "milliseconds"),
                                                struct.unpack("<3I", v))) for v in values]
    return [None if v is None else base64.b64encode(v).decode("ascii") for v in values]


def _decimal(col):
    return [None if v is None else format(v, "f") for v in col.to_pylist()]


def _list(col):
    return _with_nulls(_split(json_values(col.flatten()), col.offsets), col.validity)


def _fixed_list(col):
    size = col.type.list_size
    flat = json_values(col.child)
    out = [flat[i:i + size] for i in range(0, len(col) * size, size)] if size \
        else [[] for _ in range(len(col))]
    return _with_nulls(out, col.validity)


def _struct(col):
    names = col.type.names
    if not names:
        return _with_nulls([{} for _ in range(len(col))], col.validity)
    children = [json_values(c) for c in col.children]
    return _with_nulls([dict(zip(names, row)) for row in zip(*children)], col.validity)


def _map(col):
    keys, items = col.flatten()
    pairs = [[k, v] for k, v in zip(json_values(keys), json_values(items))]
    return _with_nulls(_split(pairs, col.offsets), col.validity)


_RENDER = {NullColumn: lambda col: [None] * len(col), PrimitiveColumn: _primitive,
           BinaryColumn: _binary, FixedSizeBinaryColumn: _fixed_binary,
           DecimalColumn: _decimal, ListColumn: _list, FixedSizeListColumn: _fixed_list,
           StructColumn: _struct, MapColumn: _map,
           DictionaryColumn: lambda col: json_values(col.decode())}


def json_values(col):
    """The values of a pqkit column as JSON-ready Python values (the module table).

    Examples
    --------
    >>> from pqkit.convert import column_from_values
    >>> json_values(column_from_values([b"\\x00\\xff", None]))
    ['AP8=', None]
    """
    return _RENDER[type(col)](col)


def _csv_cell(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    if type(v) in (list, dict):
        return JSON_TEXT(v)
    return str(v)


def csv_texts(col, null_text=""):
    """The CSV field text of each value of ``col`` (``null_text`` for nulls)."""
    values = json_values(col)
    t = col.type.value_type if isinstance(col.type, T.DictionaryType) else col.type
    if type(t) is T.StringType:
        return [null_text if v is None else v for v in values]
    return [null_text if v is None else _csv_cell(v) for v in values]


__all__ = ["json_values", "csv_texts", "JSON_TEXT"]
