"""pqinspect bloom: a column's bloom filters, and whether they may hold given values.

Per row group: the filter's header (algorithm, hash, compression, bitset
size), where it is (offset, declared length) and how full its bitset is, or
"none". Each VALUE is read according to the column's type (integers, floats,
strings, dates, times, timestamps, decimals, UUIDs; raw bytes as ``hex:...``
or ``base64:...``; see :mod:`pqkit.inspect.bloom_probe`), hashed as a writer hashes it,
and probed: "absent" (certain) or "maybe present" (possibly a false positive);
a chunk without a filter says "no filter".

Probe answers never change the exit code (0). A filter that cannot be read
(bad offset, header or size) is a problem (exit 1); a VALUE that does not fit
the column's type, an unknown column or an unreadable footer gives 2.
"""
import argparse
import sys

import numpy as np
from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.common import json_document
from pqkit.cli.opening import open_parquet
from pqkit.errors import ParquetError
from pqkit.inspect.bloom_probe import header_dict, probe_hash, read_chunk_bloom_filter
from pqkit.schema.logical import leaf_type

HELP = "show a column's bloom filter per row group and probe it for values"
EXAMPLE = """examples:
  pqinspect bloom data.parquet --column city Paris Oslo
  pqinspect bloom data.parquet --column day 2026-01-03 --row-group 0
  pqinspect bloom data.parquet --column price 12.50 --json | jq '.row_groups[].probes'

Values are read by the column's type: 42, 0x2a, 1.5, nan, 2024-02-29,
2024-02-29T12:00:00Z, 12:30:00.5, 12.50 (decimal), UUID text; bytes as hex:00ff
or base64:AP8=. "absent" is certain; "maybe present" may be a false positive."""

ABSENT, MAYBE, NO_FILTER, UNKNOWN = "absent", "maybe present", "no filter", "unknown"


