"""Export columns and tables over the Arrow C Data and C Stream interfaces.

A pqkit column already holds Arrow-layout buffers, so exporting one hands the
consumer pointers to the same numpy memory: values, offsets and data buffers
are shared, and stay alive until the consumer calls the release callback (each
exported array node holds its own references, see :mod:`pqkit._native.arrow_c`).
What differs from Arrow is converted, once per export:

* validity: pqkit's bool masks become Arrow bitmaps (none when there is no null);
* bool values: one byte per value becomes one bit per value;
* 32-bit offsets (``string``, ``binary``, ``list``, ``map``): pqkit keeps int64
  offsets whatever the type, so the small types get an int32 copy of their
  offsets (rebased when the column is a slice far into its data); the large
  types share theirs;
* decimals: pqkit keeps the decoder's unscaled int32/int64 or big-endian bytes;
  Arrow wants 16 (or 32) little-endian bytes per value;
* dictionary indices under null slots are zeroed if they point outside the
  dictionary, since consumers may gather through them.

``[1, None, 3]`` as int64 exports as length 3, null count 1, buffers
``[bitmap 0b101, <the column's values>]``. A table exports as a struct array
(the record-batch form) or as a stream of one such batch; a file reader exports
a lazy stream of many (:func:`stream_capsule`).

This module dispatches on the column's *type* and reads the buffers each column
kind documents (``values``, ``offsets``/``data``, ``child``, ``children``,
``keys``/``items``, ``indices``/``dictionary``), so it imports no column class.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit._native import arrow_c, decimal_le
from pqkit.columnar import arrow_types as AT
from pqkit.columnar import pyvalues as pv
from pqkit.columnar.arrow_views import binary_view_node
from pqkit.errors import SchemaError
from pqkit.memory import uses_pool

_INT32_MAX = np.iinfo(np.int32).max


# --- schemas -----------------------------------------------------------------------------

def field_node(field, views=False):
    """The schema node of a :class:`~pqkit.datatypes.Field` (string and binary types as
    ``vu``/``vz`` views if ``views``).

    Raises SchemaError for a name holding a NUL character: the C data interface
    passes names as NUL-terminated strings, so a consumer would see it cut short."""
    if "\0" in field.name:
        raise SchemaError(f"field {field.name!r} cannot be exported to Arrow: its name holds "
                          "a NUL character, which ends a name in the Arrow C data interface")
    return _schema_node(field.name, field.type, field.nullable, field.metadata, views)


def _schema_node(name, type_, nullable, metadata=None, views=False):
    pairs = dict(metadata or {})
    pairs.update(AT.extension_metadata(type_))
    flags = AT.FLAG_NULLABLE if nullable else 0
    children, dictionary = (), None
    if isinstance(type_, T.DictionaryType):
        if type_.ordered:
            flags |= AT.FLAG_DICTIONARY_ORDERED
        dictionary = _schema_node("", type_.value_type, True)
    elif isinstance(type_, T.MapType):
        if type_.keys_sorted:
            flags |= AT.FLAG_MAP_KEYS_SORTED
        entries = _schema_node("entries", T.struct(type_.fields), False, None, views)
        children = (entries,)
    elif type_.is_nested:
        children = tuple(field_node(f, views) for f in type_.fields)
    fmt = AT.view_format(type_) if views and isinstance(type_, T.StringType) \
        else AT.format_of(type_)
    return (fmt.encode(), _name_bytes(name), AT.encode_metadata(pairs), flags, children,
            dictionary)


def _name_bytes(name):
    """A field name as the UTF-8 the Arrow C Data Interface requires of names. A name
    with a lone surrogate (how pqkit keeps bytes of a file that are not UTF-8) has no
    UTF-8 form; exporting its raw bytes would hand consumers an invalid schema."""
    try:
        return name.encode("utf-8")
    except UnicodeEncodeError:
        raise SchemaError(f"field name {name!r} is not valid text (it holds a lone "
                          "surrogate, e.g. from bytes of the file that are not UTF-8) and "
                          "Arrow names must be UTF-8: rename the column (Table."
                          "rename_columns) before exporting it") from None


def table_schema_node(fields, metadata=None, views=False):
    """The schema node of a table: a struct of its fields, carrying the table metadata."""
    pairs = {k: v for k, v in (metadata or {}).items() if k != "ARROW:schema"}
    return (b"+s", b"", AT.encode_metadata(pairs), 0,
            tuple(field_node(f, views) for f in fields), None)


# --- arrays --------------------------------------------------------------------------------

def _bitmap(column):
    """(Arrow validity bitmap or None, null count) of a column."""
    nulls = column.null_count
    if nulls == 0:
        return None, 0
    return np.packbits(column.validity, bitorder="little"), nulls


def _narrow(offsets, what):
    """int32 offsets equal to int64 ``offsets`` minus a base, and that base."""
    base = int(offsets[0]) if len(offsets) else 0
    if len(offsets) and int(offsets[-1]) <= _INT32_MAX:
        base = 0
    if len(offsets) and int(offsets[-1]) - base > _INT32_MAX:
        raise SchemaError(f"{what} spans {int(offsets[-1]) - base} bytes or values, more than "
                          f"32-bit Arrow offsets address; use the large_ type")
    return (offsets - base).astype(np.int32), base


def array_node(column, views=False):
    """The array node of a pqkit column (buffers shared where layouts agree); string and
    binary columns, nested ones included, in the view layout if ``views``."""
    t = column.type
    n = len(column)
    if isinstance(t, T.NullType):
        return (n, n, 0, (), (), None)
    bitmap, nulls = _bitmap(column)
    if isinstance(t, T.BooleanType):
        return (n, nulls, 0, (bitmap, np.packbits(column.values, bitorder="little")), (), None)
    if isinstance(t, T.DecimalType):
        return (n, nulls, 0, (bitmap, _decimal_le(column)), (), None)
    if t.numpy_dtype is not None:
        return (n, nulls, 0, (bitmap, np.ascontiguousarray(column.values)), (), None)
    if isinstance(t, T.StringType):
        if views:
            return binary_view_node(column, bitmap, nulls)
        return _binary_node(column, bitmap, nulls)
    if isinstance(t, (T.FixedSizeBinaryType, T.ExtensionType)):
        return (n, nulls, 0, (bitmap, np.ascontiguousarray(column.data)), (), None)
    if isinstance(t, T.DictionaryType):
        return _dictionary_node(column, bitmap, nulls)
    return _nested_node(column, bitmap, nulls, views)


def _binary_node(column, bitmap, nulls):
    offsets, data = column.offsets, column.data
    if column.type.large:
        return (len(column), nulls, 0, (bitmap, np.ascontiguousarray(offsets), data), (), None)
    small, base = _narrow(offsets, f"{column.type} column")
    return (len(column), nulls, 0, (bitmap, small, data[base:]), (), None)


def _dictionary_node(column, bitmap, nulls):
    indices = np.ascontiguousarray(column.indices)
    if nulls:
        size = len(column.dictionary)
        outside = ~column.validity & ((indices < 0) | (indices >= max(size, 1)))
        if outside.any():
            indices = np.where(outside, 0, indices).astype(indices.dtype)
    return (len(column), nulls, 0, (bitmap, indices), (), array_node(column.dictionary))


def _nested_node(column, bitmap, nulls, views):
    t, n = column.type, len(column)
    if isinstance(t, T.ListType):
        offsets, child = column.offsets, column.child
        if t.large:
            offsets = np.ascontiguousarray(offsets)
        else:
            offsets, base = _narrow(offsets, f"{t} column")
            if base:
                child = child._slice(base, int(column.offsets[-1]))
        return (n, nulls, 0, (bitmap, offsets), (array_node(child, views),), None)
    if isinstance(t, T.FixedSizeListType):
        return (n, nulls, 0, (bitmap,), (array_node(column.child, views),), None)
    if isinstance(t, T.StructType):
        return (n, nulls, 0, (bitmap,), tuple(array_node(c, views) for c in column.children),
                None)
    if isinstance(t, T.MapType):
        keys, items = column.keys, column.items
        offsets, base = _narrow(column.offsets, f"{t} column")
        if base:
            stop = int(column.offsets[-1])
            keys, items = keys._slice(base, stop), items._slice(base, stop)
        entries = (len(keys), 0, 0, (None,), (array_node(keys, views), array_node(items, views)),
                   None)
        return (n, nulls, 0, (bitmap, offsets), (entries,), None)
    raise SchemaError(f"cannot export a column of type {t} to Arrow")


def _decimal_le(column):
    """Arrow's decimal storage: little-endian two's complement of 16 or 32 bytes per row."""
    column.check_precision()
    width = column.type.bit_width // 8
    v = column.values
    if v.ndim == 1 and v.dtype in (np.int32, np.int64):
        return decimal_le.ints_to_le(np.ascontiguousarray(v), width)
    if v.ndim == 2 and v.dtype == np.uint8 and 0 < v.shape[1] <= width:
        return decimal_le.be_rows_to_le(np.ascontiguousarray(v), width)
    return np.ascontiguousarray(column.to_be_bytes(width)[:, ::-1])


@uses_pool
def table_array_node(columns, num_rows, views=False):
    """The record-batch form of a table: a struct array (no nulls) of its columns.

    What the export converts (bitmaps, narrowed offsets, decimals, views) is allocated
    from pqkit's buffer pool: fresh memory costs more to fault in than to fill.
    """
    return (num_rows, 0, 0, (None,), tuple(array_node(c, views) for c in columns), None)


# --- capsules (the PyCapsule protocol methods call these) ---------------------------------

def column_schema_capsule(column):
    """``__arrow_c_schema__`` of a column: an unnamed nullable field of its type."""
    return arrow_c.export_schema(_schema_node("", column.type, True))


@uses_pool
def column_array_capsules(column):
    """``__arrow_c_array__`` of a column: (schema capsule, array capsule)."""
    return column_schema_capsule(column), arrow_c.export_array(array_node(column))


def table_schema_capsule(fields, metadata=None):
    """``__arrow_c_schema__`` of a table."""
    return arrow_c.export_schema(table_schema_node(fields, metadata))


class RecordBatch:
    """Rows of a table in Arrow's record-batch form (what ``Table.to_batches`` gives).

    Attributes
    ----------
    schema : list of Field
    columns : list of Column
    num_rows : int
    """

    __slots__ = ("columns", "metadata", "num_rows", "schema")

    def __init__(self, fields, columns, num_rows, metadata=None):
        self.schema, self.columns = list(fields), list(columns)
        self.num_rows, self.metadata = num_rows, metadata

    def __len__(self):
        return self.num_rows

    def __arrow_c_schema__(self):
        return table_schema_capsule(self.schema, self.metadata)

    def __arrow_c_array__(self, requested_schema=None):
        """(schema capsule, struct array capsule); ``requested_schema`` is ignored."""
        return (self.__arrow_c_schema__(),
                arrow_c.export_array(table_array_node(self.columns, self.num_rows)))

    def __repr__(self):
        return f"<pqkit RecordBatch {self.num_rows} rows x {len(self.columns)} columns>"


class TableStream:
    """Record batches as an Arrow stream producer, with the layout choices a table's own
    ``__arrow_c_stream__`` cannot take (consumers pass no options): what
    :meth:`pqkit.Table.arrow_stream` and :meth:`pqkit.ParquetFile.arrow_stream` return.

    Parameters
    ----------
    fields : list of Field
    batches : list of (list of Column, int)
        Each batch's columns (of the types of ``fields``) and number of rows.
    metadata : dict, optional
    string_view : bool
        String and binary columns, nested ones included, export as ``string_view`` /
        ``binary_view`` arrays over their own data (:mod:`pqkit.columnar.arrow_views`).
    """

    __slots__ = ("_fields", "_batches", "_metadata", "string_view")

    def __init__(self, fields, batches, metadata=None, string_view=False):
        self._fields, self._batches = list(fields), list(batches)
        self._metadata, self.string_view = metadata, bool(string_view)

    @property
    def num_rows(self):
        return sum(n for _, n in self._batches)

    def __arrow_c_schema__(self):
        return arrow_c.export_schema(table_schema_node(self._fields, self._metadata,
                                                       self.string_view))

    def __arrow_c_stream__(self, requested_schema=None):
        """An ``arrow_array_stream`` capsule of the batches (each call a new stream);
        ``requested_schema`` is ignored, as the protocol allows."""
        return stream_capsule(self._fields, iter(self._batches), self._metadata,
                              self.string_view)

    def __repr__(self):
        return (f"<pqkit TableStream {self.num_rows} rows x {len(self._fields)} columns in "
                f"{len(self._batches)} batches, string_view={self.string_view}>")


def table_stream_capsule(fields, columns, num_rows, metadata=None, views=False):
    """``__arrow_c_stream__`` of a table: its schema, then the table as one batch.

    The batch is converted before the capsule is made, so a value Arrow cannot hold
    raises its :class:`pqkit.ParquetError` from the export call, not from the
    consumer's read of the stream (where pyarrow reports any error as an OSError).
    """
    return arrow_c.export_stream(table_schema_node(fields, metadata, views),
                                 iter([table_array_node(columns, num_rows, views)]))


def stream_capsule(fields, batches, metadata=None, views=False):
    """An ``arrow_array_stream`` capsule of ``fields``, then one record batch per
    ``(columns, num_rows)`` pair that the iterator ``batches`` yields.

    ``batches`` is advanced only when the consumer asks for the next batch, so a
    reader that decodes one row group per step streams a file with bounded memory.
    Each batch's columns must have the types of ``fields``; ``views`` exports string and
    binary columns in the view layout (:mod:`pqkit.columnar.arrow_views`).
    """
    def nodes():
        for columns, num_rows in batches:
            for f, c in zip(fields, columns, strict=True):
                if c.type != f.type:
                    raise SchemaError(f"stream batch column {f.name!r} is {c.type}, the "
                                      f"stream's schema says {f.type}")
            yield table_array_node(columns, num_rows, views)
    return arrow_c.export_stream(table_schema_node(fields, metadata, views), nodes())
