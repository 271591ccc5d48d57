"""Columns to pandas Series (pandas is imported only when this is used).

Dtypes, and where they differ from pyarrow's default ``to_pandas()``:

==========================  ====================================  ======================
pqkit type                  pandas dtype                          pyarrow default
==========================  ====================================  ======================
int/uint, no nulls          int64 etc.                            same
int/uint with nulls         masked ``Int64``/``UInt8`` etc.       float64 with NaN
bool, no nulls / nulls      bool / masked ``boolean``             bool / object
float16/32/64               same float dtype, NaN for nulls       same
string                      pandas' default string dtype          same
timestamp                   ``datetime64[unit(, tz)]``, NaT       same
duration                    ``timedelta64[unit]``, NaT            same
dictionary                  ``category``                          same (fails on null
                                                                  or repeated values)
list / fixed_size_list      object: Python lists                  object: numpy arrays
everything else             object: the ``to_pylist()`` values    same (intervals as
                                                                  ``DateOffset``)
==========================  ====================================  ======================

For example ``int32`` values ``[1, 2]`` with validity ``[True, False]`` become
``pd.array([1, <NA>], dtype="Int32")``, sharing no memory with the column.
"""
import numpy as np

from . import _pyvalues as pv
from . import datatypes as T
from ._native.dictenc import dictionary_encode
from ._native.pyobjects import utf8_objects
from .errors import EncodingError
from .nested_columns import DictionaryColumn

_NAT = np.iinfo(np.int64).min


def _pd():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("to_pandas() needs pandas; install it with `pip install pandas`") \
            from e
    return pandas


def _object_array(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _string_dtype(pd):
    return "str" if int(pd.__version__.split(".")[0]) >= 3 else object


def column_to_pandas(col, name=None):
    """A ``pandas.Series`` for ``col`` (see the module docstring for the dtypes)."""
    pd = _pd()
    return pd.Series(_to_array(pd, col), name=name, copy=False)


def _to_array(pd, col):
    t = col.type
    valid = col.validity
    if isinstance(col, DictionaryColumn):
        return _categorical(pd, col)
    if isinstance(t, (T.IntegerType, T.BooleanType)):
        if col.null_count == 0:
            return col.values.copy()
        cls = pd.arrays.BooleanArray if isinstance(t, T.BooleanType) else pd.arrays.IntegerArray
        return cls(col.values.copy(), ~valid)
    if isinstance(t, T.FloatingType):
        values = col.values.copy()
        if col.null_count:
            values[~valid] = np.nan
        return values
    if isinstance(t, (T.TimestampType, T.DurationType)):
        return _temporal(pd, col)
    if isinstance(t, T.StringType) and not isinstance(t, T.BinaryType):
        return _strings(pd, col)
    if isinstance(t, T.MonthDayNanoIntervalType):
        values = [None if v is None else
                  pd.DateOffset(months=v.months, days=v.days, nanoseconds=v.nanoseconds)
                  for v in col.to_pylist()]
        return _object_array(values)
    return _object_array(col.to_pylist())


def _strings(pd, col):
    """Strings as pandas' ``str`` dtype (object before pandas 3), one Python ``str`` per
    distinct value: equal values share one object, as with fastparquet's categories."""
    offsets = np.ascontiguousarray(col.offsets, np.int64)
    n = len(col)
    sample = min(n, 4096)
    _, seen, _ = dictionary_encode(col.data, offsets[:sample + 1], 0, sample, 1 << 62, 0)
    try:
        if len(seen) > sample // 4:      # mostly distinct: decode every value directly
            values = utf8_objects(offsets, col.data, np.arange(n))
        else:
            indices, first, _ = dictionary_encode(col.data, offsets, 0, n, 1 << 62, 0)
            values = utf8_objects(offsets, col.data, first)[indices]
    except UnicodeDecodeError as exc:
        raise EncodingError(f"invalid UTF-8 in a string column: {exc}") from None
    if col.null_count:
        values[~col.validity] = None
    if _string_dtype(pd) == "str":
        return pd.array(values, dtype=pd.StringDtype("python", na_value=np.nan))
    return values


def _temporal(pd, col):
    t = col.type
    values = pv.null_filled(col.values, col.validity, _NAT)
    if isinstance(t, T.DurationType):
        return values.astype(f"m8[{t.unit}]")
    values = values.astype(f"M8[{t.unit}]")
    if t.tz is None:
        return values
    idx = pd.DatetimeIndex(values).tz_localize("UTC").tz_convert(pv.tzinfo_for(t.tz))
    return idx.array


def _categorical(pd, col):
    dict_values = col.dictionary.to_pylist()
    codes = pv.null_filled(col.indices, col.validity, -1).astype(np.int64)
    uniques_codes, uniques = pd.factorize(_object_array(dict_values), use_na_sentinel=True)
    if len(uniques) != len(dict_values):
        # Repeated or null dictionary values: map through the unique ones.
        remap = np.append(uniques_codes, -1).astype(np.int64)
        codes = remap[codes]
    categories = pd.Index(list(uniques))
    return pd.Categorical.from_codes(codes, categories=categories,
                                     ordered=col.type.ordered)
