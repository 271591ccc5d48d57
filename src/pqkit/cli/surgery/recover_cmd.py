"""pqinspect recover: save the complete row groups of a file that lost its footer."""
from pqkit.cli import render
from pqkit.cli.common import json_document
from pqkit.write.surgery.recover import recover

HELP = "write the complete row groups of a file without footer (a crashed writer's) to a new file"
EXAMPLE = """examples:
  pqinspect recover crashed.parquet -o saved.parquet --schema-from yesterday.parquet
  pqinspect recover crashed.parquet -o saved.parquet --schema-from ok.parquet --json"""


def add_arguments(parser):
    parser.add_argument("file", help="the damaged Parquet file")
    parser.add_argument("-o", "--output", required=True, help="the file to write")
    parser.add_argument("--schema-from", default=None,
                        help="a file with the same schema (default: the file's own footer)")


def run(args):
    result = recover(args.file, args.output, schema_from=args.schema_from)
    doc = {"file": args.file, "output": args.output, **result.to_dict()}
    if args.json:
        render.emit_json(json_document("recover", doc))
        return 0
    rows = [("output", doc["output"]), ("row groups saved", doc["row_groups"]),
            ("rows saved", doc["num_rows"]), ("pages found", doc["pages_found"]),
            ("pages lost", doc["pages_lost"]), ("bytes lost", doc["bytes_lost"]),
            ("walk stopped", f"at offset {doc['stop_offset']}: {doc['stop_reason']}")]
    render.console().print(render.kv_table("recover", rows))
    return 0
