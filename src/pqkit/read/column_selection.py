"""Which columns a read decodes: names given by a caller -> top-level nodes and leaf paths.

A name is a top-level column or a dotted path (or a tuple of names) to any node;
a group selects every leaf below it. For a schema ``id, point{x, y}``,
``select_columns(schema, ["point.x"])`` is ``([point], {("point", "x")})``: the
top-level nodes to assemble, in schema order, and the leaves to decode.
"""
from pqkit.errors import ArgumentError, SchemaError

__all__ = ["select_columns"]


def select_columns(schema, columns):
    """(top-level nodes in schema order, set of selected leaf paths).

    Parameters
    ----------
    schema : pqkit.Schema
    columns : list of str or tuple, or None
        None selects every column.

    Raises
    ------
    pqkit.ArgumentError
        ``columns`` is a single string (also a TypeError).
    pqkit.SchemaError
        A name the schema does not have.
    """
    tops = schema.root.children
    if columns is None:
        return list(tops), {c.path for c in schema.columns}
    if isinstance(columns, str):
        raise ArgumentError(f"columns must be a list of names, not a string: {columns!r}")
    wanted = set()
    for name in columns:
        stack = [_find(schema, name)]
        while stack:
            n = stack.pop()
            if n.is_leaf:
                wanted.add(n.path)
            else:
                stack.extend(n.children)
    return [t for t in tops if any(p[0] == t.name for p in wanted)], wanted


def _find(schema, name):
    path = tuple(name) if isinstance(name, (tuple, list)) else tuple(str(name).split("."))
    node = schema.root
    for part in path:
        match = [c for c in node.children if c.name == part]
        if not match:
            raise SchemaError(f"no column {'.'.join(path)!r} in the file; top-level "
                              f"columns are {schema.names}")
        node = match[0]
    return node
