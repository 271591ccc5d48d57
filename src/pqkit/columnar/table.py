"""Tables: ordered, named columns of equal length (the reader's output, the writer's input).

A :class:`Table` pairs a list of :mod:`pqkit.columnar.column` columns with a schema,
one :class:`~pqkit.datatypes.Field` per column. Columns keep their buffers in
Arrow layout on numpy arrays; Python objects are made only by ``to_pydict()``,
``to_pylist()`` and ``to_pandas()``, and those give the same values as
pyarrow's methods of the same names (``to_pandas()`` differs in the documented
dtypes of :mod:`pqkit.columnar.to_pandas`). A table of two rows::

    >>> import numpy as np
    >>> from pqkit import datatypes as T
    >>> ids = PrimitiveColumn(T.int64(), np.array([1, 2]))
    >>> names = BinaryColumn(T.string(), np.array([0, 3, 3]), b"abc",
    ...                      np.array([True, False]))
    >>> t = Table({"id": ids, "name": names})
    >>> t.to_pydict()
    {'id': [1, 2], 'name': ['abc', None]}
    >>> t.to_pylist()
    [{'id': 1, 'name': 'abc'}, {'id': 2, 'name': None}]
"""
from types import MappingProxyType

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar import arrow_export, arrow_import
from pqkit.columnar.column import BinaryColumn, Column, NullColumn, PrimitiveColumn, concat_columns
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.columnar.nested import (
    DictionaryColumn,
    FixedSizeListColumn,
    ListColumn,
    MapColumn,
    StructColumn,
    nulls,
)
from pqkit.errors import ArgumentError, ArgumentKeyError, SchemaError
from pqkit.memory import uses_pool

_REPR_ROWS = 5
_REPR_WIDTH = 24


