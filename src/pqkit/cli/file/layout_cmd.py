"""pqinspect layout: where every byte of a file goes, from offset 0 to the end.

The file is cut into classified ranges::

    magic | per column chunk: (page_header | dictionary_page / data_page / index_page)...
                              [column_metadata]
          | column_index | offset_index | bloom_filter_header | bloom_filter_bitset
          | footer | footer_length_magic

(``column_metadata`` is the copy of the ColumnChunk or ColumnMetaData that
older parquet-mr, parquet-cpp, Impala and others write after a chunk's
pages, at ``ColumnChunk.file_offset``.)

Pages are walked from each chunk's bytes as ``pqinspect pages`` does; chunk
bytes left after the walk (trailing bytes, or everything after a page that
could not be read) are ``chunk_unwalked``. Bytes no structure claims are
``gap`` ranges (writers may pad row groups, so a gap is flagged, not an
error); bytes claimed twice are overlaps, which are problems (exit 1), as
are chunks, indexes and bloom filters that cannot be located or read.
Per-column and per-row-group totals give the bytes of each kind and the
compression ratio (header + uncompressed page sizes over header + stored
page sizes, as ColumnMetaData's totals count them).
"""
import html
import sys
from collections import defaultdict

from rich.markup import escape

from pqkit import format as fmt
from pqkit.cli import render
from pqkit.cli.file.chunk_walk import walk_chunk
from pqkit.cli.common import (
    json_document,
    limited_grid,
    open_file,
    problem,
    report_problems,
    selected_chunks,
)
from pqkit.errors import ParquetError
from pqkit.read.fetch.page_index import index_location

HELP = "account for every byte: pages, indexes, bloom filters, footer, gaps and overlaps"
EXAMPLE = """examples:
  pqinspect layout data.parquet
  pqinspect layout data.parquet --html layout.html
  pqinspect layout data.parquet --json | jq '.columns[] | {path, compression_ratio}'"""

_PAGE_KINDS = {"DICTIONARY_PAGE": "dictionary_page", "DATA_PAGE": "data_page",
               "DATA_PAGE_V2": "data_page", "INDEX_PAGE": "index_page"}
_CHUNK_KINDS = {"page_header", "dictionary_page", "data_page", "index_page", "unknown_page",
                "chunk_unwalked", "chunk_encrypted"}
# A bloom filter header is a few bytes; read this much when bloom_filter_length is absent.
_BLOOM_HEADER_READ = 256
# Most bytes a ColumnMetaData copy after a chunk is looked for in.
_METADATA_READ = 1 << 16
# Gaps up to this size are read to tell zero padding from unexplained bytes.
_GAP_READ = 1 << 20


def add_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    parser.add_argument("--limit", type=int, default=200, metavar="N",
                        help="rich view: show at most N rows of the byte map, 0 for all "
                             "(default 200; --json always has every range)")
    parser.add_argument("--html", metavar="OUT",
                        help="also write the layout as a self-contained HTML page to OUT")


def _range(start, length, kind, g=None, path=None, page=None):
    return {"start": start, "end": start + length, "length": length, "kind": kind,
            "row_group": g, "column": path, "page": page}


def chunk_ranges(src, md, g, node, chunk, problems):
    """Ranges of one column chunk: its pages, indexes and bloom filter."""
    path = node.dotted_path
    where = f"column {path}, row group {g}"
    walked = walk_chunk(src, md, g, node, chunk, check_crc=False)
    problems.extend(walked["problems"])
    out = []
    for p in walked["pages"]:
        out.append(_range(p["offset"], p["header_size"], "page_header", g, path, p["index"]))
        kind = _PAGE_KINDS.get(p["type"], "unknown_page")
        out.append(_range(p["offset"] + p["header_size"], p["compressed_size"], kind, g, path,
                          p["index"]))
    if walked.get("encrypted") and "offset" in walked:
        out.append(_range(walked["offset"], walked["length"], "chunk_encrypted", g, path))
    elif "offset" in walked:
        end = walked["offset"] + walked["length"]
        walked_to = walked["offset"] + walked.get("bytes_walked", 0)
        if walked["pages"]:
            last = walked["pages"][-1]
            walked_to = last["offset"] + last["header_size"] + last["compressed_size"]
        if walked_to < end:
            out.append(_range(walked_to, end - walked_to, "chunk_unwalked", g, path))
    if "offset" in walked and not walked.get("encrypted"):
        out.extend(_metadata_copy(src, md, g, node, chunk, max(r["end"] for r in out)
                                  if out else walked["offset"] + walked["length"]))
    for kind in ("column_index", "offset_index"):
        try:
            loc = index_location(chunk, kind, md.footer_offset, where)
        except ParquetError as exc:
            problems.append(problem(f"bad_{kind}", str(exc), getattr(chunk, kind + "_offset"),
                                    g, path))
            continue
        if loc is not None:
            out.append(_range(loc.offset, loc.length, kind, g, path))
    if chunk.meta_data is not None and chunk.meta_data.bloom_filter_offset is not None:
        out.extend(_bloom_ranges(src, md, g, path, chunk.meta_data,
                                  chunk.crypto_metadata is not None, problems))
    return walked, out