class _ColumnThenValues(argparse.Action):
    """--column PATH [VALUE ...]: values may follow the path, as in
    ``pqinspect bloom FILE --column PATH v1 v2``."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, "column", None) is not None:
            parser.error("give --column once")
        if "," in values[0]:
            parser.error(f"{option_string} {values[0]!r}: bloom probes one column at a time")
        namespace.column = values[0]
        namespace.values_after_column = list(values[1:])


def add_arguments(parser):
    parser.usage = "%(prog)s FILE --column PATH [VALUE ...] [--row-group N] [--json]"
    parser.add_argument("file", help="Parquet file")
    parser.add_argument("values", nargs="*", metavar="VALUE",
                        help="values to probe for, read by the column's type")
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument("--column", nargs="+", action=_ColumnThenValues, metavar="PATH",
                       help="the column's dotted path (values may follow)")
    which.add_argument("--columns", nargs="+", action=_ColumnThenValues, metavar="PATH",
                       help="the same, as other commands spell it; one column only")
    parser.add_argument("--row-group", type=int, action="append", dest="row_groups",
                        metavar="N", help="only row group N (repeatable)")
    parser.set_defaults(values_after_column=[])


def _problem(kind, message, offset, row_group, path):
    return {"kind": kind, "row_group": row_group, "column": path, "offset": offset,
            "message": message}


def _filter_dict(found):
    bits = np.frombuffer(found.filter.bitset, np.uint8)
    ones = int(np.bitwise_count(bits).sum())
    fill = ones / (len(bits) * 8)
    d = {"offset": found.offset, "length": found.length, "header_size": found.header_size}
    d.update(header_dict(found.header))
    # A probe of an absent value checks one bit in each of 8 words: with a fraction
    # `fill` of bits set, it passes with probability about fill ** 8.
    d.update(bits_set=ones, fill_ratio=round(fill, 6), estimated_fpp=float(f"{fill ** 8:.3g}"))
    return d


def _chunk(pf, node, g, hashes):
    """(dict for one chunk, problems)."""
    path = node.dotted_path
    d = {"row_group": g, "bloom_filter": None}
    cmd = pf.metadata.row_group(g).thrift.columns[node.column_index].meta_data \
        if node.column_index < len(pf.metadata.row_group(g).thrift.columns or []) else None
    try:
        found = read_chunk_bloom_filter(pf, node.column_index, g)
    except ParquetError as exc:
        d["error"] = f"{type(exc).__name__}: {exc}"
        d["probes"] = [{"value": v, "result": UNKNOWN} for v in hashes]
        offset = None if cmd is None else cmd.bloom_filter_offset
        return d, [_problem("bad_bloom_filter", f"column {path}, row group {g}: {d['error']}",
                            offset, g, path)]
    if found is None:
        d["probes"] = [{"value": v, "result": NO_FILTER} for v in hashes]
        return d, []
    d["bloom_filter"] = _filter_dict(found)
    d["probes"] = [{"value": v, "result": MAYBE if found.filter.check_hash(h) else ABSENT}
                   for v, h in hashes.items()]
    return d, []


def build(path, column, values=(), row_groups=None):
    """The bloom document; ValueError for a value that does not fit the column."""
    with open_parquet(path, verify_checksums=False) as pf:
        md = pf.metadata
        node = md.schema.column(column)
        groups = row_groups if row_groups else range(md.num_row_groups)
        for g in groups:
            if not 0 <= g < md.num_row_groups:
                raise IndexError(f"row group {g} out of range (file has {md.num_row_groups})")
        hashes = {}
        for v in values:
            try:
                hashes[v] = probe_hash(node, v)
            except ValueError as exc:
                raise ValueError(f"cannot probe column {node.dotted_path} "
                                 f"({node.type_str()}) for {v!r}: {exc}") from None
        try:
            type_text = str(leaf_type(node))
        except ParquetError:
            type_text = None
        chunks, problems = [], []
        for g in groups:
            d, found = _chunk(pf, node, g, hashes)
            chunks.append(d)
            problems.extend(found)
    summary = {"row_groups": len(chunks),
               "with_bloom_filter": sum(c["bloom_filter"] is not None for c in chunks),
               "problems": len(problems)}
    for result in (ABSENT, MAYBE, NO_FILTER, UNKNOWN):
        summary[result.replace(" ", "_")] = sum(p["result"] == result for c in chunks
                                                for p in c["probes"])
    return {"file": path,
            "column": {"path": node.dotted_path, "physical_type": node.type_str(),
                       "logical_type": node.annotation_str(), "type": type_text},
            "values": [{"value": v, "hash": f"{h:#018x}"} for v, h in hashes.items()],
            "row_groups": chunks, "summary": summary, "problems": problems}


def _render(doc):
    con = render.console()
    c = doc["column"]
    kind = c["physical_type"] + (f" ({c['logical_type']})" if c["logical_type"] else "")
    rows = []
    for d in doc["row_groups"]:
        f = d["bloom_filter"]
        if f is None:
            rows.append((d["row_group"], "error" if "error" in d else "none", "", "", "", ""))
            continue
        rows.append((d["row_group"], f"{f['offset']:,}", f["length"], f"{f['num_bytes']:,}",
                     f"{f['algorithm']} {f['hash']} {f['compression']}",
                     f"{f['fill_ratio']:.1%} (fpp ≈ {f['estimated_fpp']:.2g})"))
    con.print(render.grid(f"Bloom filters of column {escape(c['path'])}: {kind}", [
        "row group", "offset", "length", "bitset bytes", "header", "bits set"], rows))
    if doc["values"]:
        con.print(render.grid("Probes", ["value", "hash", ABSENT, MAYBE, "no filter"], [
            (escape(v["value"]), v["hash"]) + _groups_by_result(doc, i)
            for i, v in enumerate(doc["values"])]))
    if doc["problems"]:
        con.print(render.problems_grid(doc["problems"]))


def _groups_by_result(doc, i):
    """Row groups giving each answer for value i, as text."""
    out = []
    for result in (ABSENT, MAYBE, NO_FILTER):
        groups = [d["row_group"] for d in doc["row_groups"] if d["probes"][i]["result"] == result]
        out.append(_group_list(groups))
    return tuple(out)


def _group_list(groups, shown=8):
    if not groups:
        return ""
    text = ", ".join(str(g) for g in groups[:shown])
    return text + (f", … ({len(groups)} row groups)" if len(groups) > shown else "")


def run(args):
    values = list(args.values) + list(args.values_after_column)
    try:
        doc = build(args.file, args.column, values, args.row_groups)
    except (KeyError, IndexError, ValueError) as exc:
        if isinstance(exc, ParquetError):
            raise
        print(f"pqinspect bloom: {exc.args[0]}", file=sys.stderr)
        return 2
    if args.json:
        render.emit_json(json_document("bloom", doc))
    else:
        _render(doc)
    for p in doc["problems"]:
        print(f"pqinspect bloom: {p['message']}", file=sys.stderr)
    return 1 if doc["problems"] else 0
