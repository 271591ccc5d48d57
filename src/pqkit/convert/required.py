"""Non-nullable fields below the top level: a null under one raises, naming the field.

Only slots whose ancestors are all valid count: a null struct may hold a null in its
non-nullable child, as its row is null anyway.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import gather_ranges
from pqkit.columnar.nested import (
    FixedSizeListColumn,
    ListColumn,
    MapColumn,
    StructColumn,
)
from pqkit.errors import SchemaError


def has_required(t):
    """True when a field anywhere below ``t`` is non-nullable."""
    fields = (t.item_field,) if isinstance(t, T.MapType) else t.fields  # keys: MapColumn checks
    return any(not f.nullable or has_required(f.type) for f in fields)


def check_required(col, live, rows, path):
    """SchemaError for a null under a non-nullable child field of ``col``. ``live`` marks
    the slots whose ancestors are all valid, ``rows`` their top-level row."""
    live = live & col.valid_mask()
    t = col.type
    if isinstance(col, StructColumn):
        for f, child in zip(t.fields, col.children):
            _check_child(f, child, live, rows, path)
    elif isinstance(col, FixedSizeListColumn):
        size = t.list_size
        _check_child(t.value_field, col.child, np.repeat(live, size), np.repeat(rows, size), path)
    elif isinstance(col, (ListColumn, MapColumn)):
        child = col.child if isinstance(col, ListColumn) else col.items
        field = t.value_field if isinstance(col, ListColumn) else t.item_field
        starts, lengths = col.offsets[:-1][live], np.diff(col.offsets)[live]
        pos = gather_ranges(starts, lengths)
        child_live = np.zeros(len(child), np.bool_)
        child_live[pos] = True
        child_rows = np.zeros(len(child), np.int64)
        child_rows[pos] = np.repeat(rows[live], lengths)
        _check_child(field, child, child_live, child_rows, path)


def _check_child(f, child, live, rows, path):
    path = f"{path}.{f.name}" if path else f.name
    if not f.nullable:
        bad = live & ~child.valid_mask()
        if bad.any():
            raise SchemaError(f"non-nullable field {path} is null at row "
                              f"{int(rows[np.argmax(bad)])}")
    if has_required(f.type):
        check_required(child, live, rows, path)
