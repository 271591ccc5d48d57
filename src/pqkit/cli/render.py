"""Output helpers shared by the subcommands: JSON and rich views of plain dicts."""
import json
import sys

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.tree import Tree


def emit_json(doc, out=None):
    """Write `doc` as indented JSON (bytes as hex) followed by a newline."""
    out = out or sys.stdout
    json.dump(doc, out, indent=2, default=_default, ensure_ascii=False)
    out.write("\n")


def _default(obj):
    if isinstance(obj, (bytes, bytearray)):
        return obj.hex()
    return str(obj)


def console():
    return Console(highlight=False, soft_wrap=False)


def kv_table(title, rows):
    """A two-column key/value table; rows with value None are left out."""
    table = Table(title=title, show_header=False, title_justify="left")
    table.add_column("key", style="bold")
    table.add_column("value", overflow="fold")
    for key, value in rows:
        if value is not None:
            table.add_row(str(key), str(value))
    return table


def grid(title, columns, rows):
    """A table with a header row."""
    table = Table(title=title, title_justify="left")
    for c in columns:
        table.add_column(c, overflow="fold")
    for row in rows:
        table.add_row(*["" if v is None else str(v) for v in row])
    return table


def enum_name(enum_cls, value):
    """The enum member's name, UNKNOWN(v) for a value the enum lacks, None for None."""
    if value is None:
        return None
    try:
        return enum_cls(value).name
    except ValueError:
        return f"UNKNOWN({value})"


def problems_grid(problems):
    """The table of problems a subcommand found (kind, where, message)."""
    return grid("Problems", ["kind", "row group", "column", "offset", "message"], [
        (p["kind"], p["row_group"], escape(p["column"] or ""), p["offset"], escape(p["message"]))
        for p in problems])


def tree(label):
    return Tree(label)
