"""Python, numpy and pandas data -> pqkit columns and tables (the writer's input side).

The reader ends with columns in Arrow layout (:mod:`pqkit.columnar.column`); the writer
starts from them. This module builds them from what users hold:

* a numpy array becomes a column without a Python loop, and shares its memory
  when its dtype already is the column's storage (``np.arange(3)`` is the value
  buffer of an int64 column as is);
* a Python list is checked with C-level passes (``set(map(type, values))``,
  ``map``, ``np.fromiter``, ``"".join``) and packed into numpy buffers;
* a pandas Series uses its numpy or masked buffers, and pandas' missing values
  (NaN, NaT, NA, None) become nulls, as in ``pyarrow.Table.from_pandas``.

For example ``column_from_values(["ab", None, "é"])`` infers ``string`` and
builds, from one ``"".join(...).encode("utf-8")``::

    offsets  = [0, 2, 2, 4]          int64; "é" is two UTF-8 bytes
    data     = b"ab\\xc3\\xa9"
    validity = [True, False, True]

Types inferred from Python values (None does not vote), pyarrow's rules:

===============================  ====================================================
values                           type
===============================  ====================================================
bool                             bool
int                              int64; uint64 if one is > 2**63 - 1 and none < 0
float, or ints and floats        double
str / bytes, bytearray / both    string / binary / binary (str encoded as UTF-8)
decimal.Decimal (and ints)       decimal(p, s), the smallest holding every value
datetime.datetime                timestamp[us]; the first value's zone as "UTC",
                                 "+05:30" or the zone's key; aware values stored UTC
datetime.date / time             date32 / time64[us]
datetime.timedelta               duration[us]
uuid.UUID / MonthDayNano         uuid / month_day_nano_interval
list, tuple, numpy array         list<the type inferred from all the elements>
dict                             struct<the union of the keys, in first-seen order>
numpy scalars only               the type of their numpy dtype (below)
None only, or nothing            null
===============================  ====================================================

numpy dtypes map directly: bool, int*, uint*, float16/32/64; ``datetime64[s|ms|us|ns]``
-> timestamp (``[D]``, and ``[W|M|Y]``, -> date32; ``[h|m]`` -> timestamp[s]);
``timedelta64[unit]`` -> duration (``[D|W|h|m]`` -> duration[s]); ``U`` -> string;
``S`` -> binary; object -> the values' inference. NaT is null. 2-D arrays are lists
of rows. pandas: masked ``Int*``/``UInt*``/``Float*``/``boolean`` keep their
mask, string dtypes -> string, ``Categorical`` -> dictionary<int32, categories'
type>, ``datetime64[unit, tz]`` -> timestamp(unit, tz).

Deliberate differences from pyarrow: bool mixed with numbers is refused (pyarrow
takes ``[1.5, True]`` but not ``[1, True]``); dates mixed with datetimes, and
datetimes given to a date type, are refused (pyarrow drops the time of day);
ints too large for int64 mixed with floats make doubles (pyarrow refuses); a
float with a fraction given to an integer type is refused (pyarrow truncates
it); numpy ``S`` values keep inner NUL bytes (pyarrow cuts at the first NUL);
dict keys that are not fields of an explicit struct type, and data columns not
in the schema, raise (pyarrow drops them); non-nullable fields are enforced;
Categorical indices are int32 (pyarrow keeps pandas' code width).

A value that does not fit raises :class:`~pqkit.errors.SchemaError` naming the
value, its row and where it sits inside the row:
``value 'x' at row 3 [1]['a'] does not fit int64: expected an int, got str``.

This module holds the public entry points; the work is done by :mod:`.infer` (the
type of Python values), :mod:`.flat_builders` and :mod:`.build` (Python values ->
columns; ``build`` also holds ``cast``, which recurses with it), :mod:`.casts`
(vectorized column -> column), :mod:`.numpy_columns` and :mod:`.from_arrays` (numpy
and pandas data), :mod:`.pandas_metadata` (a DataFrame's stored columns and index
levels, and its ``pandas`` entry), :mod:`.required` (non-nullable fields) and
:mod:`.common` (the row-addressed error and helpers all of them share).
"""
import sys
from collections.abc import Mapping

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import Column
from pqkit.columnar.table import Table
from pqkit.convert.build import build_column, cast
from pqkit.convert.common import BadValue
from pqkit.convert.from_arrays import from_numpy, from_pandas
from pqkit.convert.infer import infer, infer_type
from pqkit.convert.pandas_metadata import FrameLayout
from pqkit.convert.required import check_required, has_required
from pqkit.errors import SchemaError


def column_from_values(values, type=None):
    """A pqkit column from Python values, a numpy array or a pandas Series.

    Parameters
    ----------
    values : list or other iterable, numpy.ndarray (masked too), pandas Series, Index or
        ExtensionArray, or a pqkit Column
        None (and pandas' NA/NaT; NaN in pandas float data) is null. numpy arrays are used
        without a Python loop, and without a copy when their dtype is the column's storage.
    type : pqkit DataType, optional
        Convert to exactly this type; inferred when omitted (see the module docstring).
        Maps are built only with an explicit ``map_`` type, from dicts or lists of
        ``(key, value)`` pairs.

    Returns
    -------
    Column

    Raises
    ------
    SchemaError
        A value does not fit ``type`` (wrong Python type, out of range, too many decimal
        digits, ...) or values of different kinds share a column; the message names the
        value and its row. Also a null under a non-nullable field of ``type``.

    Examples
    --------
    >>> column_from_values([1, None, 3]).type
    pqkit.DataType<int64>
    >>> column_from_values([[1, 2], None], T.list_(T.int8())).to_pylist()
    [[1, 2], None]
    """
    if type is not None and not isinstance(type, T.DataType):
        raise SchemaError(f"type {type!r} is not a pqkit DataType")
    try:
        col = _convert(values, type)
    except BadValue as err:
        raise err.error() from None
    if type is not None and has_required(type):
        check_required(col, np.ones(len(col), np.bool_), np.arange(len(col)), "")
    return col


