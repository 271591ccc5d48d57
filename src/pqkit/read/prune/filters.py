"""Row filters: DNF predicates, pruning by statistics and page index, and exact evaluation.

A filter is in disjunctive normal form as in pyarrow: a list of
``(column, op, value)`` tuples (all must hold) or a list of such lists (any
may hold). ``op`` is one of ``== = != < <= > >= in not in``, or ``intersects`` with a
box ``(xmin, ymin, xmax, ymax)`` on a GEOMETRY / GEOGRAPHY column
(:mod:`pqkit.read.prune.spatial`); ``column`` is a top-level name or a dotted path to
a non-repeated leaf, or ``"v:$.a.b"``, a field path inside the VARIANT column ``v``
(:mod:`pqkit.read.prune.variant_paths`). As in pyarrow, nulls
match only ``not in`` (``("city", "not in", ["a"])`` keeps the rows whose city is
null), and a value of another kind than the column's (``("id", "==", "abc")`` on
an integer column, ``("city", "in", [5])`` on a string one) is a SchemaError,
raised before anything is read (:func:`check_values`).

Pruning is sound: a row group or page is skipped only when its bounds prove
that no row can match. Bounds are compared in the column's logical domain
(ints, floats, str, bytes, Decimal, date); columns of other types are never
pruned, only filtered exactly. ``!=`` and ``not in`` prune only where
min == max and nothing else (NaN, nulls) can hide in the page. Example::

    page bounds [10, 20]  ("x", "<", 5)     -> skip
    page bounds [10, 20]  ("x", "in", [15]) -> read, then keep the rows equal to 15
"""
import datetime
import decimal
import math
import numbers
import struct

import numpy as np

from pqkit import datatypes as T
from pqkit.encodings.physical import struct_format
from pqkit.errors import ArgumentError, SchemaError
from pqkit.format import ConvertedType, Type
from pqkit.read.prune.spatial import INTERSECTS, box_mask, check_box, is_geo_node
from pqkit.read.prune.term_mask import term_mask
from pqkit.read.prune.variant_paths import (
    VariantTarget,
    is_variant_path,
    path_mask,
    resolve,
    split_variant_path,
)
from pqkit.schema.annotations import geo_params, is_geo_field
from pqkit.statistics import is_unsigned, legacy_bound

_OPS = {"==", "=", "!=", "<", "<=", ">", ">=", "in", "not in", INTERSECTS}


def normalize(filters):
    """DNF as a list of lists of (path tuple, op, value); validates operators."""
    if not filters:
        return None
    if isinstance(filters, str):
        raise ArgumentError(f"filters: {filters!r} is text; give [(column, op, value), ...] "
                            f"or pqkit.parse_filter(text)")
    if isinstance(filters[0], tuple) or (isinstance(filters[0], list) and filters[0]
                                         and isinstance(filters[0][0], str)):
        filters = [filters]
    out = []
    for conj in filters:
        terms = []
        for term in conj:
            if len(term) != 3:
                raise SchemaError(f"filter {term!r}: expected (column, op, value)")
            col, op, value = term
            op = op.lower() if isinstance(op, str) else op
            if op not in _OPS:
                raise SchemaError(f"filter {term!r}: unknown operator {op!r}")
            if op in ("in", "not in"):
                if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                    raise ArgumentError(f"filters: {term!r}: {op!r} takes a list of values, "
                                        f"not {type(value).__name__}")
                value = list(value)
            if isinstance(col, (list, tuple)):
                path = tuple(col)
            else:
                path = split_variant_path(str(col)) or tuple(str(col).split("."))
            terms.append((path, "==" if op == "=" else op, value))
        out.append(terms)
    return out


def filter_leaves(dnf, schema):
    """{path: leaf SchemaNode} for every filtered column (must be a non-repeated leaf)."""
    leaves = {}
    for conj in dnf:
        for term in conj:
            path = term[0]
            if is_variant_path(path):
                leaves[path] = resolve(path, schema)
                continue
            try:
                node = schema.column(path)
            except KeyError:
                raise SchemaError(f"filter column {'.'.join(path)!r} is not a leaf column of "
                                  f"the file") from None
            if node.max_repetition_level:
                raise SchemaError(f"filter column {node.dotted_path!r} is repeated; filters "
                                  "apply to one value per row")
            if term[1] == INTERSECTS:
                if not is_geo_node(node):
                    raise SchemaError(f"filter {term!r}: intersects needs a GEOMETRY or "
                                      f"GEOGRAPHY column, {node.dotted_path!r} is not one")
                check_box(term)
            leaves[path] = node
    return leaves


