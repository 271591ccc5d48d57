"""Spark's legacy (hybrid Julian + Gregorian) calendar: rebasing what old writers stored.

Spark 2.4 and earlier, and Spark 3+ with ``spark.sql.parquet.datetimeRebaseModeInWrite``
(or ``int96RebaseModeInWrite``) set to ``LEGACY``, store the day counts and
instants of the hybrid calendar (Julian before 1582-10-15). ``spark.read.parquet``
rebases such values to the proleptic Gregorian calendar, keeping the local
date(-time) fields: Julian 1000-02-20 stays 1000-02-20, which is a different
day count. When it does so follows the file's key/value metadata
(:func:`rebase_spec`):

* a file without ``org.apache.spark.version`` is not rebased (Spark's read mode
  defaults to CORRECTED);
* dates and INT64 timestamps are rebased when the version is below 3.0.0 or the
  ``org.apache.spark.legacyDateTime`` key is present; INT96 timestamps when the
  version is below 3.1.0 or ``org.apache.spark.legacyINT96`` is present;
* timestamps are rebased in the writer's time zone (``org.apache.spark.timeZone``,
  else the session's). TimestampNTZ values are never rebased.

The day rebase is a step function: the differences between the calendars change
on 14 known days (the ``_SWITCH_DAYS``/``_DIFF_DAYS`` facts below, as Spark
tabulates them). In UTC and fixed-offset zones a timestamp's rebase is the day
rebase of its local date; in zones with historical offsets Spark's tables also
fold the legacy ``java.util.TimeZone`` offsets in, which pqkit does not carry:
such files raise :class:`pqkit.SchemaError` rather than read shifted values.

Everything here works on whole numpy arrays (``searchsorted`` over the switch
days), never a Python loop per value.
"""
import re
from dataclasses import dataclass

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import PrimitiveColumn
from pqkit.columnar.nested import ListColumn, MapColumn, StructColumn
from pqkit.errors import SchemaError
from pqkit.format import Type

__all__ = ["RebaseSpec", "rebase_spec", "rebase_days", "rebase_micros", "rebase_column",
           "leaf_physical_types"]

VERSION_KEY = "org.apache.spark.version"
LEGACY_DATETIME_KEY = "org.apache.spark.legacyDateTime"
LEGACY_INT96_KEY = "org.apache.spark.legacyINT96"
TIME_ZONE_KEY = "org.apache.spark.timeZone"

# Days since 1970-01-01 counted in the hybrid calendar from which on the difference to
# the proleptic Gregorian count is _DIFF_DAYS[i] (until the next switch); before the
# first switch (0001-01-01) the difference stays 2 days, from 1582-10-15 on it is 0.
_SWITCH_DAYS = np.array([-719164, -682945, -646420, -609895, -536845, -500320, -463795,
                         -390745, -354220, -317695, -244645, -208120, -171595, -141427],
                        np.int64)
_DIFF_DAYS = np.array([2, 1, 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -10, 0], np.int64)
_MICROS_PER_DAY = 86_400_000_000
# Spark's per-zone tables end at 1900-01-01 UTC: from there on nothing is rebased.
_FROM_1900 = -25567 * _MICROS_PER_DAY
_FIXED_ZONES = {"utc", "gmt", "z", "etc/utc", "etc/gmt", "etc/uct", "uct", "etc/universal",
                "universal", "etc/zulu", "zulu", "gmt0", "etc/gmt0", "greenwich",
                "etc/greenwich"}
_OFFSET = re.compile(r"^(?:utc|gmt)?([+-])(\d{1,2})(?::?(\d{2}))?$")


@dataclass(frozen=True)
class RebaseSpec:
    """Which values of one file Spark reads through the legacy calendar.

    Attributes
    ----------
    datetime : bool
        Rebase DATE and INT64 TIMESTAMP (UTC-adjusted) values.
    int96 : bool
        Rebase INT96 timestamps.
    time_zone : str
        The zone whose local time the writer rebased in.
    """
    datetime: bool
    int96: bool
    time_zone: str

    @property
    def any(self):
        return self.datetime or self.int96


def _version_tuple(text):
    return tuple(int(p) for p in re.findall(r"\d+", text)[:3])


