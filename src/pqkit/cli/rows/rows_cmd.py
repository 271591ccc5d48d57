"""pqinspect head and cat: decoded rows, streamed one batch at a time.

Rows come from :meth:`pqkit.ParquetFile.iter_batches` row group by row group,
so ``cat`` holds at most one decoded row group and one rendered batch in
memory, and ``head`` stops reading after the row group that completes its
rows. Values are spelled as :mod:`pqkit.textio.render` documents, as ``pqinspect
convert`` writes them (bytes as base64 unless ``--binary hex``; NaN and infinities
as strings; decimals as strings; dates, times and timestamps in ISO 8601, a
timestamp with a time zone as its UTC instant with Z unless ``--timestamps local``;
maps as [key, value] pairs). Invalid UTF-8 in a string column is shown with U+FFFD.

Output forms:

* ``head`` (rich table), ``head --json`` (one document with a ``rows`` array);
* ``cat --format table`` (aligned text, widths taken from the first 1000 rows,
  long cells cut with "…"), ``jsonl`` (one compact JSON object per row), ``csv``
  (header row; by default a null is an empty field, as ``convert`` writes it, which an
  empty string also is; with ``--null-text TEXT`` a null is TEXT and a string that
  would read the same is quoted, ``--null-text ""`` writing ``""`` for an empty
  string; lists, structs and maps
  as JSON text; quoted as :class:`pqkit.textio.writers.CsvLines` quotes),
  ``cat --json`` (one document, written as the rows stream).

A row group that cannot be decoded stops the output with exit 2 and a message
naming the row group, its file offset and the error's own offset; the rows
before it have been written (``cat --json`` still closes its document, with
an ``error`` member).
"""
import json
import re
import sys

from rich.markup import escape

from pqkit.cli import render
from pqkit.cli.common import (
    VIEWER_STYLE,
    add_column_arguments,
    add_style_arguments,
    json_document,
    style_of,
)
from pqkit.cli.opening import open_parquet
from pqkit.cli.rows.row_view import CELL_WIDTH, print_rows, short_cell
from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn
from pqkit.columnar.table import Table
from pqkit.errors import InvalidStringError, ParquetError
from pqkit.read.options import ReadOptions
from pqkit.chunk_range import chunk_start
from pqkit.read.prune.filter_text import parse_filter
from pqkit.textio.render import (
    JSON_TEXT,
    cell_text,
    json_values,
)
from pqkit.textio.writers import CsvLines

EXIT_OK, EXIT_UNUSABLE = 0, 2
DEFAULT_HEAD_ROWS = 10
CAT_BATCH_ROWS = 4096
_COLUMN_IN_MESSAGE = re.compile(r"column (\S+), row group")


class _Command:
    """The interface main.py expects of a subcommand module."""

    def __init__(self, help_text, example, add_arguments, run):
        self.HELP = help_text
        self.EXAMPLE = example
        self.add_arguments = add_arguments
        self.run = run


def _common_arguments(parser):
    parser.add_argument("file", help="Parquet file")
    add_column_arguments(parser, "only this column: a top-level name or a dotted path into "
                                 "structs")
    parser.add_argument("--where", metavar="EXPR",
                        help="only the rows that match, as in explain: comparisons (= != < "
                             "<= > >=, [not] in (...)) joined by and/or, with parentheses")
    add_style_arguments(parser)
    parser.add_argument("--no-verify-checksums", dest="verify_checksums",
                        action="store_false", help="do not check page CRCs")


def _head_arguments(parser):
    _common_arguments(parser)
    parser.add_argument("-n", "--rows", type=int, default=DEFAULT_HEAD_ROWS, metavar="N",
                        help=f"number of rows (default {DEFAULT_HEAD_ROWS})")


