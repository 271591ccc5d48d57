"""The two conversions every path ends in, and the nested types that recurse into them.

:func:`build_column` makes a column of a given type from Python values; :func:`cast`
makes one column into another type. They call each other: a list of numpy scalars is
built as its numpy column and cast, and a cast with no vectorized path goes through
the column's Python values. Lists, fixed-size lists, structs and maps build (or cast)
their children with the same two functions and re-raise a child's :class:`BadValue`
at their own row.
"""
from collections.abc import Mapping
from itertools import chain, repeat

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, NullColumn, PrimitiveColumn
from pqkit.columnar.nested import (
    DictionaryColumn,
    FixedSizeListColumn,
    ListColumn,
    MapColumn,
    StructColumn,
    nulls,
)
from pqkit.convert.casts import cast_binary, cast_primitive, dictionary_encoded
from pqkit.convert.common import (
    BadValue,
    allow_kinds,
    fill_nulls,
    in_lists,
    numpy_only,
    offsets_of,
    validity_of,
    value_classes,
)
from pqkit.convert.flat_builders import FLAT_BUILDERS
from pqkit.convert.numpy_columns import numpy_scalars_column
from pqkit.errors import SchemaError


def build_column(values, t):
    """A column of type ``t`` from a list of Python values (None is null); raises BadValue."""
    values, classes = value_classes(values)
    if not t.fields and numpy_only(classes):
        return cast(numpy_scalars_column(values), t)
    if isinstance(t, T.DictionaryType):
        return dictionary_encoded(build_column(values, t.value_type), t)
    builder = _BUILDERS.get(type(t))
    if builder is None:
        raise SchemaError(f"cannot build a column of type {t}")
    return builder(values, classes, t)


def _list(values, classes, t):
    allow_kinds(values, classes, t, {"list"}, "a list or tuple")
    _, validity = validity_of(values)
    filled = fill_nulls(values, ())
    offsets = offsets_of(np.fromiter(map(len, filled), np.int64, len(filled)))
    try:
        child = build_column(list(chain.from_iterable(filled)), t.value_type)
    except BadValue as err:
        raise in_lists(err, offsets) from None
    return ListColumn(t, offsets, child, validity)


def _fixed_list(values, classes, t):
    allow_kinds(values, classes, t, {"list"}, "a list or tuple")
    _, validity = validity_of(values)
    size = t.list_size
    for i, v in enumerate(values):
        if v is not None and len(v) != size:
            raise BadValue(i, v, t, f"{len(v)} values, expected {size}")
    # A null row still takes ``size`` (null) slots of the child.
    flat = list(chain.from_iterable(repeat(None, size) if v is None else v for v in values))
    try:
        child = build_column(flat, t.value_type)
    except BadValue as err:
        raise err.at(err.row // size, f"[{err.row % size}]") from None
    return FixedSizeListColumn(t, child, validity, len(values))


def _struct(values, classes, t):
    kinds = allow_kinds(values, classes, t, {"dict", "list"}, "a dict")
    _, validity = validity_of(values)
    names = t.names
    if "list" in kinds:                    # tuples are records in field order, as in pyarrow
        values = list(values)
        for i, v in enumerate(values):
            if v is not None and not isinstance(v, Mapping):
                if len(v) != len(names):
                    raise BadValue(i, v, t, f"{len(v)} values for {len(names)} fields")
                values[i] = dict(zip(names, v))
    known = set(names)
    for i, v in enumerate(values):
        if v is not None and not known.issuperset(v):
            key = next(k for k in v if k not in known)
            raise BadValue(i, v, t, f"key {key!r} is not a field of the struct")
    children = []
    for f in t.fields:
        try:
            children.append(build_column([None if v is None else v.get(f.name)
                                          for v in values], f.type))
        except BadValue as err:
            raise err.at(err.row, f"[{f.name!r}]") from None
    return StructColumn(t, children, validity, len(values))


def _map(values, classes, t):
    allow_kinds(values, classes, t, {"dict", "list"}, "a dict or a list of (key, value) pairs")
    _, validity = validity_of(values)
    rows = [() if v is None else list(v.items()) if isinstance(v, Mapping) else v
            for v in values]
    offsets = offsets_of(np.fromiter(map(len, rows), np.int64, len(rows)))
    flat = list(chain.from_iterable(rows))
    for j, pair in enumerate(flat):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise in_lists(BadValue(j, pair, t, "not a (key, value) pair"), offsets)
        if pair[0] is None:
            raise in_lists(BadValue(j, pair, t, "map keys cannot be null"), offsets)
    try:
        keys = build_column([p[0] for p in flat], t.key_type)
    except BadValue as err:
        raise in_lists(err, offsets, "[0]") from None
    try:
        items = build_column([p[1] for p in flat], t.item_type)
    except BadValue as err:
        raise in_lists(err, offsets, "[1]") from None
    return MapColumn(t, offsets, keys, items, validity)


_BUILDERS = {**FLAT_BUILDERS, T.ListType: _list, T.FixedSizeListType: _fixed_list,
             T.StructType: _struct, T.MapType: _map}


def cast(col, t):
    """``col`` as type ``t``: numpy casts where there is one, else through Python values."""
    if col.type == t:
        return col
    if isinstance(t, T.DictionaryType):
        if isinstance(col, DictionaryColumn):
            col = col.decode()
        return dictionary_encoded(cast(col, t.value_type), t)
    if isinstance(col, DictionaryColumn):
        return cast(col.decode(), t)
    out = None
    if isinstance(col, NullColumn):
        out = nulls(t, len(col))
    elif isinstance(col, PrimitiveColumn):
        out = cast_primitive(col, t)
    elif isinstance(col, BinaryColumn) and isinstance(t, T.StringType):
        out = cast_binary(col, t)
    elif isinstance(col, (ListColumn, StructColumn)):
        out = _cast_nested(col, t)
    return out if out is not None else build_column(col.to_pylist(), t)


def _cast_nested(col, t):
    if isinstance(col, ListColumn) and isinstance(t, (T.ListType, T.FixedSizeListType)):
        child, offsets = col.child, col.offsets
        if isinstance(t, T.FixedSizeListType):
            if (np.diff(offsets) != t.list_size).any():
                return None                # null rows need size slots: go through values
            child = col.flatten()
            offsets = offsets - offsets[0]
        try:
            child = cast(child, t.value_type)
        except BadValue as err:
            raise in_lists(err, offsets) from None
        if isinstance(t, T.FixedSizeListType):
            return FixedSizeListColumn(t, child, col.validity, len(col))
        return ListColumn(t, offsets, child, col.validity)
    if isinstance(col, StructColumn) and isinstance(t, T.StructType) and \
            col.type.names == t.names:
        children = []
        for f, c in zip(t.fields, col.children):
            try:
                children.append(cast(c, f.type))
            except BadValue as err:
                raise err.at(err.row, f"[{f.name!r}]") from None
        return StructColumn(t, children, col.validity, len(col))
    return None
