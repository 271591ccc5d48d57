"""pqinspect pages: every page header of every column chunk, walked from the chunk's bytes.

A chunk is walked from its first page (the dictionary page offset, when valid
and before the data page offset, else the data page offset) through
``total_compressed_size`` bytes, until the data pages cover the chunk's
``num_values``. The OffsetIndex is not used: ``pqinspect index`` shows it, so
the two views can be compared. CRC mismatches, truncated or malformed page
headers and value counts that disagree with the metadata are reported as
problems (exit 1), never raised. When a page runs past the chunk's declared
end (parquet-mr before 1.2.9 did not count the dictionary page header,
PARQUET-816), the walk goes on up to MAX_OVERRUN bytes further, so every page
is shown, and the overrun is reported.
"""
import json
import sys

from rich.markup import escape

from ..errors import CorruptFileError
from ..footer import read_metadata
from ..format import CompressionCodec, Encoding, PageType
from ..page import crc32_signed, walk_pages
from ..source import Source
from ..statistics import statistics_to_dict
from . import render
from .render import enum_name

HELP = "list every page of each column chunk: header, sizes, encodings, statistics, CRC check"
EXAMPLE = """examples:
  pqinspect pages data.parquet
  pqinspect pages data.parquet --column a.b --row-group 0 --raw
  pqinspect pages data.parquet --json | jq '.problems'"""

DEFAULT_LIMIT = 50
# How far past a chunk's declared end a page may run before the walk gives up
# (a dictionary page header is far smaller).
MAX_OVERRUN = 256


def add_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    add_selection_arguments(parser)
    parser.add_argument("--raw", action="store_true",
                        help="include each page header as decoded Thrift")
    add_limit_argument(parser, "pages")


def add_selection_arguments(parser):
    parser.add_argument("--row-group", type=int, action="append", dest="row_groups",
                        metavar="N", help="only row group N (repeatable)")
    parser.add_argument("--column", action="append", dest="columns", metavar="PATH",
                        help="only the column with this dotted path (repeatable)")


def add_limit_argument(parser, what):
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N",
                        help=f"rich view: show at most N {what} per table, 0 for all "
                             f"(default {DEFAULT_LIMIT}; --json always has everything)")


# --- shared helpers (index and layout use them too) -------------------------------------



def thrift_to_dict(obj):
    """A Thrift struct as JSON-ready data: set fields only, binary as hex, enums as ints."""
    if hasattr(obj, "FIELD_NAMES"):
        return {name: thrift_to_dict(getattr(obj, name)) for name in obj.FIELD_NAMES
                if getattr(obj, name) is not None}
    if isinstance(obj, (list, tuple)):
        return [thrift_to_dict(v) for v in obj]
    if isinstance(obj, (bytes, bytearray, memoryview)):
        return bytes(obj).hex()
    return obj


def problem(kind, message, offset, row_group=None, path=None):
    return {"kind": kind, "row_group": row_group, "column": path, "offset": offset,
            "message": message}


def open_file(path):
    """(metadata, Source) of a file opened once for the whole command."""
    f = open(path, "rb")
    try:
        md = read_metadata(f)
    except BaseException:
        f.close()
        raise
    return md, Source(f), f


def selected_chunks(md, row_groups=None, columns=None):
    """[(row group, leaf node, ColumnChunk)] in file order; KeyError/IndexError for a bad
    selection, CorruptFileError for a row group with fewer chunks than leaves."""
    nodes = md.schema.columns
    if columns:
        wanted = {md.schema.column(c).column_index for c in columns}
        nodes = [n for n in nodes if n.column_index in wanted]
    groups = row_groups if row_groups else range(md.num_row_groups)
    for g in groups:
        if not 0 <= g < md.num_row_groups:
            raise IndexError(f"row group {g} out of range (file has {md.num_row_groups})")
    out = []
    for g in groups:
        chunks = md.row_group(g).columns or []
        if len(chunks) != len(md.schema.columns):
            raise CorruptFileError(
                f"row group {g} has {len(chunks)} column chunks but the schema has "
                f"{len(md.schema.columns)} leaf columns (footer at offset {md.footer_offset})")
        out.extend((g, node, chunks[node.column_index]) for node in nodes)
    return out


