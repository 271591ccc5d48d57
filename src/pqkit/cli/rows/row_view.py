"""Rows as a rich view, for the subcommands that show decoded rows (head, take).

Rows are dicts of JSON-ready values (:func:`pqkit.textio.render.json_values`).
They are shown as one table when at least half the columns fit side by side, else
as one column/value table per row, so a wide file never gets one-character
columns. Long cells are cut with "…"; nulls show as a dim ``null``.
"""
from rich.markup import escape

from pqkit.cli import render
from pqkit.textio.render import cell_text

CELL_WIDTH = 40


def short_cell(text, width=CELL_WIDTH):
    return text if len(text) <= width else text[:width - 1] + "…"


def print_rows(con, names, rows, labels=None):
    """Print ``rows`` (dicts keyed by ``names``) on console ``con``; ``labels`` name each
    row in the per-row view (default "row 0", "row 1", ...)."""
    cells = [[escape(short_cell(cell_text(row[n]))) if row[n] is not None
              else "[dim]null[/dim]" for n in names] for row in rows]
    labels = labels or [f"row {i}" for i in range(len(rows))]
    table = render.grid(None, [escape(n) for n in names], cells)
    if len(names) > 2 and 2 * len(table.fit(con.width)) < len(names):
        # fewer than half the columns fit side by side: one column/value table per row
        for label, row in zip(labels, cells):
            con.print(render.kv_table(label, zip((escape(n) for n in names), row),
                                      wrap=False))
        return
    con.print(table)
