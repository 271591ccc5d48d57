"""Helpers that several pqinspect subcommands share (subcommands never import each other).

Argument groups (``--row-group``/``--column``, ``--limit``, the text style
options), opening a file into (Source, FileMetadata), selecting column chunks,
the ``problem`` records every structural command reports, and their rendering.
"""
import argparse
import sys

from rich.markup import escape

from pqkit.cli import render
from pqkit.errors import CorruptFileError
from pqkit.read.fetch.footer import read_metadata_from
from pqkit.read.fetch.remote import open_source
from pqkit.read.options import DEFAULT_OPTIONS
from pqkit.textio.render import BINARY_FORMATS, ZONED_TIMESTAMPS, TextStyle

DEFAULT_LIMIT = 50
# The version of every --json document's layout (docs/CLI-JSON.md); it goes up when a
# document drops or renames a field or changes a field's type, not when it gains one.
JSON_SCHEMA_VERSION = 1


def add_selection_arguments(parser):
    parser.add_argument("--row-group", type=int, action="append", dest="row_groups",
                        metavar="N", help="only row group N (repeatable)")
    add_column_arguments(parser)


class _CommaColumns(argparse.Action):
    """``--columns A,B``: each comma-separated name joins the list ``--column`` builds."""

    def __call__(self, parser, namespace, values, option_string=None):
        names = [c.strip() for c in values.split(",") if c.strip()]
        if not names:
            parser.error(f"{option_string} {values!r} names no column")
        setattr(namespace, self.dest, list(getattr(namespace, self.dest) or []) + names)


def add_column_arguments(parser, what="only the column with this dotted path",
                         required=False):
    """The column selection of every command that selects columns: ``--column PATH``
    (repeatable) and ``--columns A,B.C`` (comma-separated), in any mix, into
    ``args.columns`` (None when neither is given; with ``required`` the command's run
    calls :func:`require_columns`)."""
    parser.add_argument("--column", action="append", dest="columns", metavar="PATH",
                        help=f"{what} (repeatable)")
    parser.add_argument("--columns", action=_CommaColumns, dest="columns", metavar="A,B.C",
                        help="the same for several columns at once, comma-separated")
    if required:
        parser.set_defaults(column_parser=parser)


def require_columns(args):
    """The selected columns; a usage error (exit 2) when none was given."""
    if not args.columns:
        args.column_parser.error("give --column PATH or --columns A,B")
    return args.columns


def json_document(command, doc, schema_version=JSON_SCHEMA_VERSION):
    """``doc`` as ``--json`` prints it: ``command`` and ``schema_version`` first, so a
    consumer knows which document of docs/CLI-JSON.md it holds."""
    return {"command": command, "schema_version": schema_version, **doc}


def add_wide_argument(parser, nested=False):
    """``--wide``: lay human views out at their natural width whatever the terminal's
    (``nested``: on a parser below one that has it already)."""
    parser.add_argument("--wide", action="store_true",
                        default=argparse.SUPPRESS if nested else False,
                        help="rich view: every column at its natural width, none left out "
                             "(lines may be wider than the terminal)")


def add_limit_argument(parser, what):
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, metavar="N",
                        help=f"rich view: show at most N {what} per table, 0 for all "
                             f"(default {DEFAULT_LIMIT}; --json always has everything)")


def problem(kind, message, offset, row_group=None, path=None):
    return {"kind": kind, "row_group": row_group, "column": path, "offset": offset,
            "message": message}


def open_file(path, options=DEFAULT_OPTIONS):
    """(metadata, source, closable) of a file (a path or a URL) opened once for the whole
    command, with the keys of ``options``; the source is also what closes it."""
    src = open_source(path)
    try:
        md = read_metadata_from(src, options)
    except BaseException:
        src.close()
        raise
    return md, src, src


def selected_chunks(md, row_groups=None, columns=None):
    """[(row group, leaf node, ColumnChunk)] in file order; KeyError/IndexError for a bad
    selection, CorruptFileError for a row group with fewer chunks than leaves."""
    nodes = md.schema.columns
    if columns:
        wanted = {md.schema.column(c).column_index for c in columns}
        nodes = [n for n in nodes if n.column_index in wanted]
    groups = row_groups if row_groups else range(md.num_row_groups)
    for g in groups:
        if not 0 <= g < md.num_row_groups:
            raise IndexError(f"row group {g} out of range (file has {md.num_row_groups})")
    out = []
    for g in groups:
        chunks = md.row_group(g).thrift.columns or []
        if len(chunks) != len(md.schema.columns):
            raise CorruptFileError(
                f"row group {g} has {len(chunks)} column chunks but the schema has "
                f"{len(md.schema.columns)} leaf columns (footer at offset {md.footer_offset})")
        out.extend((g, node, chunks[node.column_index]) for node in nodes)
    return out


def short(value, n=24):
    if value is None:
        return None
    value = str(value)
    return escape(value if len(value) <= n else value[:n - 1] + "…")


def limited_grid(title, columns, rows, limit, what, **fitting):
    """render.grid of at most `limit` rows (all when limit <= 0), captioned with how many
    were left out; ``fitting``: render.grid's squeeze and whole."""
    more = len(rows) - limit if 0 < limit < len(rows) else 0
    table = render.grid(title, columns, rows[:limit] if more else rows, **fitting)
    if more:
        table.caption = f"… {more:,} more {what} (--limit 0 or --json shows all)"
    return table


def report_problems(command, problems, out=None):
    """Problems on stderr, one line each (both views)."""
    out = out or sys.stderr
    for p in problems:
        print(f"pqinspect {command}: {p['message']}", file=out)


# What a viewer shows: the library's spellings, but invalid UTF-8 shown rather than refused.
VIEWER_STYLE = TextStyle(invalid_utf8="replace")


def add_style_arguments(parser, timestamps=True):
    """--binary and (with ``timestamps``) --timestamps: the spelling choices of
    pqkit.textio.render.TextStyle."""
    parser.add_argument("--binary", choices=BINARY_FORMATS, default="base64",
                        help="how binary values are spelled (default base64)")
    if timestamps:
        parser.add_argument("--timestamps", choices=ZONED_TIMESTAMPS, default="utc",
                            help="timestamps with a time zone as the UTC instant with Z "
                                 "(utc, the default, as convert writes them) or as local "
                                 "time in the column's zone with its offset (local)")


def style_of(args):
    """The viewer's TextStyle with the --binary and --timestamps choices of ``args``."""
    return TextStyle(binary=args.binary, invalid_utf8="replace",
                     zoned_timestamps=getattr(args, "timestamps", "utc"))
