"""Columns to pandas Series (pandas is imported only when this is used).

Dtypes, and where they differ from pyarrow's default ``to_pandas()``:

==========================  ====================================  ======================
pqkit type                  pandas dtype                          pyarrow default
==========================  ====================================  ======================
int/uint, no nulls          int64 etc.                            same
int/uint with nulls         masked ``Int64``/``UInt8`` etc.       float64 with NaN
bool, no nulls / nulls      bool / masked ``boolean``             bool / object
float16/32/64               same float dtype, NaN for nulls       same
string                      see ``strings`` below                 same as "str"
timestamp                   ``datetime64[unit(, tz)]``, NaT       same
duration                    ``timedelta64[unit]``, NaT            same
dictionary                  ``category``                          same (fails on null
                                                                  or repeated values)
list / fixed_size_list      object: numpy arrays (see below)      same
struct                      object: dicts                         same
decimal                     object: ``decimal.Decimal``;          same
                            float64 or text with ``decimals=``
                            (:mod:`~pqkit.columnar.decimal_pandas`)
everything else             object: the ``to_pylist()`` values    same (intervals as
                                                                  ``DateOffset``)
==========================  ====================================  ======================

String columns follow the ``strings`` option of ``Table.to_pandas``:

``"str"`` (default)
    pandas' default string dtype: ``str`` from pandas 3 on (missing values are
    NaN), object before. Its storage is the one pandas is configured for
    (``pd.options.mode.string_storage``): with pyarrow storage, the default
    when pyarrow is installed, the column's bytes are handed to pandas through
    the Arrow PyCapsule interface (``pandas.Series.from_arrow``), so no Python
    ``str`` is made per value and the bytes are shared with the column, not
    copied (pandas never writes into them). With python storage every value
    becomes a ``str`` and pandas checks each one, which costs more than
    ``"object"``.
``"object"``
    a numpy object array of ``str`` with None for nulls, what pandas before 3
    and fastparquet give. Equal values share one ``str`` object: a column
    decoded from a dictionary reuses its dictionary's strings, any other is
    deduplicated with a hash table when a sample shows repeats.

Lists become what pyarrow gives: each row a read-only numpy array viewing one
flat array of the child values (no copy or Python object per element), None
for a null row. The flat array is the child's numbers (integers with nulls as
float64 with NaN, floats with NaN, bool and timestamps and durations without a
time zone as their numpy dtypes) or, for other children, an object array of
their Python values (``str``, dicts, lists).

For example ``int32`` values ``[1, 2]`` with validity ``[True, False]`` become
``pd.array([1, <NA>], dtype="Int32")``, sharing no memory with the column.
"""
import gc
from contextlib import contextmanager

import numpy as np

from pqkit import datatypes as T
from pqkit._native.array_rows import array_rows
from pqkit._native.dictenc import dictionary_encode
from pqkit._native.pyobjects import (
    first_invalid_utf8,
    take_objects,
    utf8_objects,
)
from pqkit.columnar import pyvalues as pv
from pqkit.errors import EncodingError, require

_NAT = np.iinfo(np.int64).min
STRING_OPTIONS = ("str", "object")


def pandas_module():
    return require("pandas", "pandas", "to_pandas()")


def object_array(values):
    # fromiter stores each item as it is: rows that are equal-length lists or tuples
    # (maps) must not be broadcast into a 2-D array, as slice assignment would.
    return np.fromiter(values, dtype=object, count=len(values))


def _string_dtype(pd):
    """pandas' default string dtype (pandas >= 3), or None for object strings."""
    if int(pd.__version__.split(".")[0]) >= 3:
        return pd.StringDtype(na_value=np.nan)
    return None


def check_strings_option(strings):
    if strings not in STRING_OPTIONS:
        raise ValueError(f"strings must be one of {STRING_OPTIONS}, got {strings!r}")
    return strings


def column_to_pandas(col, name=None, strings="str", take_buffers=False):
    """A ``pandas.Series`` for ``col`` (see the module docstring for the dtypes).

    With ``take_buffers`` the Series may own the column's numeric value buffer
    instead of a copy (and NaN is written into it for nulls): only for a column
    nothing else will read again.
    """
    pd = pandas_module()
    check_strings_option(strings)
    values = col._pandas_array(pd, strings, take_buffers)
    # An explicit object dtype keeps pandas >= 3 from re-inferring object strings as str.
    dtype = object if isinstance(values, np.ndarray) and values.dtype == object else None
    return pd.Series(values, name=name, dtype=dtype, copy=False)


