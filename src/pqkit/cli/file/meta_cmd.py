"""pqinspect meta: file, row groups and column chunks as the footer describes them.

With one file, the footer in full. With several files, directories or URL
prefixes (walked
for ``*.parquet``; hidden, ``_``-prefixed and ``_pqkit`` entries skipped,
``_metadata``/``_common_metadata`` included) or glob patterns: one summary
row per file plus totals. Its JSON form::

    {"files": [{"path", "footer_only", "size", "created_by", "version", "num_rows",
                "num_row_groups", "num_columns", "compressed_bytes",
                "uncompressed_bytes", "encrypted", "schema_id", "error"}],
     "totals": {"files", "readable", "unreadable", "num_rows", "num_row_groups",
                "bytes", "compressed_bytes", "uncompressed_bytes", "distinct_schemas"}}

``schema_id`` numbers the distinct schemas in order of appearance (files with
equal schemas share it); ``error`` is None, or why the footer could not be
read (the file then counts as unreadable and the exit code is 2).
"""
import glob
import os
import sys

from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.common import add_column_arguments, json_document
from pqkit.cli.keys import add_key_arguments, read_options
from pqkit.crypto.decryptor import chunk_encryption
from pqkit.errors import ParquetError
from pqkit.filesystems import is_url
from pqkit.format import CompressionCodec, Encoding, PageType, Type
from pqkit.inspect.verify.paths import expand_paths
from pqkit.read.fetch.footer import read_metadata
from pqkit.statistics import statistics_to_dict

HELP = "show the footer: file, row groups and column chunks (offsets, sizes, codecs, stats)"
EXAMPLE = """examples:
  pqinspect meta data.parquet
  pqinspect meta data.parquet --row-group 0 --column a.b
  pqinspect meta data.parquet --json
  pqinspect meta warehouse/table/ 'more/*.parquet'     # one summary row per file"""


def add_arguments(parser):
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="Parquet file; several files, directories or glob patterns give "
                             "a summary per file")
    parser.add_argument("--row-group", type=int, action="append", dest="row_groups",
                        metavar="N", help="only row group N (repeatable)")
    add_column_arguments(parser)
    add_key_arguments(parser)



def _column_order(order):
    for name in order.FIELD_NAMES:
        if getattr(order, name) is not None:
            return name
    return "UNKNOWN"


def file_dict(md, path):
    raw = md.raw
    return {
        "path": path,
        "size": md.file_size,
        "footer_offset": md.footer_offset,
        "footer_length": md.footer_length,
        "version": raw.version,
        "created_by": raw.created_by,
        "num_rows": raw.num_rows,
        "num_row_groups": md.num_row_groups,
        "num_columns": md.num_columns,
        "key_value_metadata": [{"key": kv.key, "value": kv.value}
                               for kv in (raw.key_value_metadata or [])],
        "column_orders": None if raw.column_orders is None else
        [_column_order(o) for o in raw.column_orders],
        "encrypted": md.decryptor is not None,
        "encryption": md.encryption,
    }


def chunk_dict(node, chunk):
    md = chunk.meta_data
    d = {
        "path": node.dotted_path,
        "column_index": node.column_index,
        "file_path": chunk.file_path,
        "file_offset": chunk.file_offset,
        "encryption": chunk_encryption(chunk),
    }
    if md is None:
        d["meta_data"] = None
        d["encrypted"] = chunk.crypto_metadata is not None
        return d
    comp, uncomp = md.total_compressed_size, md.total_uncompressed_size
    d.update({
        "physical_type": render.enum_name(Type, md.type),
        "codec": render.enum_name(CompressionCodec, md.codec),
        "encodings": [render.enum_name(Encoding, e) for e in md.encodings or []],
        "encoding_stats": None if md.encoding_stats is None else [
            {"page_type": render.enum_name(PageType, s.page_type), "encoding": render.enum_name(Encoding, s.encoding),
             "count": s.count} for s in md.encoding_stats],
        "num_values": md.num_values,
        "data_page_offset": md.data_page_offset,
        "dictionary_page_offset": md.dictionary_page_offset,
        "index_page_offset": md.index_page_offset,
        "total_compressed_size": comp,
        "total_uncompressed_size": uncomp,
        "compression_ratio": round(uncomp / comp, 3) if comp else None,
        "statistics": statistics_to_dict(node, md.statistics),
        "column_index_offset": chunk.column_index_offset,
        "column_index_length": chunk.column_index_length,
        "offset_index_offset": chunk.offset_index_offset,
        "offset_index_length": chunk.offset_index_length,
        "bloom_filter_offset": md.bloom_filter_offset,
        "bloom_filter_length": md.bloom_filter_length,
        "size_statistics": None if md.size_statistics is None else {
            "unencoded_byte_array_data_bytes": md.size_statistics.unencoded_byte_array_data_bytes,
            "repetition_level_histogram": md.size_statistics.repetition_level_histogram,
            "definition_level_histogram": md.size_statistics.definition_level_histogram},
        "key_value_metadata": None if md.key_value_metadata is None else [
            {"key": kv.key, "value": kv.value} for kv in md.key_value_metadata],
        "geospatial_statistics": geospatial_dict(md.geospatial_statistics),
    })
    return d


