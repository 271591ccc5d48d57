"""pqinspect dictionary: the dictionary page of a column's chunks, with its decoded values.

For each selected row group: where the dictionary page is, its encoding,
entry count, stored and decompressed sizes, CRC, the entries themselves
(typed with the column's logical type and spelled as :mod:`pqkit.textio.render`
documents, as ``head`` and ``convert`` spell them: strings, decimal strings, ISO
timestamps, base64 bytes ...), and
how many data pages use the dictionary or fell back to another encoding. A
chunk whose first page is not a dictionary page shows "none".

The data pages are counted by walking the chunk's page headers as
``pqinspect pages`` does (only headers are decoded), so the problems that walk
finds (a chunk shorter or longer than its metadata says, a malformed header)
are reported here too. A dictionary page that cannot be read (bad header,
sizes, codec, values) or whose CRC does not match is a problem as well: each
is listed with its offset, and the exit code is 1. A footer that cannot be
read, or an unknown column, gives 2. Damage inside data page payloads (levels,
values) is not looked for: ``pqinspect cat`` meets it.
"""
import sys

from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.file.chunk_walk import walk_chunk
from pqkit.cli.common import (
    VIEWER_STYLE,
    add_column_arguments,
    add_style_arguments,
    json_document,
    require_columns,
    style_of,
)
from pqkit.cli.opening import open_parquet
from pqkit.cli.render import enum_name
from pqkit.errors import ParquetError
from pqkit.format import Encoding
from pqkit.inspect.dictionary_pages import read_dictionary_page
from pqkit.chunk_range import chunk_start
from pqkit.read.fetch.remote import open_source
from pqkit.schema.logical import leaf_type
from pqkit.textio.render import cell_text, json_values

HELP = "show the dictionary page of a column in each row group, with its decoded values"
EXAMPLE = """examples:
  pqinspect dictionary data.parquet --column city
  pqinspect dictionary data.parquet --column tags.list.element --row-group 0 --limit 5
  pqinspect dictionary data.parquet --column city --json | jq '.columns[].row_groups[].dictionary'

Values are typed by the column's logical type: strings, decimals as strings,
dates and timestamps as ISO 8601 text (UTC-adjusted ones with Z), bytes as base64
(--binary hex)."""

DEFAULT_SHOWN = 20
_DICT_ENCODINGS = ("RLE_DICTIONARY", "PLAIN_DICTIONARY")


def add_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    add_column_arguments(parser, "the column's dotted path (one is required)", required=True)
    parser.add_argument("--row-group", type=int, action="append", dest="row_groups",
                        metavar="N", help="only row group N (repeatable)")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help=f"show at most N values per dictionary, 0 for all (default: "
                             f"{DEFAULT_SHOWN} in the rich view, all with --json)")
    # No --timestamps: the dictionary is typed from the Parquet schema alone, where a
    # timestamp is UTC-adjusted or local but carries no zone name.
    add_style_arguments(parser, timestamps=False)


def _problem(kind, message, offset, row_group, path):
    return {"kind": kind, "row_group": row_group, "column": path, "offset": offset,
            "message": message}


def _data_pages(walked):
    """Count and encodings of the data pages a chunk walk found."""
    pages = [p for p in walked["pages"] if p["type"] in ("DATA_PAGE", "DATA_PAGE_V2")]
    counts = {}
    for p in pages:
        counts[p.get("encoding")] = counts.get(p.get("encoding"), 0) + 1
    return {"count": len(pages),
            "dictionary_encoded": sum(n for e, n in counts.items() if e in _DICT_ENCODINGS),
            "encodings": [{"encoding": e, "count": n} for e, n in counts.items()]}


def _page_dict(page, limit, style):
    values = json_values(page.values, style)
    shown = values if not limit or limit <= 0 else values[:limit]
    return {
        "offset": page.offset,
        "header_size": page.header_size,
        "compressed_size": page.compressed_size,
        "uncompressed_size": page.uncompressed_size,
        "encoding": enum_name(Encoding, page.encoding),
        "num_values": page.num_values,
        "is_sorted": page.is_sorted,
        "crc": None if page.crc is None else f"{page.crc & 0xFFFFFFFF:#010x}",
        "crc_ok": page.crc_ok,
        "values": shown,
        "values_omitted": len(values) - len(shown),
    }