def _writable(values, take):
    """``values`` itself when it may be handed over (and written to), else a copy."""
    return values if take and values.flags.writeable else values.copy()


def masked_array(pd, col, take):
    """Integers and booleans: the values themselves, or a masked array with nulls."""
    if col.null_count == 0:
        return _writable(col.values, take)
    cls = pd.arrays.BooleanArray if isinstance(col.type, T.BooleanType) else pd.arrays.IntegerArray
    return cls(_writable(col.values, take), ~col.validity)


def masked_as(pd, col, dtype, take):
    """Integers, floats or booleans as a masked array of the pandas ``dtype`` (``Int64``,
    ``Float32``, ``boolean``...), nulls or not; None when the value buffer is of another
    kind than ``dtype``."""
    values = col.values
    if values.dtype.kind != np.dtype(dtype.numpy_dtype).kind or \
            values.dtype.itemsize != np.dtype(dtype.numpy_dtype).itemsize:
        return None
    mask = np.zeros(len(values), np.bool_) if col.validity is None else ~col.validity
    return dtype.construct_array_type()(_writable(values, take), mask)


def float_array(col, take):
    """Floats, with NaN written where the column is null."""
    values = _writable(col.values, take)
    if col.null_count:
        values[~col.validity] = np.nan
    return values


def interval_objects(pd, col):
    """month_day_nano intervals as ``pandas.DateOffset`` objects, as pyarrow gives."""
    values = [None if v is None else
              pd.DateOffset(months=v.months, days=v.days, nanoseconds=v.nanoseconds)
              for v in col.to_pylist()]
    return object_array(values)


def nested_array(col):
    """Structs (and lists inside them): an object array of rows built in Cython."""
    with _collection_paused():
        return col._object_rows(True)


def list_arrays(pd, child, offsets, validity):
    """Lists: an object array of numpy views of ``child`` (the values the rows use,
    starting at ``offsets[0]``), None where ``validity`` is False."""
    return array_rows(_flat_values(pd, child), offsets, validity)


def _flat_values(pd, child):
    """The child values of lists as one 1-D numpy array (see the module docstring)."""
    t = child.type
    plain = isinstance(t, (T.IntegerType, T.FloatingType, T.BooleanType)) or \
        (isinstance(t, (T.TimestampType, T.DurationType)) and getattr(t, "tz", None) is None)
    values = getattr(child, "values", None)
    if plain and isinstance(values, np.ndarray) and values.ndim == 1:
        if child.null_count == 0:
            flat = temporal(pd, child) if isinstance(t, (T.TimestampType, T.DurationType)) \
                else values
            return np.ascontiguousarray(flat)
        if isinstance(t, (T.IntegerType, T.FloatingType)):
            flat = values.astype(np.float64 if isinstance(t, T.IntegerType) else values.dtype)
            flat[~child.validity] = np.nan
            return flat
        if not isinstance(t, T.BooleanType):
            return np.ascontiguousarray(temporal(pd, child))
    with _collection_paused():
        return child._object_rows(True)


# --- strings -----------------------------------------------------------------------------
def strings(pd, col, strings):
    dtype = _string_dtype(pd) if strings == "str" else None
    if dtype is not None and dtype.storage == "pyarrow":
        _check_utf8(col)
        return _arrow_strings(dtype, col.as_large())
    values = string_objects(col)
    if dtype is not None:
        return pd.array(values, dtype=dtype)
    return values


def _arrow_strings(dtype, col):
    """pandas' pyarrow-backed strings over the column's buffers (no copy).

    pyarrow is there: pandas stores strings in it only when it is installed. The
    column goes in through the Arrow PyCapsule interface and the dtype's own
    ``__from_arrow__`` wraps it; ``Series.from_arrow`` would do the same through a
    one-column pyarrow Table and its ``to_pandas``, several times slower.
    """
    import pyarrow
    return dtype.__from_arrow__(pyarrow.array(col))


