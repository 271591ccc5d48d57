"""Columns over child columns: lists, fixed-size lists, structs, maps, dictionaries.

A list column is int64 offsets into one child column; row ``i`` is the child's
rows ``offsets[i]:offsets[i + 1]``. A map column is the same with two children
of equal length, keys (never null) and items. A struct column has one child per
field, each as long as the struct. For ``[{"a": 1, "b": [2, 3]}, None]`` of type
``struct<a: int64, b: list<item: int64>>``::

    struct validity = [True, False]
      a: values = [1, 0]               (slot under the null struct: anything)
      b: offsets = [0, 2, 2]  child values = [2, 3]

``to_pylist()`` of a list gives lists, of a struct dicts, of a map lists of
``(key, item)`` tuples, with None for null rows at every level, as pyarrow does.
A dictionary column is indices into a dictionary column of any type and reads
as the dictionary's values; ``decode()`` materialises them.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit._native.pyobjects import list_rows, struct_rows
from pqkit.columnar import pyvalues as pv
from pqkit.columnar import to_pandas
from pqkit.columnar.column import (
    BinaryColumn,
    Column,
    NullColumn,
    PrimitiveColumn,
    as_offsets,
    concat_columns,
    concat_validity,
    gather_ranges,
)
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn, _storage_width
from pqkit.errors import SchemaError


def _check_child(child, type_, what):
    if not isinstance(child, Column):
        raise SchemaError(f"{what} must be a Column, got {type(child).__name__}")
    if child.type != type_:
        raise SchemaError(f"{what} has type {child.type}, expected {type_}")


def _split(values, offsets):
    rel = (offsets - offsets[0]).tolist()
    return [values[rel[i]:rel[i + 1]] for i in range(len(rel) - 1)]


def _rebased(columns):
    """Offsets of ``columns`` (each with offsets) rebased to follow one another."""
    parts, base = [np.zeros(1, np.int64)], 0
    for c in columns:
        o0, o1 = int(c.offsets[0]), int(c.offsets[-1])
        parts.append(c.offsets[1:] - o0 + base)
        base += o1 - o0
    return np.concatenate(parts)


def _take_ranges(offsets, idx):
    """New offsets and child positions for the list rows ``idx``."""
    starts = offsets[idx]
    lengths = offsets[idx + 1] - starts
    new = np.zeros(len(idx) + 1, np.int64)
    np.cumsum(lengths, out=new[1:])
    return new, gather_ranges(starts, lengths)


class ListColumn(Column):
    """``list`` / ``large_list``: offsets into a child column.

    Parameters
    ----------
    type : ListType
    offsets : numpy.ndarray of int
        ``length + 1`` non-decreasing positions into ``child`` (stored as int64).
    child : Column
        Of type ``type.value_type``; may be longer than the rows used.
    validity : numpy.ndarray of bool, optional
    """

    __slots__ = ("offsets", "child")

    def __init__(self, type, offsets, child, validity=None):
        if not isinstance(type, T.ListType):
            raise SchemaError(f"type {type} is not a list type")
        _check_child(child, type.value_type, f"{type} child")
        self.offsets = as_offsets(offsets, len(child), str(type))
        self.child = child
        self._init_common(type, len(self.offsets) - 1, validity)

    def _buffers(self):
        return (self.offsets,) + tuple(self.child._buffers())

    def flatten(self):
        """The child rows the lists use, ``child[offsets[0]:offsets[-1]]``."""
        return self.child._slice(int(self.offsets[0]), int(self.offsets[-1]))

    def value_lengths(self):
        return np.diff(self.offsets)

    def _slice(self, start, stop):
        return ListColumn(self.type, self.offsets[start:stop + 1], self.child,
                          self._slice_validity(start, stop))

    def _take(self, idx):
        offsets, pos = _take_ranges(self.offsets, idx)
        return ListColumn(self.type, offsets, self.child._take(pos), self._take_validity(idx))

    def _pandas_array(self, pd, strings, take):
        return to_pandas.list_arrays(pd, self.flatten(), self.offsets, self.validity)

    def _object_rows(self, as_array):
        return list_rows(self.flatten()._object_rows(False), self.offsets, self.validity,
                         as_array)

    def to_pylist(self):
        return pv.apply_nulls(_split(self.flatten().to_pylist(), self.offsets), self.validity)

    def _values_equal(self, other, mask):
        idx = np.flatnonzero(mask)
        a, b = self._take(idx), other._take(idx)
        return np.array_equal(a.offsets, b.offsets) and a.child.equals(b.child)

    @classmethod
    def _concat(cls, columns):
        child = concat_columns([c.flatten() for c in columns])
        return cls(columns[0].type, _rebased(columns), child, concat_validity(columns))


class FixedSizeListColumn(Column):
    """``fixed_size_list<...>[size]``: row ``i`` is child rows ``i*size:(i+1)*size``.

    Parameters
    ----------
    type : FixedSizeListType
    child : Column
        Exactly ``length * size`` rows of ``type.value_type``.
    validity : numpy.ndarray of bool, optional
    length : int, optional
        Needed only when ``size`` is 0.
    """

    __slots__ = ("child",)

    def __init__(self, type, child, validity=None, length=None):
        if not isinstance(type, T.FixedSizeListType):
            raise SchemaError(f"type {type} is not a fixed_size_list type")
        _check_child(child, type.value_type, f"{type} child")
        size = type.list_size
        if length is None:
            if size == 0:
                if validity is None:
                    raise SchemaError(f"{type} needs an explicit length")
                length = len(validity)
            else:
                length = len(child) // size
        if int(length) < 0 or len(child) != int(length) * size:
            raise SchemaError(f"{type} child has {len(child)} rows, expected "
                              f"{length} * {size}")
        self.child = child
        self._init_common(type, length, validity)

    def _buffers(self):
        return tuple(self.child._buffers())

    def _slice(self, start, stop):
        size = self.type.list_size
        return FixedSizeListColumn(self.type, self.child._slice(start * size, stop * size),
                                   self._slice_validity(start, stop), stop - start)

    def _take(self, idx):
        size = self.type.list_size
        pos = (idx[:, None] * size + np.arange(size, dtype=np.int64)).ravel()
        return FixedSizeListColumn(self.type, self.child._take(pos),
                                   self._take_validity(idx), len(idx))

    def _pandas_array(self, pd, strings, take):
        offsets = np.arange(len(self) + 1, dtype=np.int64) * self.type.list_size
        return to_pandas.list_arrays(pd, self.child, offsets, self.validity)

    def _object_rows(self, as_array):
        offsets = np.arange(len(self) + 1, dtype=np.int64) * self.type.list_size
        return list_rows(self.child._object_rows(False), offsets, self.validity, as_array)

    def to_pylist(self):
        size = self.type.list_size
        values = self.child.to_pylist()
        out = [values[i:i + size] for i in range(0, self._length * size, size)] if size \
            else [[] for _ in range(self._length)]
        return pv.apply_nulls(out, self.validity)

    def _values_equal(self, other, mask):
        idx = np.flatnonzero(mask)
        return self._take(idx).child.equals(other._take(idx).child)

    @classmethod
    def _concat(cls, columns):
        child = concat_columns([c.child for c in columns])
        return cls(columns[0].type, child, concat_validity(columns),
                   sum(len(c) for c in columns))


class StructColumn(Column):
    """``struct<...>``: one child column per field, each ``length`` rows long.

    Parameters
    ----------
    type : StructType
    children : list of Column
        In field order, typed as the fields.
    validity : numpy.ndarray of bool, optional
    length : int, optional
        Needed only when there are no fields.
    """

    __slots__ = ("children",)

    def __init__(self, type, children, validity=None, length=None):
        if not isinstance(type, T.StructType):
            raise SchemaError(f"type {type} is not a struct type")
        children = list(children)
        if len(children) != len(type.fields):
            raise SchemaError(f"{type} has {len(type.fields)} fields but {len(children)} "
                              f"children were given")
        for f, c in zip(type.fields, children):
            _check_child(c, f.type, f"struct field {f.name!r}")
        if length is None:
            if children:
                length = len(children[0])
            elif validity is not None:
                length = len(validity)
            else:
                raise SchemaError(f"{type} needs an explicit length")
        for f, c in zip(type.fields, children):
            if len(c) != length:
                raise SchemaError(f"struct field {f.name!r} has {len(c)} rows, expected "
                                  f"{length}")
        self.children = children
        self._init_common(type, length, validity)

    def _buffers(self):
        return tuple(b for c in self.children for b in c._buffers())

    def field(self, key):
        """The child column for a field name or position."""
        if isinstance(key, str):
            names = self.type.names
            if key not in names:
                raise KeyError(f"struct has no field {key!r} (fields: {names})")
            key = names.index(key)
        return self.children[key]

    def flatten(self):
        """The child columns, each null where this struct is null (pyarrow's
        ``StructArray.flatten()``); :meth:`field` gives them as stored."""
        if self.validity is None:
            return list(self.children)
        return [c._with_validity(self.validity if c.validity is None
                                 else self.validity & c.validity) for c in self.children]

    def _slice(self, start, stop):
        return StructColumn(self.type, [c._slice(start, stop) for c in self.children],
                            self._slice_validity(start, stop), stop - start)

    def _take(self, idx):
        return StructColumn(self.type, [c._take(idx) for c in self.children],
                            self._take_validity(idx), len(idx))

    def _pandas_array(self, pd, strings, take):
        return to_pandas.nested_array(self)

    def _object_rows(self, as_array):
        if not self.type.names:
            return super()._object_rows(as_array)
        children = [_struct_field_values(c) for c in self.children]
        return struct_rows(tuple(self.type.names), children, len(self), self.validity,
                           as_array)

    def to_pylist(self):
        names = self.type.names
        if not names:
            out = [{} for _ in range(self._length)]
        else:
            lists = [c.to_pylist() for c in self.children]
            out = [dict(zip(names, row)) for row in zip(*lists)]
        return pv.apply_nulls(out, self.validity)

    def _values_equal(self, other, mask):
        idx = np.flatnonzero(mask)
        return all(a._take(idx).equals(b._take(idx))
                   for a, b in zip(self.children, other.children))

    @classmethod
    def _concat(cls, columns):
        children = [concat_columns([c.children[i] for c in columns])
                    for i in range(len(columns[0].children))]
        return cls(columns[0].type, children, concat_validity(columns),
                   sum(len(c) for c in columns))


class MapColumn(Column):
    """``map<key, item>``: offsets into parallel key and item columns.

    Parameters
    ----------
    type : MapType
    offsets : numpy.ndarray of int
        ``length + 1`` non-decreasing positions into ``keys``/``items``.
    keys : Column
        Of ``type.key_type``, without nulls in the rows used.
    items : Column
        Of ``type.item_type``, as long as ``keys``.
    validity : numpy.ndarray of bool, optional
    """

    __slots__ = ("offsets", "keys", "items")

    def __init__(self, type, offsets, keys, items, validity=None):
        if not isinstance(type, T.MapType):
            raise SchemaError(f"type {type} is not a map type")
        _check_child(keys, type.key_type, f"{type} keys")
        _check_child(items, type.item_type, f"{type} items")
        if len(keys) != len(items):
            raise SchemaError(f"{type} has {len(keys)} keys but {len(items)} items")
        self.offsets = as_offsets(offsets, len(keys), str(type))
        o0, o1 = int(self.offsets[0]), int(self.offsets[-1])
        used = keys._slice(o0, o1)
        if used.null_count:
            row = o0 + int(np.argmin(used.valid_mask()))
            raise SchemaError(f"{type} key at child row {row} is null; map keys must not be null")
        self.keys = keys
        self.items = items
        self._init_common(type, len(self.offsets) - 1, validity)

    def _buffers(self):
        return (self.offsets,) + tuple(self.keys._buffers()) + tuple(self.items._buffers())

    def flatten(self):
        """``(keys, items)`` restricted to the rows the maps use."""
        o0, o1 = int(self.offsets[0]), int(self.offsets[-1])
        return self.keys._slice(o0, o1), self.items._slice(o0, o1)

    def value_lengths(self):
        return np.diff(self.offsets)

    def _slice(self, start, stop):
        return MapColumn(self.type, self.offsets[start:stop + 1], self.keys, self.items,
                         self._slice_validity(start, stop))

    def _take(self, idx):
        offsets, pos = _take_ranges(self.offsets, idx)
        return MapColumn(self.type, offsets, self.keys._take(pos), self.items._take(pos),
                         self._take_validity(idx))

    def to_pylist(self):
        keys, items = self.flatten()
        pairs = list(zip(keys.to_pylist(), items.to_pylist()))
        return pv.apply_nulls(_split(pairs, self.offsets), self.validity)

    def _values_equal(self, other, mask):
        idx = np.flatnonzero(mask)
        a, b = self._take(idx), other._take(idx)
        return (np.array_equal(a.offsets, b.offsets) and a.keys.equals(b.keys)
                and a.items.equals(b.items))

    @classmethod
    def _concat(cls, columns):
        flat = [c.flatten() for c in columns]
        keys = concat_columns([k for k, _ in flat])
        items = concat_columns([i for _, i in flat])
        return cls(columns[0].type, _rebased(columns), keys, items, concat_validity(columns))


class DictionaryColumn(Column):
    """Values as indices into a dictionary column; read back as the dictionary's values.

    Parameters
    ----------
    type : DictionaryType
    indices : numpy.ndarray
        1-D, of ``type.index_type.numpy_dtype``; every non-null index is in
        ``[0, len(dictionary))``.
    dictionary : Column
        Of type ``type.value_type``; a row whose index points at a null of the
        dictionary is a null row (its validity is cleared here).
    validity : numpy.ndarray of bool, optional
    """

    __slots__ = ("indices", "dictionary", "_zero_nulls")

    def __init__(self, type, indices, dictionary, validity=None):
        if not isinstance(type, T.DictionaryType):
            raise SchemaError(f"type {type} is not a dictionary type")
        idx = np.asarray(indices)
        if idx.dtype != type.index_type.numpy_dtype or idx.ndim != 1:
            raise SchemaError(f"{type} indices must be a 1-D {type.index_type.numpy_dtype} "
                              f"array, got {idx.dtype} with shape {idx.shape}")
        if not isinstance(dictionary, Column) or dictionary.type != type.value_type:
            got = dictionary.type if isinstance(dictionary, Column) else dictionary
            raise SchemaError(f"{type} needs a {type.value_type} dictionary, got {got}")
        self.indices = idx
        self.dictionary = dictionary
        self._zero_nulls = False
        self._init_common(type, len(idx), validity)
        used = idx if self.validity is None else idx[self.validity]
        if dictionary.null_count and used.size:
            # Arrow allows nulls in the dictionary itself: a row pointing at one is a null
            # row (Arrow's "logical" null), so it goes into the validity, where writers,
            # pandas and null counts look, rather than reading back as the value's zero.
            null_value = ~dictionary.valid_mask()
            in_range = (used >= 0) & (used < len(dictionary))
            if null_value[used[in_range]].any():
                valid = self.valid_mask().copy()
                safe = np.clip(idx, 0, len(dictionary) - 1)
                valid &= ~null_value[safe]
                self._init_common(type, len(idx), valid)
                used = idx[valid]
        if used.size and (used.min() < 0 or used.max() >= len(dictionary)):
            outside = (idx < 0) | (idx >= len(dictionary))
            row = int(np.argmax(outside & self.valid_mask()))
            bad = idx[row]
            raise SchemaError(f"dictionary index {int(bad)} at row {row} is outside the "
                              f"dictionary of {len(dictionary)} values")

    @classmethod
    def _checked(cls, type_, indices, dictionary, validity):
        """A column over int32 indices a pqkit decoder produced: each is below
        ``len(dictionary)`` (checked as it was decoded) and null slots hold 0, so
        neither needs a pass here."""
        out = cls.__new__(cls)
        out.indices, out.dictionary, out._zero_nulls = indices, dictionary, True
        out._init_common(type_, len(indices), validity)
        return out

    def _buffers(self):
        return (self.indices,) + tuple(self.dictionary._buffers())

    def _slice(self, start, stop):
        return DictionaryColumn(self.type, self.indices[start:stop], self.dictionary,
                                self._slice_validity(start, stop))

    def _take(self, idx):
        return DictionaryColumn(self.type, self.indices[idx], self.dictionary,
                                self._take_validity(idx))

    def decode(self):
        """The plain column of ``type.value_type``: the dictionary's rows at the indices."""
        if len(self.dictionary) == 0:
            return nulls(self.type.value_type, self._length)
        idx = self.indices if self._zero_nulls else pv.null_filled(self.indices, self.validity)
        d = self.dictionary
        if type(d) is BinaryColumn and d._gathered is None and len(idx) >= 2 * len(d):
            # Rows by reference to the distinct values, as BinaryColumn._take makes them,
            # on the indices themselves: the constructor checked them, null slots are 0.
            out = BinaryColumn._gather(d.type, d, idx, d._take_validity(idx))
        else:
            out = d._take(idx.astype(np.int64))
        if self.validity is None:
            return out
        return out._with_validity(self.validity if out.validity is None
                                  else self.validity & out.validity)

    def _pandas_array(self, pd, strings, take):
        return to_pandas.categorical(pd, self)

    def to_pylist(self):
        values = self.dictionary.to_pylist()
        if not values:
            return [None] * self._length
        idx = pv.null_filled(self.indices, self.validity).tolist()
        return pv.apply_nulls([values[i] for i in idx], self.validity)

    def _values_equal(self, other, mask):
        return self.decode()._values_equal(other.decode(), mask)

    @classmethod
    def _concat(cls, columns):
        first = columns[0]
        if all(c.dictionary is first.dictionary for c in columns):
            return cls(first.type, np.concatenate([c.indices for c in columns]),
                       first.dictionary, concat_validity(columns))
        dtype = first.type.index_type.numpy_dtype
        total = sum(len(c.dictionary) for c in columns)
        if total - 1 > np.iinfo(dtype).max:
            raise SchemaError(f"concatenated dictionaries hold {total} values, more than "
                              f"{first.type.index_type} indices can address")
        parts, base = [], 0
        for c in columns:
            parts.append((pv.null_filled(c.indices, c.validity).astype(np.int64) + base)
                         .astype(dtype))
            base += len(c.dictionary)
        dictionary = concat_columns([c.dictionary for c in columns])
        return cls(first.type, np.concatenate(parts), dictionary, concat_validity(columns))