def _convert(values, t):
    """A column of ``t`` (inferred when None) from anything column_from_values takes;
    raises BadValue for the caller to turn into a SchemaError."""
    if isinstance(values, Column):
        return values if t is None else cast(values, t)
    pd = _pandas()
    if pd is not None and isinstance(values, (pd.Series, pd.Index,
                                              pd.api.extensions.ExtensionArray)):
        return from_pandas(pd, values, t)
    if isinstance(values, np.ndarray):
        return from_numpy(values, t)
    if isinstance(values, (str, bytes, bytearray, Mapping)) or not hasattr(values, "__iter__"):
        raise SchemaError(f"column values must be a list, a numpy array or a pandas Series, "
                          f"not {values.__class__.__name__}")
    values = values if isinstance(values, list) else list(values)
    return build_column(values, infer(values) if t is None else t)


def _pandas():
    # A pandas object can exist only once pandas is imported; never import it here.
    return sys.modules.get("pandas")


def _schema_fields(schema):
    """The Fields a ``schema`` argument names (None for none); a name twice raises."""
    if schema is None:
        return None
    if isinstance(schema, T.StructType):
        fields = list(schema.fields)
    elif isinstance(schema, Mapping):
        fields = [T.field(name, t) for name, t in schema.items()]
    else:
        fields = [f if isinstance(f, T.Field) else T.field(*f) for f in schema]
    names = [f.name for f in fields]
    if len(set(names)) != len(names):
        raise SchemaError(f"the schema names a column twice: {names}")
    return fields


def table_from_data(data, schema=None, preserve_index=None):
    """A pqkit Table from a Table, a dict of name -> values, or a pandas DataFrame.

    Parameters
    ----------
    data : pqkit.Table, mapping of str -> values, or pandas.DataFrame
        Values are anything :func:`column_from_values` takes. A DataFrame's column
        labels become ``str``; its index is stored as ``preserve_index`` says, and the
        table's metadata gets the ``pandas`` entry that pandas-aware readers
        (``pandas.read_parquet``, :func:`pqkit.read_pandas`) rebuild the frame from, as
        ``pyarrow.Table.from_pandas`` does (see :mod:`pqkit.convert.pandas_metadata`).
    schema : list of Field or (name, type), StructType, or mapping of name -> DataType
        Types, nullability and field metadata, in column order. Every schema column must
        be in ``data`` (for a DataFrame: a column or an index level) and every data
        column in the schema. A Table without a schema is returned as it is.
    preserve_index : None, True or False, default None
        DataFrames only: store the index levels as columns, a RangeIndex as metadata
        only (None); every level as columns (True); nothing of the index (False).

    Returns
    -------
    Table

    Raises
    ------
    SchemaError
        A value does not fit its column's type (the message names the column and row),
        a non-nullable field holds a null, or the names of data and schema differ.
    """
    fields = _schema_fields(schema)
    if isinstance(data, Table) and fields is None:
        return data
    layout = None
    if is_dataframe(data):
        layout = FrameLayout(_pandas(), data, None if fields is None else [f.name for f in fields],
                             preserve_index)
        columns = layout.columns
    else:
        columns = _data_columns(data)
    if fields is not None:
        missing = [f.name for f in fields if f.name not in columns]
        extra = [name for name in columns if name not in {f.name for f in fields}]
        if missing or extra:
            raise SchemaError(f"the data has no column {missing[0]!r} of the schema" if missing
                              else f"the data column {extra[0]!r} is not in the schema")
    cols, out = [], []
    for i, name in enumerate(list(columns) if fields is None else [f.name for f in fields]):
        f = None if fields is None else fields[i]
        try:
            col = column_from_values(columns[name], None if f is None else f.type)
        except SchemaError as exc:
            raise SchemaError(f"column {name!r}: {exc}") from None
        if f is None:
            f = T.field(str(name), col.type)
        elif not f.nullable and col.null_count:
            raise SchemaError(f"column {name!r} is not nullable but row "
                              f"{int(np.argmin(col.valid_mask()))} is null")
        cols.append(col)
        out.append(f)
    if layout is not None:
        metadata = layout.metadata_entry(out, cols)
    else:
        metadata = data.metadata if isinstance(data, Table) else None
    return Table(cols, out, metadata)


def _data_columns(data):
    """The name -> values of a Table or a mapping."""
    if isinstance(data, Table):
        return dict(zip(data.column_names, data.columns))
    if isinstance(data, Mapping):
        return dict(data)
    raise SchemaError(f"cannot make a table of {data.__class__.__name__}: give a "
                      "pqkit.Table, a dict of columns or a pandas DataFrame")


def is_dataframe(obj):
    """True for a pandas DataFrame (without importing pandas)."""
    pd = _pandas()
    return pd is not None and isinstance(obj, pd.DataFrame)


__all__ = ["column_from_values", "table_from_data", "infer_type", "is_dataframe"]
