"""pqinspect advise: per column chunk, the size and decode time under other encodings and
codecs (measured by encoding the chunk's values again), the suggestion per column, the
projected file size, and page/row-group size advice; ``--apply OUT`` writes the file
with the suggestion (see :mod:`pqkit.inspect.advise`)."""
import sys

from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.common import add_limit_argument, json_document, limited_grid
from pqkit.inspect.advise import CODECS, SAMPLE_ROWS, advise, apply_advice

HELP = ("suggest encodings and codecs per column by re-encoding each chunk's values "
        "(sizes, decode times, projected total); --apply OUT rewrites with them")
EXAMPLE = """examples:
  pqinspect advise data.parquet
  pqinspect advise data.parquet --codec zstd --codec lz4 --json | jq '.projected_bytes'
  pqinspect advise data.parquet --apply smaller.parquet"""


def add_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    parser.add_argument("--codec", action="append", dest="codecs", choices=CODECS,
                        metavar="NAME", help=f"a codec to try (repeatable; default all "
                                             f"installed of {', '.join(CODECS)})")
    parser.add_argument("--sample-rows", type=int, default=SAMPLE_ROWS, metavar="N",
                        help=f"encode at most N rows of each chunk, scaling the result "
                             f"(default {SAMPLE_ROWS:,})")
    parser.add_argument("--apply", metavar="OUT",
                        help="write the file again to OUT with the suggested encodings "
                             "and codecs, and report its size")
    add_limit_argument(parser, "trials")


def _pct(new, old):
    return f"{(new - old) / old * 100:+.1f}%" if old else "-"


def _render(doc, limit):
    con = render.console()
    con.print(f"[bold]{escape(doc['file'])}[/bold]: {doc['file_bytes']:,} bytes, "
              f"projected {doc['projected_bytes']:,} "
              f"({_pct(doc['projected_bytes'], doc['file_bytes'])}) with the suggestions")
    if "applied_bytes" in doc:
        con.print(f"  written to {escape(doc['applied_to'])}: {doc['applied_bytes']:,} bytes")
    now = {}
    for c in doc["chunks"]:
        now.setdefault(c["column"], (c["encodings"], c["codec"]))
    # The suggestion and its effect first: a narrow terminal leaves out what the file has now.
    rows = [(escape(c["column"]), c["encoding"], c["codec"], f"{c['bytes']:,}",
             f"{c['projected_bytes']:,}", _pct(c["projected_bytes"], c["bytes"]),
             f"{c['decode_seconds'] * 1000:.1f}", now[c["column"]][1],
             escape(" ".join(now[c["column"]][0])))
            for c in doc["columns"]]
    con.print(render.grid("suggestion per column", [
        "column", "suggested", "with", "bytes now", "projected", "change", "decode ms",
        "codec now", "encodings now"], rows))
    trials = [(str(c["row_group"]), escape(c["column"]), t["encoding"], t["codec"],
               f"{t['bytes']:,}", f"{t['decode_seconds'] * 1000:.1f}")
              for c in doc["chunks"] for t in c["trials"]]
    con.print(limited_grid("trials per chunk (scaled from the sampled rows)",
                           ["rg", "column", "encoding", "codec", "bytes", "decode ms"],
                           trials, limit, "trials"))
    con.print(render.grid("sizes", ["what", "advice", "reason"],
                          [(s["what"], s["advice"], escape(s["reason"]))
                           for s in doc["suggestions"]], wrap=("advice", "reason")))


def run(args):
    if args.sample_rows <= 0:
        print(f"pqinspect advise: --sample-rows must be positive, got {args.sample_rows}",
              file=sys.stderr)
        return 2
    doc = advise(args.file, args.codecs, args.sample_rows)
    if args.apply:
        doc["applied_to"] = args.apply
        doc["applied_bytes"] = apply_advice(args.file, args.apply, doc)
    if args.json:
        render.emit_json(json_document("advise", doc))
    else:
        _render(doc, args.limit)
    return 0
