"""pqinspect explain: what a filtered read skips and reads, and which metadata decided it.

The filter is text (``--where "x > 5 and city in ('Oslo')"``, parsed by
:func:`pqkit.read.prune.filter_text.parse_filter`); the plan comes from
:func:`pqkit.read.explain.explain_filter`, i.e. from the decisions the filtered
reader makes, so it names exactly the row groups and pages a read decodes.
"""
import sys

from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.common import (
    add_column_arguments,
    add_limit_argument,
    json_document,
    limited_grid,
    short,
)
from pqkit.errors import SchemaError
from pqkit.read.explain import explain_filter
from pqkit.read.prune.filter_text import parse_filter

HELP = ("explain a filtered read: per row group and page, the statistics, page index, "
        "bloom filter or dictionary that skip it or force a read, and the bytes avoided")
EXAMPLE = """examples:
  pqinspect explain data.parquet --where "x > 5 and city in ('Oslo')"
  pqinspect explain data.parquet --where "id = 42" --column name
  pqinspect explain data.parquet --where "d >= date '2024-01-01'" --json | jq '.totals'"""


def add_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    parser.add_argument("--where", required=True, metavar="EXPR",
                        help="the filter: comparisons (= != < <= > >=, [not] in (...)) "
                             "joined by and/or, with parentheses")
    add_column_arguments(parser, "a column the read returns (default all)")
    add_limit_argument(parser, "pages")


def build(path, where, columns=None):
    doc = explain_filter(path, parse_filter(where), columns)
    return {"file": path, "where": where, **doc}


def _show(value):
    return short(repr(value), 32)


def _evidence(g):
    """The checks that decided: the failing ones of a skipped row group, those of the
    first conjunction that may match in a read one."""
    if g["skipped"]:
        return [c for c in g["checks"] if not c["may_match"]]
    by_conj = {}
    for c in g["checks"]:
        by_conj.setdefault(c["conjunction"], []).append(c)
    alive = [cs for cs in by_conj.values() if all(c["may_match"] for c in cs)]
    return alive[0] if alive else []


def _render(doc, limit):
    con = render.console()
    t = doc["totals"]
    con.print(f"[bold]{escape(doc['file'])}[/bold]: where {escape(doc['where'])}")
    con.print(f"  {t['row_groups_skipped']:,} of {t['row_groups']:,} row groups skipped; "
              f"{t['pages_read']:,} pages and {t['chunks_read_whole']:,} whole chunks read; "
              f"{t['bytes_read']:,} bytes read, {t['bytes_avoided']:,} avoided")
    rows = []
    for g in doc["row_groups"]:
        decision = f"skip ({g['skipped_by']})" if g["skipped"] else "read"
        evidence = "; ".join(f"{c['column']} {c['op']} {_show(c['value'])}: {c['source']} "
                             f"{c['detail']}" for c in _evidence(g)[:3])
        cand = "all" if g["candidate_rows"] is None else f"{g['candidate_rows']:,}"
        pages = sum(r["pages_read"] for r in g["reads"])
        whole = sum(r["whole_chunk"] for r in g["reads"])
        rows.append((str(g["row_group"]), f"{g['num_rows']:,}", decision, cand,
                     f"{pages:,}+{whole}", f"{g['bytes_avoided']:,}", escape(evidence)))
    con.print(limited_grid("row groups", ["rg", "rows", "decision", "candidates",
                                          "pages+chunks", "bytes avoided", "detail"],
                           rows, limit, "row groups"))
    pages = [(str(g["row_group"]), escape(p["column"]), str(p["page"]),
              f"{p['rows'][0]:,}-{p['rows'][1]:,}", "may match" if p["may_match"] else "skip",
              escape(p["detail"]))
             for g in doc["row_groups"] for p in g["pages"]]
    if pages:
        con.print(limited_grid("page index", ["rg", "column", "page", "rows", "verdict",
                                              "detail"], pages, limit, "pages"))


def run(args):
    try:
        doc = build(args.file, args.where, args.columns)
    except SchemaError as exc:
        print(f"pqinspect explain: {exc}", file=sys.stderr)
        return 2
    if args.json:
        render.emit_json(json_document("explain", doc))
    else:
        _render(doc, args.limit)
    return 0
