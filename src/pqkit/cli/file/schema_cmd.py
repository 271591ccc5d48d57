"""pqinspect schema: the schema tree with repetition, types, levels and field ids, and
the shredding layout of each shredded VARIANT column (its typed leaves by variant
path: :mod:`pqkit.inspect.variant_layout`). JSON: ``{"file", "num_columns", "schema",
"variant_shredding": {column: [{"path", "type", "fallback"}]}}``."""
from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.common import json_document
from pqkit.cli.keys import add_key_arguments, read_options
from pqkit.inspect.variant_layout import shredding_layout
from pqkit.read.fetch.footer import read_metadata

HELP = "show the schema tree (repetition, physical/logical/converted type, levels, field ids)"
EXAMPLE = """examples:
  pqinspect schema data.parquet
  pqinspect schema data.parquet --json | jq '.schema.children[].name'"""


def add_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    add_key_arguments(parser)


def build(path, options=None):
    md = read_metadata(path, options)
    schema = md.schema.to_dict()
    return {"file": path, "num_columns": md.num_columns, "schema": schema,
            "variant_shredding": shredding_layout(schema)}


def _label(node):
    parts = [f"[bold]{node['name']}[/bold]"]
    if node.get("repetition"):
        parts.insert(0, node["repetition"].lower())
    parts.append(node.get("physical_type", "group"))
    if "type_length" in node:
        parts[-1] += f"({node['type_length']})"
    annot = node.get("logical_type") or node.get("converted_type")
    if annot:
        parts.append(f"[cyan]({annot})[/cyan]")
    parts.append(f"[dim]def={node['max_definition_level']} rep={node['max_repetition_level']}")
    if "field_id" in node:
        parts[-1] += f" id={node['field_id']}"
    parts[-1] += "[/dim]"
    return " ".join(parts)


def _add(tree, node):
    for child in node.get("children", []):
        _add(tree.add(_label(child)), child)


def run(args):
    doc = build(args.file, read_options(args))
    if args.json:
        render.emit_json(json_document("schema", doc))
        return 0
    root = doc["schema"]
    t = render.tree(f"[bold]{root['name']}[/bold] [dim]({doc['num_columns']} columns)[/dim]")
    _add(t, root)
    con = render.console()
    con.print(t)
    for column, leaves in doc["variant_shredding"].items():
        # fallback: a value column keeps what did not fit the typed one
        con.print(render.grid(f"Variant shredding of {escape(column)}",
                              ["path", "type", "fallback"],
                              [(escape(leaf["path"]), leaf["type"],
                                "yes" if leaf["fallback"] else "no") for leaf in leaves]))
    return 0
