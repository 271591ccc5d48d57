"""Columns: Arrow's memory layout on numpy buffers.

Every column has a :class:`~pqkit.datatypes.DataType`, a length and a validity
mask (a numpy bool array, True = value present, or None when no slot is
null). The value buffers follow Arrow, with two simplifications: booleans are
one numpy bool per value (not bits) and variable-length offsets are always
int64, whatever the type's "large" flag says. Slots under nulls hold arbitrary
values and are never interpreted. For three rows ``["ab", None, "c"]`` of a
string column::

    offsets  = [0, 2, 2, 3]        int64, length + 1 entries
    data     = b"abc"              uint8
    validity = [True, False, True]

A list column holds offsets into one child column: ``[[1, 2], [], [3]]`` is
``offsets = [0, 2, 2, 3]`` over the int child ``[1, 2, 3]``. Offsets need not
start at zero: ``slice()`` returns views that share the parent's buffers.

Constructors check the buffers (dtypes, lengths, offsets within bounds and
non-decreasing) and raise :class:`~pqkit.errors.SchemaError` naming the bad
value, so a column that exists can be converted without further checks.
This module holds the base class and the null, primitive and binary columns.
Fixed-size binary and decimal columns live in :mod:`pqkit.columnar.fixed`
(still importable from here); columns over child columns (lists, structs,
maps, dictionaries) live in :mod:`pqkit.columnar.nested`.
"""
import copy

import numpy as np

from pqkit import datatypes as T
from pqkit._native.pyobjects import take_objects
from pqkit._native.take import narrow_positions, take_byte_array
from pqkit.columnar import arrow_export, to_pandas
from pqkit.columnar import pyvalues as pv
from pqkit.errors import EncodingError, SchemaError

_REPR_VALUES = 10


def as_validity(validity, length, what="column"):
    """Check a validity mask: None, or a 1-D numpy bool array of ``length`` entries."""
    if validity is None:
        return None
    v = np.asarray(validity)
    if v.dtype != np.bool_ or v.ndim != 1:
        raise SchemaError(f"{what} validity must be a 1-D bool array, got {v.dtype} "
                          f"with shape {v.shape}")
    if len(v) != length:
        raise SchemaError(f"{what} validity has {len(v)} entries for {length} values")
    return v


def as_offsets(offsets, limit, what="column"):
    """Check offsets: integers, non-decreasing, within ``[0, limit]``; return int64."""
    o = np.asarray(offsets)
    if o.ndim != 1 or (o.size and o.dtype.kind not in "iu"):
        raise SchemaError(f"{what} offsets must be a 1-D integer array, got {o.dtype} "
                          f"with shape {o.shape}")
    if o.size == 0:
        return np.zeros(1, np.int64)
    if o.dtype != np.int64:
        if o.dtype == np.uint64 and o.max() > np.iinfo(np.int64).max:
            raise SchemaError(f"{what} offset {int(o.max())} is beyond int64")
        o = o.astype(np.int64)
    if o[0] < 0 or o[-1] > limit:
        bad = int(o[0]) if o[0] < 0 else int(o[-1])
        raise SchemaError(f"{what} offset {bad} is outside the {limit} available values")
    if len(o) > 1:
        d = np.diff(o)
        if d.min() < 0:
            i = int(np.argmax(d < 0))
            raise SchemaError(f"{what} offsets decrease at row {i}: {int(o[i])} then "
                              f"{int(o[i + 1])}")
    return o


def gather_ranges(starts, lengths):
    """Positions ``starts[i] + k`` for ``k < lengths[i]``, all rows concatenated (int64)."""
    total = int(lengths.sum()) if lengths.size else 0
    if total == 0:
        return np.zeros(0, np.int64)
    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(total, dtype=np.int64)


def concat_validity(columns):
    """Concatenated validity of ``columns``, or None when none of them has nulls."""
    if all(c.validity is None for c in columns):
        return None
    return np.concatenate([c.valid_mask() for c in columns])