def _cat_arguments(parser):
    _common_arguments(parser)
    parser.add_argument("--format", choices=("table", "jsonl", "csv"), default="table",
                        help="output form (default table; --json gives one JSON document)")
    parser.add_argument("--null-text", default=None, metavar="TEXT",
                        help="CSV: keep nulls and strings apart, writing a null as TEXT "
                             "(may be empty) and quoting a string that reads the same; "
                             "default: a null is an empty field, like an empty string, as "
                             "convert writes it")


# --- reading -----------------------------------------------------------------------------

class _RowGroupFailure(Exception):
    """Decoding stopped at a row group; the message names it and its offset."""


def _column_list(columns):
    """Column names from a list (as --column/--columns give them) or a comma-separated
    string; None for all."""
    if columns is None:
        return None
    parts = columns.split(",") if isinstance(columns, str) else columns
    names = [c.strip() for c in parts if c.strip()]
    if not names:
        raise ParquetError(f"--columns {columns!r} names no column")
    return names


def _filters(where):
    return None if where is None else parse_filter(where)


def _row_group_offset(md, g):
    starts = [chunk_start(c.meta_data) for c in md.row_group(g).thrift.columns or []
              if c.meta_data is not None]
    starts = [s for s in starts if s is not None]
    return min(starts) if starts else md.row_group(g).thrift.file_offset


def _failure_place(md, g, message):
    """Where a row group's decoding failed: the chunk of the column the message names,
    else the row group's first byte."""
    m = _COLUMN_IN_MESSAGE.search(message)
    if m is not None:
        try:
            node = md.schema.column(m.group(1))
            start = chunk_start(md.row_group(g).thrift.columns[node.column_index].meta_data)
        except (KeyError, IndexError, AttributeError):
            start = None
        if start is not None:
            return f"row group {g}, column chunk {node.dotted_path} at file offset {start}"
    return f"row group {g} at file offset {_row_group_offset(md, g)}"


def _as_declared(batch, declared):
    """``batch``, read with its text as binary, with its top-level text columns typed as
    the file declares them again: for display only, where the viewer shows invalid
    UTF-8 replaced (reads and conversions refuse such rows)."""
    fields, cols = [], []
    for c, f, d in zip(batch.columns, batch.schema, declared):
        if type(c) is BinaryColumn and T.is_text_type(d.type) and c.type != d.type:
            c, f = BinaryColumn(d.type, c.offsets, c.data, c.validity), d
        fields.append(f)
        cols.append(c)
    return Table(cols, fields, batch.metadata, num_rows=None if cols else batch.num_rows)


def _batches(pf, columns, batch_rows, filters=None, unchecked=None):
    """(batch Table) for every batch of every row group, in file order; with ``filters``
    only the rows that match. ``unchecked()`` opens the file with its text read as
    binary: a row group holding invalid UTF-8 is then shown from it (see _as_declared)."""
    only = {} if filters is None else {"filters": filters}
    declared = pf.read(columns=columns, row_groups=[]).schema
    for g in range(pf.num_row_groups):
        try:
            try:
                batches = list(pf.iter_batches(batch_rows, columns=columns, row_groups=[g],
                                               **only))
            except InvalidStringError:
                if unchecked is None:
                    raise
                with unchecked() as raw:
                    batches = [_as_declared(b, declared) for b in raw.iter_batches(
                        batch_rows, columns=columns, row_groups=[g], **only)]
            yield from batches
        except ParquetError as exc:
            place = _failure_place(pf.metadata, g, str(exc))
            raise _RowGroupFailure(f"{place}: {type(exc).__name__}: {exc}") from None


def _unchecked(path, verify_checksums, style):
    """How to open the file with its text unchecked, when ``style`` shows invalid UTF-8
    replaced; else None."""
    if style.invalid_utf8 != "replace":
        return None
    return lambda: open_parquet(path, verify_checksums, ReadOptions(strings_as_binary=True))


def _rows(table, style):
    names = table.column_names
    values = [json_values(c, style) for c in table.columns]
    return [dict(zip(names, row)) for row in zip(*values)]


