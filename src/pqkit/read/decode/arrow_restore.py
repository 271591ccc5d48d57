"""Restore the Arrow types a writer recorded in the ``ARROW:schema`` footer entry.

Parquet has no type for some Arrow types, so Arrow-based writers store the
nearest Parquet type plus the original Arrow schema. Reading applies the
recorded type where the stored values allow it, as pyarrow does:

==============================  ==================================  =====================
stored (Parquet read as)        recorded Arrow type                 restored by
==============================  ==================================  =====================
timestamp[ms/us/ns, UTC]        timestamp[any unit, tz=NAME]        tz label only
int64                           duration[unit]                      relabel
date32                          date64                              days * 86,400,000
time32[ms]                      time32[s]                           / 1000
string / binary                 large_string / large_binary         relabel
list<T>                         large_list<T>, fixed_size_list<T>   relabel / regroup
dictionary<int32, string>       dictionary<any index, string>       value type restored
==============================  ==================================  =====================

A timestamp keeps the unit the file stores (pyarrow reads a recorded
timestamp[s] as timestamp[ms], and a coerced or INT96 column in the unit
Parquet gives it); only a UTC-adjusted one takes the recorded time zone.
Nested types are restored field by field; where the two disagree in shape the
column is kept as read. A column read plain (dictionary fallback) stays plain
even where the recorded type is a dictionary: its values are the same.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn
from pqkit.columnar.nested import (
    DictionaryColumn,
    FixedSizeListColumn,
    ListColumn,
    MapColumn,
    StructColumn,
    nulls,
)
from pqkit.convert.casts import dictionary_encoded
from pqkit.errors import CorruptFileError
from pqkit.schema.arrow_read import UnsupportedArrowType, decode_arrow_schema

_SCALE = {"s": 1, "ms": 1000, "us": 10**6, "ns": 10**9}
_MS_PER_DAY = 86_400_000


class ArrowTypes:
    """The recorded top-level Arrow fields of a file, by name (empty when none)."""

    def __init__(self, fields):
        self.fields = fields

    @classmethod
    def from_metadata(cls, kv):
        """Decode ``ARROW:schema`` from key/value metadata; a malformed entry is ignored,
        as other readers do, since the Parquet schema alone still describes the data."""
        value = (kv or {}).get("ARROW:schema")
        if not value:
            return cls({})
        try:
            schema = decode_arrow_schema(value)
        except CorruptFileError:
            return cls({})
        names = [f.name for f in schema.fields]
        return cls({f.name: f for f in schema.fields if names.count(f.name) == 1})

    def restore(self, field, column):
        """(Field, Column) with the recorded type of the top-level ``field`` applied.

        Dictionary-encoded chunks are decoded to their values unless the writer
        recorded a dictionary type (so types match what pyarrow reads).
        """
        target = self.fields.get(field.name)
        if target is None:
            column = decode_dictionaries(column)
            return T.Field(field.name, column.type, field.nullable, field.metadata), column
        column = _restore(column, target.type)
        nullable = target.nullable or not column.null_count
        return T.Field(field.name, column.type, nullable, target.metadata or field.metadata), \
            column


def decode_dictionaries(col):
    """``col`` with every dictionary column inside it decoded to plain values."""
    if isinstance(col, DictionaryColumn):
        return col.decode()
    if isinstance(col, ListColumn):
        child = decode_dictionaries(col.child)
        if child is col.child:
            return col
        item = T.Field(col.type.value_field.name, child.type, col.type.value_field.nullable)
        return ListColumn(T.ListType(item, col.type.large), col.offsets, child, col.validity)
    if isinstance(col, StructColumn):
        children = [decode_dictionaries(c) for c in col.children]
        if all(a is b for a, b in zip(children, col.children)):
            return col
        fields = [T.Field(f.name, c.type, f.nullable, f.metadata)
                  for f, c in zip(col.type.fields, children)]
        return StructColumn(T.struct(fields), children, col.validity, length=len(col))
    if isinstance(col, MapColumn):
        keys, items = decode_dictionaries(col.keys), decode_dictionaries(col.items)
        if keys is col.keys and items is col.items:
            return col
        typ = T.map_(T.Field(col.type.key_field.name, keys.type, False),
                     T.Field(col.type.item_field.name, items.type, col.type.item_field.nullable))
        return MapColumn(typ, col.offsets, keys, items, col.validity)
    return col


def _restore(col, target):
    """``col`` as ``target`` where the values allow it, else ``col`` unchanged."""
    if isinstance(col, DictionaryColumn) and not isinstance(target, T.DictionaryType):
        col = col.decode()
    if isinstance(target, UnsupportedArrowType):
        return decode_dictionaries(col)
    if col.type == target:
        return col
    try:
        fn = _RESTORERS.get(type(target))
        return decode_dictionaries(col) if fn is None else fn(col, target)
    except (ValueError, TypeError):
        return decode_dictionaries(col)


def _timestamp(col, target):
    if not isinstance(col.type, T.TimestampType) or not isinstance(col, PrimitiveColumn):
        return col
    if col.type.tz != "UTC" or not target.tz:
        return col
    return PrimitiveColumn(T.timestamp(col.type.unit, target.tz), col.values, col.validity)


def _rescale(values, unit, to):
    have, want = _SCALE[unit], _SCALE[to]
    if have == want:
        return values
    if want > have:
        return values * (want // have)
    return values // (have // want)


def _duration(col, target):
    if isinstance(col, PrimitiveColumn) and col.values.dtype == np.int64:
        return PrimitiveColumn(target, col.values, col.validity)
    return col


def _date64(col, target):
    if isinstance(col.type, T.Date32Type):
        return PrimitiveColumn(target, col.values.astype(np.int64) * _MS_PER_DAY, col.validity)
    return col


def _time32(col, target):
    if isinstance(col.type, T.Time32Type):
        values = _rescale(col.values.astype(np.int64), col.type.unit, target.unit)
        return PrimitiveColumn(target, values.astype(np.int32), col.validity)
    return col


def _binary(col, target):
    if isinstance(col, BinaryColumn) and isinstance(col.type, T.BinaryType) == \
            isinstance(target, T.BinaryType):
        return BinaryColumn._checked(target, col.offsets, col.data, col.validity)
    if isinstance(col, DictionaryColumn):
        return _binary(col.decode(), target)
    return col


def _dictionary(col, target):
    if isinstance(col, DictionaryColumn):
        values = _restore(col.dictionary, target.value_type)
        typ = T.dictionary(col.type.index_type, values.type, target.ordered)
        return DictionaryColumn(typ, col.indices, values, col.validity)
    values = _restore(col, target.value_type)
    if values.type != target.value_type or not isinstance(values.type, T.StringType):
        return values
    # Text read from dictionary pages stays dictionary-encoded (read.leaf); a text
    # chunk the writer stored plain (a dictionary grown too large, or no rows at all)
    # is encoded here, so that every row group, and an empty read, has the type of the
    # others: a stream's batches must all have the schema it announced.
    return dictionary_encoded(values, T.dictionary(T.int32(), values.type, target.ordered))


def _list(col, target):
    if not isinstance(col, ListColumn):
        return decode_dictionaries(col)
    child = _restore(col.child, target.value_type)
    item = T.Field(target.value_field.name, child.type, target.value_field.nullable or
                   bool(child.null_count), target.value_field.metadata)
    return ListColumn(T.ListType(item, large=target.large), col.offsets, child, col.validity)


def _fixed_size_list(col, target):
    if not isinstance(col, ListColumn):
        return decode_dictionaries(col)
    size, n = target.list_size, len(col)
    lengths = np.diff(col.offsets)
    valid = col.valid_mask()
    if np.any(lengths[valid] != size):
        return decode_dictionaries(col)
    child = _restore(col.child, target.value_type)
    if size == 0:
        child = child.slice(0, 0)
    elif len(child):
        # Null rows hold no elements in Parquet; Arrow keeps `size` slots for them.
        idx = np.repeat(np.where(valid, col.offsets[:-1], 0), size) + np.tile(np.arange(size), n)
        idx[np.repeat(~valid, size)] = 0
        child = child.take(idx)
    else:
        child = nulls(child.type, n * size)
    item = T.Field(target.value_field.name, child.type, target.value_field.nullable or
                   bool(child.null_count), target.value_field.metadata)
    return FixedSizeListColumn(T.fixed_size_list(item, size), child, col.validity, length=n)


def _struct(col, target):
    if not isinstance(col, StructColumn):
        return decode_dictionaries(col)
    by_name = {f.name: f for f in target.fields}
    fields, children = [], []
    for f, child in zip(col.type.fields, col.children):
        want = by_name.get(f.name)
        child = decode_dictionaries(child) if want is None else _restore(child, want.type)
        fields.append(T.Field(f.name, child.type, f.nullable, want.metadata if want else
                              f.metadata))
        children.append(child)
    return StructColumn(T.struct(fields), children, col.validity, length=len(col))


def _map(col, target):
    if not isinstance(col, MapColumn):
        # a map read without its keys or values is a list of key_value structs, which
        # no recorded type describes: its text comes back plain, as everywhere else
        return decode_dictionaries(col)
    keys = _restore(col.keys, target.key_type)
    items = _restore(col.items, target.item_type)
    typ = T.map_(T.Field(target.key_field.name, keys.type, False),
                 T.Field(target.item_field.name, items.type, col.type.item_field.nullable),
                 target.keys_sorted)
    return MapColumn(typ, col.offsets, keys, items, col.validity)


_RESTORERS = {
    T.TimestampType: _timestamp,
    T.DurationType: _duration,
    T.Date64Type: _date64,
    T.Time32Type: _time32,
    T.StringType: _binary,
    T.BinaryType: _binary,
    T.DictionaryType: _dictionary,
    T.ListType: _list,
    T.FixedSizeListType: _fixed_size_list,
    T.StructType: _struct,
    T.MapType: _map,
}
