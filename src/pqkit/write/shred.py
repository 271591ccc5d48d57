"""Columns -> per-leaf levels and dense physical values (the write side of nesting).

Walks a top-level column along the same structure :mod:`pqkit.schema.from_table`
lays out (LIST: group / repeated ``list`` / ``element``; MAP: group /
repeated ``key_value`` / ``key``, ``value``), collects the
:class:`~pqkit.levels.NodeLayout` of every node on each leaf's path, shreds
them with :func:`pqkit.levels.shred`, and converts the leaf's stored values to
its physical layout::

    list<int8> [[1, None], None]  ->  list (OPTIONAL, validity [1, 0])
                                      list.list (REPEATED, offsets [0, 2, 2])
                                      list.list.element (OPTIONAL, validity [1, 0])
                                  ->  def [3, 2, 0], rep [0, 1, 0], values int32 [1]
"""
from dataclasses import dataclass

import numpy as np

from pqkit._native.take import compress_byte_array
from pqkit.columnar.column import BinaryColumn, NullColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.columnar.nested import (
    DictionaryColumn,
    FixedSizeListColumn,
    ListColumn,
    MapColumn,
    StructColumn,
)
from pqkit.encodings.physical import numpy_dtype
from pqkit.errors import SchemaError
from pqkit.levels import OPTIONAL, REPEATED, REQUIRED, NodeLayout, shred


@dataclass
class LeafData:
    """One leaf's levels and values, ready for the column writer."""
    def_levels: object          # int16 array or None
    rep_levels: object          # int16 array or None
    num_entries: int
    values: object              # physical layout: ndarray, (offsets, data) or (n, w) uint8
    num_values: int
    # A dictionary column's own dictionary in physical layout, for the writer to keep
    # as the start of the chunk's dictionary (categories, their order, unused ones too).
    dictionary: object = None


def leaf_columns(column, field):
    """[(list of NodeLayout, leaf Column)] for every leaf of a top-level ``field``."""
    out = []
    _walk(field.type, column, OPTIONAL if field.nullable else REQUIRED, [], out)
    return out


def _walk(t, col, repetition, path, out):
    if isinstance(col, DictionaryColumn) and \
            isinstance(col.dictionary, (ListColumn, FixedSizeListColumn, MapColumn, StructColumn)):
        col = col.decode()          # a dictionary of nested values has no dictionary page
    validity = col.validity if repetition != REPEATED and col.null_count else None
    node = NodeLayout(repetition, len(col), validity)
    if isinstance(col, (ListColumn, FixedSizeListColumn)):
        if isinstance(col, FixedSizeListColumn):
            offsets = np.arange(len(col) + 1, dtype=np.int64) * t.list_size
        else:
            offsets = col.offsets
        rep = NodeLayout(REPEATED, len(col.child), None, offsets)
        vf = t.value_field
        _walk(vf.type, col.child, OPTIONAL if vf.nullable else REQUIRED, path + [node, rep], out)
    elif isinstance(col, MapColumn):
        rep = NodeLayout(REPEATED, len(col.keys), None, col.offsets)
        _walk(t.key_type, col.keys, REQUIRED, path + [node, rep], out)
        _walk(t.item_type, col.items, OPTIONAL if t.item_field.nullable else REQUIRED,
              path + [node, rep], out)
    elif isinstance(col, StructColumn):
        for f, child in zip(t.fields, col.children):
            _walk(f.type, child, OPTIONAL if f.nullable else REQUIRED, path + [node], out)
    else:
        if isinstance(col, NullColumn):
            node = NodeLayout(OPTIONAL, len(col), np.zeros(len(col), np.bool_))
        out.append((path + [node], col))


def shred_leaf(layouts, col, spec, where):
    """Levels and dense physical values of one leaf (see :class:`LeafData`)."""
    seed = None
    if isinstance(col, DictionaryColumn):
        if len(col.dictionary) and col.dictionary.null_count == 0:
            seed = physical_values(col.dictionary, spec, where)
        col = col.decode()
    flat = _flat_without_nulls(layouts)
    if flat is not None:
        n, max_def = flat
        # Every entry is a value at the max level: one read-only constant, not n int16s.
        defs = np.broadcast_to(np.int16(max_def), (n,)) if max_def else None
        values = physical_values(col, spec, where) if n else None
        return LeafData(defs, None, n, values, n, seed)
    sh = shred(layouts, where=where)
    dense = col
    if sh.value_mask is not None and not isinstance(col, NullColumn):
        if isinstance(col, BinaryColumn):
            # The kept byte arrays copied run by run: no gather of each value, and the
            # physical layout (offsets from 0 + data) directly.
            values = compress_byte_array(np.ascontiguousarray(col.offsets, np.int64),
                                         col.data, sh.value_mask) \
                if sh.num_values else None
            return LeafData(sh.def_levels, sh.rep_levels, sh.num_entries, values,
                            sh.num_values, seed)
        if isinstance(col, PrimitiveColumn):
            # One boolean compress of the values; the dense column has no nulls.
            dense = PrimitiveColumn(col.type, col.values[sh.value_mask.view(np.bool_)])
        else:
            dense = col.take(np.flatnonzero(sh.value_mask))
    values = physical_values(dense, spec, where) if sh.num_values else None
    return LeafData(sh.def_levels, sh.rep_levels, sh.num_entries, values, sh.num_values,
                    seed)


def _flat_without_nulls(layouts):
    """(entries, max definition level) for a path with no repeated node and no nulls on
    any node, else None."""
    n = layouts[0].length
    max_def = 0
    for node in layouts:
        if node.repetition == REPEATED or node.validity is not None or node.length != n:
            return None
        max_def += node.repetition == OPTIONAL
    return int(n), max_def


def physical_values(col, spec, where):
    """A column's values (all valid) in the physical layout of ``spec``."""
    conv = spec.conversion
    if conv == "null":
        return np.zeros(0, np.int32)
    if isinstance(col, BinaryColumn):
        o0, o1 = int(col.offsets[0]), int(col.offsets[-1])
        # Offsets already starting at 0 are used as they are: no copy of n + 1 int64s.
        offsets = col.offsets if o0 == 0 else col.offsets - o0
        return offsets, col.data[o0:o1]
    if isinstance(col, DecimalColumn):
        if conv == "decimal_int":           # INT32 / INT64 storage of up to 18 digits
            unscaled = col.to_be_bytes(8).view(">i8").reshape(-1)
            return unscaled.astype(numpy_dtype(spec.physical))
        return col.to_be_bytes(spec.type_length)
    if isinstance(col, FixedSizeBinaryColumn):
        return np.ascontiguousarray(col.data)
    values = col.values
    if conv == "float16":
        return np.ascontiguousarray(values.astype("<f2")).view(np.uint8).reshape(-1, 2)
    if conv == "date64":
        return (values // spec.scale).astype(np.int32)
    if conv == "multiply" and spec.scale != 1:
        with np.errstate(over="raise"):
            try:
                values = values.astype(np.int64) * spec.scale
            except FloatingPointError:
                raise SchemaError(f"{where}: a value overflows when converted to the unit "
                                  "Parquet stores") from None
    target = numpy_dtype(spec.physical)
    if target is None:
        raise SchemaError(f"{where}: cannot store {col.type} as physical type {spec.physical}")
    if values.dtype.itemsize == target.itemsize and values.dtype.kind in "iu" \
            and target.kind == "i":
        return values.view(target)            # unsigned ints keep their bits
    return values.astype(target, copy=False)


__all__ = ["LeafData", "leaf_columns", "shred_leaf", "physical_values"]