def _check_utf8(col):
    """Raise EncodingError for invalid UTF-8 in a non-null row, as decoding to ``str`` does."""
    gathered = getattr(col, "_gathered", None)
    if gathered is not None and first_invalid_utf8(gathered[0].offsets, gathered[0].data,
                                                   check_order=False) < 0:
        return                           # every row is one of these valid values
    # A column's offsets are in order (checked when it was made): no second check.
    bad = first_invalid_utf8(col.offsets, col.data, col.validity, check_order=False)
    if bad >= 0:
        value = col.data[int(col.offsets[bad]):int(col.offsets[bad + 1])].tobytes()
        raise EncodingError(f"invalid UTF-8 in {col.type} value at row {bad}: "
                            f"{value[:40]!r}; read the column as binary to get the raw bytes")


def string_objects(col):
    """An object array of ``str`` (None for nulls), one ``str`` per distinct value where
    repeats are known or likely."""
    values = _gathered_objects(col)
    if values is None:
        values = _deduplicated_objects(col)
    if col.null_count:
        values[~col.validity] = None
    return values


def _gathered_objects(col):
    gathered = getattr(col, "_gathered", None)
    if gathered is None:
        return None
    source, positions = gathered
    try:
        distinct = utf8_objects(source.offsets, source.data, np.arange(len(source)))
    except UnicodeDecodeError:
        return None        # an unused source value may be invalid: decode the rows instead
    return take_objects(distinct, positions)


def _deduplicated_objects(col):
    offsets = np.ascontiguousarray(col.offsets, np.int64)
    n = len(col)
    sample = min(n, 4096)
    _, seen, _ = dictionary_encode(col.data, offsets[:sample + 1], 0, sample, 1 << 62, 0)
    try:
        if len(seen) > sample // 4:      # mostly distinct: decode every value directly
            return utf8_objects(offsets, col.data, np.arange(n))
        indices, first, _ = dictionary_encode(col.data, offsets, 0, n, 1 << 62, 0)
        return take_objects(utf8_objects(offsets, col.data, first), indices)
    except UnicodeDecodeError:
        _check_utf8(col)                 # raises when a non-null row is invalid
    # Only bytes under null rows are invalid: decode the other rows alone.
    rows = np.flatnonzero(col.validity)
    values = np.empty(n, dtype=object)
    values[rows] = utf8_objects(offsets, col.data, rows)
    return values


# --- nested values ---------------------------------------------------------------------
@contextmanager
def _collection_paused():
    """Cyclic garbage collection off while many lists and dicts are made.

    Every new container counts towards the collector's thresholds, so building
    a million rows would run it hundreds of times over ever more live objects;
    the rows hold no cycles, so nothing is lost by collecting once afterwards.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# --- other types -------------------------------------------------------------------------
def temporal(pd, col, take=False):
    """Timestamps and durations as datetime64/timedelta64 of their unit with NaT for
    nulls: the int64 values viewed as such, copied once at most (not with ``take``)."""
    t = col.type
    values = col.values
    if values.dtype != np.int64:
        values = values.astype(np.int64)
    elif col.null_count or not take:
        values = _writable(values, take)
    if col.null_count:
        values[~col.validity] = _NAT
    if isinstance(t, T.DurationType):
        return values.view(f"m8[{t.unit}]")
    values = values.view(f"M8[{t.unit}]")
    if t.tz is None:
        return values
    idx = pd.DatetimeIndex(values).tz_localize("UTC").tz_convert(pv.tzinfo_for(t.tz))
    return idx.array


def categorical(pd, col):
    dict_values = col.dictionary.to_pylist()
    codes = pv.null_filled(col.indices, col.validity, -1).astype(np.int64)
    uniques_codes, uniques = pd.factorize(object_array(dict_values), use_na_sentinel=True)
    if len(uniques) != len(dict_values):
        # Repeated or null dictionary values: map through the unique ones.
        remap = np.append(uniques_codes, -1).astype(np.int64)
        codes = remap[codes]
    categories = pd.Index(list(uniques))
    return pd.Categorical.from_codes(codes, categories=categories,
                                     ordered=col.type.ordered)
