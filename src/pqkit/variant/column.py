"""VARIANT columns decoded to Python values: what ``read_table(..., variant="decode")`` gives.

A :class:`VariantColumn` is the physical struct (``metadata``, ``value``,
``typed_value``) as read, so its type, buffers and Arrow export are unchanged,
together with every row already decoded; ``to_pylist()``, ``to_pandas()`` and
the Table's row views give the decoded values. Decoding happens when the
column is made, so a bad value fails the read, not a later conversion.
"""
from pqkit.columnar.nested import StructColumn
from pqkit.columnar.table import Table
from pqkit.columnar.to_pandas import object_array
from pqkit.errors import VariantError
from pqkit.variant.binary import decode_value
from pqkit.variant.metadata import VariantMetadata
from pqkit.variant.shredded import unshred

__all__ = ["VariantColumn", "decode_column", "decode_table"]


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
