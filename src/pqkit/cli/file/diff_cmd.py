"""pqinspect diff: the structural differences between two Parquet files, from their footers.

Compared, in this order (each difference names its section):

* ``file``: format version, created_by, num_rows, row group and column counts,
  column orders, encryption;
* ``key_value_metadata``: keys added, removed or with another value;
* ``schema``: every node by dotted path (added, removed, or changed in
  repetition, physical type and length, logical and converted type, precision,
  scale, field id), and the order of the leaf columns;
* ``row_group``: for row groups at the same position, rows, sizes and sorting
  columns; row groups present in one file only;
* ``column_chunk``: for leaves present in both files, per row group: codec,
  encodings, data-page encodings, value count, sizes, dictionary page, bloom
  filter, page index and statistics (decoded min/max, null/distinct/NaN counts).

Offsets are not compared: they move whenever anything before them changes.
Exit codes: 0 when nothing differs, 1 when differences are listed, 2 when a
file cannot be read. ``--ignore`` drops differences by section or field name.
"""
import json

from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.common import json_document
from pqkit.cli.render import enum_name
from pqkit.errors import ParquetError
from pqkit.format import (
    CompressionCodec,
    ConvertedType,
    Encoding,
    FieldRepetitionType,
    PageType,
)
from pqkit.read.fetch.footer import read_metadata
from pqkit.statistics import statistics_to_dict

HELP = "list the structural differences between two files: schema, row groups, chunks, metadata"
EXAMPLE = """examples:
  pqinspect diff old.parquet new.parquet
  pqinspect diff a.parquet b.parquet --ignore created_by --ignore key_value_metadata
  pqinspect diff a.parquet b.parquet --json | jq '.differences[] | select(.section == "schema")'

Exit 0 when the files agree in structure, 1 when differences are found."""

DEFAULT_LIMIT = 100
SECTIONS = ("file", "key_value_metadata", "schema", "row_group", "column_chunk")


def add_arguments(parser):
    parser.add_argument("a", metavar="A", help="first Parquet file")
    parser.add_argument("b", metavar="B", help="second Parquet file")
    parser.add_argument("--ignore", action="append", default=[], metavar="NAME",
                        help="leave out differences of this section, field or key/value key, e.g. "
                             "created_by, statistics, total_compressed_size, ARROW:schema "
                             "(repeatable)")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N",
                        help=f"rich view: show at most N differences, 0 for all (default "
                             f"{DEFAULT_LIMIT}; --json always has everything)")


def _diff(section, field, a, b, path=None, row_group=None):
    kind = "added" if a is None else "removed" if b is None else "changed"
    return {"section": section, "kind": kind, "path": path, "row_group": row_group,
            "field": field, "a": a, "b": b}


def _compare(out, section, da, db, path=None, row_group=None):
    """One difference per key whose values differ between the dicts da and db."""
    for key in list(da) + [k for k in db if k not in da]:
        va, vb = da.get(key), db.get(key)
        if not _same(va, vb):
            out.append(_diff(section, key, va, vb, path, row_group))


def _same(a, b):
    """Equal, counting a NaN bound equal to a NaN bound."""
    return a == b or (isinstance(a, float) and isinstance(b, float) and a != a and b != b)


# --- file and key/value metadata -----------------------------------------------------

def _column_orders(raw):
    if raw.column_orders is None:
        return None
    return sorted({next((n for n in o.FIELD_NAMES if getattr(o, n) is not None), "UNKNOWN")
                   for o in raw.column_orders})


def _file_facts(md):
    raw = md.raw
    return {"version": raw.version, "created_by": raw.created_by, "num_rows": raw.num_rows,
            "num_row_groups": md.num_row_groups, "num_columns": md.num_columns,
            "column_orders": _column_orders(raw),
            "encrypted": raw.encryption_algorithm is not None}


def _diff_key_values(a, b, out):
    ka, kb = a.key_value_metadata, b.key_value_metadata
    for key in list(ka) + [k for k in kb if k not in ka]:
        if key not in kb:
            out.append(_diff("key_value_metadata", "value", ka[key], None, key))
        elif key not in ka:
            out.append(_diff("key_value_metadata", "value", None, kb[key], key))
        elif ka[key] != kb[key]:
            out.append(_diff("key_value_metadata", "value", ka[key], kb[key], key))


