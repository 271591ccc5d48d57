"""A pandas DataFrame's columns and index levels, and the ``pandas`` entry that describes them.

A frame becomes its data columns followed by its stored index levels, as in
``pyarrow.Table.from_pandas``; the JSON document that lets pandas-aware readers
rebuild the frame is described in :mod:`pqkit.columnar.pandas_metadata`.
``preserve_index`` chooses which index levels are stored:

* ``None`` (default): every level is stored as a column, except a RangeIndex,
  which is only described (``{"kind": "range", "start", "stop", "step"}``);
* ``True``: every level is stored, a RangeIndex too;
* ``False``: no index is stored or described.

A level is stored under its name, or as ``__index_level_<i>__`` when it has no
name or its name is already a data column's. With an explicit schema the schema
decides: a schema field that is no data column is taken from the index level of
that name (or generated name), and index levels the schema does not name are
not stored.

For example ``DataFrame({"a": [1, 2]}, index=Index(["x", "y"]))`` gives the
columns ``a`` and ``__index_level_0__`` and ``"index_columns":
["__index_level_0__"]``.
"""
import json

import numpy as np

from pqkit import datatypes as T
from pqkit._version import __version__
from pqkit.columnar.pandas_metadata import PANDAS_KEY, generated_index_name
from pqkit.errors import SchemaError


def label_to_string(label):
    """The stored name of a column label: a str as it is, a tuple (a MultiIndex
    label) as the text of the tuple of its parts' strings, None as None."""
    if isinstance(label, str) or label is None:
        return label
    if isinstance(label, bytes):
        return label.decode("utf-8")
    if isinstance(label, tuple):
        return str(tuple(label_to_string(part) for part in label))
    if isinstance(label, float) and np.isnan(label):
        return None
    return str(label)


class FrameLayout:
    """Which values of a DataFrame become which stored columns.

    Parameters
    ----------
    pd : module
        pandas.
    df : pandas.DataFrame
    names : list of str, optional
        The schema's field names, in order; None to store every data column.
    preserve_index : None, bool
        See the module docstring.

    Attributes
    ----------
    columns : dict
        Field name -> pandas Series or Index, data columns first.
    """

    def __init__(self, pd, df, names=None, preserve_index=None):
        if preserve_index not in (None, True, False):
            raise SchemaError(f"preserve_index must be None, True or False, not "
                              f"{preserve_index!r}")
        self.pd = pd
        self.df = df
        self.preserve_index = preserve_index
        labels = [label_to_string(c) for c in df.columns]
        field_names = ["None" if n is None else n for n in labels]
        if len(set(field_names)) != len(field_names):
            raise SchemaError(f"the DataFrame has repeated column names: {field_names}")
        data = {f: (label, df.iloc[:, i]) for i, (f, label) in
                enumerate(zip(field_names, labels))}
        levels = [df.index.get_level_values(i) for i in range(df.index.nlevels)]
        self.labels = {}                # field name -> pandas label (name in "columns")
        self.columns = {}
        self.index = []                 # per described level: field name or range dict
        if names is None:
            self._all(data, levels)
        else:
            self._named(data, levels, list(names))

    def _all(self, data, levels):
        for f, (label, values) in data.items():
            self.labels[f] = label
            self.columns[f] = values
        if self.preserve_index is False:
            return
        taken = list(self.columns)
        for i, level in enumerate(levels):
            if isinstance(level, self.pd.RangeIndex) and self.preserve_index is None \
                    and len(levels) == 1:
                self.index.append(_range_descriptor(level))
                continue
            f = self._level_field(level, i, taken)
            taken.append(f)
            self._store_level(f, level)

    def _named(self, data, levels, names):
        stored_levels = {}
        for i, level in enumerate(levels):
            for key in (label_to_string(level.name), generated_index_name(i)):
                if key is not None and key not in data:
                    stored_levels.setdefault(key, level)
        for f in names:
            if f in data:
                self.labels[f] = data[f][0]
                self.columns[f] = data[f][1]
            elif f in stored_levels and self.preserve_index is not False:
                self._store_level(f, stored_levels[f])
            # else: left out, for the caller to report the missing column
        if not self.index and self.preserve_index is None and len(levels) == 1 \
                and isinstance(levels[0], self.pd.RangeIndex):
            self.index.append(_range_descriptor(levels[0]))

    def _level_field(self, level, i, taken):
        name = label_to_string(level.name)
        if name is not None and name not in taken:
            return name
        j = i
        while generated_index_name(j) in taken:
            j += 1
        return generated_index_name(j)

    def _store_level(self, f, level):
        self.labels[f] = label_to_string(level.name)
        self.columns[f] = level
        self.index.append(f)

    # --- the JSON entry ------------------------------------------------------------------
    def metadata_entry(self, fields, columns):
        """``{"pandas": json}`` for the stored ``fields`` and their built ``columns``."""
        described = set(f for f in self.index if isinstance(f, str))
        data, index = [], []
        for f, col in zip(fields, columns):
            info = _column_entry(self.pd, self.columns[f.name], self.labels[f.name], f.name,
                                 col.type)
            (index if f.name in described else data).append(info)
        index_columns = [d for d in self.index
                         if not isinstance(d, str) or d in {f.name for f in fields}]
        column_indexes = [] if self.preserve_index is False else self._column_indexes()
        attributes = dict(self.df.attrs)
        try:
            json.dumps(attributes)
        except (TypeError, ValueError):
            attributes = {}             # as pyarrow: attrs that JSON cannot hold are left out
        doc = {"index_columns": index_columns, "column_indexes": column_indexes,
               "columns": data + index, "attributes": attributes,
               "creator": {"library": "pqkit", "version": __version__},
               "pandas_version": self.pd.__version__}
        return {PANDAS_KEY: json.dumps(doc)}

    def _column_indexes(self):
        cols = self.df.columns
        levels = [cols.get_level_values(i) for i in range(cols.nlevels)] \
            if cols.nlevels > 1 else [cols]
        out = []
        for level in levels:
            numpy_type, meta = _dtype_facts(self.pd, level)
            pandas_type = _labels_type(self.pd, level)
            if pandas_type == "unicode":
                meta = {"encoding": "UTF-8"}
            name = _json_name(level.name)
            out.append({"name": name, "field_name": name, "pandas_type": pandas_type,
                        "numpy_type": numpy_type, "metadata": meta})
        return out


