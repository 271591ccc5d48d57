"""Column types inferred from the first records of a CSV or JSON Lines input.

Every non-null value votes for the narrowest *kind* that holds it; a column's
type is the narrowest one that holds all the kinds seen (nulls do not vote):

========================================  =========================================
kinds seen                                type
========================================  =========================================
nothing (only nulls, or no rows)          string
bool (``true``/``false``, any case)       bool
int                                       int64
int, and ints beyond int64                decimal(p, 0) up to 38 digits, else string
int and float (``1.5``, ``nan``, ``inf``)  double
date (``2024-02-29``)                     date32
date-time without offset, and dates       timestamp[us] (timestamp[ns] if a value
                                          has more than 6 fractional digits)
date-time with ``Z`` or an offset         timestamp[us, UTC]
JSON arrays                               list<the type of all the elements>
JSON objects                              struct<the union of the keys, first seen
                                          first>
anything else together                    string
========================================  =========================================

For example a CSV column ``1, 2.5, , 3`` is double with a null, ``1, true`` is
string, and JSON values ``[1], [2.5, null], []`` make ``list<double>``.

CSV fields are text, so ``"12"`` is an int there; in JSON only numbers are
numbers, and strings vote for date, date-time or string (and the strings
``"NaN"``, ``"Infinity"``, ``"-Infinity"`` join numbers as doubles, since that
is how the JSON writer spells them). A text integer with a leading zero
(``007``, ``02134``) votes string, so that codes and identifiers keep their
digits. Inferred columns are always nullable.
"""
import re

from pqkit import datatypes as T
from pqkit.textio.values import (
    DATETIME_TEXT,
    FLOAT_TEXT,
    FLOAT_WORD,
    Misfit,
    datetime_parts,
    parse_days,
)

_INFER_INT = re.compile(r"[+-]?(?:0|[1-9][0-9]*)")
_LEADING_ZERO = re.compile(r"[+-]?0[0-9]")
_INT64_DIGITS = 19
_MAX_DECIMAL_DIGITS = 38
_NUMBERS = frozenset({"int", "bigint", "float", "floatword"})
_INTS = frozenset({"int", "bigint"})
_NAIVE = frozenset({"date", "ts", "ts9"})
_AWARE = frozenset({"tsz", "tsz9"})


def _int_kind(value):
    return "int" if -2**63 <= value < 2**63 else "bigint"


def _temporal_kind(text):
    """"date", "ts", "tsz" (+ "9" when nanoseconds are needed) or "str"."""
    m = DATETIME_TEXT.fullmatch(text)
    if m is None:
        return "str"
    try:
        if m.group(4) is None and m.group(8) is None:
            parse_days(m.group(1), m.group(2), m.group(3), text, None)
            return "date"
        _, frac, offset = datetime_parts(text, None)
    except Misfit:
        return "str"
    return ("ts" if offset is None else "tsz") + ("9" if len(frac) > 6 else "")


def text_kind(s):
    """The kind a non-empty CSV field votes for."""
    if _INFER_INT.fullmatch(s):
        digits = len(s.lstrip("+-"))
        if digits > _MAX_DECIMAL_DIGITS:
            return "str"
        return _int_kind(int(s))
    if FLOAT_TEXT.fullmatch(s):
        return "str" if _LEADING_ZERO.match(s) else "float"
    if s.lower() in ("true", "false"):
        return "bool"
    if s[0].isdigit():
        return _temporal_kind(s)
    return "str"


def _string_kind(s):
    """The kind a JSON string votes for."""
    if s and s[0].isdigit():
        return _temporal_kind(s)
    return "floatword" if FLOAT_WORD.fullmatch(s) else "str"


class Shape:
    """The kinds seen at one position (a column, list elements, a struct field)."""

    __slots__ = ("kinds", "digits", "items", "fields")

    def __init__(self):
        self.kinds = set()
        self.digits = 0          # most digits of an int beyond int64
        self.items = None        # Shape of list elements
        self.fields = None       # dict name -> Shape of struct fields

    def text(self, s):
        kind = text_kind(s)
        self.kinds.add(kind)
        if kind == "bigint":
            self.digits = max(self.digits, len(s.lstrip("+-")))

    def json(self, v):
        cls = type(v)
        if cls is str:
            self.kinds.add(_string_kind(v))
        elif cls is int:
            kind = _int_kind(v) if -10**_MAX_DECIMAL_DIGITS < v < 10**_MAX_DECIMAL_DIGITS \
                else "str"
            self.kinds.add(kind)
            if kind == "bigint":
                self.digits = max(self.digits, len(str(abs(v))))
        elif cls is float:
            self.kinds.add("float")
        elif cls is bool:
            self.kinds.add("bool")
        elif cls is list:
            self.kinds.add("list")
            items = self.items = self.items or Shape()
            for x in v:
                if x is not None:
                    items.json(x)
        elif cls is dict:
            self.kinds.add("struct")
            fields = self.fields = {} if self.fields is None else self.fields
            for k, x in v.items():
                shape = fields.get(k)
                if shape is None:
                    shape = fields[k] = Shape()
                if x is not None:
                    shape.json(x)

    def data_type(self):
        """The type that holds every kind seen (the module table)."""
        kinds = self.kinds
        if not kinds or len(kinds) > 1 and kinds & {"list", "struct", "str"}:
            return T.string()
        if kinds == {"list"}:
            return T.list_(self.items.data_type())
        if kinds == {"struct"}:
            if not self.fields:
                return T.string()      # Parquet has no empty group
            return T.struct([(k, s.data_type()) for k, s in self.fields.items()])
        if kinds == {"bool"}:
            return T.bool_()
        if kinds <= _NUMBERS and kinds != {"floatword"}:
            return self._number()
        if kinds == {"date"}:
            return T.date32()
        unit = "ns" if kinds & {"ts9", "tsz9"} else "us"
        if kinds <= _NAIVE:
            return T.timestamp(unit)
        if kinds <= _AWARE:
            return T.timestamp(unit, "UTC")
        return T.string()

    def _number(self):
        if not self.kinds <= _INTS:
            return T.float64()
        if "bigint" not in self.kinds:
            return T.int64()
        if self.digits > _MAX_DECIMAL_DIGITS:
            return T.string()
        return T.decimal(max(self.digits, _INT64_DIGITS), 0)


def infer_csv_fields(names, columns, null_text=""):
    """Fields for CSV columns from their first values (tuples of field text).

    Fields equal to ``null_text``, and empty fields, do not vote.
    """
    fields = []
    for name, values in zip(names, columns):
        shape = Shape()
        for s in values:
            if s and s != null_text:
                shape.text(s)
        fields.append(T.field(name, shape.data_type()))
    return fields


def infer_json_fields(records):
    """Fields for JSON Lines records (dicts): the union of their keys, first seen first."""
    root = Shape()
    for record in records:
        root.json(record)
    return [T.field(name, shape.data_type()) for name, shape in (root.fields or {}).items()]


__all__ = ["Shape", "text_kind", "infer_csv_fields", "infer_json_fields"]