class Column:
    """Base of all column classes.

    Attributes
    ----------
    type : DataType
    validity : numpy.ndarray of bool or None
        True where a value is present; None means no nulls.
    """

    __slots__ = ("type", "validity", "_length", "_null_count")

    def _init_common(self, type_, length, validity):
        self.type = type_
        self._length = int(length)
        self.validity = as_validity(validity, self._length, str(type_))
        self._null_count = None

    # --- size and nulls ------------------------------------------------------------
    @property
    def length(self):
        return self._length

    def __len__(self):
        return self._length

    @property
    def null_count(self):
        if self._null_count is None:
            self._null_count = 0 if self.validity is None \
                else self._length - int(np.count_nonzero(self.validity))
        return self._null_count

    def valid_mask(self):
        """The validity as a bool array, all True when there are no nulls."""
        return np.ones(self._length, np.bool_) if self.validity is None else self.validity

    @property
    def nbytes(self):
        """Bytes held by this column's buffers (shared buffers counted whole)."""
        own = 0 if self.validity is None else self.validity.nbytes
        return own + sum(b.nbytes for b in self._buffers())

    def _buffers(self):
        return ()

    # --- selection -------------------------------------------------------------------
    def slice(self, start=0, stop=None):
        """Rows ``start:stop`` (Python slice rules, step 1) as a zero-copy view."""
        start, stop, _ = slice(start, stop).indices(self._length)
        return self._slice(start, max(start, stop))

    def take(self, indices):
        """A new column of the rows at ``indices`` (non-negative ints, may repeat)."""
        idx = np.asarray(indices)
        if idx.size == 0:
            idx = np.zeros(0, np.int64)
        elif idx.dtype.kind not in "iu" or idx.ndim != 1:
            raise TypeError(f"take() needs a 1-D integer array, got {idx.dtype} {idx.shape}")
        idx = idx.astype(np.int64, copy=False)
        if idx.size and (idx.min() < 0 or idx.max() >= self._length):
            bad = int(idx.min()) if idx.min() < 0 else int(idx.max())
            raise IndexError(f"take() index {bad} is out of range for {self._length} rows")
        return self._take(idx)

    def __getitem__(self, key):
        if isinstance(key, slice):
            start, stop, step = key.indices(self._length)
            if step == 1:
                return self._slice(start, max(start, stop))
            return self._take(np.arange(start, stop, step, dtype=np.int64))
        i = int(key)
        if i < 0:
            i += self._length
        if not 0 <= i < self._length:
            raise IndexError(f"row {key} is out of range for {self._length} rows")
        return self._slice(i, i + 1).to_pylist()[0]

    def __iter__(self):
        return iter(self.to_pylist())

    def _with_validity(self, validity):
        out = copy.copy(self)
        out.validity = validity
        out._null_count = None
        return out

    def _take_validity(self, idx):
        return None if self.validity is None else self.validity[idx]

    def _slice_validity(self, start, stop):
        return None if self.validity is None else self.validity[start:stop]

    # --- conversion ----------------------------------------------------------------
    def to_pylist(self):
        """Python values, equal to pyarrow's ``Array.to_pylist()`` for the same data."""
        raise NotImplementedError

    def to_pandas(self, strings="str"):
        """A ``pandas.Series`` (see :func:`pqkit.columnar.table.Table.to_pandas` for the dtypes and
        the ``strings`` option)."""
        return to_pandas.column_to_pandas(self, strings=strings)

    def _pandas_array(self, pd, strings, take):
        """What ``pandas.Series`` is built on; each kind of column overrides it where pandas
        has a better dtype than objects (see :mod:`pqkit.columnar.to_pandas`)."""
        if isinstance(self.type, T.MonthDayNanoIntervalType):
            return to_pandas.interval_objects(pd, self)
        return to_pandas.object_array(self.to_pylist())

    def _object_rows(self, as_array):
        """``to_pylist()`` (an object array if ``as_array``); nested kinds build theirs in
        Cython from their children's."""
        values = self.to_pylist()
        return to_pandas.object_array(values) if as_array else values

    # --- Arrow PyCapsule interface ------------------------------------------------------
    def __arrow_c_schema__(self):
        """An ``arrow_schema`` PyCapsule: this column's type as an unnamed nullable field."""
        return arrow_export.column_schema_capsule(self)

    def __arrow_c_array__(self, requested_schema=None):
        """``(arrow_schema, arrow_array)`` PyCapsules over this column's buffers, shared
        without a copy where Arrow's layout is pqkit's (see
        :mod:`pqkit.columnar.arrow_export`); ``pyarrow.array(column)`` uses it.
        ``requested_schema`` is accepted and ignored, as the protocol allows."""
        return arrow_export.column_array_capsules(self)

    # --- comparison ----------------------------------------------------------------
    def equals(self, other):
        """Same type, length, nulls and values; NaN equals NaN at the same row."""
        if not isinstance(other, Column) or self.type != other.type \
                or self._length != other._length:
            return False
        mask = self.valid_mask()
        if not np.array_equal(mask, other.valid_mask()):
            return False
        if self.null_count == self._length:
            return True
        return self._values_equal(other, mask)

    def _values_equal(self, other, mask):
        idx = np.flatnonzero(mask)
        return _nan_equal_lists(self._take(idx).to_pylist(), other._take(idx).to_pylist())

    def __eq__(self, other):
        return self.equals(other)

    __hash__ = None

    def __repr__(self):
        head = self._slice(0, min(self._length, _REPR_VALUES)).to_pylist()
        more = ", ..." if self._length > _REPR_VALUES else ""
        body = repr(head)[:-1] + more + "]"
        return (f"<pqkit.{type(self).__name__} {self.type} length={self._length} "
                f"null_count={self.null_count}>\n{body}")

    # --- concatenation ----------------------------------------------------------------
    @classmethod
    def _concat(cls, columns):
        raise NotImplementedError


