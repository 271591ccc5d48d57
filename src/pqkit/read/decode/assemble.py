"""Schema-driven nesting: per-leaf assemblies -> one Arrow-layout column per top-level field.

:func:`pqkit.levels.assemble` turns each leaf's levels into a
:class:`~pqkit.levels.NodeLayout` per node of its path (slots, validity,
offsets). Leaves that share an ancestor share its layout, so any selected
leaf below a group describes the group. This module walks the schema tree and
decides what each group *means*, following the spec's LIST and MAP rules and
their backward-compatible forms:

===========================================  ===========================================
schema                                       column
===========================================  ===========================================
``optional group a (LIST) {``                ``list<element: T>``; ``a``'s validity,
``  repeated group list {``                  offsets from ``list``, element slots
``    optional T element; } }``              from ``element``
``group a (LIST) { repeated T x; }``         ``list<x: T not null>`` (two-level)
``group a (LIST) { repeated group array``    ``list<array: struct<...> not null>``
``  {...} }`` (or ``a_tuple``, or several    (the repeated group is the element)
``  fields in the repeated group)``
``group m (MAP) { repeated group kv {``      ``map<K, V>``
``  required K key; optional V value; } }``
``group m (MAP) { repeated group kv {``      ``list<key: K>`` (as pyarrow reads it)
``  required K key; } }``
``repeated T x;`` (no annotation)            ``list<x: T not null> not null``
any other group                              ``struct<...>``
===========================================  ===========================================

A VARIANT group, a GEOMETRY or GEOGRAPHY leaf: the field carries the Arrow extension
keys of :mod:`pqkit.schema.annotations`.
"""
from pqkit import datatypes as T
from pqkit.columnar.nested import ListColumn, MapColumn, StructColumn
from pqkit.errors import SchemaError
from pqkit.format import ConvertedType
from pqkit.levels import OPTIONAL, REPEATED
from pqkit.schema.annotations import field_metadata


def _annotation(node):
    lt = node.element.logicalType
    if lt is not None:
        if lt.LIST is not None:
            return "LIST"
        if lt.MAP is not None:
            return "MAP"
    ct = node.element.converted_type
    if ct == ConvertedType.LIST:
        return "LIST"
    if ct in (ConvertedType.MAP, ConvertedType.MAP_KEY_VALUE):
        return "MAP"
    return None


class Nester:
    """Build the columns of top-level fields from assembled leaves.

    Parameters
    ----------
    leaves : dict
        Leaf path tuple -> (Assembly, leaf Column over the leaf's slots) for
        every selected leaf.
    """

    def __init__(self, leaves):
        self.leaves = leaves

    def selected(self, node):
        """True when a selected leaf lies at or below ``node``."""
        if node.is_leaf:
            return node.path in self.leaves
        return any(self.selected(c) for c in node.children)

    def _layout(self, node, i):
        stack = [node]
        while stack:
            n = stack.pop()
            if n.is_leaf:
                if n.path in self.leaves:
                    return self.leaves[n.path][0].nodes[i]
            else:
                stack.extend(reversed(n.children))
        raise SchemaError(f"no selected column below {node.dotted_path}")

    def field(self, node, i=0):
        """(Field, Column) for ``node`` at path index ``i``, over its parent's slots."""
        if node.repetition == REPEATED:
            # A repeated field outside a LIST/MAP annotation is a list of required values.
            child = self._value(node, i)
            offsets = self._layout(node, i).offsets
            item = T.field(node.name, child.type, nullable=False)
            col = ListColumn(T.list_(item), offsets, child)
            return T.field(node.name, col.type, nullable=False), col
        col = self._value(node, i)
        # VARIANT and GEOMETRY/GEOGRAPHY nodes say so in their field's metadata, so a
        # table read and written back keeps the annotation.
        return T.field(node.name, col.type, nullable=node.repetition == OPTIONAL,
                       metadata=field_metadata(node.element)), col

    def _value(self, node, i):
        """The column over ``node``'s own slots (its validity applied if OPTIONAL)."""
        if node.is_leaf:
            return self.leaves[node.path][1]
        layout = self._layout(node, i)
        validity = layout.validity if node.repetition == OPTIONAL else None
        kind = _annotation(node)
        one_repeated = len(node.children) == 1 and node.children[0].repetition == REPEATED
        if kind == "LIST" and one_repeated:
            return self._list(node, i, validity)
        if kind == "MAP" and one_repeated and not node.children[0].is_leaf and \
                len(node.children[0].children) == 1:
            return self._list(node, i, validity)    # a map without values reads as its keys
        if kind == "MAP" and len(node.children) == 1 and \
                node.children[0].repetition == REPEATED and \
                not node.children[0].is_leaf and len(node.children[0].children) == 2:
            return self._map(node, i, validity)
        return self._struct(node, i, validity, layout.length)

    def _list(self, node, i, validity):
        rep = node.children[0]
        offsets = self._layout(rep, i + 1).offsets
        two_level = rep.is_leaf or len(rep.children) != 1 or rep.name == "array" or \
            rep.name == f"{node.name}_tuple"
        if two_level:
            child = self._value(rep, i + 1)
            item = T.field(rep.name, child.type, nullable=False)
        else:
            item, child = self.field(rep.children[0], i + 2)
        return ListColumn(T.list_(item), offsets, child, validity)

    def _map(self, node, i, validity):
        kv = node.children[0]
        offsets = self._layout(kv, i + 1).offsets
        key_node, item_node = kv.children
        if not (self.selected(key_node) and self.selected(item_node)):
            # A map read without its keys or values is its key_value struct list.
            return self._list_of_struct(node, kv, i, offsets, validity)
        key_field, keys = self.field(key_node, i + 2)
        item_field, items = self.field(item_node, i + 2)
        typ = T.map_(T.field(key_field.name, keys.type, nullable=False), item_field)
        return MapColumn(typ, offsets, keys, items, validity)

    def _list_of_struct(self, node, kv, i, offsets, validity):
        child = self._value(kv, i + 1)
        return ListColumn(T.list_(T.field(kv.name, child.type, nullable=False)), offsets, child,
                          validity)

    def _struct(self, node, i, validity, length):
        fields, cols = [], []
        for c in node.children:
            if self.selected(c):
                f, col = self.field(c, i + 1)
                fields.append(f)
                cols.append(col)
        return StructColumn(T.struct(fields), cols, validity, length=length)
