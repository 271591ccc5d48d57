"""The shredding layout of a file's VARIANT columns, read off its schema.

A shredded variant group holds a ``typed_value`` beside its binary ``value``
(``VariantShredding.md``): a primitive column, an object (a group of one
``value``/``typed_value`` group per field) or an array (a LIST of such groups).
The layout lists each typed leaf by its variant path (``$.a.b``, ``$.a[*]``, a
field name that is not an identifier quoted as ``$['a b']``), its Parquet type and
whether a ``value`` column beside it keeps the values that did not fit (then the
typed column's statistics bound only part of that path's values).
"""
import re

__all__ = ["shredding_layout"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def shredding_layout(schema):
    """``{dotted column path: [{"path", "type", "fallback"}, ...]}`` for every shredded
    VARIANT column of ``schema`` (a schema node's ``to_dict()``), in schema order;
    unshredded variants are left out."""
    layout = {}
    _find_variants(schema, layout)
    return layout


def _find_variants(node, layout):
    for child in node.get("children", []):
        if str(child.get("logical_type") or "").startswith("VARIANT"):
            leaves = []
            _level(child, "$", leaves)
            if leaves:
                layout[".".join(child["path"])] = leaves
        else:
            _find_variants(child, layout)


def _child(node, name):
    return next((c for c in node.get("children", []) if c["name"] == name), None)


def _level(group, path, leaves):
    """The typed leaves under one value/typed_value group at variant ``path``."""
    typed = _child(group, "typed_value")
    if typed is None:
        return
    fallback = _child(group, "value") is not None
    if "children" not in typed:
        leaves.append({"path": path, "type": _type_name(typed), "fallback": fallback})
    elif str(typed.get("logical_type") or typed.get("converted_type") or "").startswith("LIST"):
        repeated = typed["children"][0]
        element = repeated["children"][0] if repeated.get("children") else repeated
        _level(element, path + "[*]", leaves)
    else:
        for field in typed["children"]:
            _level(field, path + _step(field["name"]), leaves)


def _step(name):
    if _IDENTIFIER.fullmatch(name):
        return "." + name
    return "['" + name.replace("\\", "\\\\").replace("'", "\\'") + "']"


def _type_name(leaf):
    name = leaf["physical_type"]
    if "type_length" in leaf:
        name += f"({leaf['type_length']})"
    annotation = leaf.get("logical_type") or leaf.get("converted_type")
    return f"{name} ({annotation})" if annotation else name