def _total_rows(pf):
    """The rows the row groups declare (some writers leave FileMetaData.num_rows at 0)."""
    md = pf.metadata
    return sum(md.row_group(g).num_rows or 0 for g in range(md.num_row_groups))


def _columns_doc(table):
    return [{"name": f.name, "type": str(f.type)} for f in table.schema]


# --- head --------------------------------------------------------------------------------

def build_head(path, rows=DEFAULT_HEAD_ROWS, columns=None, style=VIEWER_STYLE,
               verify_checksums=True, where=None):
    """The head document: file, columns (name, type), the filter text (``where``) and the
    first ``rows`` rows (that match it), spelled with ``style`` (a
    pqkit.textio.render.TextStyle)."""
    if rows < 0:
        raise ParquetError(f"-n must be 0 or more, got {rows}")
    names = _column_list(columns)
    filters = _filters(where)
    with open_parquet(path, verify_checksums) as pf:
        empty = pf.read(columns=names, row_groups=[])
        out = []
        if rows:
            for batch in _batches(pf, names, min(rows, 65536), filters,
                                  _unchecked(path, verify_checksums, style)):
                out.extend(_rows(batch.slice(0, rows - len(out)), style))
                if len(out) >= rows:
                    break
        return {"file": path, "num_rows": _total_rows(pf), "columns": _columns_doc(empty),
                "where": where, "rows": out}


def _render_head(doc):
    con = render.console()
    where = "" if doc.get("where") is None else f" where {escape(doc['where'])}"
    con.print(f"[bold]{escape(doc['file'])}[/bold]: first {len(doc['rows'])} of "
              f"{doc['num_rows']:,} rows{where}")
    print_rows(con, [c["name"] for c in doc["columns"]], doc["rows"])


