"""The pqkit type of a list of Python values, by the rules tabled in :mod:`pqkit.convert`.

None does not vote; values of kinds that share no type raise :class:`BadValue` at the
first value that breaks the column's kind.
"""
import datetime as _dt
import decimal
from itertools import chain

import numpy as np

from pqkit import datatypes as T
from pqkit.convert.common import (
    INT64_MAX,
    MDN,
    BadValue,
    fill_nulls,
    first_index,
    in_lists,
    kind_of,
    numpy_only,
    offsets_of,
    value_classes,
)
from pqkit.convert.numpy_columns import numpy_scalars_column
from pqkit.errors import SchemaError


def infer_type(values):
    """The pqkit type of a sequence of Python values (None is null), by the rules tabled in
    :mod:`pqkit.convert`.

    Raises
    ------
    SchemaError
        Values of kinds that do not share a type, or of a class with no type.
    """
    try:
        return infer(values if isinstance(values, list) else list(values))
    except BadValue as err:
        raise err.error() from None


_MIXED = {frozenset({"int", "float"}): "float", frozenset({"str", "bytes"}): "bytes",
          frozenset({"int", "decimal"}): "decimal"}


def infer(values):
    """:func:`infer_type` of a list, raising BadValue for the caller to place."""
    values, classes = value_classes(values)
    if not classes:
        return T.null()
    if numpy_only(classes):
        return numpy_scalars_column(values).type
    kinds = {kind_of(c) for c in classes}
    if "?" in kinds:
        row = first_index(values, lambda v: v is not None and kind_of(type(v)) == "?")
        raise BadValue(row, values[row], None,
                       f"cannot infer a column type for {type(values[row]).__name__} values")
    kind = kinds.pop() if len(kinds) == 1 else _MIXED.get(frozenset(kinds))
    if kind is None:
        first = first_index(values, lambda v: v is not None)
        k0 = kind_of(type(values[first]))
        row = first_index(values, lambda v: v is not None and kind_of(type(v)) != k0 and
                          frozenset({k0, kind_of(type(v))}) not in _MIXED)
        raise BadValue(row, values[row], None, f"mixed value types in one column: "
                       f"{type(values[row]).__name__} after {type(values[first]).__name__}")
    return _INFER[kind](values)


def _infer_int(values):
    present = [v for v in values if v is not None]
    lo, hi = min(present), max(present)
    if lo >= -2**63 and hi <= INT64_MAX:
        return T.int64()
    if lo >= 0 and hi < 2**64:
        return T.uint64()
    row = next((i for i, v in enumerate(values)
                if v is not None and not -2**63 <= v < 2**64), None)
    if row is not None:
        raise BadValue(row, values[row], None, "an int beyond both int64 and uint64")
    row = first_index(values, lambda v: v is not None and v > INT64_MAX)
    raise BadValue(row, values[row], None, "needs uint64, but the column also holds negative ints")


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
            raise BadValue(i, v, None, "a decimal column cannot hold NaN or infinity")
        p, s = _decimal_shape(v)
        if p - s > integral:
            integral, rows[0] = p - s, i
        if s > scale:
            scale, rows[1] = s, i
    precision = max(integral + scale, 1)
    if precision > 76:
        row = rows[0] if integral >= scale else rows[1]
        raise BadValue(row, values[row], None,
                       f"the values need decimal precision {precision} ({integral} integral"
                       f" + {scale} fractional digits), more than 76")
    return T.decimal(precision, scale)


def _infer_datetime(values):
    first = values[first_index(values, lambda v: v is not None)]
    aware = first.tzinfo is not None and first.utcoffset() is not None
    return T.timestamp("us", tz_name(first.tzinfo) if aware else None)


def _infer_list(values):
    filled = fill_nulls(values, ())
    offsets = offsets_of(np.fromiter(map(len, filled), np.int64, len(filled)))
    try:
        return T.list_(infer(list(chain.from_iterable(filled))))
    except BadValue as err:
        raise in_lists(err, offsets) from None


def _infer_struct(values):
    keys = dict.fromkeys(chain.from_iterable(v for v in values if v is not None))
    fields = []
    for k in keys:
        if not isinstance(k, str):
            row = first_index(values, lambda v: v is not None and k in v)
            raise BadValue(row, values[row], None, f"struct field names must be str, not {k!r}")
        try:
            fields.append((k, infer([None if v is None else v.get(k) for v in values])))
        except BadValue as err:
            raise err.at(err.row, f"[{k!r}]") from None
    return T.struct(fields)


_INFER = {"bool": lambda v: T.bool_(), "int": _infer_int, "float": lambda v: T.float64(),
          "str": lambda v: T.string(), "bytes": lambda v: T.binary(),
          "decimal": _infer_decimal, "datetime": _infer_datetime,
          "date": lambda v: T.date32(), "time": lambda v: T.time64("us"),
          "timedelta": lambda v: T.duration("us"), "uuid": lambda v: T.uuid(),
          "mdn": lambda v: MDN, "list": _infer_list, "dict": _infer_struct}


def tz_name(tz):
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
