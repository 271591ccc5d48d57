"""pqinspect append: add the rows of another Parquet file to a file, crash-safe."""
from pqkit.cli import render
from pqkit.cli.common import json_document
from pqkit.read.file import read_table
from pqkit.write.surgery.append import append

HELP = "append the rows of a Parquet file to another (a new footer after the old; crash-safe)"
EXAMPLE = """examples:
  pqinspect append log.parquet today.parquet
  pqinspect append log.parquet today.parquet --compression snappy --json"""


def add_arguments(parser):
    parser.add_argument("file", help="the Parquet file to add rows to")
    parser.add_argument("rows", help="a Parquet file holding the rows to add")
    parser.add_argument("--compression", default="zstd", help="codec of the new row groups")
    parser.add_argument("--row-group-size", type=int, default=1 << 20,
                        help="rows per new row group")


def build(args):
    table = read_table(args.rows)
    total = append(args.file, table, compression=args.compression,
                   row_group_size=args.row_group_size)
    return {"file": args.file, "rows_added": table.num_rows, "num_rows": total}


def run(args):
    doc = build(args)
    if args.json:
        render.emit_json(json_document("append", doc))
        return 0
    render.console().print(render.kv_table("append", list(doc.items())))
    return 0
