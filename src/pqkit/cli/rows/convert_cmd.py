"""pqinspect convert: CSV / JSON Lines <-> Parquet, streaming with bounded memory."""
import argparse
import sys
from contextlib import nullcontext

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
)

from pqkit.cli import render
from pqkit.cli.common import json_document
from pqkit.textio import FORMATS, convert, format_of
from pqkit.textio.readers import (
    DEFAULT_BATCH_SIZE,
    DEFAULT_INFER_ROWS,
    DEFAULT_MAX_LINE_BYTES,
)

HELP = "convert between CSV, JSON Lines and Parquet (streaming, bounded memory)"
EXAMPLE = """examples:
  pqinspect convert data.csv data.parquet
  pqinspect convert events.jsonl events.parquet --schema schema.json --row-group-size 100000
  pqinspect convert data.parquet data.csv.gz --delimiter ';'
  gunzip -c dump.tsv.gz | pqinspect convert - dump.parquet --from csv --delimiter tab
  pqinspect convert data.csv data.parquet --json > run.json   # run.json's schema works for --schema

formats come from the suffixes (.csv .tsv .jsonl .ndjson .parquet, text also .gz .bz2 .xz);
"-" is stdin/stdout for CSV and JSON Lines (give --from/--to).

--schema file: a JSON list of {"name": ..., "type": ..., "nullable": true|false}, e.g.
  [{"name": "id", "type": "int64", "nullable": false}, {"name": "price", "type": "decimal(9,2)"},
   {"name": "at", "type": "timestamp[us, UTC]"}, {"name": "tags", "type": "list<string>"},
   {"name": "point", "type": "struct<x: double, y: double>"}]
types: bool int8..int64 uint8..uint64 float double string binary date date64 time
timestamp[s|ms|us|ns] timestamp[us, UTC] duration[us] decimal(p,s) uuid list<T>
struct<name: T, ...> map<K, V> fixed_size_binary[n]; "not null" after a nested type.
Without --schema the types are inferred from the first --infer-rows records: int -> double ->
string widening, true/false, ISO dates and timestamps, empty CSV fields / JSON null as null,
JSON objects -> struct, arrays -> list. A later value that does not fit is an error naming
its line and column (exit 2)."""


def _positive(text):
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _delimiter(text):
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}
    value = named.get(text.lower(), text)
    if len(value) != 1:
        raise argparse.ArgumentTypeError(f"the delimiter must be one character (or tab, "
                                         f"comma, semicolon, pipe), got {text!r}")
    return value


def add_arguments(parser):
    parser.add_argument("input", help="input file, or - for stdin")
    parser.add_argument("output", help="output file, or - for stdout")
    parser.add_argument("--from", dest="from_format", choices=FORMATS,
                        help="input format (default: from the input's suffix)")
    parser.add_argument("--to", dest="to_format", choices=FORMATS,
                        help="output format (default: from the output's suffix)")
    parser.add_argument("--schema", metavar="FILE",
                        help="JSON schema file for CSV / JSON Lines input (default: infer)")
    parser.add_argument("--infer-rows", type=_positive, default=DEFAULT_INFER_ROWS,
                        metavar="N", help="records to infer types from (default %(default)s)")
    parser.add_argument("--batch-size", type=_positive, default=DEFAULT_BATCH_SIZE,
                        metavar="N", help="records per batch (default %(default)s)")
    parser.add_argument("--row-group-size", type=_positive, metavar="ROWS",
                        help="rows per Parquet row group (default 1048576)")
    parser.add_argument("--page-size", type=_positive, metavar="BYTES",
                        help="target Parquet data page size (default 1 MiB)")
    parser.add_argument("--compression", default="zstd",
                        help="Parquet codec: none, snappy, gzip, zstd, lz4_raw, brotli "
                             "(default %(default)s)")
    parser.add_argument("--delimiter", type=_delimiter, metavar="CHAR",
                        help="CSV delimiter (default , or tab for .tsv)")
    parser.add_argument("--no-header", dest="header", action="store_false",
                        help="CSV has / gets no header line (columns f0, f1, ... or the "
                             "schema's names)")
    parser.add_argument("--null-text", default="", metavar="TEXT",
                        help="CSV text of null (default: the empty field); with one, empty "
                             "fields of string columns are empty strings")
    parser.add_argument("--max-line-bytes", type=_positive, default=DEFAULT_MAX_LINE_BYTES,
                        metavar="BYTES", help="longest text line accepted (default 64 MiB)")


class _Bar:
    """A rich progress bar on stderr, fed by convert()'s progress callback."""

    def __init__(self, label, unit_is_rows):
        amount = MofNCompleteColumn() if unit_is_rows else DownloadColumn()
        self.progress = Progress(TextColumn(label), BarColumn(), amount,
                                 TimeRemainingColumn(), console=Console(stderr=True),
                                 transient=True)
        self.task = self.progress.add_task(label, total=None)

    def __call__(self, done, total):
        self.progress.update(self.task, completed=done, total=total)

    def __enter__(self):
        self.progress.start()
        return self

    def __exit__(self, *exc):
        self.progress.stop()


def _render(doc, console):
    console.print(render.kv_table("Converted", [
        ("input", f"{doc['input']} ({doc['from']})"), ("output", f"{doc['output']} "
                                                                f"({doc['to']})"),
        ("rows", f"{doc['rows']:,}"), ("row groups", doc["row_groups"]),
        ("input bytes", None if doc["input_bytes"] is None else f"{doc['input_bytes']:,}"),
        ("output bytes", f"{doc['output_bytes']:,}"), ("seconds", doc["seconds"])]))
    title = "Schema (inferred)" if doc["schema_inferred"] else "Schema"
    console.print(render.grid(title, ["column", "type", "nullable"], [
        (escape(f["name"]), escape(f["type"]), "yes" if f["nullable"] else "no")
        for f in doc["schema"]]))


def run(args):
    source = sys.stdin.buffer if args.input == "-" else args.input
    destination = sys.stdout.buffer if args.output == "-" else args.output
    if (args.input == "-" and not args.from_format) or (args.output == "-"
                                                        and not args.to_format):
        print("pqinspect convert: with - as input or output, give --from / --to",
              file=sys.stderr)
        return 2
    bar = None
    if sys.stderr.isatty():
        bar = _Bar(f"converting {args.input}", format_of(source, args.from_format) == "parquet")
    with bar or nullcontext():
        doc = convert(source, destination, from_format=args.from_format,
                      to_format=args.to_format, schema=args.schema,
                      infer_rows=args.infer_rows, batch_size=args.batch_size,
                      delimiter=args.delimiter, header=args.header, null_text=args.null_text,
                      compression=args.compression, row_group_size=args.row_group_size,
                      data_page_size=args.page_size, max_line_bytes=args.max_line_bytes,
                      progress=bar)
    # With the data on stdout the summary goes to stderr, so that the two never mix.
    to_stderr = args.output == "-"
    if args.json:
        render.emit_json(json_document("convert", doc), sys.stderr if to_stderr else None)
    else:
        _render(doc, Console(stderr=True, highlight=False) if to_stderr else render.console())
    return 0
