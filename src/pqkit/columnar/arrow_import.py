"""Import from any producer of the Arrow PyCapsule interface into pqkit columns.

An object with ``__arrow_c_stream__`` (pyarrow Table, RecordBatchReader and
ChunkedArray, polars DataFrame, DuckDB relation, a pqkit Table) or
``__arrow_c_array__`` (pyarrow RecordBatch and Array, a pqkit Column) hands
over C structures (see :mod:`pqkit._native.arrow_c`); this module types them
(:mod:`pqkit.columnar.arrow_types`) and builds columns over the producer's
memory. Zero-copy where the layouts agree: fixed-width values, int64 offsets
(``large_string``, ``large_binary``, ``large_list``), string and binary data,
fixed-size binary, dictionary indices, and 32/64-bit decimals are numpy views
of the producer's buffers, which stay alive (the array is released only when
the last view is gone). Converted, because pqkit's layout differs:

* validity bitmaps -> bool masks, and bool values -> one byte per value;
* int32 offsets (``string``, ``binary``, ``list``, ``map``) -> int64;
* string and binary *views* (``vu``/``vz``, polars' strings) -> offsets + data,
  typed ``string``/``binary``;
* 128/256-bit decimals -> int64 unscaled values (precision <= 18) or
  big-endian bytes;
* a stream of several batches -> one column per field (concatenated, a copy).

Every length, offset and index is checked before a byte is read (buffer sizes
follow from them, as the C interface gives no sizes): a child shorter than its
parent's slots, offsets that decrease or point past the child, dictionary
indices outside the dictionary, a NULL buffer the type needs, or a format pqkit
has no type for raise :class:`~pqkit.errors.SchemaError` (or
:class:`~pqkit.errors.UnsupportedFeatureError`) naming the field.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit._native import arrow_c
from pqkit.columnar import arrow_types as AT
from pqkit.columnar.column import BinaryColumn, NullColumn, PrimitiveColumn, concat_columns
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.columnar.nested import (
    DictionaryColumn,
    FixedSizeListColumn,
    ListColumn,
    MapColumn,
    StructColumn,
    nulls,
)
from pqkit.errors import ArgumentError, SchemaError, UnsupportedFeatureError

_INDEX_FORMATS = {"c", "C", "s", "S", "i", "I", "l", "L"}


def is_arrow_producer(data):
    """Whether ``data`` should be read through the Arrow PyCapsule interface.

    pandas objects also speak it (through pyarrow); pqkit converts those itself
    without pyarrow (:mod:`pqkit.convert`), so they are not counted here.
    """
    if type(data).__module__.split(".")[0] == "pandas":
        return False
    return hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__")


# --- schemas -------------------------------------------------------------------------------

def field_from_node(node, where=None):
    """The :class:`~pqkit.datatypes.Field` of a schema node."""
    fmt, name, metadata, flags, children, dictionary = node
    where = where or (repr(name) if name else "Arrow field")
    md = AT.decode_metadata(metadata)
    if dictionary is not None:
        if fmt not in _INDEX_FORMATS:
            raise SchemaError(f"{where}: dictionary index format {fmt!r} is not an integer")
        value = field_from_node(dictionary, f"{where} dictionary")
        type_ = T.dictionary(AT.simple_type(fmt), value.type,
                             ordered=bool(flags & AT.FLAG_DICTIONARY_ORDERED))
    else:
        type_ = _type_of(fmt, children, flags, where)
        ext = AT.extension_type(md, type_)
        if ext is not None:
            type_ = ext
            md = {k: v for k, v in md.items()
                  if k not in (AT.EXTENSION_NAME, AT.EXTENSION_METADATA)}
    return T.Field(name, type_, bool(flags & AT.FLAG_NULLABLE), md or None)


def _type_of(fmt, children, flags, where):
    t = AT.simple_type(fmt) or AT.VIEW_TYPES.get(fmt) or AT.parametric_type(fmt, where)
    if t is not None:
        return t
    fields = [field_from_node(c, f"{where}.{c[1]}") for c in children]
    t = AT.nested_type(fmt, fields, flags, where)
    if t is None:
        raise UnsupportedFeatureError(f"{where}: Arrow format {fmt!r} has no pqkit type")
    return t


def fields_from_schema(node):
    """(fields, metadata) of a table's schema node (a struct of the columns)."""
    fmt, _, metadata, _, children, _ = node
    if fmt != "+s":
        raise SchemaError(f"an Arrow table schema must be a struct, got format {fmt!r}")
    return [field_from_node(c) for c in children], AT.decode_metadata(metadata)


def schema_from_arrow(obj):
    """The fields of any ``__arrow_c_schema__`` producer (a schema, or a table's schema)."""
    node = arrow_c.schema_from_capsule(obj.__arrow_c_schema__())
    if node[0] != "+s":
        return [field_from_node(node)]
    return fields_from_schema(node)[0]


