"""pqinspect pages: every page header of every column chunk, walked from the chunk's bytes.

A chunk is walked from its first page (the dictionary page offset, when valid
and before the data page offset, else the data page offset) through
``total_compressed_size`` bytes, until the data pages cover the chunk's
``num_values``. The OffsetIndex is not used: ``pqinspect index`` shows it, so
the two views can be compared. CRC mismatches, truncated or malformed page
headers and value counts that disagree with the metadata are reported as
problems (exit 1), never raised. When a page runs past the chunk's declared
end (parquet-mr before 1.2.9 did not count the dictionary page header,
PARQUET-816), the walk goes on up to ``MAX_OVERRUN`` bytes further, so every page
is shown, and the overrun is reported.
"""
import json
import sys

from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.file.chunk_walk import walk_chunk
from pqkit.cli.common import (
    add_limit_argument,
    add_selection_arguments,
    json_document,
    limited_grid,
    open_file,
    report_problems,
    selected_chunks,
    short,
)
from pqkit.cli.keys import add_key_arguments, read_options
from pqkit.read.options import DEFAULT_OPTIONS

HELP = "list every page of each column chunk: header, sizes, encodings, statistics, CRC check"
EXAMPLE = """examples:
  pqinspect pages data.parquet
  pqinspect pages data.parquet --column a.b --row-group 0 --raw
  pqinspect pages data.parquet --json | jq '.problems'"""



def add_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    add_selection_arguments(parser)
    parser.add_argument("--raw", action="store_true",
                        help="include each page header as decoded Thrift")
    add_limit_argument(parser, "pages")
    add_key_arguments(parser)


# --- shared helpers (index and layout use them too) -------------------------------------


def build(path, row_groups=None, columns=None, raw=False, options=DEFAULT_OPTIONS):
    md, src, f = open_file(path, options)
    with f:
        chunks = [walk_chunk(src, md, g, node, chunk, raw=raw)
                  for g, node, chunk in selected_chunks(md, row_groups, columns)]
    problems = [p for c in chunks for p in c["problems"]]
    pages = [p for c in chunks for p in c["pages"]]
    summary = {
        "chunks": len(chunks),
        "pages": len(pages),
        "data_pages": sum(p["type"] in ("DATA_PAGE", "DATA_PAGE_V2") for p in pages),
        "dictionary_pages": sum(p["type"] == "DICTIONARY_PAGE" for p in pages),
        "pages_with_crc": sum(p["crc"] is not None for p in pages),
        "crc_mismatches": sum(p["crc_ok"] is False for p in pages),
        "problems": len(problems),
    }
    return {"file": path, "summary": summary, "chunks": chunks, "problems": problems}


# --- rendering ------------------------------------------------------------------------


def _page_row(p):
    st = p.get("statistics") or {}
    lo = st.get("min_value", st.get("min"))
    hi = st.get("max_value", st.get("max"))
    crc = "" if p["crc"] is None else {True: "ok", False: "[red]BAD[/red]",
                                       None: "present"}[p["crc_ok"]]
    return (p["index"], f"{p['offset']:,}", p["type"], short(lo), short(hi), crc,
            p["compressed_size"], p.get("num_values"), p.get("num_nulls", st.get("null_count")),
            p.get("num_rows"), p.get("encoding"), p["uncompressed_size"], p["header_size"])


def _render(doc, limit, raw):
    con = render.console()
    for c in doc["chunks"]:
        title = (f"Row group {c['row_group']}, column {escape(c['path'])} "
                 f"({c['physical_type']}, {c.get('codec')})")
        if "offset" in c:
            title += f": {len(c['pages'])} pages in {c['length']:,} bytes at offset {c['offset']:,}"
        if not c["pages"]:
            con.print(f"[bold]{title}[/bold]: no pages walked")
            continue
        # by importance: at 80 columns the bounds and the CRC stay, sizes and counts go first
        con.print(limited_grid(title, [
            "#", "offset", "type", "min", "max", "crc", "compressed", "values", "nulls",
            "rows", "encoding", "uncompressed", "header"],
            [_page_row(p) for p in c["pages"]], limit, "pages", squeeze=("min", "max")))
        if raw:
            for p in c["pages"][:limit if limit > 0 else None]:
                con.print(f"  page {p['index']} header: "
                          + escape(json.dumps(p["header"], separators=(",", ":"))))
    s = doc["summary"]
    con.print(render.kv_table("Summary", [
        ("column chunks", s["chunks"]), ("pages", f"{s['pages']:,}"),
        ("data pages", f"{s['data_pages']:,}"),
        ("dictionary pages", f"{s['dictionary_pages']:,}"),
        ("pages with CRC", f"{s['pages_with_crc']:,}"),
        ("CRC mismatches", s["crc_mismatches"]), ("problems", s["problems"])]))
    if doc["problems"]:
        con.print(render.problems_grid(doc["problems"]))


def run(args):
    try:
        doc = build(args.file, args.row_groups, args.columns, args.raw, read_options(args))
    except (KeyError, IndexError) as exc:
        print(f"pqinspect pages: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.json:
        render.emit_json(json_document("pages", doc))
    else:
        _render(doc, args.limit, args.raw)
    report_problems("pages", doc["problems"])
    return 1 if doc["problems"] else 0