def rebase_spec(key_value_metadata, session_time_zone):
    """The :class:`RebaseSpec` of a file from its key/value metadata (a dict of str)."""
    kv = key_value_metadata or {}
    version = kv.get(VERSION_KEY)
    if version is None:
        return RebaseSpec(False, False, session_time_zone)
    v = _version_tuple(version)
    return RebaseSpec(datetime=v < (3, 0, 0) or LEGACY_DATETIME_KEY in kv,
                      int96=v < (3, 1, 0) or LEGACY_INT96_KEY in kv,
                      time_zone=kv.get(TIME_ZONE_KEY) or session_time_zone)


def rebase_days(days):
    """Hybrid-calendar day counts -> proleptic Gregorian day counts (same local dates).

    A Julian date that the Gregorian calendar lacks (1000-02-29) becomes the day after
    the 28th, as in Spark.
    """
    days = np.asarray(days)
    i = np.searchsorted(_SWITCH_DAYS, days, side="right") - 1
    diff = _DIFF_DAYS[np.maximum(i, 0)]
    return (days.astype(np.int64) + diff).astype(days.dtype)


def _offset_micros(time_zone):
    """The fixed UTC offset of ``time_zone`` in microseconds, or None for a zone with
    historical offsets."""
    name = time_zone.strip().lower()
    if name in _FIXED_ZONES:
        return 0
    m = _OFFSET.match(name)
    if m is None:
        return None
    seconds = int(m.group(2)) * 3600 + int(m.group(3) or 0) * 60
    return (-seconds if m.group(1) == "-" else seconds) * 10**6


def rebase_micros(micros, time_zone, where):
    """Hybrid-calendar instants (microseconds since the epoch) -> the instants whose
    local date-time in ``time_zone`` is the same in the proleptic Gregorian calendar."""
    offset = _offset_micros(time_zone)
    micros = np.asarray(micros, np.int64)
    if offset is None:
        if micros.size == 0 or micros.min() >= _FROM_1900:
            return micros
        raise SchemaError(f"column {where}: legacy-calendar timestamps written in time zone "
                          f"{time_zone!r} before 1900; pqkit rebases them only for UTC and "
                          "fixed-offset zones")
    local = micros + offset
    days = np.floor_divide(local, _MICROS_PER_DAY)
    shift = (rebase_days(days) - days) * _MICROS_PER_DAY
    return micros + shift


def leaf_physical_types(parquet_schema, top):
    """Physical types of the Parquet leaves under top-level column ``top``, depth first
    (the order of the leaves of its decoded column)."""
    return [n.physical_type for n in parquet_schema.columns if n.path[0] == top]


def rebase_column(col, spec, physical, where):
    """A Spark-ready column with its dates and timestamps rebased as ``spec`` says.

    ``physical`` lists the physical type of each of the column's leaves, depth first
    (:func:`leaf_physical_types`), telling INT96 timestamps from INT64 ones.
    """
    if not spec.any:
        return col
    return _rebase(col, spec, iter(physical), where)


def _rebase(col, spec, physical, where):
    if isinstance(col, StructColumn):
        children = [_rebase(c, spec, physical, f"{where}.{f.name}")
                    for c, f in zip(col.children, col.type.fields)]
        return StructColumn(col.type, children, col.validity, len(col))
    if isinstance(col, ListColumn):
        child = _rebase(col.flatten(), spec, physical, f"{where}[]")
        return ListColumn(col.type, col.offsets - col.offsets[0], child, col.validity)
    if isinstance(col, MapColumn):
        keys, items = col.flatten()
        return MapColumn(col.type, col.offsets - col.offsets[0],
                         _rebase(keys, spec, physical, f"{where}.key"),
                         _rebase(items, spec, physical, f"{where}.value"), col.validity)
    kind = next(physical, None)
    if not isinstance(col, PrimitiveColumn):
        return col
    t = col.type
    if isinstance(t, T.Date32Type) and spec.datetime:
        return PrimitiveColumn(t, rebase_days(col.values), col.validity)
    rebased = (kind == Type.INT96 and spec.int96) or (kind == Type.INT64 and spec.datetime)
    if isinstance(t, T.TimestampType) and t.tz is not None and rebased:
        return PrimitiveColumn(t, rebase_micros(col.values, spec.time_zone, where),
                                   col.validity)
    return col