_GEO_KINDS = {1: "point", 2: "linestring", 3: "polygon", 4: "multipoint",
              5: "multilinestring", 6: "multipolygon", 7: "geometrycollection"}
_GEO_DIMENSIONS = {0: "", 1: "_z", 2: "_m", 3: "_zm"}


def geo_type_name(code):
    """A WKB geometry type code as DuckDB's geo_types spells it (1003 -> polygon_z)."""
    kind, dims = _GEO_KINDS.get(code % 1000), _GEO_DIMENSIONS.get(code // 1000)
    return f"{kind}{dims}" if kind and dims is not None else f"unknown({code})"


def geospatial_dict(geo):
    """The GEOMETRY/GEOGRAPHY chunk statistics: bbox and geometry types, or None."""
    if geo is None:
        return None
    box = geo.bbox
    return {"bbox": None if box is None else {
                name: getattr(box, name) for name in box.FIELD_NAMES},
            "geospatial_types": None if geo.geospatial_types is None else
            [geo_type_name(t) for t in geo.geospatial_types]}


def row_group_dict(md, index, columns=None):
    rg = md.row_group(index).thrift
    schema = md.schema
    chunks = []
    for i, chunk in enumerate(rg.columns):
        node = schema.columns[i] if i < len(schema.columns) else None
        if node is None:
            continue
        if columns and node.dotted_path not in columns:
            continue
        chunks.append(chunk_dict(node, chunk))
    return {
        "index": index,
        "num_rows": rg.num_rows,
        "total_byte_size": rg.total_byte_size,
        "total_compressed_size": rg.total_compressed_size,
        "file_offset": rg.file_offset,
        "ordinal": rg.ordinal,
        "sorting_columns": None if rg.sorting_columns is None else [
            {"column_idx": s.column_idx, "descending": s.descending, "nulls_first": s.nulls_first}
            for s in rg.sorting_columns],
        "columns": chunks,
    }


def build(path, row_groups=None, columns=None, options=None):
    md = read_metadata(path, options)
    if columns:
        for c in columns:
            md.schema.column(c)          # KeyError for an unknown path
    indices = row_groups if row_groups else range(md.num_row_groups)
    for i in indices:
        if not 0 <= i < md.num_row_groups:
            raise IndexError(f"row group {i} out of range (file has {md.num_row_groups})")
    return {"file": file_dict(md, path),
            "row_groups": [row_group_dict(md, i, columns) for i in indices]}


def _render(doc):
    con = render.console()
    f = doc["file"]
    con.print(render.kv_table("File", [
        ("path", f["path"]), ("size", f"{f['size']:,} bytes"),
        ("footer", f"{f['footer_length']:,} bytes at offset {f['footer_offset']:,}"),
        ("version", f["version"]), ("created_by", f["created_by"]),
        ("rows", f"{f['num_rows']:,}"), ("row groups", f["num_row_groups"]),
        ("columns", f["num_columns"]),
        ("column orders", None if f["column_orders"] is None else
         ", ".join(sorted(set(f["column_orders"])))),
        ("encrypted", "yes" if f["encrypted"] else None)]))
    if f["encryption"]:
        con.print(render.kv_table("Encryption", list(f["encryption"].items())))
        keyed = [(escape(c["path"]), c["encryption"]["key"], c["encryption"]["key_metadata"])
                 for c in (doc["row_groups"] or [{"columns": []}])[0]["columns"]
                 if c["encryption"]]
        con.print(render.grid("Encrypted columns", ["column", "key", "key metadata"], keyed))
    if f["key_value_metadata"]:
        con.print(render.grid("Key/value metadata", ["key", "value"], [
            (kv["key"], _short(kv["value"])) for kv in f["key_value_metadata"]]))
    for rg in doc["row_groups"]:
        title = (f"Row group {rg['index']}: {rg['num_rows']:,} rows, "
                 f"{rg['total_byte_size']:,} bytes uncompressed")
        chunks = [c for c in rg["columns"] if c.get("meta_data", True) is not None]
        con.print(render.grid(title, [
            "column", "type", "codec", "compressed", "ratio", "nulls", "values"],
            [_chunk_row(c) for c in rg["columns"]]))
        geo = any(c.get("geospatial_statistics") for c in chunks)
        stats = [_stats_row(c) for c in chunks]
        con.print(render.grid(f"Row group {rg['index']}: statistics",
                              ["column", "min", "max", "geo types", "geo bbox"][:5 if geo else 3],
                              [r[:5 if geo else 3] for r in stats], wrap=("geo bbox",)))
        con.print(render.grid(f"Row group {rg['index']}: where the bytes are (offset +length)", [
            "column", "dict@", "data@", "col. index", "off. index", "bloom", "encodings"],
            [_where_row(c) for c in chunks], wrap=("encodings",)))


def _short(value, n=80):
    if value is None:
        return None
    return value if len(value) <= n else value[:n] + f"... ({len(value)} chars)"


def _chunk_row(c):
    if c.get("meta_data", True) is None:
        return (escape(c["path"]), "encrypted", "", "", "", "", "")
    stats = c["statistics"] or {}
    return (escape(c["path"]), c["physical_type"], c["codec"],
            _num(c["total_compressed_size"]), c["compression_ratio"],
            _num(stats.get("null_count")), _num(c["num_values"]))


def _stats_row(c):
    stats = c["statistics"] or {}
    lo = stats.get("min_value", stats.get("min"))
    hi = stats.get("max_value", stats.get("max"))
    geo = c.get("geospatial_statistics") or {}
    box = geo.get("bbox")
    bbox = None if box is None else ", ".join(
        f"{axis} {box[axis + 'min']:g}..{box[axis + 'max']:g}" + _wraps(axis, box)
        for axis in "xyzm"
        if box.get(axis + "min") is not None and box.get(axis + "max") is not None)
    # 32: an ISO timestamp with microseconds and a zone offset stays whole
    return (escape(c["path"]), None if lo is None else escape(_short(str(lo), 32)),
            None if hi is None else escape(_short(str(hi), 32)),
            ", ".join(geo.get("geospatial_types") or []) or None, bbox)


def _wraps(axis, box):
    """The note on a GEOGRAPHY longitude range that crosses the antimeridian (the spec's
    xmin > xmax), which read plainly would be empty."""
    return " (across ±180)" if axis == "x" and box["xmin"] > box["xmax"] else ""


def _span(offset, length):
    """"offset +length" of a structure the footer points at, '' when absent."""
    if offset is None:
        return ""
    return f"{offset:,}" + ("" if length is None else f" +{length:,}")


def _where_row(c):
    return (escape(c["path"]), _num(c["dictionary_page_offset"]), _num(c["data_page_offset"]),
            _span(c["column_index_offset"], c["column_index_length"]),
            _span(c["offset_index_offset"], c["offset_index_length"]),
            _span(c["bloom_filter_offset"], c["bloom_filter_length"]),
            ", ".join(c["encodings"]))


def _num(value):
    return "" if value is None else f"{value:,}"


def _single_file(arguments):
    """One argument that is not a directory or a pattern: the full footer view."""
    if len(arguments) != 1:
        return False
    arg = arguments[0]
    return not os.path.isdir(arg) and (os.path.exists(arg) or not glob.has_magic(arg))


def summary_row(target, schemas):
    """The summary of one file's footer; ``schemas`` maps schema -> id across files."""
    row = {"path": target.path, "footer_only": target.footer_only, "size": None,
           "created_by": None, "version": None, "num_rows": None, "num_row_groups": None,
           "num_columns": None, "compressed_bytes": None, "uncompressed_bytes": None,
           "encrypted": None, "schema_id": None, "error": target.problem}
    if target.problem is not None:
        return row
    try:
        md = read_metadata(target.path)
    except (ParquetError, OSError) as exc:
        row["error"] = f"{type(exc).__name__}: {exc}"
        return row
    chunks = [c.meta_data for rg in md.raw.row_groups for c in (rg.columns or [])
              if c.meta_data is not None]
    key = repr(md.schema.to_dict())
    row.update(size=md.file_size, created_by=md.created_by, version=md.version,
               num_rows=md.num_rows, num_row_groups=md.num_row_groups,
               num_columns=md.num_columns,
               compressed_bytes=sum(c.total_compressed_size or 0 for c in chunks),
               uncompressed_bytes=sum(c.total_uncompressed_size or 0 for c in chunks),
               encrypted=md.raw.encryption_algorithm is not None,
               schema_id=schemas.setdefault(key, len(schemas)))
    return row


def build_summary(arguments):
    """The summary document of several files (see the module docstring)."""
    schemas = {}
    rows = [summary_row(t, schemas) for t in expand_paths(arguments)]
    ok = [r for r in rows if r["error"] is None]
    totals = {"files": len(rows), "readable": len(ok), "unreadable": len(rows) - len(ok),
              "distinct_schemas": len(schemas)}
    for key, name in (("num_rows", "num_rows"), ("num_row_groups", "num_row_groups"),
                      ("bytes", "size"), ("compressed_bytes", "compressed_bytes"),
                      ("uncompressed_bytes", "uncompressed_bytes")):
        totals[key] = sum(r[name] or 0 for r in ok)
    return {"files": rows, "totals": totals}


def _render_summary(doc):
    rows = []
    root, names = render.common_root(r["path"] for r in doc["files"])
    for r, name in zip(doc["files"], names):
        if r["error"] is not None:
            rows.append((escape(name), "", "", "", "", "", "", "",
                         f"[red]{escape(r['error'])}[/red]"))
            continue
        ratio = round(r["uncompressed_bytes"] / r["compressed_bytes"], 2) \
            if r["compressed_bytes"] else None
        rows.append((escape(name) + (" (footer only)" if r["footer_only"] else ""),
                     f"{r['num_rows']:,}", r["num_row_groups"], r["num_columns"],
                     f"{r['size']:,}", ratio, r["schema_id"],
                     escape(r["created_by"] or ""), ""))
    t = doc["totals"]
    ratio = round(t["uncompressed_bytes"] / t["compressed_bytes"], 2) \
        if t["compressed_bytes"] else None
    rows.append((f"[bold]total: {t['files']} files ({t['unreadable']} unreadable)[/bold]",
                 f"{t['num_rows']:,}", t["num_row_groups"], "", f"{t['bytes']:,}", ratio,
                 f"{t['distinct_schemas']} distinct", "", ""))
    render.console().print(render.grid(f"Files under {escape(root)}" if root else "Files", [
        "file", "rows", "row groups", "columns", "bytes", "ratio", "schema", "created_by",
        "error"], rows))


def _run_summary(args):
    if args.row_groups or args.columns:
        print("pqinspect meta: --row-group and --column apply to a single file",
              file=sys.stderr)
        return 2
    doc = build_summary(args.files)
    if args.json:
        render.emit_json(json_document("meta", doc))
    else:
        _render_summary(doc)
    for r in doc["files"]:
        if r["error"] is not None:
            print(f"pqinspect meta: {r['path']}: {r['error']}", file=sys.stderr)
    return 2 if doc["totals"]["unreadable"] or not doc["files"] else 0


def run(args):
    if not _single_file(args.files):
        return _run_summary(args)
    try:
        doc = build(args.files[0], args.row_groups, args.columns, read_options(args))
    except (KeyError, IndexError) as exc:
        print(f"pqinspect meta: {exc.args[0]}", file=sys.stderr)
        return 2
    except IsADirectoryError:
        # a URL prefix, known only once asked for (asking first would cost every file a
        # request): summarised like a local directory
        if not is_url(args.files[0]):
            raise
        return _run_summary(args)
    if args.json:
        render.emit_json(json_document("meta", doc))
    else:
        _render(doc)
    return 0