class Table:
    """Named columns of equal length.

    Parameters
    ----------
    columns : list of Column, or dict of name -> Column
    names : list of str or list of Field, optional
        Required with a list of columns. Fields give nullability and metadata;
        plain names make nullable fields. A Field's type must equal its column's.
    metadata : mapping, optional
        Key/value metadata of the table (file key_value_metadata).
    num_rows : int, optional
        The row count of a table without columns (pyarrow's ``read_table(path,
        columns=[])`` gives N rows and no column); with columns it must equal theirs.
    """

    __slots__ = ("_columns", "_fields", "_metadata", "_num_rows")

    def __init__(self, columns, names=None, metadata=None, *, num_rows=None):
        if isinstance(columns, dict):
            if names is not None:
                raise SchemaError("give names either as dict keys or as `names`, not both")
            names = list(columns)
            columns = list(columns.values())
        columns = list(columns)
        if names is None:
            raise SchemaError("Table(columns) needs `names` when columns is a list")
        names = list(names)
        if len(names) != len(columns):
            raise SchemaError(f"{len(columns)} columns but {len(names)} names")
        fields = []
        for name, col in zip(names, columns):
            if not isinstance(col, Column):
                raise SchemaError(f"column {name!r} is a {type(col).__name__}, not a Column")
            f = name if isinstance(name, T.Field) else T.Field(name, col.type)
            if f.type != col.type:
                raise SchemaError(f"field {f.name!r} has type {f.type} but its column is "
                                  f"{col.type}")
            if not f.nullable and col.null_count:
                raise SchemaError(f"non-nullable field {f.name!r} has {col.null_count} nulls")
            fields.append(f)
        if columns:
            if num_rows is not None and num_rows != len(columns[0]):
                raise SchemaError(f"num_rows={num_rows} but the columns hold "
                                  f"{len(columns[0])} rows")
            num_rows = len(columns[0])
        elif num_rows is None:
            num_rows = 0
        elif num_rows < 0:
            raise SchemaError(f"num_rows must not be negative, got {num_rows}")
        for f, col in zip(fields, columns):
            if len(col) != num_rows:
                raise SchemaError(f"column {f.name!r} has {len(col)} rows, expected "
                                  f"{num_rows}")
        self._columns = columns
        self._fields = fields
        self._metadata = None if metadata is None else dict(metadata)
        self._num_rows = num_rows

    # --- shape and schema -------------------------------------------------------------
    @property
    def num_rows(self):
        return self._num_rows

    @property
    def num_columns(self):
        return len(self._columns)

    @property
    def shape(self):
        return (self._num_rows, len(self._columns))

    def __len__(self):
        return self._num_rows

    @property
    def column_names(self):
        return [f.name for f in self._fields]

    @property
    def schema(self):
        """The fields, one per column (a new list)."""
        return list(self._fields)

    @property
    def columns(self):
        """The columns (a new list)."""
        return list(self._columns)

    @property
    def metadata(self):
        return None if self._metadata is None else MappingProxyType(self._metadata)

    @property
    def nbytes(self):
        return sum(c.nbytes for c in self._columns)

    def field(self, key):
        return self._fields[self._index(key)]

    def _index(self, key):
        if isinstance(key, str):
            names = self.column_names
            if names.count(key) != 1:
                raise ArgumentKeyError(f"no column named {key!r}" if key not in names
                                       else f"column name {key!r} is not unique")
            return names.index(key)
        i = int(key)
        if not -len(self._columns) <= i < len(self._columns):
            raise IndexError(f"column {key} is out of range for {len(self._columns)} columns")
        return i % len(self._columns)

    def column(self, key):
        """The column with this name or position."""
        return self._columns[self._index(key)]

    def __getitem__(self, key):
        if isinstance(key, slice):
            return self.slice(key.start or 0, key.stop) if key.step in (None, 1) \
                else self.take(range(*key.indices(self._num_rows)))
        return self.column(key)

    def __contains__(self, name):
        return name in self.column_names

    def __iter__(self):
        return iter(self._columns)

    # --- selection --------------------------------------------------------------------
    def _with_columns(self, columns, fields=None, num_rows=None):
        return Table(columns, fields if fields is not None else self._fields, self._metadata,
                     num_rows=None if columns else num_rows)

    def slice(self, start=0, stop=None):
        """Rows ``start:stop`` (Python slice rules) as zero-copy views."""
        try:
            rows = len(range(*slice(start, stop).indices(self._num_rows)))
        except TypeError:
            raise ArgumentError(f"slice takes ints or None, got start={start!r}, "
                                f"stop={stop!r}") from None
        return self._with_columns([c.slice(start, stop) for c in self._columns], num_rows=rows)

    def take(self, indices):
        """The rows at ``indices``."""
        idx = np.asarray(list(indices) if isinstance(indices, range) else indices)
        return self._with_columns([c.take(idx) for c in self._columns], num_rows=len(idx))

    def select(self, keys):
        """A table of the named (or numbered) columns, in the order given."""
        idx = [self._index(k) for k in keys]
        return Table([self._columns[i] for i in idx], [self._fields[i] for i in idx],
                     self._metadata, num_rows=None if idx else self._num_rows)

    def drop(self, names):
        """A table without the named columns."""
        gone = {self._index(n) for n in names}
        return self.select([i for i in range(len(self._columns)) if i not in gone])

    def append_column(self, name, column):
        """A table with one more column (``name`` may be a Field)."""
        return Table(self._columns + [column], self._fields + [name], self._metadata)

    def rename_columns(self, names):
        fields = [f.with_name(n) for f, n in zip(self._fields, names, strict=True)]
        return self._with_columns(self._columns, fields)

    def replace_metadata(self, metadata):
        return Table(self._columns, self._fields, metadata)

    # --- conversion ---------------------------------------------------------------------
    def to_pydict(self):
        """``{name: list of values}``, equal to pyarrow's ``Table.to_pydict()``."""
        return {f.name: c.to_pylist() for f, c in zip(self._fields, self._columns)}

    def to_pylist(self):
        """One dict per row."""
        names = self.column_names
        lists = [c.to_pylist() for c in self._columns]
        if not lists:
            return []
        return [dict(zip(names, row)) for row in zip(*lists)]

    @uses_pool
    def to_pandas(self, strings=None, self_destruct=False, ignore_metadata=False,
                  decimals="decimal"):
        """A pandas DataFrame; dtypes as documented in :mod:`pqkit.columnar.to_pandas`.

        When the table's metadata holds a ``pandas`` entry (tables made from a
        DataFrame, files written by pqkit or pyarrow from one), the frame gets the
        index, column labels and dtypes it records (see
        :mod:`pqkit.columnar.pandas_restore`).

        Parameters
        ----------
        strings : {None, "str", "object"}, default None
            String columns as pandas' default string dtype (``str`` from pandas
            3 on, backed by the column's bytes when pandas stores strings in
            pyarrow), or as numpy object arrays of ``str`` with None for nulls
            (the dtype of pandas before 3 and of fastparquet). None: as the
            ``pandas`` entry records (object strings stay object), else ``"str"``.
        self_destruct : bool, default False
            Hand the numeric value buffers to the DataFrame instead of copying
            them (as pyarrow's option of that name). The Table cannot be used
            afterwards, and nothing else may share its buffers: use it on a
            Table straight from a reader (what :func:`pqkit.read_pandas` does),
            not on one whose columns or slices you keep.
        ignore_metadata : bool, default False
            Disregard the ``pandas`` entry: a RangeIndex, the column names as
            labels and the default dtypes.
        decimals : {"decimal", "float", "str"}, default "decimal"
            Decimal columns as ``decimal.Decimal`` objects (as pyarrow gives them),
            as float64 (the nearest double, NaN for nulls) or as their text in the
            ``strings`` dtype; see :mod:`pqkit.columnar.decimal_pandas`.

        Raises
        ------
        SchemaError
            The ``pandas`` entry is not of the documented shape.

        Examples
        --------
        >>> t = Table({"s": BinaryColumn(T.string(), [0, 1, 1], b"a",
        ...                              np.array([True, False]))})
        >>> t.to_pandas(strings="object")["s"].tolist()            # doctest: +SKIP
        ['a', None]
        """
        from pqkit.columnar.decimal_pandas import check_decimals_option, decimals_as
        from pqkit.columnar.pandas_metadata import pandas_metadata_of
        from pqkit.columnar.pandas_restore import build_frame, recorded_series
        from pqkit.columnar.to_pandas import check_strings_option, pandas_module
        pd = pandas_module()
        if strings is not None:
            check_strings_option(strings)
        check_decimals_option(decimals)
        meta = None if ignore_metadata else pandas_metadata_of(self._metadata)
        names = self.column_names
        series = [recorded_series(pd, decimals_as(c, decimals),
                                  None if meta is None else meta.columns.get(name),
                                  strings, self_destruct)
                  for name, c in zip(names, self._columns)]
        if self_destruct:
            self._columns = _Consumed()
        return build_frame(pd, names, series, meta, self._num_rows)

    def flatten(self):
        """A table with every struct column replaced by one column per field.

        The new columns are named ``"parent.field"`` and a null struct row is
        null in each of them, as pyarrow's ``Table.flatten()`` does. One level
        is flattened per call: a struct inside a struct becomes a struct column
        of its own, which a second ``flatten()`` splits.
        """
        columns, fields = [], []
        for f, col in zip(self._fields, self._columns):
            if not isinstance(col, StructColumn):
                columns.append(col)
                fields.append(f)
                continue
            for child_field, child in zip(f.type.fields, col.flatten()):
                fields.append(T.Field(f"{f.name}.{child_field.name}", child_field.type,
                                      child_field.nullable or f.nullable,
                                      child_field.metadata))
                columns.append(child)
        return Table(columns, fields, self._metadata)

    # --- Arrow PyCapsule interface -----------------------------------------------------------
    @classmethod
    def from_arrow(cls, data):
        """A Table from any producer of the Arrow PyCapsule interface.

        Parameters
        ----------
        data : object with ``__arrow_c_stream__`` or ``__arrow_c_array__``
            A pyarrow Table, RecordBatch, RecordBatchReader, ChunkedArray or Array,
            a polars DataFrame, a DuckDB relation, a pqkit Table...; a non-struct
            array becomes one column named after its field.

        Notes
        -----
        Buffers are shared, not copied, where pqkit's layout is Arrow's: fixed-width
        values, int64 offsets, string/binary data, fixed-size binary, dictionary
        indices. pqkit converts what it stores differently: validity bitmaps and
        bool values become one byte per slot, int32 offsets become int64, string
        views (polars) become offsets + data, 128/256-bit decimals become int64 or
        big-endian values, and a stream of several batches is concatenated. See
        :mod:`pqkit.columnar.arrow_import`. Inconsistent arrays (offsets past a
        child, indices outside a dictionary, missing buffers) raise SchemaError.
        """
        columns, fields, metadata = arrow_import.table_parts(data)
        return cls(columns, fields, metadata)

    def __arrow_c_schema__(self):
        """An ``arrow_schema`` PyCapsule: a struct of the table's fields and its metadata."""
        return arrow_export.table_schema_capsule(self._fields, self._metadata)

    def to_batches(self, max_chunksize=None):
        """The rows as record batches: zero-copy slices of at most ``max_chunksize`` rows
        (one batch for all rows by default), each an Arrow PyCapsule producer in the
        record-batch form (``__arrow_c_array__`` of a struct array), as
        ``pyarrow.record_batch(batch)`` takes.

        The Table itself offers only the stream form: consumers such as
        ``polars.from_arrow`` read an object with ``__arrow_c_array__`` as one array.
        """
        size = self._num_rows if not max_chunksize else int(max_chunksize)
        if size <= 0:
            return [arrow_export.RecordBatch(self._fields, self._columns, 0, self._metadata)]
        out = []
        for start in range(0, self._num_rows, size):
            part = self.slice(start, start + size)
            out.append(arrow_export.RecordBatch(part._fields, part._columns, part._num_rows,
                                                self._metadata))
        return out

    def arrow_stream(self, *, string_view=False):
        """The table as an Arrow stream producer with a chosen layout.

        Parameters
        ----------
        string_view : bool, default False
            Export string and binary columns (nested ones too) as Arrow ``string_view``
            / ``binary_view`` arrays whose data buffers are the table's own. polars
            keeps strings as views: ``polars.DataFrame(t.arrow_stream(string_view=True))``
            takes them without a copy, where from ``polars.DataFrame(t)`` it copies
            every ``string`` column into its own layout. pyarrow and DuckDB read views
            too (pyarrow then gives ``string_view`` columns).

        Returns
        -------
        TableStream
            An object with ``__arrow_c_stream__`` and ``__arrow_c_schema__``.

        Examples
        --------
        >>> import polars as pl                                  # doctest: +SKIP
        >>> df = pl.DataFrame(pqkit.read_table("x.parquet").arrow_stream(string_view=True))
        """
        return arrow_export.TableStream(self._fields, [(self._columns, self._num_rows)],
                                        self._metadata, string_view)

    def __arrow_c_stream__(self, requested_schema=None):
        """An ``arrow_array_stream`` PyCapsule yielding the table as one record batch.

        ``pyarrow.table(t)``, ``polars.DataFrame(t)`` and DuckDB's ``select * from t``
        read pqkit's buffers through it without a copy (see
        :mod:`pqkit.columnar.arrow_export` for what is converted).
        """
        return arrow_export.table_stream_capsule(self._fields, self._columns, self._num_rows,
                                                 self._metadata)

    # --- comparison and display ------------------------------------------------------------
    def equals(self, other, check_metadata=False):
        """Same fields and column values (NaN equals NaN); metadata only if asked."""
        if not isinstance(other, Table) or [f._key() for f in self._fields] != \
                [f._key() for f in other._fields] or self._num_rows != other._num_rows:
            return False
        if check_metadata and (self._metadata != other._metadata or self._fields != other._fields):
            return False
        return all(a.equals(b) for a, b in zip(self._columns, other._columns))

    def __eq__(self, other):
        return self.equals(other)

    __hash__ = None

    def __repr__(self):
        lines = ["pqkit.Table"] + [str(f) for f in self._fields]
        lines.append(f"---- {self._num_rows} rows x {len(self._columns)} columns")
        if self._columns:
            head = self.slice(0, _REPR_ROWS)
            cells = [[_cell(v) for v in c.to_pylist()] for c in head._columns]
            widths = [max([len(f.name)] + [len(s) for s in col])
                      for f, col in zip(self._fields, cells)]
            lines.append("  ".join(f.name.ljust(w) for f, w in zip(self._fields, widths)))
            for row in zip(*cells):
                lines.append("  ".join(s.ljust(w) for s, w in zip(row, widths)).rstrip())
            if self._num_rows > _REPR_ROWS:
                lines.append("...")
        return "\n".join(lines)


