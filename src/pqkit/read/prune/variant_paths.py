"""Filters into VARIANT columns: ``("v:$.a.b", op, value)``.

The column name comes before ``:$``, the path of object fields inside the variant
after it, JSON-path style as Spark's ``variant_get`` spells it (``"event:$.user.id"``
is field ``id`` of field ``user`` of the variant column ``event``; ``"v:$"`` is the
value itself). A dotted name without ``:$`` stays a struct path, and a plain colon
stays part of a name (``"p:part"``), so none of them collide. Held as the term path
``("v", ":$", "a", "b")``.

A row matches when its variant value has the field and the field's value
satisfies the predicate (a missing field, or a value of a kind the filter value
cannot be compared with, does not match; ``not in`` matches missing fields as it
matches nulls). Rows are decided exactly by decoding the variant.

Pruning uses the shredded column ``v.typed_value.a.typed_value.b.typed_value``
when the path is shredded down to a primitive: its statistics and page index
bound every value of the field **only where the field's fallback ``value``
column is entirely null** (VariantShredding.md, Data Skipping); a row group or
page whose fallback column holds any value may have the field in any type and is
read. An unshredded path prunes nothing.
"""
from dataclasses import dataclass

import numpy as np

from pqkit.errors import SchemaError
from pqkit.variant import decode_column

__all__ = ["VariantTarget", "field_values", "is_variant_path", "path_text", "resolve",
           "split_variant_path"]

MARK = ":$"
_MISSING = object()


def split_variant_path(text):
    """The term path of ``"v:$.a.b"``, or None for a text without ``:$``."""
    column, mark, inner = text.partition(MARK)
    if not mark:
        return None
    fields = inner.split(".")[1:]
    if not column or not all(fields) or (inner and not inner.startswith(".")):
        raise SchemaError(f"filter column {text!r}: a variant path is column:$.field.field "
                          f"(or column:$ for the whole value)")
    return (column, MARK, *fields)


def is_variant_path(path):
    return len(path) >= 2 and path[1] == MARK


def path_text(path):
    """A term path as the user wrote it."""
    if is_variant_path(path):
        return path[0] + MARK + "".join("." + f for f in path[2:])
    return ".".join(path)


@dataclass
class VariantTarget:
    """Where a variant path lies: the variant group, the shredded leaf holding the
    field's typed values and the field's fallback ``value`` leaf (None when the path
    is not shredded down to a primitive)."""
    group: object
    fields: tuple
    typed: object = None
    fallback: object = None

    @property
    def leaf_paths(self):
        """Every leaf of the variant group: exact evaluation decodes the whole value."""
        return _leaves(self.group)


def _leaves(node):
    if node.is_leaf:
        return [node.path]
    return [p for c in node.children for p in _leaves(c)]


def _child(node, name):
    if node is None or node.is_leaf:
        return None
    return next((c for c in node.children if c.name == name), None)


def resolve(path, schema):
    """The :class:`VariantTarget` of a variant term path."""
    group = _child(schema.root, path[0])
    lt = None if group is None else group.logical_type
    if lt is None or lt.VARIANT is None:
        raise SchemaError(f"filter column {path_text(path)!r}: {path[0]!r} is not a VARIANT "
                          f"column of the file")
    fields = tuple(path[2:])
    node = group
    for name in fields:
        typed = _child(node, "typed_value")
        node = _child(typed, name)
        if node is None:
            return VariantTarget(group, fields)
    typed, fallback = _child(node, "typed_value"), _child(node, "value")
    if typed is None or not typed.is_leaf or typed.max_repetition_level:
        return VariantTarget(group, fields)
    return VariantTarget(group, fields, typed, fallback)


def fallback_empty(chunk):
    """Whether a fallback ``value`` chunk's statistics prove it holds only nulls."""
    md = chunk.meta_data
    st = md.statistics if md is not None else None
    return st is not None and st.null_count is not None and st.null_count == md.num_values


def field_values(column, path):
    """Per row, the decoded value at the path's fields, or ``_MISSING``."""
    out = []
    for value in decode_column(column, path[0]):
        for name in path[2:]:
            if not isinstance(value, dict) or name not in value:
                value = _MISSING
                break
            value = value[name]
        out.append(value)
    return out


def path_mask(column, path, op, value, test):
    """Rows whose value at ``path`` satisfies ``op value`` (``test`` compares two
    values); missing fields and Variant nulls match only ``not in``."""
    values = field_values(column, path)
    out = np.zeros(len(values), np.bool_)
    for i, v in enumerate(values):
        if v is _MISSING or v is None:
            out[i] = op == "not in"
            continue
        if isinstance(v, (dict, list)):
            continue
        try:
            out[i] = bool(test(v, value))
        except TypeError:
            pass                # another kind than the filter value: no match
    return out