# --- arrays --------------------------------------------------------------------------------

class _Reader:
    """Builds the column of one imported array (``owner`` keeps its memory alive)."""

    def __init__(self, owner):
        self.owner = owner

    def buffer(self, anode, i, nbytes, dtype, where):
        buffers = anode[3]
        if i >= len(buffers):
            raise SchemaError(f"{where}: Arrow array has {len(buffers)} buffers, needs "
                              f"at least {i + 1}")
        if buffers[i] == 0 and nbytes:
            raise SchemaError(f"{where}: Arrow buffer {i} is NULL for {nbytes} bytes")
        raw = arrow_c.foreign_buffer(self.owner, buffers[i], nbytes)
        return np.frombuffer(raw, dtype)

    def validity(self, anode, where):
        n, null_count, off, buffers = anode[:4]
        if null_count == 0 or not buffers or buffers[0] == 0:
            if null_count > 0:
                raise SchemaError(f"{where}: {null_count} nulls but no validity bitmap")
            return None
        bits = self.buffer(anode, 0, (off + n + 7) // 8, np.uint8, where)
        mask = np.unpackbits(bits, count=off + n, bitorder="little")[off:].view(np.bool_)
        return None if mask.all() else mask

    def column(self, type_, snode, anode, where):
        n, _, off = anode[:3]
        valid = None if isinstance(type_, T.NullType) else self.validity(anode, where)
        if isinstance(type_, T.DictionaryType):
            return self._dictionary(type_, snode, anode, valid, where)
        fmt = snode[0]
        if isinstance(type_, T.NullType):
            return NullColumn(n)
        if isinstance(type_, T.BooleanType):
            bits = self.buffer(anode, 1, (off + n + 7) // 8, np.uint8, where)
            values = np.unpackbits(bits, count=off + n, bitorder="little")[off:].view(np.bool_)
            return PrimitiveColumn(type_, values, valid)
        if isinstance(type_, T.DecimalType):
            return self._decimal(type_, fmt, anode, valid, where)
        if type_.numpy_dtype is not None:
            dt = type_.numpy_dtype
            values = self.buffer(anode, 1, (off + n) * dt.itemsize, dt, where)[off:]
            return PrimitiveColumn(type_, values, valid)
        if isinstance(type_, T.StringType):
            return self._binary(type_, fmt, anode, valid, where)
        if isinstance(type_, (T.FixedSizeBinaryType, T.ExtensionType)):
            w = type_.storage_type.byte_width if isinstance(type_, T.ExtensionType) \
                else type_.byte_width
            data = self.buffer(anode, 1, (off + n) * w, np.uint8, where)[off * w:]
            return FixedSizeBinaryColumn(type_, data.reshape(n, w), valid)
        return self._nested(type_, snode, anode, valid, where)

    def _offsets(self, fmt, anode, where, large):
        n, _, off = anode[:3]
        dt = np.dtype(np.int64 if large else np.int32)
        if anode[3][1:2] == (0,) and n == 0:
            return np.zeros(1, np.int64)
        return self.buffer(anode, 1, (off + n + 1) * dt.itemsize, dt, where)[off:]

    def _binary(self, type_, fmt, anode, valid, where):
        n, _, off, buffers = anode[:4]
        if fmt in AT.VIEW_TYPES:
            if len(buffers) < 3:
                raise SchemaError(f"{where}: a view array needs at least 3 buffers, got "
                                  f"{len(buffers)}")
            k = len(buffers) - 3
            sizes = self.buffer(anode, len(buffers) - 1, 8 * k, np.int64, where)
            self.buffer(anode, 1, (off + n) * 16, np.uint8, where)      # checks the pointer
            offsets, data = arrow_c.views_to_binary(buffers[1], off, n, list(buffers[2:-1]),
                                                    sizes.tolist())
            return BinaryColumn._checked(type_, offsets, data, valid)
        offsets = self._offsets(fmt, anode, where, type_.large)
        if len(offsets) and (offsets[0] < 0 or np.any(offsets[1:] < offsets[:-1])):
            raise SchemaError(f"{where}: Arrow offsets are negative or decrease")
        data = self.buffer(anode, 2, int(offsets[-1]), np.uint8, where)
        return BinaryColumn(type_, offsets, data, valid)

    def _decimal(self, type_, fmt, anode, valid, where):
        n, _, off = anode[:3]
        bits = AT.decimal_bits(fmt)
        if bits in (32, 64):
            dt = np.dtype(f"i{bits // 8}")
            return DecimalColumn(type_, self.buffer(anode, 1, (off + n) * dt.itemsize, dt,
                                                    where)[off:], valid)
        w = bits // 8
        raw = self.buffer(anode, 1, (off + n) * w, np.uint8, where)[off * w:].reshape(n, w)
        if type_.precision <= 18:
            values = np.ascontiguousarray(raw[:, :8]).view(np.int64).reshape(n)
        else:
            values = np.ascontiguousarray(raw[:, ::-1])
        return DecimalColumn(type_, values, valid)

    def _child(self, type_, snode, anode, i, where):
        if i >= len(snode[4]) or i >= len(anode[4]):
            raise SchemaError(f"{where}: Arrow array has {len(anode[4])} children, "
                              f"the schema {len(snode[4])}; needs {i + 1}")
        return self.column(type_, snode[4][i], anode[4][i], f"{where}.{snode[4][i][1]}")

    def _rows(self, child, start, stop, where):
        if stop > len(child):
            raise SchemaError(f"{where}: child has {len(child)} rows, its parent uses "
                              f"{start}..{stop}")
        return child if (start, stop) == (0, len(child)) else child._slice(start, stop)

    def _nested(self, type_, snode, anode, valid, where):
        n, _, off = anode[:3]
        if isinstance(type_, T.ListType):
            offsets = self._offsets(snode[0], anode, where, type_.large)
            child = self._child(type_.value_type, snode, anode, 0, where)
            return ListColumn(type_, offsets, child, valid)
        if isinstance(type_, T.FixedSizeListType):
            size = type_.list_size
            child = self._child(type_.value_type, snode, anode, 0, where)
            child = self._rows(child, off * size, (off + n) * size, where)
            return FixedSizeListColumn(type_, child, valid, n)
        if isinstance(type_, T.StructType):
            children = [self._rows(self._child(f.type, snode, anode, i, where), off, off + n,
                                   where) for i, f in enumerate(type_.fields)]
            return StructColumn(type_, children, valid, n)
        if isinstance(type_, T.MapType):
            offsets = self._offsets(snode[0], anode, where, False)
            entries = self._child(T.struct(type_.fields), snode, anode, 0, where)
            keys, items = entries.children
            return MapColumn(type_, offsets, keys, items, valid)
        raise UnsupportedFeatureError(f"{where}: cannot import Arrow type {type_}")

    def _dictionary(self, type_, snode, anode, valid, where):
        n, _, off = anode[:3]
        if anode[5] is None:
            raise SchemaError(f"{where}: dictionary-encoded Arrow array has no dictionary")
        dt = type_.index_type.numpy_dtype
        indices = self.buffer(anode, 1, (off + n) * dt.itemsize, dt, where)[off:]
        dictionary = self.column(type_.value_type, snode[5], anode[5], f"{where} dictionary")
        return DictionaryColumn(type_, indices, dictionary, valid)


def _batch_columns(imported, fields, snode):
    """The columns of one imported record batch (a struct array)."""
    anode = imported.node()
    reader = _Reader(imported)
    n, _, off = anode[:3]
    if len(anode[4]) != len(fields):
        raise SchemaError(f"Arrow batch has {len(anode[4])} columns, its schema "
                          f"{len(fields)}")
    if reader.validity(anode, "record batch") is not None:
        raise SchemaError("Arrow record batch has null rows")
    out = []
    for f, s, a in zip(fields, snode[4], anode[4]):
        col = reader.column(f.type, s, a, f"column {f.name!r}")
        out.append(reader._rows(col, off, off + n, f"column {f.name!r}"))
    return out


def _single_column(imported, field, snode):
    return _Reader(imported).column(field.type, snode, imported.node(), f"column {field.name!r}")


def table_parts(data):
    """(columns, fields, metadata) of any Arrow PyCapsule producer.

    A struct-typed stream or array (a table, a record batch) gives one column per
    field; any other (an array, a chunked array) gives one column named after its
    field. Several batches are concatenated.
    """
    if hasattr(data, "__arrow_c_stream__"):
        reader = arrow_c.StreamReader(data.__arrow_c_stream__())
        snode = reader.schema()
        batches = iter(reader.next_array, None)
    elif hasattr(data, "__arrow_c_array__"):
        schema_capsule, array_capsule = data.__arrow_c_array__()
        snode = arrow_c.schema_from_capsule(schema_capsule)
        batches = iter([arrow_c.array_from_capsule(array_capsule)])
    else:
        raise ArgumentError(f"{type(data).__name__} implements neither __arrow_c_stream__ "
                            f"nor __arrow_c_array__: give an Arrow producer (pyarrow, polars, "
                            f"DuckDB, ...)")
    if snode[0] == "+s" and snode[5] is None:
        fields, metadata = fields_from_schema(snode)
        chunks = [_batch_columns(b, fields, snode) for b in batches]
    else:
        fields, metadata = [field_from_node(snode)], None
        chunks = [[_single_column(b, fields[0], snode)] for b in batches]
    if not chunks:
        columns = [nulls(f.type, 0) for f in fields]
    elif len(chunks) == 1:
        columns = chunks[0]
    else:
        columns = [concat_columns(parts) for parts in zip(*chunks)]
    return columns, fields, metadata