# --- schema ------------------------------------------------------------------------------

def _node_facts(node):
    e = node.element
    facts = {"kind": "leaf" if node.is_leaf else "group",
             "repetition": enum_name(FieldRepetitionType, node.repetition),
             "physical_type": node.type_str() if e.type is not None else None,
             "logical_type": node.annotation_str() if e.logicalType is not None else None,
             "converted_type": enum_name(ConvertedType, e.converted_type),
             "precision": e.precision, "scale": e.scale, "field_id": e.field_id}
    if not node.is_leaf:
        facts["num_children"] = len(node.children)
    return facts


def _schema_nodes(schema):
    """{dotted path: SchemaNode} of every node but the root, depth first."""
    out, stack = {}, list(reversed(schema.root.children))
    while stack:
        node = stack.pop()
        out[node.dotted_path] = node
        stack.extend(reversed(node.children))
    return out


def _diff_schema(a, b, out):
    na, nb = _schema_nodes(a.schema), _schema_nodes(b.schema)
    if a.schema.root.name != b.schema.root.name:
        out.append(_diff("schema", "root_name", a.schema.root.name, b.schema.root.name, ""))
    for path in list(na) + [p for p in nb if p not in na]:
        if path not in nb:
            out.append(_diff("schema", "field", _node_facts(na[path]), None, path))
        elif path not in na:
            out.append(_diff("schema", "field", None, _node_facts(nb[path]), path))
        else:
            _compare(out, "schema", _node_facts(na[path]), _node_facts(nb[path]), path)
    common_a = [c.dotted_path for c in a.schema.columns if c.dotted_path in nb]
    common_b = [c.dotted_path for c in b.schema.columns if c.dotted_path in na]
    if common_a != common_b:
        out.append(_diff("schema", "leaf_order", common_a, common_b))


# --- row groups and column chunks ----------------------------------------------------------

def _row_group_facts(rg):
    return {"num_rows": rg.num_rows, "total_byte_size": rg.total_byte_size,
            "total_compressed_size": rg.total_compressed_size,
            "sorting_columns": None if rg.sorting_columns is None else [
                {"column_idx": s.column_idx, "descending": s.descending,
                 "nulls_first": s.nulls_first} for s in rg.sorting_columns]}


def _chunk_facts(node, chunk):
    md = chunk.meta_data
    if md is None:
        return {"meta_data": "encrypted" if chunk.crypto_metadata is not None else "missing"}
    facts = {
        "codec": enum_name(CompressionCodec, md.codec),
        "encodings": sorted(enum_name(Encoding, e) for e in md.encodings or []),
        "data_page_encodings": None if md.encoding_stats is None else sorted(
            {enum_name(Encoding, s.encoding) for s in md.encoding_stats
             if s.page_type in (PageType.DATA_PAGE, PageType.DATA_PAGE_V2)}),
        "num_values": md.num_values,
        "total_compressed_size": md.total_compressed_size,
        "total_uncompressed_size": md.total_uncompressed_size,
        "dictionary_page": md.dictionary_page_offset is not None
        and md.dictionary_page_offset >= 4,
        "bloom_filter": md.bloom_filter_offset is not None and md.bloom_filter_offset > 0,
        "column_index": chunk.column_index_offset is not None,
        "offset_index": chunk.offset_index_offset is not None,
        "encrypted": chunk.crypto_metadata is not None,
        "key_value_metadata": None if md.key_value_metadata is None else {
            kv.key: kv.value for kv in md.key_value_metadata},
    }
    stats = statistics_to_dict(node, md.statistics) or {}
    for key, value in stats.items():
        if key.endswith("_raw"):
            continue
        facts[f"statistics.{key}"] = value
    for key, value in stats.items():
        # Bounds that decode the same but differ in their bytes still count.
        if key.endswith("_raw"):
            facts[f"statistics.{key}"] = value
    return facts


