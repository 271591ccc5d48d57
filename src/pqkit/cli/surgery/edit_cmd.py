"""pqinspect edit: change footer metadata (key/value entries, created_by, column orders)."""
import sys

from pqkit.cli import render
from pqkit.cli.common import json_document
from pqkit.read.fetch.footer import read_metadata
from pqkit.write.surgery.footer_edit import edit_metadata

HELP = "change footer metadata without touching the data (in place crash-safe, or -o)"
EXAMPLE = """examples:
  pqinspect edit data.parquet --set owner=ops --unset pandas
  pqinspect edit data.parquet --created-by "parquet-cpp-arrow version 19.0.0" -o fixed.parquet"""


def add_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="set a key/value entry (repeatable)")
    parser.add_argument("--unset", action="append", default=[], metavar="KEY",
                        help="remove a key/value entry (repeatable)")
    parser.add_argument("--clear", action="store_true", help="remove every key/value entry")
    parser.add_argument("--created-by", default=None, help="the new created_by string")
    parser.add_argument("--column-orders", choices=["type_defined", "none"], default=None,
                        help="set TYPE_DEFINED_ORDER on every leaf, or remove the orders")
    parser.add_argument("-o", "--output", default=None,
                        help="write the result there instead of in place")


def _key_values(args, current):
    kv = {} if args.clear else dict(current)
    for key in args.unset:
        kv.pop(key, None)
    for item in args.set:
        key, _, value = item.partition("=")
        kv[key] = value
    return kv


def build(args):
    md = read_metadata(args.file)
    changes = {"key_value_metadata": _key_values(args, md.key_value_metadata)}
    if args.created_by is not None:
        changes["created_by"] = args.created_by
    if args.column_orders is not None:
        changes["column_orders"] = None if args.column_orders == "none" else "type_defined"
    footer = edit_metadata(args.file, dest=args.output, replace=True, **changes)
    out = args.output or args.file
    after = read_metadata(out)
    return {"file": out, "footer_bytes": footer, "created_by": after.created_by,
            "key_value_metadata": sorted(after.key_value_metadata)}


def run(args):
    bad = [item for item in args.set if "=" not in item]
    if bad:
        print(f"pqinspect edit: --set needs KEY=VALUE, got {bad[0]!r}", file=sys.stderr)
        return 2
    doc = build(args)
    if args.json:
        render.emit_json(json_document("edit", doc))
        return 0
    rows = [("file", doc["file"]), ("footer bytes", doc["footer_bytes"]),
            ("created_by", doc["created_by"]), ("keys", ", ".join(doc["key_value_metadata"]))]
    render.console().print(render.kv_table("edit", rows))
    return 0