def run_head(args):
    try:
        doc = build_head(args.file, args.rows, args.columns, style_of(args),
                         args.verify_checksums, args.where)
    except _RowGroupFailure as exc:
        print(f"pqinspect head: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    if args.json:
        render.emit_json(json_document("head", doc))
    else:
        _render_head(doc)
    return EXIT_OK


# --- cat ---------------------------------------------------------------------------------

class _TextTable:
    """Aligned text columns; widths come from the header and the first WIDTH_ROWS rows
    (held back until then), capped at CELL_WIDTH; longer cells are cut with "…"."""

    WIDTH_ROWS = 1000

    def __init__(self, out, names):
        self.out = out
        self.names = names
        self.widths = None
        self.pending = []

    def write(self, rows):
        cells = [[cell_text(r[n]) if r[n] is not None else "null" for n in self.names]
                 for r in rows]
        if self.widths is None:
            self.pending.extend(cells)
            if len(self.pending) >= self.WIDTH_ROWS:
                self._start()
            return
        for c in cells:
            self._line(c)

    def _start(self):
        self.widths = [min(CELL_WIDTH, max([len(n)] + [len(c[i]) for c in self.pending]))
                       for i, n in enumerate(self.names)]
        self._line(self.names)
        self._line(["-" * w for w in self.widths])
        for c in self.pending:
            self._line(c)
        self.pending = []

    def _line(self, cells):
        text = "  ".join(short_cell(c.replace("\n", "\\n"), w).ljust(w)
                         for c, w in zip(cells, self.widths))
        self.out.write(text.rstrip() + "\n")

    def close(self, error=None):
        if self.widths is None:
            self._start()


class _JsonLines:
    def __init__(self, out, names):
        self.out = out

    def write(self, rows):
        self.out.write("".join(JSON_TEXT(r) + "\n" for r in rows))

    def close(self, error=None):
        pass


class _Csv:
    """CSV with nulls (``null_text``, unquoted) apart from strings, which are quoted when
    they would read as one."""

    def __init__(self, out, names, null_text=None):
        self.out = out
        self.names = names
        self.lines = CsvLines(null_text=null_text)
        # Without a null text a null is an empty field, as convert writes it.
        self.null = None if null_text is not None else ""
        out.write(self.lines.text([names]))

    def write(self, rows):
        self.out.write(self.lines.text(
            [self.null if r[n] is None else cell_text(r[n]) for n in self.names]
            for r in rows))

    def close(self, error=None):
        pass


class _JsonDocument:
    """One JSON document written as the rows arrive: file, columns, where, rows[, error]."""

    def __init__(self, out, names, path, num_rows, columns, where=None):
        self.out = out
        head = json.dumps(json_document("cat", {"file": path, "num_rows": num_rows,
                                                "columns": columns, "where": where}),
                          ensure_ascii=False)
        out.write(head[:-1] + ', "rows": [')
        self.first = True

    def write(self, rows):
        for r in rows:
            self.out.write(("\n  " if self.first else ",\n  ")
                           + json.dumps(r, ensure_ascii=False))
            self.first = False

    def close(self, error=None):
        tail = "" if error is None else f', "error": {json.dumps(error, ensure_ascii=False)}'
        self.out.write(("" if self.first else "\n") + "]" + tail + "}\n")


def write_rows(path, out, form="table", columns=None, style=VIEWER_STYLE,
               verify_checksums=True, as_json=False, where=None, null_text=None):
    """Write every row of ``path`` (that matches the filter text ``where``) to ``out``,
    spelled with ``style`` (CSV nulls as ``null_text``); return None, or the message of
    the row-group failure that stopped the output."""
    names_list = _column_list(columns)
    filters = _filters(where)
    with open_parquet(path, verify_checksums) as pf:
        empty = pf.read(columns=names_list, row_groups=[])
        names = empty.column_names
        if as_json:
            sink = _JsonDocument(out, names, path, _total_rows(pf), _columns_doc(empty), where)
        else:
            sink = _Csv(out, names, null_text) if form == "csv" else \
                {"table": _TextTable, "jsonl": _JsonLines}[form](out, names)
        try:
            for batch in _batches(pf, names_list, CAT_BATCH_ROWS, filters,
                                  _unchecked(path, verify_checksums, style)):
                sink.write(_rows(batch, style))
        except _RowGroupFailure as exc:
            sink.close(str(exc))
            return str(exc)
        sink.close()
    return None


def run_cat(args):
    error = write_rows(args.file, sys.stdout, args.format, args.columns, style_of(args),
                       args.verify_checksums, args.json, args.where, args.null_text)
    if error is not None:
        print(f"pqinspect cat: {error}", file=sys.stderr)
        return EXIT_UNUSABLE
    return EXIT_OK


head = _Command(
    "show the first rows, decoded (values typed as in --json: ISO dates, decimal strings, ...)",
    """examples:
  pqinspect head data.parquet
  pqinspect head data.parquet -n 5 --columns id,point.x
  pqinspect head data.parquet --json | jq '.rows[0]'

JSON values as convert writes them: NaN/Infinity as strings, bytes as base64
(--binary hex), decimals as strings, dates/times/timestamps ISO 8601, timestamps
with a time zone as UTC instants with Z (--timestamps local: local time and
offset), maps as [key, value] pairs.""",
    _head_arguments, run_head)

cat = _Command(
    "print every row, streamed one batch at a time: table, JSON lines or CSV",
    """examples:
  pqinspect cat data.parquet --format jsonl > rows.jsonl
  pqinspect cat data.parquet --format csv --columns id,city
  pqinspect cat data.parquet --json | jq '.rows | length'

Values as in head; CSV writes null as an empty field, as convert does (--null-text
TEXT: null as TEXT and a string that reads the same quoted, so --null-text "" writes
an empty string as ""), and nested values as JSON text. A row group that cannot be
decoded stops the output with exit 2.""",
    _cat_arguments, run_cat)