class _Consumed:
    """The columns of a Table whose buffers ``to_pandas(self_destruct=True)`` gave away."""

    __slots__ = ()

    def _gone(self, *args):
        raise ValueError("this Table's buffers went to pandas (to_pandas(self_destruct=True)); "
                         "it cannot be used any more")

    __iter__ = __len__ = __getitem__ = _gone


def _cell(value):
    s = repr(value)
    return s if len(s) <= _REPR_WIDTH else s[:_REPR_WIDTH - 3] + "..."


def concat_tables(tables):
    """One table with the rows of ``tables`` in order; all must have the same fields.

    The first table's metadata is kept.
    """
    tables = list(tables)
    if not tables:
        raise SchemaError("concat_tables needs at least one table")
    first = tables[0]
    keys = [f._key() for f in first._fields]
    for t in tables[1:]:
        if [f._key() for f in t._fields] != keys:
            raise SchemaError(f"cannot concatenate tables with different schemas: "
                              f"{[str(f) for f in t._fields]} vs "
                              f"{[str(f) for f in first._fields]}")
    columns = [concat_columns([t._columns[i] for t in tables]) for i in range(len(keys))]
    return Table(columns, first._fields, first._metadata,
                 num_rows=None if columns else sum(t._num_rows for t in tables))


__all__ = [
    "Table", "concat_tables", "Column", "NullColumn", "PrimitiveColumn", "BinaryColumn",
    "FixedSizeBinaryColumn", "DecimalColumn", "DictionaryColumn", "ListColumn",
    "FixedSizeListColumn", "StructColumn", "MapColumn", "concat_columns", "nulls",
]
