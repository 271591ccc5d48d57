"""What every converter shares: the row-addressed error, value kinds, null masks, offsets.

A converter that meets a value it cannot take raises :class:`BadValue` with the row of
the list it was given; a nested converter catches it and re-raises it at its own row
with the step into the child prepended (``[1]``, ``['a']``), so that the public entry
points can name the top-level row and the path inside it.

Value kinds group Python classes by what they can become: ``kind_of(numpy.int8)`` and
``kind_of(int)`` are both ``"int"``; pandas' NA and NaT are ``"na"`` (read as null).
"""
import datetime as _dt
import decimal
import operator
import uuid as _uuid
from collections.abc import Mapping
from itertools import repeat

import numpy as np

from pqkit import datatypes as T
from pqkit.errors import SchemaError

_NONE = type(None)
NAT = np.iinfo(np.int64).min
INT64_MAX = 2**63 - 1
PER_DAY = {"D": 1, "s": 86_400, "ms": 86_400_000, "us": 86_400 * 10**6, "ns": 86_400 * 10**9}
MDN = T.month_day_nano_interval()


class BadValue(Exception):
    """A value that does not fit, at ``row`` of the list being converted. Nested
    builders re-raise it at their own row, prepending the step into the child."""

    def __init__(self, row, value, type_, reason, path=""):
        super().__init__(reason)
        self.row, self.value, self.type, self.reason, self.path = row, value, type_, reason, path

    def at(self, row, step):
        return BadValue(row, self.value, self.type, self.reason, step + self.path)

    def error(self):
        shown = repr(self.value)
        shown = shown if len(shown) <= 80 else shown[:77] + "..."
        where = f"row {self.row}" + (f" {self.path}" if self.path else "")
        fit = "" if self.type is None else f" does not fit {self.type}"
        return SchemaError(f"value {shown} at {where}{fit}: {self.reason}")


def in_lists(err, offsets, suffix=""):
    """``err`` at a child position, re-raised at the list row that holds it."""
    row = int(np.searchsorted(offsets, err.row, "right")) - 1
    return err.at(row, f"[{err.row - int(offsets[row])}]{suffix}")


def first_index(values, pred):
    return next(i for i, v in enumerate(values) if pred(v))


_KIND_ORDER = [("bool", (bool, np.bool_)), ("int", (int, np.integer)),
               ("float", (float, np.floating)), ("str", str),
               ("bytes", (bytes, bytearray, memoryview)), ("decimal", decimal.Decimal),
               ("datetime", _dt.datetime), ("date", _dt.date), ("time", _dt.time),
               ("timedelta", _dt.timedelta), ("uuid", _uuid.UUID), ("mdn", T.MonthDayNano),
               ("list", (list, tuple, np.ndarray)), ("dict", Mapping)]
_KINDS = {}


def kind_of(cls):
    """The kind of value a class holds ("int", "str", ... "na" for pandas' NA/NaT, "?")."""
    k = _KINDS.get(cls)
    if k is None:
        if cls.__module__.startswith("pandas") and cls.__name__ in ("NAType", "NaTType"):
            k = "na"                      # pyarrow reads pandas' missing markers as null
        else:
            k = next((name for name, bases in _KIND_ORDER if issubclass(cls, bases)), "?")
        _KINDS[cls] = k
    return k


def value_classes(values):
    """(values with pandas NA/NaT as None, the set of classes of the non-None values)."""
    classes = set(map(type, values))
    classes.discard(_NONE)
    na = {c for c in classes if kind_of(c) == "na"}
    if na:
        values = [None if type(v) in na else v for v in values]
        classes -= na
    return values, classes


def numpy_only(classes):
    """True when every value is a numpy scalar of one kind (numbers may mix)."""
    if not classes or not all(issubclass(c, np.generic) for c in classes):
        return False
    kinds = {np.dtype(c).kind for c in classes}
    return len(kinds) == 1 or kinds <= set("iuf")


def allow_kinds(values, classes, t, kinds, what):
    """The kinds of ``classes``; BadValue at the first value of a kind not in ``kinds``."""
    bad = {c for c in classes if kind_of(c) not in kinds}
    if bad:
        row = first_index(values, lambda v: type(v) in bad)
        raise BadValue(row, values[row], t, f"expected {what}, got {type(values[row]).__name__}")
    return {kind_of(c) for c in classes}


def validity_of(values):
    """(bool mask of non-None values, the same or None when nothing is null)."""
    n = len(values)
    valid = np.fromiter(map(operator.is_not, values, repeat(None, n)), np.bool_, n)
    return valid, (None if valid.all() else valid)


def fill_nulls(values, fill):
    return [fill if v is None else v for v in values]


def offsets_of(lengths):
    offsets = np.zeros(len(lengths) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def combine_validity(*masks):
    """AND of the masks given (None = all valid); None when nothing is null."""
    out = None
    for m in masks:
        if m is not None:
            out = m if out is None else out & m
    return None if out is None or out.all() else out


def utf8_ends(cp):
    """For code points ``cp``: entry k is the UTF-8 length of the first k of them."""
    ends = np.zeros(len(cp) + 1, np.int64)
    width = (cp >= 0x80).view(np.uint8) + (cp >= 0x800) + (cp >= 0x10000) + np.uint8(1)
    np.cumsum(width, dtype=np.int64, out=ends[1:])
    return ends
