"""numpy arrays (masked, 2-D, object) and pandas Series, Index and ExtensionArrays -> columns.

Typed buffers go to :mod:`.numpy_columns` without a Python loop; masks (numpy's, pandas'
masked dtypes, NaN in numpy-backed float data, NaT) become validity. Object data and
the pandas dtypes with no numpy buffer (strings, sparse, Arrow-backed non-numbers) go
through Python values, their missing markers set to None first.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import PrimitiveColumn
from pqkit.columnar.nested import DictionaryColumn, ListColumn
from pqkit.convert.build import build_column, cast
from pqkit.convert.common import NAT, combine_validity
from pqkit.convert.infer import infer, tz_name
from pqkit.convert.numpy_columns import numpy_column
from pqkit.errors import SchemaError


def from_numpy(arr, t, validity=None):
    """A column from a numpy (masked) array: no Python loop unless the dtype is object."""
    if isinstance(arr, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(arr)
        arr = np.ma.getdata(arr)
    else:
        mask = None
    if arr.ndim == 0:
        raise SchemaError("a 0-d numpy array is not a column; put the value in a list")
    if arr.dtype.kind == "O":
        values = list(arr) if arr.ndim == 1 else arr.tolist()
        for m in (mask if mask is None or arr.ndim == 1 else None,
                  None if validity is None else ~validity):
            for i in ([] if m is None else np.flatnonzero(m).tolist()):
                values[i] = None
        return build_column(values, infer(values) if t is None else t)
    if arr.ndim > 1:                       # rows of a 2-D array are lists
        inner = arr.reshape((-1,) + arr.shape[2:])
        if mask is not None:
            inner = np.ma.MaskedArray(inner, mask.reshape(inner.shape))
        child = from_numpy(inner, None)
        col = ListColumn(T.list_(child.type), np.arange(len(arr) + 1) * arr.shape[1], child,
                         combine_validity(validity))
    else:
        col = numpy_column(arr, combine_validity(validity, None if mask is None else ~mask))
    return col if t is None or col.type == t else cast(col, t)


def from_pandas(pd, obj, t):
    """A column from a pandas Series, Index or ExtensionArray (``pd`` is the pandas module),
    of type ``t`` or, when ``t`` is None, of the type pyarrow would give it."""
    if isinstance(obj, (pd.Series, pd.Index)):
        obj = obj.array
    dtype = obj.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        col = _categorical(pd, obj, t)
    elif isinstance(dtype, pd.DatetimeTZDtype):
        ints = np.asarray(obj.asi8)
        col = PrimitiveColumn(T.timestamp(dtype.unit, tz_name(dtype.tz)), ints,
                              combine_validity(ints != NAT))
    elif isinstance(getattr(obj, "_mask", None), np.ndarray) and \
            isinstance(getattr(obj, "_data", None), np.ndarray):
        # Masked arrays (Int64, boolean, Float64...): no public accessor gives their
        # value buffer and mask without a copy.
        col = from_numpy(obj._data, None, combine_validity(~obj._mask))
    elif _numpy_backed(pd, obj) and np.asarray(obj).dtype.kind != "O":
        arr = np.asarray(obj)
        nan_is_null = combine_validity(~np.isnan(arr)) if arr.dtype.kind == "f" else None
        col = from_numpy(arr, None, nan_is_null)
    elif type(dtype).__name__ == "ArrowDtype" and dtype.numpy_dtype.kind in "biuf":
        na = np.asarray(obj.isna())
        arr = obj.to_numpy(dtype=dtype.numpy_dtype, na_value=dtype.numpy_dtype.type(0))
        col = from_numpy(arr, None, combine_validity(~na))
    else:                                  # object, string, Arrow-backed, sparse...
        values = list(obj.to_numpy(dtype=object))
        for i in np.flatnonzero(np.asarray(obj.isna())).tolist():
            values[i] = None
        return build_column(values, infer(values) if t is None else t)
    return col if t is None or col.type == t else cast(col, t)


def _numpy_backed(pd, obj):
    """Plain numpy data: NumpyExtensionArray (PandasArray before pandas 2.1) or naive
    datetime/timedelta arrays, whose dtype is a numpy dtype."""
    cls = getattr(pd.arrays, "NumpyExtensionArray", None) or pd.arrays.PandasArray
    return isinstance(obj, cls) or isinstance(obj.dtype, np.dtype)


def _categorical(pd, cat, t):
    """A dictionary column from a Categorical: its codes as indices (-1 is null), its
    categories as the dictionary; int32 indices unless ``t`` says otherwise."""
    want = t if isinstance(t, T.DictionaryType) else None
    dictionary = from_pandas(pd, cat.categories, None if want is None else want.value_type)
    index_type = T.int32() if want is None else want.index_type
    if len(dictionary) and len(dictionary) - 1 > np.iinfo(index_type.numpy_dtype).max:
        raise SchemaError(f"{len(dictionary)} categories do not fit {index_type} indices")
    codes = np.asarray(cat.codes)
    typ = T.dictionary(index_type, dictionary.type,
                       bool(cat.ordered) if want is None else want.ordered)
    return DictionaryColumn(typ, np.where(codes >= 0, codes, 0).astype(index_type.numpy_dtype),
                            dictionary, combine_validity(codes >= 0))