def _metadata_copy(src, md, g, node, chunk, chunk_end):
    """The metadata copy some writers put after a chunk's pages, at file_offset.

    ColumnChunk.file_offset was meant to point there; writers that have no
    copy point it at the chunk's first page instead (or store 0), so a range is
    only claimed when a ColumnMetaData for this very column decodes there.
    """
    at = chunk.file_offset
    if at is None or not chunk_end <= at < md.footer_offset:
        return []
    n = min(md.footer_offset - at, _METADATA_READ)
    data = src.read(at, n)
    # parquet-mr and parquet-cpp wrote the whole ColumnChunk there, others the ColumnMetaData.
    for cls in (fmt.ColumnChunk, fmt.ColumnMetaData):
        try:
            obj, used = fmt.decode(cls, data, 0, n, at)
        except ParquetError:
            continue
        cmd = obj.meta_data if cls is fmt.ColumnChunk else obj
        if cmd is not None and cmd.path_in_schema == list(node.path):
            return [_range(at, used, "column_metadata", g, node.dotted_path)]
    return []


def _bloom_ranges(src, md, g, path, cmd, cmd_encrypted, problems):
    off, length = cmd.bloom_filter_offset, cmd.bloom_filter_length
    limit = md.footer_offset
    where = f"bloom filter of column {path}, row group {g} at offset {off}"
    if off < 4 or off >= limit or (length is not None and (length <= 0 or off + length > limit)):
        problems.append(problem("bad_bloom_filter", f"{where} with length {length} lies "
                                f"outside the file's data (bytes 4 to {limit})", off, g, path))
        return []
    if cmd_encrypted:
        # An encrypted column's bloom filter is encrypted too: no header to read.
        return [_range(off, length, "bloom_filter", g, path)] if length else []
    avail = min(limit - off, length if length is not None else _BLOOM_HEADER_READ)
    try:
        header, used = fmt.decode(fmt.BloomFilterHeader, src.read(off, avail), 0, avail, off)
    except ParquetError as exc:
        problems.append(problem("bad_bloom_filter", f"{where}: {exc}", off, g, path))
        return [_range(off, length, "bloom_filter", g, path)] if length else []
    size = header.numBytes
    if size is None or size < 0 or off + used + size > limit:
        problems.append(problem("bad_bloom_filter", f"{where}: header claims {size} bitset "
                                f"bytes, beyond the file's data (ends at {limit})", off, g, path))
        return [_range(off, used, "bloom_filter_header", g, path)]
    if length is not None and used + size != length:
        problems.append(problem("bad_bloom_filter", f"{where}: bloom_filter_length is {length} "
                                f"but header ({used}) + bitset ({size}) is {used + size} bytes",
                                off, g, path))
    return [_range(off, used, "bloom_filter_header", g, path),
            _range(off + used, size, "bloom_filter_bitset", g, path)]


def sweep(ranges, file_size):
    """Sorted ranges with gaps inserted, and the overlaps found."""
    ranges.sort(key=lambda r: (r["start"], r["end"]))
    out, overlaps = [], []
    cursor, last = 0, None
    for r in ranges:
        if r["start"] > cursor:
            out.append(_range(cursor, r["start"] - cursor, "gap"))
        elif r["start"] < cursor:
            end = min(cursor, r["end"])
            overlaps.append({"start": r["start"], "end": end, "length": end - r["start"],
                             "first": _describe(last), "second": _describe(r)})
        out.append(r)
        if r["end"] > cursor:
            cursor, last = r["end"], r
    if cursor < file_size:
        out.append(_range(cursor, file_size - cursor, "gap"))
    return out, overlaps


def _describe(r):
    s = f"{r['kind']} [{r['start']}, {r['end']})"
    if r["column"] is not None:
        s += f" of column {r['column']}, row group {r['row_group']}"
    if r["page"] is not None:
        s += f", page {r['page']}"
    return s


def _ratio(uncompressed, compressed):
    return round(uncompressed / compressed, 3) if compressed else None