def nulls(type, length):
    """A column of ``length`` nulls of any ``type`` (here because this module is the one
    that knows every kind of column)."""
    n = int(length)
    none = np.zeros(n, np.bool_)
    if isinstance(type, T.NullType):
        return NullColumn(n)
    if isinstance(type, T.DecimalType):
        return DecimalColumn(type, np.zeros(n, np.int64), none)
    if type.numpy_dtype is not None:
        return PrimitiveColumn(type, np.zeros(n, type.numpy_dtype), none)
    if isinstance(type, T.StringType):
        return BinaryColumn(type, np.zeros(n + 1, np.int64), np.zeros(0, np.uint8), none)
    if isinstance(type, (T.FixedSizeBinaryType, T.ExtensionType)):
        return FixedSizeBinaryColumn(type, np.zeros((n, _storage_width(type)), np.uint8), none)
    return nested_nulls(type, n)


def nested_nulls(type_, n):
    """All-null column of a nested type (see :func:`nulls`)."""
    none = np.zeros(n, np.bool_)
    if isinstance(type_, T.ListType):
        return ListColumn(type_, np.zeros(n + 1, np.int64), nulls(type_.value_type, 0), none)
    if isinstance(type_, T.MapType):
        return MapColumn(type_, np.zeros(n + 1, np.int64), nulls(type_.key_type, 0),
                         nulls(type_.item_type, 0), none)
    if isinstance(type_, T.FixedSizeListType):
        return FixedSizeListColumn(type_, nulls(type_.value_type, n * type_.list_size),
                                   none, n)
    if isinstance(type_, T.StructType):
        return StructColumn(type_, [nulls(f.type, n) for f in type_.fields], none, n)
    if isinstance(type_, T.DictionaryType):
        return DictionaryColumn(type_, np.zeros(n, type_.index_type.numpy_dtype),
                                nulls(type_.value_type, 0), none)
    raise SchemaError(f"no column class for type {type_}")


def _struct_field_values(col):
    """What :func:`struct_rows` takes for one field: integer and float numbers as a
    ``(values, validity)`` pair of int64 or float64 (their Python objects are then
    made row by row, with no list of them first), anything else as its objects list."""
    if isinstance(col, PrimitiveColumn) and isinstance(col.type, (T.IntegerType,
                                                                  T.FloatingType)):
        values = col.values
        if values.ndim == 1 and (values.dtype.kind == "i" or (values.dtype.kind == "u"
                                                              and values.itemsize < 8)):
            return np.ascontiguousarray(values, dtype=np.int64), col.validity
        if values.ndim == 1 and values.dtype.kind == "f":
            return np.ascontiguousarray(values, dtype=np.float64), col.validity
    return col._object_rows(False)
