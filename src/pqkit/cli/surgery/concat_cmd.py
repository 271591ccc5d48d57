"""pqinspect concat: join Parquet files of one schema by copying their pages."""
from pqkit.cli import render
from pqkit.cli.common import json_document
from pqkit.write.surgery.concat import concat

HELP = "concatenate files of one schema by copying their column chunks (no decoding)"
EXAMPLE = """examples:
  pqinspect concat part-0.parquet part-1.parquet -o all.parquet
  pqinspect concat part-*.parquet -o all.parquet --row-group-size 1000000 --json"""


def add_arguments(parser):
    parser.add_argument("sources", nargs="+", help="Parquet files, in order")
    parser.add_argument("-o", "--output", required=True, help="the file to write")
    parser.add_argument("--row-group-size", type=int, default=None,
                        help="merge consecutive row groups up to this many rows where their "
                             "codecs match and the later ones have no dictionary pages")


def build(args):
    result = concat(args.sources, args.output, row_group_size=args.row_group_size)
    return {"output": args.output, "sources": args.sources, "num_rows": result.num_rows,
            "row_groups_in": result.row_groups_in, "row_groups_out": result.row_groups_out,
            "bytes_copied": result.bytes_copied, "merges_refused": result.merges_refused}


def run(args):
    doc = build(args)
    if args.json:
        render.emit_json(json_document("concat", doc))
        return 0
    rows = [(k, doc[k]) for k in ("output", "num_rows", "row_groups_in", "row_groups_out",
                                  "bytes_copied")]
    rows.append(("sources", len(doc["sources"])))
    if doc["merges_refused"]:
        rows.append(("not merged", "; ".join(doc["merges_refused"][:5])))
    render.console().print(render.kv_table("concat", rows))
    return 0