def chunk_span(cmd, limit):
    """(start, length) of a chunk's pages, or raise CorruptFileError naming the offsets.

    The chunk starts at the smaller valid one of dictionary_page_offset and
    data_page_offset: some writers store 0 for the offset they do not use.
    """
    offsets = [o for o in (cmd.dictionary_page_offset, cmd.data_page_offset)
               if o is not None and o >= 4]
    start = min(offsets) if offsets else cmd.data_page_offset
    length = cmd.total_compressed_size
    if start is None or length is None or start < 4 or length < 0:
        raise CorruptFileError(f"invalid column chunk range: offset {start}, length {length}")
    if start + length > limit:
        raise CorruptFileError(
            f"column chunk at offset {start} with {length} bytes runs past the data, "
            f"which ends at offset {limit}")
    return start, length


def walk_chunk(src, md, g, node, chunk, check_crc=True, raw=False):
    """Walk one chunk's pages; a dict with the pages found and the problems met."""
    path = node.dotted_path
    where = f"column {path}, row group {g}"
    d = {"row_group": g, "path": path, "column": node.column_index,
         "physical_type": node.type_str()}
    problems = d["problems"] = []
    cmd = chunk.meta_data
    if cmd is None:
        d.update(encrypted=chunk.crypto_metadata is not None, pages=[])
        problems.append(problem(
            "no_metadata", f"{where}: the column chunk's metadata is "
            f"{'encrypted' if d['encrypted'] else 'missing'} (chunk file_offset "
            f"{chunk.file_offset}), its pages cannot be walked", chunk.file_offset, g, path))
        return d
    d.update(codec=enum_name(CompressionCodec, cmd.codec), num_values=cmd.num_values,
             encrypted=chunk.crypto_metadata is not None)
    pages = d["pages"] = []
    try:
        start, length = chunk_span(cmd, md.footer_offset)
    except CorruptFileError as exc:
        problems.append(problem("bad_chunk_range", f"{where}: {exc}",
                                cmd.data_page_offset, g, path))
        return d
    d.update(offset=start, length=length)
    if d["encrypted"]:
        problems.append(problem(
            "encrypted", f"{where}: the column is encrypted; pqkit cannot decrypt the page "
            f"headers of its chunk at offset {start}", start, g, path))
        return d
    num_values = cmd.num_values
    if num_values is None or num_values < 0:
        problems.append(problem("bad_num_values", f"{where}: ColumnMetaData.num_values is "
                                f"{num_values} (chunk at offset {start})", start, g, path))
        return d
    # A chunk of no values may still hold a dictionary page: walk until the first
    # data page or the chunk's end.
    target = max(num_values, 1)
    raw_pages, pos, error = walk_pages(src.read(start, length), start, target, where)
    end = start + length
    pad = min(MAX_OVERRUN, md.footer_offset - end)
    if error is not None and pad > 0:
        # parquet-mr before 1.2.9 left the dictionary page header out of
        # total_compressed_size (PARQUET-816): see whether the pages continue.
        retry = walk_pages(src.read(start, length + pad), start, target, where)
        if retry[2] is None:
            raw_pages, pos, error = retry
    seen = 0
    for page in raw_pages:
        p = page_dict(len(pages), page, node, check_crc, raw)
        pages.append(p)
        if p["crc_ok"] is False:
            problems.append(problem(
                "crc_mismatch", f"CRC mismatch in {p['type']} page at offset {page.offset} in "
                f"{where}: stored {p['crc']}, computed {p['crc_computed']}",
                page.offset, g, path))
        if p["type"] in ("DATA_PAGE", "DATA_PAGE_V2"):
            seen += p["num_values"]
    d.update(values_walked=seen, bytes_walked=pos - start, trailing_bytes=max(end - pos, 0))
    if error is not None:
        problems.append(problem("bad_page", str(error), pos, g, path))
    elif pos > end:
        last = raw_pages[-1]
        problems.append(problem(
            "chunk_overrun", f"{where}: the page at offset {last.offset} ends at {pos}, "
            f"{pos - end} bytes after the chunk's declared end (offset {start} + "
            f"total_compressed_size {length}); parquet-mr before 1.2.9 left the dictionary "
            "page header out of that size (PARQUET-816)", last.offset, g, path))
    elif seen < num_values:
        problems.append(problem(
            "truncated_chunk", f"{where}: the chunk's {length} bytes at offset {start} end "
            f"after {seen} of its {num_values} values", end, g, path))
    elif seen > num_values:
        problems.append(problem(
            "value_count", f"{where}: the data pages hold {seen} values, the column "
            f"metadata says {num_values} (chunk at offset {start})", start, g, path))
    return d