# --- bounds --------------------------------------------------------------------------------
def bound_decoder(node):
    """A function PLAIN bound bytes -> comparable Python value, or None (no pruning);
    for a variant path, that of its shredded leaf."""
    if isinstance(node, VariantTarget):
        return None if node.typed is None else bound_decoder(node.typed)
    physical = Type(node.physical_type)
    lt, ct = node.logical_type, node.converted_type
    scale = None
    if lt is not None and lt.DECIMAL is not None:
        scale = lt.DECIMAL.scale
    elif ct == ConvertedType.DECIMAL:
        scale = node.element.scale or 0
    is_date = (lt is not None and lt.DATE is not None) or ct == ConvertedType.DATE
    code = struct_format(physical, is_unsigned(node))
    if code is not None:
        if scale is not None:
            return lambda raw: decimal.Decimal(struct.unpack(code, raw)[0]).scaleb(-scale)
        if is_date:
            return lambda raw: datetime.date(1970, 1, 1) + \
                datetime.timedelta(days=struct.unpack(code, raw)[0])
        if lt is not None and (lt.TIMESTAMP is not None or lt.TIME is not None):
            return None
        if ct in (ConvertedType.TIMESTAMP_MILLIS, ConvertedType.TIMESTAMP_MICROS,
                  ConvertedType.TIME_MILLIS, ConvertedType.TIME_MICROS):
            return None
        return lambda raw: struct.unpack(code, raw)[0]
    if physical == Type.BOOLEAN:
        return lambda raw: bool(raw[0])
    if physical in (Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY):
        if scale is not None:
            return lambda raw: decimal.Decimal(int.from_bytes(raw, "big", signed=True)) \
                .scaleb(-scale)
        if lt is not None and lt.STRING is not None or ct == ConvertedType.UTF8:
            return lambda raw: raw.decode("utf-8", "surrogateescape")
        if lt is None and ct is None:
            return bytes
    return None


def _comparable(value, sample):
    """``value`` in the bound's domain, or None when they cannot be compared."""
    if isinstance(sample, bool) != isinstance(value, bool):
        return None
    if isinstance(sample, (int, float, decimal.Decimal)) and \
            isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool):
        return value
    if type(sample) is type(value):
        return value
    if isinstance(sample, str) and isinstance(value, str):
        return value
    return None


def may_match(op, value, lo, hi, exact_single=False):
    """False only when no value within [lo, hi] can satisfy ``x op value``.

    ``exact_single``: the page holds only values equal to lo == hi (no nulls or NaN
    that could satisfy != / not in).
    """
    try:
        if op in ("in", "not in"):
            vals = [_comparable(v, lo) for v in value]
            if any(v is None for v in vals):
                return True
            if op == "in":
                return any(lo <= v <= hi for v in vals)
            return not (exact_single and lo == hi and all(v == lo for v in vals))
        v = _comparable(value, lo)
        if v is None:
            return True
        if op == "==":
            return lo <= v <= hi
        if op == "!=":
            return not (exact_single and lo == hi == v)
        if op == "<":
            return lo < v
        if op == "<=":
            return lo <= v
        if op == ">":
            return hi > v
        if op == ">=":
            return hi >= v
    except TypeError:
        return True
    return True


def term_may_match(term, decode, min_raw, max_raw, null_count, num_values, is_float):
    """Pruning verdict for one predicate over one chunk or page."""
    _, op, value = term
    if num_values is not None and null_count is not None:
        if null_count > num_values or null_count < 0:
            return True                      # an impossible count says nothing
        if null_count == num_values:
            return op == "not in"            # only nulls: they match `not in` alone
    if decode is None or min_raw is None or max_raw is None:
        return True
    try:
        lo, hi = decode(bytes(min_raw)), decode(bytes(max_raw))
    except (struct.error, ValueError, OverflowError):
        return True
    if _is_nan(lo) or _is_nan(hi):
        return True                          # NaN is never a bound: ignore them
    single = (null_count == 0) and not is_float
    return may_match(op, value, lo, hi, single)


def _is_nan(bound):
    return isinstance(bound, float) and math.isnan(bound)


# --- exact evaluation ------------------------------------------------------------------------
def row_mask(table, dnf):
    """Boolean mask of the rows of ``table`` that satisfy ``dnf`` (nulls never match)."""
    result = np.zeros(table.num_rows, np.bool_)
    for conj in dnf:
        mask = np.ones(table.num_rows, np.bool_)
        for path, op, value in conj:
            if is_variant_path(path):
                mask &= path_mask(table.column(path[0]), path, op, value, PY_OPS[op])
                continue
            if op == INTERSECTS:
                mask &= box_mask(_column_at(table, path), (path, op, value),
                                 _spherical(table, path))
                continue
            mask &= _term_mask(_column_at(table, path), op, value)
        result |= mask
    return result