class _Totals:
    """Byte totals of one column or one row group."""

    KEYS = ("page_headers", "dictionary_pages", "data_pages", "index_pages", "unknown_pages",
            "chunk_unwalked", "chunk_encrypted", "column_metadata", "column_index", "offset_index",
            "bloom_filter")

    def __init__(self):
        self.bytes = dict.fromkeys(self.KEYS, 0)
        self.pages = 0
        self.uncompressed = 0

    def add_chunk(self, walked, ranges):
        for p in walked["pages"]:
            self.pages += 1
            self.uncompressed += p["header_size"] + max(p["uncompressed_size"], 0)
        for r in ranges:
            kind = r["kind"]
            key = {"page_header": "page_headers", "dictionary_page": "dictionary_pages",
                   "data_page": "data_pages", "index_page": "index_pages",
                   "unknown_page": "unknown_pages"}.get(kind, kind)
            if key.startswith("bloom_filter"):
                key = "bloom_filter"
            self.bytes[key] += r["length"]

    def to_dict(self):
        b = self.bytes
        compressed = sum(b[k] for k in ("page_headers", "dictionary_pages", "data_pages",
                                        "index_pages", "unknown_pages"))
        return {"pages": self.pages, "compressed_bytes": compressed,
                "uncompressed_bytes": self.uncompressed,
                "compression_ratio": _ratio(self.uncompressed, compressed), **b,
                "total_bytes": sum(b.values())}


def build(path):
    md, src, f = open_file(path)
    size = md.file_size
    problems, ranges = [], [_range(0, 4, "magic")]
    columns = defaultdict(_Totals)
    groups = defaultdict(_Totals)
    spans = defaultdict(list)
    with f:
        for g, node, chunk in selected_chunks(md):
            walked, rs = chunk_ranges(src, md, g, node, chunk, problems)
            ranges.extend(rs)
            columns[node.dotted_path].add_chunk(walked, rs)
            groups[g].add_chunk(walked, rs)
            if "offset" in walked:
                spans[g].append((walked["offset"], walked["offset"] + walked["length"]))
        ranges.append(_range(md.footer_offset, md.footer_length, "footer"))
        ranges.append(_range(size - 8, 8, "footer_length_magic"))
        laid, overlaps = sweep(ranges, size)
        gaps = [_gap(src, r) for r in laid if r["kind"] == "gap"]
    for o in overlaps:
        problems.append(problem("overlap", f"{o['length']} bytes at offset {o['start']} "
                                f"belong to both {o['first']} and {o['second']}", o["start"]))
    by_kind = defaultdict(lambda: {"bytes": 0, "ranges": 0})
    for r in laid:
        by_kind[r["kind"]]["bytes"] += r["length"]
        by_kind[r["kind"]]["ranges"] += 1
    for v in by_kind.values():
        v["percent"] = round(100 * v["bytes"] / size, 2) if size else 0.0
    gap_bytes = sum(g["length"] for g in gaps)
    return {
        "file": {"path": path, "size": size, "accounted_bytes": size - gap_bytes,
                 "gap_bytes": gap_bytes, "overlap_bytes": sum(o["length"] for o in overlaps),
                 "num_ranges": len(laid)},
        "by_kind": dict(by_kind),
        "columns": [{"path": p, **t.to_dict()} for p, t in columns.items()],
        "row_groups": [_group_dict(md, g, groups[g], spans[g]) for g in range(md.num_row_groups)],
        "ranges": laid,
        "gaps": gaps,
        "overlaps": overlaps,
        "problems": problems,
    }


def _gap(src, r):
    """A gap, and whether it holds only zero bytes (padding) when small enough to look."""
    n = r["length"]
    zero = None if n > _GAP_READ else not any(src.read(r["start"], n))
    return {"start": r["start"], "end": r["end"], "length": n, "zero_filled": zero}


def _group_dict(md, g, totals, spans):
    rg = md.row_group(g).thrift
    return {"index": g, "num_rows": rg.num_rows,
            "start": min((a for a, _ in spans), default=None),
            "end": max((b for _, b in spans), default=None),
            **totals.to_dict(),
            "metadata_total_byte_size": rg.total_byte_size,
            "metadata_total_compressed_size": rg.total_compressed_size}


# --- rendering ------------------------------------------------------------------------