def chunk_dict(pf, src, node, g, limit=None, style=VIEWER_STYLE):
    """(dict for one chunk's dictionary, list of problems met); ``src`` is a Source of the
    same file, for walking the chunk's page headers; values are spelled with ``style``."""
    path = node.dotted_path
    chunks = pf.metadata.row_group(g).thrift.columns or []
    chunk = chunks[node.column_index] if node.column_index < len(chunks) else None
    cmd = None if chunk is None else chunk.meta_data
    d = {"row_group": g, "dictionary": None}
    if cmd is not None:
        d.update(dictionary_page_offset=cmd.dictionary_page_offset,
                 data_page_offset=cmd.data_page_offset, num_values=cmd.num_values)
    try:
        page = read_dictionary_page(pf, node.column_index, g)
    except ParquetError as exc:
        d["error"] = f"{type(exc).__name__}: {exc}"
        start = None if cmd is None else chunk_start(cmd)
        return d, [_problem("bad_dictionary", f"column {path}, row group {g}: {d['error']}",
                            start, g, path)]
    # The page headers after the dictionary say whether the data pages use it (or fell
    # back to another encoding), and whether the chunk holds what its metadata says.
    walked = walk_chunk(src, pf.metadata, g, node, chunk, check_crc=False)
    d["data_pages"] = _data_pages(walked)
    problems = walked["problems"]
    if page is None:
        dict_offset = cmd.dictionary_page_offset
        if dict_offset is not None and 4 <= dict_offset < (cmd.data_page_offset or 0):
            problems.append(_problem(
                "missing_dictionary", f"column {path}, row group {g}: dictionary_page_offset "
                f"{dict_offset} does not point at a dictionary page", dict_offset, g, path))
        return d, problems
    d["dictionary"] = _page_dict(page, limit, style)
    if page.crc_ok is False:
        problems.append(_problem(
            "crc_mismatch", f"CRC mismatch in the dictionary page at offset {page.offset} in "
            f"column {path}, row group {g}: stored {d['dictionary']['crc']}, which the "
            f"payload does not match", page.offset, g, path))
    return d, problems


def build(path, columns, row_groups=None, limit=None, style=VIEWER_STYLE):
    with open_parquet(path, verify_checksums=False) as pf, open_source(path) as src:
        md = pf.metadata
        nodes = [md.schema.column(c) for c in columns]
        groups = row_groups if row_groups else range(md.num_row_groups)
        for g in groups:
            if not 0 <= g < md.num_row_groups:
                raise IndexError(f"row group {g} out of range (file has {md.num_row_groups})")
        out, problems = [], []
        for node in nodes:
            try:
                type_text = str(leaf_type(node))
            except ParquetError:
                type_text = None
            entry = {"path": node.dotted_path, "physical_type": node.type_str(),
                     "logical_type": node.annotation_str(), "type": type_text,
                     "row_groups": []}
            for g in groups:
                d, found = chunk_dict(pf, src, node, g, limit, style)
                entry["row_groups"].append(d)
                problems.extend(found)
            out.append(entry)
    chunks = [d for c in out for d in c["row_groups"]]
    summary = {"chunks": len(chunks),
               "with_dictionary": sum(d["dictionary"] is not None for d in chunks),
               "problems": len(problems)}
    return {"file": path, "columns": out, "summary": summary, "problems": problems}


def _render(doc, limit):
    con = render.console()
    shown = DEFAULT_SHOWN if limit is None else limit
    for c in doc["columns"]:
        kind = c["physical_type"] + (f" ({c['logical_type']})" if c["logical_type"] else "")
        con.print(render.grid(f"Column {escape(c['path'])}: {kind}, read as {c['type']}", [
            "row group", "offset", "encoding", "entries", "bytes stored/raw", "sorted", "crc",
            "data pages"], [_row(d) for d in c["row_groups"]]))
        for d in c["row_groups"]:
            page = d["dictionary"]
            if page is None or not page["values"]:
                continue
            values = page["values"] if shown <= 0 else page["values"][:shown]
            more = page["num_values"] - len(values)
            con.print(f"[bold]Row group {d['row_group']}[/bold]: {page['num_values']:,} entries")
            con.print(render.grid(None, ["#", "value"],
                                  [(i, _cell(v)) for i, v in enumerate(values)]))
            if more:
                con.print(f"[dim]… {more:,} more entries (--limit 0 or --json shows all)[/dim]")
    if doc["problems"]:
        con.print(render.problems_grid(doc["problems"]))


def _cell(value):
    return "[dim]null[/dim]" if value is None else escape(cell_text(value))


def _row(d):
    page = d["dictionary"]
    data_pages = d.get("data_pages")
    enc_text = None if data_pages is None else ", ".join(
        f"{e['encoding']}×{e['count']}" for e in data_pages["encodings"])
    if page is None:
        return (d["row_group"], "error" if "error" in d else "none", "", "", "", "", "",
                enc_text)
    crc = "" if page["crc"] is None else {True: "ok", False: "[red]BAD[/red]"}[page["crc_ok"]]
    return (d["row_group"], f"{page['offset']:,}", page["encoding"], f"{page['num_values']:,}",
            f"{page['compressed_size']:,} / {page['uncompressed_size']:,}", page["is_sorted"],
            crc, enc_text)


def run(args):
    try:
        doc = build(args.file, require_columns(args), args.row_groups,
                    args.limit if args.json else 0, style_of(args))
    except (KeyError, IndexError) as exc:
        print(f"pqinspect dictionary: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.json:
        render.emit_json(json_document("dictionary", doc))
    else:
        _render(doc, args.limit)
    for p in doc["problems"]:
        print(f"pqinspect dictionary: {p['message']}", file=sys.stderr)
    return 1 if doc["problems"] else 0
