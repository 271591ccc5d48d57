"""pqinspect index: the page index (ColumnIndex and OffsetIndex) of each column chunk.

Per page, the OffsetIndex gives where the page is and its first row; the
ColumnIndex whether it holds only nulls, its bounds (decoded per the column's
type, and as hex) and its null count. A chunk without either is shown as
"none". An index that cannot be read, lists that do not line up, row numbers
out of order and pages outside the chunk are problems (exit 1).
"""
import sys

from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.common import (
    add_limit_argument,
    add_selection_arguments,
    json_document,
    limited_grid,
    open_file,
    problem,
    report_problems,
    selected_chunks,
    short,
)
from pqkit.cli.render import enum_name
from pqkit.errors import EncryptedFileError, ParquetError
from pqkit.format import BoundaryOrder
from pqkit.chunk_range import chunk_range
from pqkit.read.fetch.page_index import (
    index_location,
    page_row_ranges,
    read_column_index,
    read_offset_index,
)
from pqkit.statistics import display_stat_value

HELP = "show the page index: per page bounds, null pages/counts, locations and first rows"
EXAMPLE = """examples:
  pqinspect index data.parquet
  pqinspect index data.parquet --column a.b
  pqinspect index data.parquet --json | jq '.chunks[] | .offset_index.pages | length'"""


def add_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    add_selection_arguments(parser)
    add_limit_argument(parser, "pages")


def _at(i, values):
    return None if values is None else values[i]


def column_index_dict(node, ci, loc):
    pages = []
    for i, null_page in enumerate(ci.null_pages):
        lo, hi = ci.min_values[i], ci.max_values[i]
        pages.append({
            "page": i,
            "null_page": bool(null_page),
            "min": None if null_page else display_stat_value(node, lo),
            "max": None if null_page else display_stat_value(node, hi),
            "min_raw": lo.hex(),
            "max_raw": hi.hex(),
            "null_count": _at(i, ci.null_counts),
            "nan_count": _at(i, ci.nan_counts),
        })
    return {"offset": loc.offset, "length": loc.length,
            "boundary_order": enum_name(BoundaryOrder, ci.boundary_order),
            "num_pages": len(pages), "pages": pages,
            "repetition_level_histograms": ci.repetition_level_histograms,
            "definition_level_histograms": ci.definition_level_histograms}


def offset_index_dict(oi, loc, ranges):
    sizes = oi.unencoded_byte_array_data_bytes
    pages = []
    for i, pl in enumerate(oi.page_locations):
        pages.append({
            "page": i,
            "offset": pl.offset,
            "compressed_page_size": pl.compressed_page_size,
            "first_row_index": pl.first_row_index,
            "num_rows": None if ranges is None else ranges[i][1] - ranges[i][0],
            "unencoded_byte_array_data_bytes": _at(i, sizes),
        })
    return {"offset": loc.offset, "length": loc.length, "num_pages": len(pages), "pages": pages}


def chunk_index(src, md, g, node, chunk):
    path = node.dotted_path
    where = f"column {path}, row group {g}"
    limit = md.footer_offset
    num_rows = md.row_group(g).num_rows
    d = {"row_group": g, "path": path, "column": node.column_index,
         "physical_type": node.type_str(), "column_index": None, "offset_index": None}
    problems = d["problems"] = []
    oi = None
    try:
        oi = read_offset_index(src, chunk, limit, where)
    except ParquetError as exc:
        problems.append(problem(_kind(exc, "bad_offset_index"), str(exc),
                                chunk.offset_index_offset, g, path))
    if oi is not None:
        loc = index_location(chunk, "offset_index", limit, where)
        ranges = None
        try:
            ranges = page_row_ranges(oi, num_rows, where)
        except ParquetError as exc:
            problems.append(problem("bad_row_ranges", str(exc), loc.offset, g, path))
        d["offset_index"] = offset_index_dict(oi, loc, ranges)
        _check_pages_in_chunk(d, chunk, limit, where, problems)
    try:
        ci = read_column_index(src, chunk, limit, where,
                               None if oi is None else len(oi.page_locations))
    except ParquetError as exc:
        problems.append(problem(_kind(exc, "bad_column_index"), str(exc),
                                chunk.column_index_offset, g, path))
        ci = None
    if ci is not None:
        d["column_index"] = column_index_dict(
            node, ci, index_location(chunk, "column_index", limit, where))
    return d