def page_dict(index, page, node, check_crc=True, raw=False):
    """A JSON-ready description of one page (a pqkit.page.RawPage)."""
    h = page.header
    d = {"index": index, "offset": page.offset, "header_size": page.header_size,
         "type": enum_name(PageType, h.type), "compressed_size": h.compressed_page_size,
         "uncompressed_size": h.uncompressed_page_size}
    sub = None
    if h.type == PageType.DATA_PAGE:
        sub = h.data_page_header
        if sub is not None:
            d.update(encoding=enum_name(Encoding, sub.encoding),
                     definition_level_encoding=enum_name(Encoding, sub.definition_level_encoding),
                     repetition_level_encoding=enum_name(Encoding, sub.repetition_level_encoding),
                     num_values=sub.num_values)
    elif h.type == PageType.DATA_PAGE_V2:
        sub = h.data_page_header_v2
        if sub is not None:
            d.update(encoding=enum_name(Encoding, sub.encoding), num_values=sub.num_values,
                     num_nulls=sub.num_nulls, num_rows=sub.num_rows,
                     definition_levels_byte_length=sub.definition_levels_byte_length,
                     repetition_levels_byte_length=sub.repetition_levels_byte_length,
                     is_compressed=True if sub.is_compressed is None else sub.is_compressed)
    elif h.type == PageType.DICTIONARY_PAGE:
        sub = h.dictionary_page_header
        if sub is not None:
            d.update(encoding=enum_name(Encoding, sub.encoding), num_values=sub.num_values,
                     is_sorted=sub.is_sorted)
    stats = getattr(sub, "statistics", None)
    if stats is not None:
        d["statistics"] = statistics_to_dict(node, stats)
    d["crc"] = None if h.crc is None else f"{h.crc & 0xFFFFFFFF:#010x}"
    d["crc_computed"] = d["crc_ok"] = None
    if h.crc is not None and check_crc:
        computed = crc32_signed(page.payload)
        d["crc_computed"] = f"{computed & 0xFFFFFFFF:#010x}"
        d["crc_ok"] = computed == h.crc
    if raw:
        d["header"] = thrift_to_dict(h)
    return d


def build(path, row_groups=None, columns=None, raw=False):
    md, src, f = open_file(path)
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

def short(value, n=24):
    if value is None:
        return None
    value = str(value)
    return escape(value if len(value) <= n else value[:n - 1] + "…")


def limited_grid(title, columns, rows, limit, what):
    """render.grid of at most `limit` rows (all when limit <= 0), captioned with how many
    were left out."""
    more = len(rows) - limit if 0 < limit < len(rows) else 0
    table = render.grid(title, columns, rows[:limit] if more else rows)
    if more:
        table.caption = f"… {more:,} more {what} (--limit 0 or --json shows all)"
    return table


def _page_row(p):
    st = p.get("statistics") or {}
    lo = st.get("min_value", st.get("min"))
    hi = st.get("max_value", st.get("max"))
    crc = "" if p["crc"] is None else {True: "ok", False: "[red]BAD[/red]",
                                       None: "present"}[p["crc_ok"]]
    return (p["index"], f"{p['offset']:,}", p["header_size"], p["type"],
            p["compressed_size"], p["uncompressed_size"], p.get("encoding"),
            p.get("num_values"), p.get("num_nulls", st.get("null_count")), p.get("num_rows"),
            short(lo), short(hi), crc)


def report_problems(command, problems, out=None):
    """Problems on stderr, one line each (both views)."""
    out = out or sys.stderr
    for p in problems:
        print(f"pqinspect {command}: {p['message']}", file=out)


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
        con.print(limited_grid(title, [
            "#", "offset", "header", "type", "compressed", "uncompressed", "encoding",
            "values", "nulls", "rows", "min", "max", "crc"],
            [_page_row(p) for p in c["pages"]], limit, "pages"))
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
        doc = build(args.file, args.row_groups, args.columns, args.raw)
    except (KeyError, IndexError) as exc:
        print(f"pqinspect pages: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.json:
        render.emit_json(doc)
    else:
        _render(doc, args.limit, args.raw)
    report_problems("pages", doc["problems"])
    return 1 if doc["problems"] else 0