def regions(doc):
    """The byte map for display: consecutive ranges of one column chunk's pages collapse
    into one region. Each region: start, end, length, what, row_group, column, detail,
    alert (None, "warn" or "error")."""
    out, run = [], None
    zero = {g["start"]: g["zero_filled"] for g in doc["gaps"]}

    def flush():
        if run is None:
            return
        what, detail, alert = run["kind"], "", None
        if run["chunk"]:
            k = run["counts"]
            what = "column chunk"
            detail = (f"{k['pages']} pages ({k['dictionary_page']} dictionary, "
                      f"{k['data_page']} data), headers {k['page_header_bytes']:,} B")
            if k["chunk_unwalked"]:
                detail += f", {k['chunk_unwalked']:,} B not walked"
                alert = "warn"
            if k["chunk_encrypted"]:
                detail, alert = f"encrypted, {k['chunk_encrypted']:,} B not walked", "error"
        elif what == "gap":
            detail = {True: "zero bytes", False: "not zero", None: ""}[zero[run["start"]]]
            alert = "warn"
        out.append({"start": run["start"], "end": run["end"],
                    "length": run["end"] - run["start"], "what": what,
                    "row_group": run["g"], "column": run["path"], "detail": detail,
                    "alert": alert})

    for r in doc["ranges"]:
        chunk = r["kind"] in _CHUNK_KINDS
        key = ("chunk" if chunk else r["kind"], r["row_group"], r["column"])
        if run is not None and chunk and run["key"] == key and r["start"] == run["end"]:
            run["end"] = r["end"]
        else:
            flush()
            run = {"key": key, "chunk": chunk, "kind": r["kind"], "start": r["start"],
                   "end": r["end"], "g": r["row_group"], "path": r["column"],
                   "counts": defaultdict(int)}
        if chunk:
            k = run["counts"]
            if r["kind"] == "page_header":
                k["pages"] += 1
                k["page_header_bytes"] += r["length"]
            else:
                k[r["kind"]] += r["length"] if r["kind"].startswith("chunk_") else 1
    flush()
    return out


_STYLE = {"warn": "yellow", "error": "red"}


def _region_row(reg):
    what, detail = reg["what"], escape(reg["detail"])
    if reg["alert"]:
        color = _STYLE[reg["alert"]]
        if reg["what"] == "gap":
            what = f"[{color}]{what}[/{color}]"
        detail = f"[{color}]{detail}[/{color}]"
    return (f"{reg['start']:,}", f"{reg['end']:,}", f"{reg['length']:,}", what,
            reg["row_group"], escape(reg["column"] or ""), detail)


_TOTAL_COLUMNS = ["pages", "compressed", "uncompressed", "ratio", "headers", "dictionary",
                  "data", "col. index", "off. index", "bloom"]


def _totals(t):
    return (t["pages"], f"{t['compressed_bytes']:,}", f"{t['uncompressed_bytes']:,}",
            t["compression_ratio"], f"{t['page_headers']:,}", f"{t['dictionary_pages']:,}",
            f"{t['data_pages']:,}", f"{t['column_index']:,}", f"{t['offset_index']:,}",
            f"{t['bloom_filter']:,}")


def _summary_rows(doc):
    f = doc["file"]
    return [("accounted", f"{f['accounted_bytes']:,} of {f['size']:,} bytes"),
            ("gaps", f"{len(doc['gaps'])} ({f['gap_bytes']:,} bytes)"),
            ("overlaps", f"{len(doc['overlaps'])} ({f['overlap_bytes']:,} bytes)"),
            ("problems", len(doc["problems"]))]


def _render(doc, limit):
    con = render.console()
    f = doc["file"]
    con.print(limited_grid(f"Layout of {escape(f['path'])} ({f['size']:,} bytes)", [
        "start", "end", "bytes", "what", "row group", "column", "detail"],
        [_region_row(r) for r in regions(doc)], limit, "rows"))
    if doc["overlaps"]:
        con.print(render.grid("[red]Overlaps[/red]", ["start", "end", "bytes", "first", "second"],
                              [(o["start"], o["end"], o["length"], escape(o["first"]),
                                escape(o["second"])) for o in doc["overlaps"]]))
    con.print(render.grid("Bytes by kind", ["kind", "bytes", "ranges", "%"], [
        (k, f"{v['bytes']:,}", f"{v['ranges']:,}", v["percent"])
        for k, v in sorted(doc["by_kind"].items(), key=lambda kv: -kv[1]["bytes"])]))
    con.print(limited_grid("Columns (all row groups)", ["column"] + _TOTAL_COLUMNS,
                           [(escape(c["path"]),) + _totals(c) for c in doc["columns"]],
                           limit, "columns"))
    con.print(limited_grid("Row groups", ["row group", "rows", "start", "end"] + _TOTAL_COLUMNS,
                           [(g["index"], f"{g['num_rows']:,}", g["start"], g["end"])
                            + _totals(g) for g in doc["row_groups"]], limit, "row groups"))
    con.print(render.kv_table("Summary", _summary_rows(doc)))
    if doc["problems"]:
        con.print(render.problems_grid(doc["problems"]))


