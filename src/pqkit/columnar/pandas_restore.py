"""The DataFrame a ``pandas`` metadata entry describes: index levels and recorded dtypes.

:meth:`pqkit.Table.to_pandas` converts every column as :mod:`.to_pandas` says;
when the table carries a ``pandas`` entry (:mod:`.pandas_metadata`), this
module then gives each column the pandas dtype recorded for it and builds the
frame's index and column labels from it, as ``pyarrow.Table.to_pandas`` does:

=========================  ==========================================================
recorded                   restored
=========================  ==========================================================
``Int64``, ``boolean``...  that masked dtype, also for columns without nulls
``object`` strings         numpy object array of ``str`` (None for nulls)
``string``                 ``pandas.StringDtype()`` (pd.NA for nulls)
``categorical``            ``category`` (``ordered`` as recorded) for columns that
                           were not stored dictionary-encoded
``timezone``               time zone aware values in that zone
``datetime64[unit]``       that unit, when the values fit it
index levels               the stored columns named in ``index_columns`` become the
                           (Multi)Index with their pandas names; a range descriptor
                           becomes a RangeIndex when its length is the table's
column labels              the recorded names; integer and float labels as numbers
=========================  ==========================================================

Entries naming columns the table lacks (a selection of columns, a slice) are
skipped, so a partial read gives the frame of what was read.
"""
import ast

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar import pyvalues as pv
from pqkit.columnar.pandas_metadata import RangeDescriptor
from pqkit.columnar.to_pandas import column_to_pandas, masked_as

_MASKED = {"Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32", "UInt64",
           "Float32", "Float64", "boolean"}
_UNITS = ("s", "ms", "us", "ns")
_NUMERIC_LABELS = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                   "uint64", "float32", "float64"}


def string_choice(info, strings):
    """The ``strings`` option for one column: the caller's, else what was recorded."""
    if strings is not None:
        return strings
    return "object" if info is not None and info.numpy_type == "object" else "str"


def recorded_series(pd, col, info, strings, take):
    """A Series of ``col`` with the dtype ``info`` (a ColumnInfo, or None) records."""
    if info is not None and info.numpy_type in _MASKED and \
            isinstance(col.type, (T.IntegerType, T.FloatingType, T.BooleanType)):
        values = masked_as(pd, col, pd.api.types.pandas_dtype(info.numpy_type), take)
        if values is not None:
            return pd.Series(values, copy=False)
    series = column_to_pandas(col, strings=string_choice(info, strings), take_buffers=take)
    return series if info is None else _adjust(pd, series, col, info)


def _adjust(pd, series, col, info):
    if info.numpy_type == "string" and T.is_text_type(col.type):
        return series.astype(pd.StringDtype())
    if info.pandas_type == "categorical" and not isinstance(series.dtype, pd.CategoricalDtype):
        # Stored without its dictionary: the categories are the values present, sorted as
        # pandas sorts them, of their plain dtype (int64 rather than the masked Int64).
        categories = pd.Index(series.dropna().unique().tolist()).sort_values()
        return series.astype(pd.CategoricalDtype(categories,
                                                 bool(info.metadata.get("ordered", False))))
    if info.numpy_type.endswith("[pyarrow]"):
        return _arrow_backed(pd, series, info.numpy_type)
    if isinstance(col.type, T.TimestampType):
        return _timestamps(pd, series, col.type, info)
    return series


def _arrow_backed(pd, series, numpy_type):
    """An ``ArrowDtype`` column (the writer had pyarrow, so pandas can make one)."""
    try:
        return series.astype(pd.api.types.pandas_dtype(numpy_type))
    except (TypeError, ValueError, ImportError, NotImplementedError):
        return series


def _timestamps(pd, series, t, info):
    tz = info.metadata.get("timezone") if info.pandas_type == "datetimetz" else None
    if isinstance(tz, str) and tz != t.tz:
        zone = pv.tzinfo_for(tz)
        series = series.dt.tz_convert(zone) if t.tz is not None \
            else series.dt.tz_localize("UTC").dt.tz_convert(zone)
    unit = np.datetime_data(np.dtype(info.numpy_type))[0] \
        if info.numpy_type.startswith("datetime64[") else None
    # Only towards a finer unit, which loses nothing (a coarser one would truncate).
    if unit in _UNITS and _UNITS.index(unit) > _UNITS.index(series.dt.unit):
        try:
            series = series.dt.as_unit(unit)
        except (ValueError, OverflowError):
            pass                        # the values do not fit the recorded unit: keep them
    return series


def build_frame(pd, names, series, meta, num_rows):
    """The DataFrame of the converted ``series`` (one per column, in table order).

    ``names`` are the table's column names, ``meta`` the parsed ``pandas`` entry or
    None (then the frame has a RangeIndex and the column names as labels).
    """
    if meta is None:
        return _frame(pd, dict(enumerate(series)), names, num_rows)
    positions = {}
    for i, name in enumerate(names):
        positions.setdefault(name, i)
    levels, level_names, used = [], [], set()
    for d in meta.index:
        if isinstance(d, RangeDescriptor):
            level = pd.RangeIndex(d.start, d.stop, d.step, name=d.name)
            if len(level) != num_rows:
                continue                # a slice or a concatenation: the range is stale
            levels.append(level)
            level_names.append(d.name)
        elif d in positions and positions[d] not in used:
            used.add(positions[d])
            name = meta.index_name(d)
            levels.append(pd.Index(series[positions[d]], name=name, copy=False))
            level_names.append(name)
    data = {i: s for i, s in enumerate(series) if i not in used}
    labels = [_label(meta, names[i]) for i in data]
    df = _frame(pd, data, labels, num_rows)
    df.columns = _column_labels(pd, labels, meta.column_indexes)
    if len(levels) > 1:
        df.index = pd.MultiIndex.from_arrays(levels, names=level_names)
    elif levels:
        df.index = levels[0]
    df.attrs = dict(meta.attributes)
    return df


def _frame(pd, data, labels, num_rows):
    # The Series are fresh: no second copy into consolidated blocks.
    df = pd.DataFrame(data, index=pd.RangeIndex(num_rows), copy=False)
    df.columns = labels
    return df


def _label(meta, field_name):
    info = meta.columns.get(field_name)
    if info is None or (info.name is None and field_name != "None"):
        return field_name
    return info.name


def _column_labels(pd, labels, column_indexes):
    """The frame's column Index: its names and, for numeric labels, their dtype."""
    if len(column_indexes) > 1:
        try:
            tuples = [ast.literal_eval(label) for label in labels]
        except (ValueError, SyntaxError, TypeError):
            tuples = None
        if tuples is not None and all(isinstance(t, tuple) and len(t) == len(column_indexes)
                                      for t in tuples):
            index = pd.MultiIndex.from_tuples(tuples, names=[c.name for c in column_indexes])
            return index.set_levels([_typed_labels(level, c) for level, c in
                                     zip(index.levels, column_indexes)])
    index = pd.Index(labels, name=column_indexes[0].name if column_indexes else None)
    return _typed_labels(index, column_indexes[0]) if len(column_indexes) == 1 else index


def _typed_labels(level, info):
    if info.numpy_type in _NUMERIC_LABELS and info.pandas_type in _NUMERIC_LABELS:
        try:
            return level.astype(info.numpy_type)
        except (ValueError, TypeError):
            return level
    return level