def _spherical(table, path):
    """Whether the WKB column at ``path`` is a GEOGRAPHY with great-circle edges (its
    field says so, as the reader marks it)."""
    field = table.field(path[0])
    for name in path[1:]:
        field = next(f for f in field.type.fields if f.name == name)
    return is_geo_field(field) and geo_params(field)[1] == "spherical"


def _column_at(table, path):
    col = table.column(path[0])
    for name in path[1:]:
        col = col.field(name)
    return col


def _term_mask(col, op, value):
    fast = term_mask(col, op, value)
    if fast is not None:
        return fast
    values = col.to_pylist()
    valid = np.fromiter((v is not None for v in values), np.bool_, len(values))
    out = np.zeros(len(values), np.bool_) if op != "not in" else ~valid
    test = PY_OPS[op]
    for i, v in enumerate(values):
        if valid[i]:
            try:
                out[i] = bool(test(v, value))
            except TypeError:
                raise SchemaError(f"filter value {value!r} cannot be compared with "
                                  f"{type(v).__name__} values") from None
    return out


PY_OPS = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "in": lambda a, b: a in b, "not in": lambda a, b: a not in b,
}


def chunk_statistics(chunk, node, ordered):
    """(min, max, null_count, num_values) of a column chunk's statistics as PLAIN bytes,
    or None when it has none. ``min_value``/``max_value`` count only when the footer
    declares the leaf's order (``ordered``: see
    :func:`pqkit.read.fetch.metadata.declares_order`); the deprecated min/max only
    where trustworthy."""
    md = chunk.meta_data
    st = md.statistics if md is not None else None
    if st is None:
        return None
    lo = st.min_value if ordered and st.min_value is not None else legacy_bound(st.min, node)
    hi = st.max_value if ordered and st.max_value is not None else legacy_bound(st.max, node)
    return lo, hi, st.null_count, md.num_values


def chunk_may_match(chunk, node, term, decode, ordered):
    """Whether a column chunk's statistics leave room for rows matching ``term``
    (True when it has none); ``decode`` is :func:`bound_decoder` of ``node``,
    ``ordered`` whether the footer declares its sort order."""
    stats = chunk_statistics(chunk, node, ordered)
    if stats is None:
        return True
    is_float = Type(node.physical_type) in (Type.FLOAT, Type.DOUBLE)
    return term_may_match(term, decode, *stats, is_float)


# --- value kinds -----------------------------------------------------------------------------
_NUMBERS = (numbers.Number, np.number)
_KINDS = [
    # (column data types, filter value classes, what the message calls them)
    (T.BooleanType, (bool, np.bool_), "bool"),
    ((T.IntegerType, T.FloatingType, T.DecimalType), _NUMBERS, "number"),
    (T.BinaryType, (bytes, bytearray, memoryview, str), "bytes"),
    (T.StringType, (str,), "str"),
    (T.FixedSizeBinaryType, (bytes, bytearray, memoryview), "bytes"),
    (T.TimestampType, (datetime.datetime, np.datetime64), "datetime"),
    ((T.Date32Type, T.Date64Type), (datetime.date, np.datetime64), "date"),
    ((T.Time32Type, T.Time64Type), (datetime.time,), "time"),
    (T.DurationType, (datetime.timedelta, np.timedelta64), "timedelta"),
]


def _kind(type_):
    if isinstance(type_, T.DictionaryType):
        type_ = type_.value_type
    for types, classes, name in _KINDS:
        if isinstance(type_, types):
            return classes, name
    return None, None


def check_values(table, dnf):
    """Raise SchemaError when a filter value cannot be compared with its column's values.

    ``table`` holds the filtered columns (an empty read gives their types); numbers
    compare with any numeric column, bools only with bool columns.
    """
    for conj in dnf:
        for path, op, value in conj:
            if op == INTERSECTS or is_variant_path(path):   # boxes: checked by filter_leaves;
                continue                                     # variants hold any kind
            col = _column_at(table, path)
            classes, name = _kind(col.type)
            if classes is None:
                continue
            for v in (value if op in ("in", "not in") else [value]):
                wrong = v is not None and (not isinstance(v, classes) or (
                    name == "number" and isinstance(v, (bool, np.bool_))))
                if wrong:
                    raise SchemaError(
                        f"filter ({'.'.join(path)!r}, {op!r}, {value!r}): {v!r} is a "
                        f"{type(v).__name__}, the column holds {col.type} values "
                        f"(give a {name})")