# --- self-contained HTML: inline CSS, no scripts, no external resources ------------------

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}
td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}
td.t,th{text-align:left}
.bar{display:flex;height:36px;border:1px solid #888;margin:1em 0}
.bar div{height:100%;min-width:1px}
.legend span{display:inline-block;margin-right:1em}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}
.warn{background:#fff3c4}.error{background:#fdd}
"""
_COLORS = {"column chunk": "#4a78c2", "column_metadata": "#6bb5b0", "column_index": "#e8912d",
           "offset_index": "#f2c14e", "bloom_filter_header": "#3e9b52",
           "bloom_filter_bitset": "#7cc68d", "bloom_filter": "#7cc68d", "footer": "#8a5fb8",
           "footer_length_magic": "#999", "magic": "#999", "gap": "#e6d35a"}


def _html_table(headers, rows, classes=None):
    e = html.escape
    out = ["<table>" if headers is None else
           "<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in headers) + "</tr>"]
    for i, row in enumerate(rows):
        cls = f' class="{classes[i]}"' if classes and classes[i] else ""
        out.append(f"<tr{cls}>" + "".join(
            f'<td class="t">{e(v)}</td>' if isinstance(v, str) and not v[:1].isdigit()
            else f"<td>{e('' if v is None else str(v))}</td>" for v in row) + "</tr>")
    return "\n".join(out + ["</table>"])


def to_html(doc):
    """The layout as one self-contained HTML page (same dicts as the other views)."""
    e = html.escape
    f, regs = doc["file"], regions(doc)
    size = f["size"] or 1
    bar = "".join(
        f'<div style="flex:0 0 {100 * r["length"] / size:.4f}%;background:'
        f'{"#d9534f" if r["alert"] == "error" else _COLORS.get(r["what"], "#bbb")}" '
        f'title="{e(r["what"])} [{r["start"]:,}, {r["end"]:,}) {r["length"]:,} B'
        f'{" " + e(r["column"]) if r["column"] else ""}"></div>' for r in regs)
    legend = "".join(f'<span><i style="background:{c}"></i>{e(k)}</span>'
                     for k, c in _COLORS.items() if k in {r["what"] for r in regs})
    parts = [
        f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Layout of "
        f"{e(f['path'])}</title><style>{_CSS}</style></head><body>",
        f"<h1>Layout of {e(f['path'])}</h1>",
        _html_table(None, [(k, str(v)) for k, v in _summary_rows(doc)]),
        f'<div class="bar">{bar}</div><div class="legend">{legend}</div>',
        "<h2>Byte map</h2>",
        _html_table(["start", "end", "bytes", "what", "row group", "column", "detail"],
                    [(r["start"], r["end"], r["length"], r["what"], r["row_group"],
                      r["column"] or "", r["detail"]) for r in regs],
                    [r["alert"] for r in regs]),
        "<h2>Bytes by kind</h2>",
        _html_table(["kind", "bytes", "ranges", "%"],
                    [(k, v["bytes"], v["ranges"], v["percent"]) for k, v in
                     sorted(doc["by_kind"].items(), key=lambda kv: -kv[1]["bytes"])]),
        "<h2>Columns (all row groups)</h2>",
        _html_table(["column"] + _TOTAL_COLUMNS,
                    [(c["path"],) + _totals(c) for c in doc["columns"]]),
        "<h2>Row groups</h2>",
        _html_table(["row group", "rows", "start", "end"] + _TOTAL_COLUMNS,
                    [(g["index"], g["num_rows"], g["start"], g["end"]) + _totals(g)
                     for g in doc["row_groups"]]),
    ]
    if doc["problems"]:
        parts += ["<h2>Problems</h2>", _html_table(
            ["kind", "row group", "column", "offset", "message"],
            [(p["kind"], p["row_group"], p["column"] or "", p["offset"], p["message"])
             for p in doc["problems"]], ["error"] * len(doc["problems"]))]
    return "\n".join(parts + ["</body></html>\n"])


def run(args):
    doc = build(args.file)
    if args.html:
        with open(args.html, "w", encoding="utf-8") as out:
            out.write(to_html(doc))
        print(f"pqinspect layout: wrote {args.html}", file=sys.stderr)
    if args.json:
        render.emit_json(json_document("layout", doc))
    else:
        _render(doc, args.limit)
    report_problems("layout", doc["problems"])
    return 1 if doc["problems"] else 0