def _diff_chunks(a, b, g, out):
    chunks_a, chunks_b = a.row_group(g).thrift.columns or [], b.row_group(g).thrift.columns or []
    leaves_b = {c.dotted_path: c for c in b.schema.columns}
    for node_a in a.schema.columns:
        node_b = leaves_b.get(node_a.dotted_path)
        if node_b is None:
            continue
        ca = chunks_a[node_a.column_index] if node_a.column_index < len(chunks_a) else None
        cb = chunks_b[node_b.column_index] if node_b.column_index < len(chunks_b) else None
        if ca is None or cb is None:
            if ca is not cb:
                out.append(_diff("column_chunk", "chunk", None if ca is None else "present",
                                 None if cb is None else "present", node_a.dotted_path, g))
            continue
        found = []
        _compare(found, "column_chunk", _chunk_facts(node_a, ca), _chunk_facts(node_b, cb),
                 node_a.dotted_path, g)
        fields = {d["field"] for d in found}
        out.extend(d for d in found if not (d["field"].endswith("_raw")
                                            and d["field"][:-4] in fields))


def _diff_row_groups(a, b, out):
    common = min(a.num_row_groups, b.num_row_groups)
    for g in range(common):
        _compare(out, "row_group", _row_group_facts(a.row_group(g).thrift),
                 _row_group_facts(b.row_group(g).thrift), None, g)
        _diff_chunks(a, b, g, out)
    for g in range(common, a.num_row_groups):
        out.append(_diff("row_group", "row_group", _row_group_facts(a.row_group(g).thrift), None,
                         None, g))
    for g in range(common, b.num_row_groups):
        out.append(_diff("row_group", "row_group", None, _row_group_facts(b.row_group(g).thrift),
                         None, g))


def _ignored(d, ignore):
    field = d["field"]
    return d["section"] in ignore or field in ignore or field.split(".")[0] in ignore \
        or (d["section"] == "key_value_metadata" and d["path"] in ignore)


def _metadata(path):
    try:
        return read_metadata(path)
    except ParquetError as exc:
        raise type(exc)(f"{path}: {exc}") from None


def build(path_a, path_b, ignore=()):
    a, b = _metadata(path_a), _metadata(path_b)
    out = []
    _compare(out, "file", _file_facts(a), _file_facts(b))
    _diff_key_values(a, b, out)
    _diff_schema(a, b, out)
    _diff_row_groups(a, b, out)
    ignore = set(ignore)
    out = [d for d in out if not _ignored(d, ignore)]
    summary = {s: sum(d["section"] == s for d in out) for s in SECTIONS}
    summary["total"] = len(out)
    return {"a": path_a, "b": path_b, "identical": not out, "ignored": sorted(ignore),
            "summary": summary, "differences": out}


# --- rendering ---------------------------------------------------------------------------

def _short(value, n=60):
    if value is None:
        return "[dim]—[/dim]"
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return escape(text if len(text) <= n else text[:n - 1] + "…")


def _render(doc, limit):
    con = render.console()
    if doc["identical"]:
        con.print(f"[green]no structural differences[/green] between {escape(doc['a'])} and "
                  f"{escape(doc['b'])}")
        return
    diffs = doc["differences"]
    shown = diffs if limit <= 0 else diffs[:limit]
    table = render.grid(f"{doc['summary']['total']} differences: A = {escape(doc['a'])}, "
                        f"B = {escape(doc['b'])}",
                        # by importance: a narrow terminal leaves out the last columns
                        ["path", "field", "A", "B", "kind", "row group", "section"], [
        (escape(d["path"] or ""), d["field"], _short(d["a"]), _short(d["b"]), d["kind"],
         d["row_group"], d["section"]) for d in shown],
                        # A and B side by side at 80 columns: both are cut rather than B lost
                        squeeze=("path", "A", "B"))
    if len(shown) < len(diffs):
        table.caption = f"… {len(diffs) - len(shown):,} more (--limit 0 or --json shows all)"
    con.print(table)


def run(args):
    doc = build(args.a, args.b, args.ignore)
    if args.json:
        render.emit_json(json_document("diff", doc))
    else:
        _render(doc, args.limit)
    return 0 if doc["identical"] else 1