def _range_descriptor(index):
    return {"kind": "range", "name": _json_name(index.name), "start": int(index.start),
            "stop": int(index.stop), "step": int(index.step)}


def _json_name(name):
    try:
        json.dumps(name)
    except (TypeError, ValueError):
        return str(name)
    return name


_NUMPY_LABEL_TYPES = {np.dtype(n).type: n for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64")}


def _labels_type(pd, level):
    """The ``pandas_type`` of a level of column labels, judged from its values."""
    dtype = level.dtype
    if getattr(dtype, "tz", None) is not None:
        return "datetimetz"
    if isinstance(dtype, np.dtype):
        if dtype.kind == "M":
            return "date" if dtype == np.dtype("M8[D]") else str(dtype)
        if dtype.type in _NUMPY_LABEL_TYPES:
            return _NUMPY_LABEL_TYPES[dtype.type]
    inferred = pd.api.types.infer_dtype(level, skipna=False)
    return "unicode" if inferred == "string" else inferred


def _dtype_facts(pd, values):
    """(``numpy_type``, extra ``metadata``) of a pandas Series or Index."""
    dtype = values.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        cats = values.array
        return str(cats.codes.dtype), {"num_categories": len(dtype.categories),
                                       "ordered": bool(dtype.ordered)}
    if isinstance(dtype, pd.DatetimeTZDtype):
        from pqkit.convert.infer import tz_name
        return f"datetime64[{dtype.unit}]", {"timezone": tz_name(dtype.tz)}
    return str(dtype), None


_INT_NAMES = {(w, s): f"{'' if s else 'u'}int{w}" for w in (8, 16, 32, 64) for s in (True, False)}


def pandas_type(t):
    """The ``pandas_type`` pyarrow records for a stored column of type ``t``."""
    if isinstance(t, T.NullType):
        return "empty"
    if isinstance(t, T.BooleanType):
        return "bool"
    if isinstance(t, T.IntegerType):
        return _INT_NAMES[(t.bit_width, t.signed)]
    if isinstance(t, T.FloatingType):
        return f"float{t.bit_width}"
    if isinstance(t, (T.Date32Type, T.Date64Type)):
        return "date"
    if isinstance(t, (T.Time32Type, T.Time64Type)):
        return "time"
    if isinstance(t, T.FixedSizeBinaryType) and not isinstance(t, T.ExtensionType):
        return "bytes"
    if isinstance(t, T.StringType) and not t.large:
        return "bytes" if isinstance(t, T.BinaryType) else "unicode"
    if isinstance(t, T.DictionaryType):
        return "categorical"
    if isinstance(t, T.ListType) and not t.large:
        return f"list[{pandas_type(t.value_type)}]"
    if isinstance(t, T.TimestampType):
        return "datetime" if t.tz is None else "datetimetz"
    if isinstance(t, T.DecimalType):
        return "decimal"
    return "object"


def _column_entry(pd, values, label, field_name, t):
    numpy_type, meta = _dtype_facts(pd, values)
    logical = pandas_type(t)
    if logical == "decimal":
        numpy_type, meta = "object", {"precision": t.precision, "scale": t.scale}
    return {"name": label, "field_name": field_name, "pandas_type": logical,
            "numpy_type": numpy_type, "metadata": meta}