def _kind(exc, default):
    return "encrypted" if isinstance(exc, EncryptedFileError) else default


def _check_pages_in_chunk(d, chunk, limit, where, problems):
    """Every OffsetIndex page must lie inside the chunk's byte range."""
    if chunk.meta_data is None:
        return
    try:
        start, length = chunk_range(chunk, limit, where)
    except ParquetError:
        return                        # pqinspect pages reports a bad chunk range
    for p in d["offset_index"]["pages"]:
        if p["offset"] < start or p["offset"] + p["compressed_page_size"] > start + length:
            problems.append(problem(
                "page_outside_chunk", f"OffsetIndex of {where}: page {p['page']} at offset "
                f"{p['offset']} with {p['compressed_page_size']} bytes lies outside the chunk "
                f"[{start}, {start + length})", p["offset"], d["row_group"], d["path"]))


def build(path, row_groups=None, columns=None):
    md, src, f = open_file(path)
    with f:
        chunks = [chunk_index(src, md, g, node, chunk)
                  for g, node, chunk in selected_chunks(md, row_groups, columns)]
    problems = [p for c in chunks for p in c["problems"]]
    summary = {
        "chunks": len(chunks),
        "with_column_index": sum(c["column_index"] is not None for c in chunks),
        "with_offset_index": sum(c["offset_index"] is not None for c in chunks),
        "problems": len(problems),
    }
    return {"file": path, "summary": summary, "chunks": chunks, "problems": problems}


def _rows(c):
    ci, oi = c["column_index"], c["offset_index"]
    n = max(ci["num_pages"] if ci else 0, oi["num_pages"] if oi else 0)
    rows = []
    for i in range(n):
        loc = oi["pages"][i] if oi and i < oi["num_pages"] else {}
        ent = ci["pages"][i] if ci and i < ci["num_pages"] else {}
        null_page = ent.get("null_page")
        rows.append((i, None if "offset" not in loc else f"{loc['offset']:,}",
                     short(ent.get("min")), short(ent.get("max")), loc.get("first_row_index"),
                     loc.get("num_rows"), ent.get("null_count"), None if null_page is None
                     else ("yes" if null_page else "no"), loc.get("compressed_page_size")))
    return rows


def _render(doc, limit):
    con = render.console()
    for c in doc["chunks"]:
        ci, oi = c["column_index"], c["offset_index"]
        head = f"Row group {c['row_group']}, column {escape(c['path'])} ({c['physical_type']})"
        if ci is None and oi is None:
            con.print(f"[bold]{head}[/bold]: page index none")
            continue
        parts = [("ColumnIndex none" if ci is None else
                  f"ColumnIndex {ci['length']:,} bytes at {ci['offset']:,}, "
                  f"{ci['boundary_order']}"),
                 ("OffsetIndex none" if oi is None else
                  f"OffsetIndex {oi['length']:,} bytes at {oi['offset']:,}")]
        # by importance: at 80 columns the bounds stay, the sizes go first
        con.print(limited_grid(f"{head}: {'; '.join(parts)}", [
            "page", "offset", "min", "max", "first row", "rows", "nulls", "null page", "size"],
            _rows(c), limit, "pages", squeeze=("min", "max")))
    s = doc["summary"]
    con.print(render.kv_table("Summary", [
        ("column chunks", s["chunks"]), ("with ColumnIndex", s["with_column_index"]),
        ("with OffsetIndex", s["with_offset_index"]), ("problems", s["problems"])]))
    if doc["problems"]:
        con.print(render.problems_grid(doc["problems"]))


def run(args):
    try:
        doc = build(args.file, args.row_groups, args.columns)
    except (KeyError, IndexError) as exc:
        print(f"pqinspect index: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.json:
        render.emit_json(json_document("index", doc))
    else:
        _render(doc, args.limit)
    report_problems("index", doc["problems"])
    return 1 if doc["problems"] else 0
