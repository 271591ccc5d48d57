"""pqinspect take: chosen rows by number, and how few pages it took to read them.

Rows come from ``ParquetFile.take``: only the pages holding them are decoded
where a chunk has an OffsetIndex, whole chunks otherwise (or where every page
holds a row asked for); the counts come from its :class:`pqkit.ReadStatistics`. Row numbers count from 0 over the whole file and may be
given in any order and more than once; ``a:b`` is the rows a to b-1. Values are
spelled as ``head`` spells them.
"""
import sys

from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.common import add_column_arguments, add_style_arguments, json_document, style_of
from pqkit.cli.opening import open_parquet
from pqkit.cli.rows.row_view import print_rows
from pqkit.read.read_statistics import ReadStatistics
from pqkit.textio.render import json_values

HELP = "show rows by number, decoding only the pages that hold them (through the page index)"
EXAMPLE = """examples:
  pqinspect take data.parquet 0 41 999999
  pqinspect take data.parquet 100:110 --column id --column name
  pqinspect take data.parquet 5 --json | jq '.pages_read'"""
MAX_ROWS = 100_000          # a viewer's request; a range beyond this is refused


def add_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    parser.add_argument("rows", nargs="+", metavar="ROW",
                        help="row number (from 0) or range a:b (b excluded)")
    add_column_arguments(parser, "only this column (dotted paths select nested fields)")
    add_style_arguments(parser)


def parse_rows(words):
    """Row numbers from ``123`` and ``a:b`` words; ValueError naming a bad one."""
    rows = []
    for word in words:
        a, sep, b = word.partition(":")
        try:
            if sep:
                start, stop = int(a), int(b)
                if stop - start > MAX_ROWS:
                    raise ValueError(f"range {word} has more than {MAX_ROWS:,} rows")
                rows.extend(range(start, stop))
            else:
                rows.append(int(word))
        except ValueError as exc:
            reason = str(exc) if "range" in str(exc) else "not a row number or a:b"
            raise ValueError(f"{word!r}: {reason}") from None
        if len(rows) > MAX_ROWS:
            raise ValueError(f"more than {MAX_ROWS:,} rows asked for")
    return rows


def build(path, rows, columns=None, style=None):
    """The take document: rows, their numbers, and pages/chunks decoded per column."""
    with open_parquet(path) as pf:
        stats = ReadStatistics()
        table = pf.take(rows, columns, statistics=stats)
        names = table.column_names
        values = [json_values(c, style) for c in table.columns] if style else \
            [json_values(c) for c in table.columns]
        return {
            "file": path, "num_rows": pf.num_rows, "row_numbers": list(rows),
            "columns": [{"name": f.name, "type": str(f.type)} for f in table.schema],
            "rows": [dict(zip(names, r)) for r in zip(*values)],
            "pages_read": {p: c["pages_decoded"] for p, c in sorted(stats.by_column.items())
                           if c["chunks_paged"]},
            "chunks_read": {p: c["chunks_whole"] for p, c in sorted(stats.by_column.items())
                            if c["chunks_whole"]},
            "statistics": stats.as_dict(),
        }


def _render(doc):
    con = render.console()
    pages = sum(doc["pages_read"].values())
    chunks = sum(doc["chunks_read"].values())
    con.print(f"[bold]{escape(doc['file'])}[/bold]: {len(doc['rows'])} of "
              f"{doc['num_rows']:,} rows; {pages:,} pages and {chunks:,} whole chunks "
              "decoded")
    print_rows(con, [c["name"] for c in doc["columns"]], doc["rows"],
               [f"row {r:,}" for r in doc["row_numbers"]])


def run(args):
    try:
        rows = parse_rows(args.rows)
        doc = build(args.file, rows, args.columns, style_of(args))
    except (ValueError, IndexError) as exc:
        print(f"pqinspect take: {exc}", file=sys.stderr)
        return 2
    if args.json:
        render.emit_json(json_document("take", doc))
    else:
        _render(doc)
    return 0
