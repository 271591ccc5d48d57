"""VARIANT columns decoded to Python values: what ``read_table(..., variant="decode")`` gives.

A :class:`VariantColumn` is the physical struct (``metadata``, ``value``,
``typed_value``) as read, so its type, buffers and Arrow export are unchanged,
together with every row already decoded; ``to_pylist()``, ``to_pandas()`` and
the Table's row views give the decoded values. Decoding happens when the
column is made, so a bad value fails the read, not a later conversion.

:func:`variant_column` makes one from Python values and :func:`variant_column_from_bytes` from
``(metadata, value)`` byte pairs (Spark's ``VariantVal``); written with
``pqkit.write_table``, either becomes a column annotated VARIANT.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn
from pqkit.columnar.nested import StructColumn
from pqkit.columnar.table import Table
from pqkit.columnar.to_pandas import object_array
from pqkit.errors import ArgumentError, VariantError
from pqkit.variant.binary import decode_value
from pqkit.variant.from_values import encode_variant
from pqkit.variant.metadata import VariantMetadata
from pqkit.variant.shredded import unshred

__all__ = ["UNSHREDDED", "VariantColumn", "decode_column", "decode_table",
           "unshredded_column", "variant_column", "variant_column_from_bytes"]

#: The physical type of an unshredded variant.
UNSHREDDED = T.struct([T.field("metadata", T.binary(), nullable=False),
                       T.field("value", T.binary(), nullable=False)])


def decode_column(column, name="variant", *, types=False, present=None):
    """Python values of each row of a VARIANT column (the physical struct as read).

    Shredded values are reassembled first (:func:`pqkit.variant.unshred`, which
    also takes ``present``); a null group gives None, as does a Variant null.
    ``types`` as in :func:`pqkit.variant.decode`.
    """
    parsed = {}
    out = []
    for row, pair in enumerate(unshred(column, name, present)):
        if pair is None:
            out.append(None)
            continue
        metadata, value = pair
        try:
            meta = parsed.get(metadata)
            if meta is None:
                meta = parsed[metadata] = VariantMetadata(metadata)
            out.append(decode_value(meta, value, types=types))
        except VariantError as e:
            raise VariantError(f"variant column {name!r}, row {row}: {e}") from None
    return out


class VariantColumn(StructColumn):
    """A VARIANT column: the physical struct plus its rows decoded (``values``).

    Parameters
    ----------
    physical : StructColumn
        The variant group as read.
    values : list
        One decoded value per row (see :func:`decode_column`).
    """

    __slots__ = ("values",)

    def __init__(self, physical, values):
        super().__init__(physical.type, physical.children, physical.validity, len(physical))
        values = list(values)
        if len(values) != len(physical):
            raise ValueError(f"{len(values)} decoded values for {len(physical)} rows")
        self.values = values

    def _slice(self, start, stop):
        return VariantColumn(super()._slice(start, stop), self.values[start:stop])

    def _take(self, idx):
        return VariantColumn(super()._take(idx), [self.values[i] for i in idx.tolist()])

    def to_pylist(self):
        return list(self.values)

    def _pandas_array(self, pd, strings, take):
        return object_array(self.values)

    def _object_rows(self, as_array):
        return object_array(self.values) if as_array else list(self.values)

    @classmethod
    def _concat(cls, columns):
        return cls(StructColumn._concat(columns), [v for c in columns for v in c.values])


def decode_table(table, schema):
    """``table`` with each VARIANT column that ``schema`` annotates decoded (a
    :class:`VariantColumn`): top-level ones and those nested in plain struct groups;
    VARIANTs inside lists and maps are left as structs."""
    tops = {node.name: node for node in schema.root.children}
    columns = [_decoded(column, tops.get(field.name), field.name, None)
               for field, column in zip(table.schema, table.columns)]
    if all(a is b for a, b in zip(columns, table.columns)):
        return table
    return Table(columns, list(table.schema), table.metadata)


def _is_variant(node):
    return node.logical_type is not None and node.logical_type.VARIANT is not None


def _decoded(column, node, name, present):
    """``column`` with the VARIANTs at or below ``node`` decoded; ``present`` marks the
    rows whose enclosing structs are all non-null (None: every row)."""
    if node is None or node.is_leaf or not isinstance(column, StructColumn):
        return column
    if _is_variant(node):
        return VariantColumn(column, decode_column(column, name, present=present))
    if node.logical_type is not None or node.converted_type is not None:
        return column           # LIST, MAP and other annotated groups
    by_name = {child.name: child for child in node.children}
    inner = column.valid_mask() if present is None else column.valid_mask() & present
    children = [_decoded(child, by_name.get(field), f"{name}.{field}", inner)
                for field, child in zip(column.type.names, column.children)]
    if all(a is b for a, b in zip(children, column.children)):
        return column
    return StructColumn(column.type, children, column.validity, len(column))


def binary_column(items, type_=None):
    """A binary column of ``items`` (bytes, None for null)."""
    lengths = np.fromiter((0 if b is None else len(b) for b in items), np.int64, len(items))
    offsets = np.zeros(len(items) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    if type_ is None:
        type_ = T.binary() if offsets[-1] < 1 << 31 else T.large_binary()
    validity = np.fromiter((b is not None for b in items), np.bool_, len(items))
    data = b"".join(b for b in items if b is not None)
    return BinaryColumn(type_, offsets, data, None if validity.all() else validity)


def unshredded_column(pairs):
    """The physical unshredded struct (:data:`UNSHREDDED`) of ``(metadata, value)`` pairs,
    None for a null row."""
    valid = np.fromiter((p is not None for p in pairs), np.bool_, len(pairs))
    metadata = binary_column([b"" if p is None else bytes(p[0]) for p in pairs])
    value = binary_column([b"" if p is None else bytes(p[1]) for p in pairs])
    return StructColumn(T.struct([T.field("metadata", metadata.type, nullable=False),
                                  T.field("value", value.type, nullable=False)]),
                        [metadata, value], None if valid.all() else valid, len(pairs))


def variant_column(values, *, types=False):
    """A VARIANT column from Python values (None: a null row).

    Each value is encoded as :func:`pqkit.variant.from_values.encode_variant` says (its
    own metadata: sorted, unique keys; the smallest headers); ``types=True`` also takes
    the ``(type_name, value)`` primitives of ``decode(..., types=True)``, keeping their
    exact Variant types. Write it with ``pqkit.write_table({"v": variant_column(...)}, path)``.

    >>> variant_column([{"a": 1}, None, [1, "x"]]).to_pylist()
    [{'a': 1}, None, [1, 'x']]
    """
    pairs = [None if v is None else encode_variant(v, types) for v in values]
    physical = unshredded_column(pairs)
    return VariantColumn(physical, decode_column(physical))


def variant_column_from_bytes(pairs, name="variant"):
    """A VARIANT column from ``(metadata, value)`` byte pairs (None: a null row), such as
    Spark's ``VariantVal.metadata`` and ``.value``; each pair is decoded, so bytes that
    break the Variant encoding raise :class:`pqkit.VariantError` naming the row."""
    pairs = list(pairs)
    for i, p in enumerate(pairs):
        if p is not None and (not isinstance(p, (tuple, list)) or len(p) != 2):
            raise ArgumentError(f"row {i} of {name!r}: expected a (metadata, value) pair or "
                                f"None, got {type(p).__name__}")
    physical = unshredded_column(pairs)
    return VariantColumn(physical, decode_column(physical, name))