def _nan_equal_lists(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        if isinstance(x, float) and isinstance(y, float) and x != x and y != y:
            continue
        if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
            if type(x) is type(y) and _nan_equal_lists(x, y):
                continue
        if isinstance(x, dict) and isinstance(y, dict) and list(x) == list(y):
            if _nan_equal_lists(list(x.values()), list(y.values())):
                continue
        return False
    return True


class NullColumn(Column):
    """``length`` nulls of type ``null``."""

    __slots__ = ()

    def __init__(self, length):
        if int(length) < 0:
            raise SchemaError(f"null column length {length} is negative")
        self._init_common(T.null(), length, np.zeros(int(length), np.bool_))

    def _slice(self, start, stop):
        return NullColumn(stop - start)

    def _take(self, idx):
        return NullColumn(len(idx))

    def to_pylist(self):
        return [None] * self._length

    @classmethod
    def _concat(cls, columns):
        return NullColumn(sum(len(c) for c in columns))


_DATETIME_KINDS = {T.TimestampType: "M", T.DurationType: "m"}


class PrimitiveColumn(Column):
    """Fixed-width values: bool, integers, floats, dates, times, timestamps, durations,
    month_day_nano intervals.

    Parameters
    ----------
    type : DataType
        A type with a ``numpy_dtype``.
    values : numpy.ndarray
        1-D, of exactly ``type.numpy_dtype`` (timestamp/duration also take
        datetime64/timedelta64 of the type's unit).
    validity : numpy.ndarray of bool, optional
    """

    __slots__ = ("values",)

    def __init__(self, type, values, validity=None):
        if type.numpy_dtype is None or isinstance(type, T.DecimalType):
            raise SchemaError(f"type {type} is not a fixed-width primitive type")
        v = np.asarray(values)
        kind = _DATETIME_KINDS.get(type.__class__)
        if kind and v.dtype.kind == kind and np.datetime_data(v.dtype)[0] == type.unit:
            v = v.view(np.int64)
        if v.dtype != type.numpy_dtype or v.ndim != 1:
            raise SchemaError(f"{type} values must be a 1-D {type.numpy_dtype} array, got "
                              f"{v.dtype} with shape {v.shape}")
        self.values = v
        self._init_common(type, len(v), validity)

    def _buffers(self):
        return (self.values,)

    def _slice(self, start, stop):
        return PrimitiveColumn(self.type, self.values[start:stop],
                               self._slice_validity(start, stop))

    def _take(self, idx):
        # np.take gathers about a third faster than fancy indexing (same result)
        return PrimitiveColumn(self.type, np.take(self.values, idx, axis=0),
                               self._take_validity(idx))

    def to_pylist(self):
        return pv.primitive_to_pylist(self.type, self.values, self.validity)

    def _pandas_array(self, pd, strings, take):
        t = self.type
        if isinstance(t, (T.IntegerType, T.BooleanType)):
            return to_pandas.masked_array(pd, self, take)
        if isinstance(t, T.FloatingType):
            return to_pandas.float_array(self, take)
        if isinstance(t, (T.TimestampType, T.DurationType)):
            return to_pandas.temporal(pd, self, take)
        return super()._pandas_array(pd, strings, take)

    def _values_equal(self, other, mask):
        a, b = self.values[mask], other.values[mask]
        if a.dtype.names:
            return all(np.array_equal(a[n], b[n]) for n in a.dtype.names)
        if a.dtype.kind == "f":
            return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
        return bool(np.array_equal(a, b))

    @classmethod
    def _concat(cls, columns):
        return cls(columns[0].type, np.concatenate([c.values for c in columns]),
                   concat_validity(columns))


class BinaryColumn(Column):
    """Variable-length bytes: ``string``, ``large_string``, ``binary``, ``large_binary``.

    Row ``i`` is ``data[offsets[i]:offsets[i + 1]]``.

    Parameters
    ----------
    type : StringType or BinaryType
    offsets : numpy.ndarray of int
        ``length + 1`` non-decreasing positions into ``data`` (stored as int64).
    data : numpy.ndarray of uint8, or bytes
    validity : numpy.ndarray of bool, optional
    """

    # A column made by take() with repeated rows (decoding a dictionary does that) is
    # _gathered = (source BinaryColumn, positions): row i is source row positions[i].
    # Its offsets and data are built on first use, so a conversion that makes one
    # object per distinct value (to_pandas, to_pylist) never copies the bytes of every
    # row, and needs no hashing to find the repeats. Otherwise _gathered is None.
    __slots__ = ("_offsets", "_data", "_gathered")

    def __init__(self, type, offsets, data, validity=None):
        if not isinstance(type, T.StringType):
            raise SchemaError(f"type {type} is not a string or binary type")
        if isinstance(data, (bytes, bytearray, memoryview)):
            data = np.frombuffer(data, np.uint8)
        data = np.asarray(data)
        if data.dtype != np.uint8 or data.ndim != 1:
            raise SchemaError(f"{type} data must be a 1-D uint8 array, got {data.dtype}")
        self._offsets = as_offsets(offsets, len(data), str(type))
        self._data = data
        self._gathered = None
        self._init_common(type, len(self._offsets) - 1, validity)

    @classmethod
    def _checked(cls, type_, offsets, data, validity):
        """A column over int64 offsets a pqkit kernel produced (non-decreasing, within
        ``data`` by construction): no second pass to check them."""
        if offsets.dtype != np.int64 or offsets.ndim != 1 or len(offsets) == 0:
            raise SchemaError(f"{type_} offsets from a kernel must be 1-D int64, got "
                              f"{offsets.dtype} with shape {offsets.shape}")
        out = cls.__new__(cls)
        out._offsets, out._data, out._gathered = offsets, data, None
        out._init_common(type_, len(offsets) - 1, validity)
        return out

    @classmethod
    def _gather(cls, type_, source, positions, validity):
        """Rows ``source[positions]`` (positions checked by the caller), built lazily."""
        out = cls.__new__(cls)
        out._offsets = out._data = None
        out._gathered = (source, positions)
        out._init_common(type_, len(positions), validity)
        return out

    def gathered(self):
        """``(source column, positions)`` when row ``i`` is ``source[positions[i]]`` (a
        decoded dictionary, not yet copied out), else None: a computation per distinct
        value can run on ``source`` and be gathered."""
        return self._gathered

    @property
    def offsets(self):
        """``length + 1`` int64 positions into ``data``."""
        if self._offsets is None:
            self._build()
        return self._offsets

    @property
    def data(self):
        """The values' bytes (uint8)."""
        if self._data is None:
            self._build()
        return self._data

    def _build(self):
        source, positions = self._gathered
        # The Cython gather copies each value's bytes once.
        self._offsets, self._data = take_byte_array(
            np.ascontiguousarray(source.offsets, np.int64), np.ascontiguousarray(source.data),
            positions)

    def _buffers(self):
        return (self.offsets, self.data)

    def _slice(self, start, stop):
        if self._offsets is None:
            source, positions = self._gathered
            return BinaryColumn._gather(self.type, source, positions[start:stop],
                                        self._slice_validity(start, stop))
        out = BinaryColumn._checked(self.type, self._offsets[start:stop + 1], self._data,
                                    self._slice_validity(start, stop))
        out._gathered = None if self._gathered is None else \
            (self._gathered[0], self._gathered[1][start:stop])
        return out

    def _take(self, idx):
        if self._gathered is not None:
            source, positions = self._gathered
            return BinaryColumn._gather(self.type, source, positions[idx],
                                        self._take_validity(idx))
        if len(idx) >= 2 * self._length:
            return BinaryColumn._gather(self.type, self, narrow_positions(idx, self._length),
                                        self._take_validity(idx))
        offsets, data = take_byte_array(np.ascontiguousarray(self.offsets, np.int64),
                                        np.ascontiguousarray(self.data), idx)
        return BinaryColumn._checked(self.type, offsets, data, self._take_validity(idx))

    def value_lengths(self):
        """Byte length of each row (int64)."""
        return np.diff(self.offsets)

    def as_binary(self):
        """The same buffers typed as binary (the raw bytes of a string column)."""
        t = T.large_binary() if self.type.large else T.binary()
        return BinaryColumn._checked(t, self.offsets, self.data, self.validity)

    def as_large(self):
        """This column as the large type of its kind over the same buffers (no copy):
        what Arrow-backed pandas strings hold, exported with int64 offsets as they are."""
        t = T.large_string() if T.is_text_type(self.type) else T.large_binary()
        return BinaryColumn._checked(t, self.offsets, self.data, self.validity)

    def _pandas_array(self, pd, strings, take):
        if T.is_text_type(self.type):
            return to_pandas.strings(pd, self, strings)
        return super()._pandas_array(pd, strings, take)

    def _object_rows(self, as_array):
        if T.is_text_type(self.type):                # one str per distinct value where repeats are
            values = to_pandas.string_objects(self)
            return values if as_array else values.tolist()
        return super()._object_rows(as_array)

    def to_pylist(self):
        if self._gathered is not None:
            source, positions = self._gathered
            try:
                distinct = source.to_pylist()
            except EncodingError:
                distinct = None      # maybe in a value no row uses: decode the rows instead
            if distinct is not None:
                table = np.empty(len(distinct), dtype=object)
                table[:] = distinct
                return pv.apply_nulls(take_objects(table, positions).tolist(), self.validity)
        return pv.binary_to_pylist(self.type, self.offsets, self.data, self.validity)

    def _values_equal(self, other, mask):
        idx = np.flatnonzero(mask)
        a, b = self._take(idx), other._take(idx)
        return np.array_equal(a.offsets, b.offsets) and np.array_equal(a.data, b.data)

    @classmethod
    def _concat(cls, columns):
        if all(c._gathered is not None for c in columns):
            sources = [c._gathered[0] for c in columns]
            starts = np.cumsum([0] + [len(s) for s in sources[:-1]])
            positions = np.concatenate([c._gathered[1].astype(np.int64) + start
                                        for c, start in zip(columns, starts)])
            source = concat_columns(sources)
            return cls._gather(columns[0].type, source, narrow_positions(positions, len(source)),
                               concat_validity(columns))
        parts, offsets, base = [], [np.zeros(1, np.int64)], 0
        for c in columns:
            o0, o1 = int(c.offsets[0]), int(c.offsets[-1])
            parts.append(c.data[o0:o1])
            offsets.append(c.offsets[1:] - o0 + base)
            base += o1 - o0
        return cls(columns[0].type, np.concatenate(offsets), np.concatenate(parts),
                   concat_validity(columns))


def concat_columns(columns):
    """One column holding the rows of ``columns`` in order; all must have the same type.

    Dictionary columns sharing one dictionary object keep it; otherwise the
    dictionaries are appended (values may then repeat).
    """
    columns = list(columns)
    if not columns:
        raise SchemaError("concat_columns needs at least one column")
    first = columns[0]
    for c in columns[1:]:
        if c.type != first.type or type(c) is not type(first):
            raise SchemaError(f"cannot concatenate a {c.type} column to a {first.type} column")
    if len(columns) == 1:
        return first
    return type(first)._concat(columns)
