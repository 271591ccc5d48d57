"""Streaming CSV and JSON Lines readers: records in, pqkit Tables out, batch by batch.

The input is read line by line from a binary stream (each line is at most
``max_line_bytes``, so a file without newlines cannot make the reader allocate
without bound), decoded as UTF-8 (a leading byte-order mark is skipped), and
parsed with the standard ``csv`` and ``json`` modules. Each record keeps the
number and byte offset of its first line, so that every error names them::

    line 3, byte offset 41, column 'price': value 'n/a' does not fit double:
    expected a number (the type was inferred from the first 2 records; give a
    schema or infer from more records)

A reader holds at most one batch of records (and, while inferring, the first
``infer_rows`` records); :meth:`TextReader.batches` turns each batch into a
Table of the reader's ``fields``.
"""
import csv
import json

from pqkit import datatypes as T
from pqkit.columnar.table import Table
from pqkit.convert import column_from_values
from pqkit.errors import ParquetError, SchemaError
from pqkit.textio.errors import TextFormatError, TextValueError
from pqkit.textio.infer import infer_csv_fields, infer_json_fields
from pqkit.textio.values import Misfit, json_coercer, text_coercer

DEFAULT_INFER_ROWS = 10_000
DEFAULT_BATCH_SIZE = 10_000
DEFAULT_MAX_LINE_BYTES = 64 << 20
_BOM = b"\xef\xbb\xbf"


class LineReader:
    """UTF-8 lines of a binary stream, counting line numbers and byte offsets."""

    def __init__(self, stream, max_line_bytes=DEFAULT_MAX_LINE_BYTES):
        self.stream, self.limit = stream, int(max_line_bytes)
        self.line = 0        # number of the last line returned
        self.offset = 0      # byte offset where that line starts
        self.pos = 0         # bytes consumed so far

    def __iter__(self):
        return self

    def __next__(self):
        raw = self.stream.readline(self.limit + 1)
        if not raw:
            raise StopIteration
        self.line += 1
        self.offset, self.pos = self.pos, self.pos + len(raw)
        if len(raw) > self.limit:
            raise TextFormatError(f"the line is longer than {self.limit} bytes (the "
                                  "max_line_bytes limit)", self.line, self.offset)
        start = 3 if self.line == 1 and raw.startswith(_BOM) else 0
        try:
            return raw[start:].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise TextFormatError(f"invalid UTF-8 ({exc.reason})", self.line,
                                  self.offset + start + exc.start) from None


class _At(Exception):
    """``error`` found at record ``index`` of a batch (while looking for the first one)."""

    def __init__(self, index, error):
        super().__init__(str(error))
        self.index, self.error = index, error


class _Column:
    """How one column's raw values become a pqkit column: ``coerce`` each non-null value
    (None: the values are used as they are)."""

    def __init__(self, field, coerce, is_text):
        self.field, self.coerce, self.is_text = field, coerce, is_text


class TextReader:
    """Common part of the CSV and JSON Lines readers.

    Attributes
    ----------
    fields : list of pqkit Field
        The columns, given or inferred.
    inferred : bool
        True when ``fields`` were inferred from the first records.
    """

    def __init__(self, lines, batch_size, infer_rows):
        if batch_size <= 0:
            raise SchemaError(f"batch_size must be positive, got {batch_size}")
        if infer_rows <= 0:
            raise SchemaError(f"infer_rows must be positive, got {infer_rows}")
        self.lines, self.batch_size, self.infer_rows = lines, int(batch_size), int(infer_rows)
        self.fields, self.inferred = None, False
        self._buffered, self._inferred_from = [], 0

    @property
    def bytes_read(self):
        return self.lines.pos

    def _hint(self):
        if not self.inferred:
            return ""
        n = self._inferred_from
        return (f" (the column types were inferred from the first {n} record"
                f"{'' if n == 1 else 's'}; give a schema or infer from more records)")

    def _records(self):
        raise NotImplementedError

    def _start(self, schema):
        """Read the first records when the schema must be inferred from them."""
        self._stream = self._records()
        if schema is None:
            self.inferred = True
            for record in self._stream:
                self._buffered.append(record)
                if len(self._buffered) >= self.infer_rows:
                    break
            self._inferred_from = len(self._buffered)

    def batches(self):
        """Yield Tables of at most ``batch_size`` records, in input order."""
        batch = []
        try:
            for record in self._all_records():
                batch.append(record)
                if len(batch) >= self.batch_size:
                    yield self._build(batch)
                    batch = []
        except ParquetError:
            if batch:                     # a bad value before the malformed record comes first
                self._build(batch)
            raise
        if batch:
            yield self._build(batch)

    def _all_records(self):
        """The records read for inference, then the rest; each record is let go of once
        handed out, so the inference window does not stay in memory."""
        buffered, self._buffered = self._buffered, []
        buffered.reverse()
        while buffered:
            yield buffered.pop()
        yield from self._stream

    def _build(self, batch):
        """The batch's Table; else the error of its earliest bad record (columns are
        converted one by one, so the first error found may not be the earliest)."""
        try:
            return self._table(batch)
        except _At as at:
            first = at
        while first.index:
            try:
                self._table(batch[:first.index])
                break
            except _At as earlier:
                first = earlier
        raise first.error

    def _column(self, plan, values, batch):
        """A pqkit column from one column's raw values (None = null) of a batch."""
        f, coerce = plan.field, plan.coerce
        out = values if coerce is None else []
        try:
            if coerce is not None:
                append = out.append
                for v in values:
                    append(None if v is None else coerce(v))
        except Misfit as exc:
            line, offset = batch[len(out)][:2]
            raise _At(len(out), TextValueError(exc.describe() + self._hint(), line,
                                               f.name + exc.path, offset)) from None
        if not f.nullable and None in out:
            index = out.index(None)
            line, offset = batch[index][:2]
            raise _At(index, TextValueError("null, but the column is not nullable", line,
                                            f.name, offset))
        try:
            return column_from_values(out, f.type)
        except SchemaError as exc:         # the coercers check values; this is a backstop
            raise TextValueError(f"{exc} (records of lines {batch[0][0]}-{batch[-1][0]})",
                                 None, f.name) from None


class CsvReader(TextReader):
    """Read CSV from a binary stream as Tables, batch by batch.

    Parameters
    ----------
    stream : binary file object
        UTF-8 text (a byte-order mark is skipped).
    schema : list of pqkit Field, optional
        The columns; with a header they are matched to it by name (in any order, none
        missing or extra), without one they are taken in order. Inferred from the first
        ``infer_rows`` records when omitted (see :mod:`pqkit.textio.infer`).
    delimiter : str, default ","
    header : bool, default True
        The first record names the columns; otherwise they are ``f0``, ``f1``, ... or the
        schema's names.
    null_text : str, default ""
        The text of a null. Empty fields are null too, except in string columns when
        ``null_text`` is not empty (there they are empty strings).
    infer_rows, batch_size : int, default 10_000
    max_line_bytes : int, default 64 MiB
        Longest line accepted; also the longest field (the ``csv`` module's limit, which is
        process-wide, is raised to it when lower).

    Raises
    ------
    TextFormatError, TextValueError
        Here for the header and the records read for inference, else from
        :meth:`batches`; the message names the line, byte offset and column.

    Examples
    --------
    >>> reader = CsvReader(open("data.csv", "rb"))                 # doctest: +SKIP
    >>> reader.fields, [t.num_rows for t in reader.batches()]      # doctest: +SKIP
    """

    def __init__(self, stream, *, schema=None, delimiter=",", header=True, null_text="",
                 infer_rows=DEFAULT_INFER_ROWS, batch_size=DEFAULT_BATCH_SIZE,
                 max_line_bytes=DEFAULT_MAX_LINE_BYTES):
        super().__init__(LineReader(stream, max_line_bytes), batch_size, infer_rows)
        if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '"\r\n':
            raise SchemaError(f"the CSV delimiter must be one character other than a quote "
                              f"or a line break, not {delimiter!r}")
        # csv's per-field cap is process-wide; it only ever grows here, up to the line cap.
        if csv.field_size_limit() < self.lines.limit:
            csv.field_size_limit(self.lines.limit)
        self.null_text = null_text
        self._pending = None
        self._csv = csv.reader(self.lines, delimiter=delimiter, strict=True)
        names = self._header(header, schema)
        self._start(schema)
        if schema is None:
            columns = list(zip(*(r[2] for r in self._buffered))) or [()] * len(names)
            self.fields = infer_csv_fields(names, columns, null_text)
            self._order = list(range(len(names)))
        else:
            self.fields = list(schema)
            self._order = _schema_order(names, self.fields, header)
        self._width = len(names)
        self._plans = [_Column(f, None, True) if _is_string(f.type)
                       else _Column(f, text_coercer(f.type), False) for f in self.fields]

    def _header(self, header, schema):
        if not header:
            first = self._next_record()
            if first is not None:
                self._pending = first
                return [f"f{i}" for i in range(len(first[2]))] if schema is None \
                    else [f.name for f in schema]
            return [] if schema is None else [f.name for f in schema]
        first = self._next_record()
        if first is None:
            return [] if schema is None else [f.name for f in schema]
        line, offset, names = first
        seen = {}
        for i, name in enumerate(names):
            if name in seen:
                raise TextFormatError(f"the header names column {name!r} twice (fields "
                                      f"{seen[name] + 1} and {i + 1})", line, offset)
            seen[name] = i
        return names

    def _next_record(self):
        while True:
            start_line, start = self.lines.line + 1, self.lines.pos
            try:
                row = next(self._csv)
            except StopIteration:
                return None
            except csv.Error as exc:
                raise TextFormatError(f"malformed CSV: {exc}", start_line, start) from None
            if row:                                      # csv gives [] for a blank line
                return start_line, start, row

    def _records(self):
        pending = self._pending
        if pending is not None:
            self._pending = None
            yield pending
        while True:
            record = self._next_record()
            if record is None:
                return
            yield record

    def _table(self, batch):
        width = self._width
        for i, (line, offset, row) in enumerate(batch):
            if len(row) != width:
                raise _At(i, TextFormatError(f"{len(row)} fields, expected {width}", line,
                                             offset))
        columns = list(zip(*(r[2] for r in batch)))
        cols = []
        for plan, j in zip(self._plans, self._order):
            values = columns[j]
            if plan.is_text:
                null = self.null_text
                values = [None if v == null else v for v in values]
            else:
                values = [None if not v or v == self.null_text else v for v in values]
            cols.append(self._column(plan, values, batch))
        return Table(cols, self.fields)


def _is_string(t):
    t = t.value_type if isinstance(t, T.DictionaryType) else t
    return type(t) is T.StringType


def _schema_order(names, fields, header):
    """For each schema field, the index of its CSV column."""
    if not header:
        return list(range(len(fields)))
    position = {name: i for i, name in enumerate(names)}
    missing = [f.name for f in fields if f.name not in position]
    extra = [n for n in names if n not in {f.name for f in fields}]
    if missing or extra:
        what = (f"the schema column {missing[0]!r} is not in the CSV header" if missing
                else f"the CSV column {extra[0]!r} is not in the schema")
        raise TextFormatError(f"{what} (header: {names})", 1, 0)
    return [position[f.name] for f in fields]


class JsonLinesReader(TextReader):
    """Read JSON Lines (one JSON object per line; blank lines skipped) from a binary
    stream as Tables, batch by batch.

    Parameters
    ----------
    stream : binary file object
    schema : list of pqkit Field, optional
        The columns (keys); a record with a key that is not a column is an error, a
        missing key is null. Inferred from the first ``infer_rows`` records when omitted:
        the union of their keys, first seen first.
    infer_rows, batch_size : int, default 10_000
    max_line_bytes : int, default 64 MiB

    Raises
    ------
    TextFormatError, TextValueError
        As :class:`CsvReader`.
    """

    def __init__(self, stream, *, schema=None, infer_rows=DEFAULT_INFER_ROWS,
                 batch_size=DEFAULT_BATCH_SIZE, max_line_bytes=DEFAULT_MAX_LINE_BYTES):
        super().__init__(LineReader(stream, max_line_bytes), batch_size, infer_rows)
        self._start(schema)
        if schema is None:
            self.fields = infer_json_fields(r[2] for r in self._buffered)
        else:
            self.fields = list(schema)
        self._names = frozenset(f.name for f in self.fields)
        self._plans = [_Column(f, json_coercer(f.type), False) for f in self.fields]

    def _records(self):
        lines = self.lines
        for text in lines:
            if not text.strip():
                continue
            try:
                record = json.loads(text)
            except json.JSONDecodeError as exc:
                at = lines.offset + len(text[:exc.pos].encode("utf-8"))
                raise TextFormatError(f"invalid JSON: {exc.msg} (column {exc.colno})",
                                      lines.line, at) from None
            except (ValueError, RecursionError) as exc:
                raise TextFormatError(f"unusable JSON: {exc}", lines.line,
                                      lines.offset) from None
            if type(record) is not dict:
                raise TextFormatError(f"expected one JSON object per line, got "
                                      f"{type(record).__name__}", lines.line, lines.offset)
            yield lines.line, lines.offset, record

    def _table(self, batch):
        names = self._names
        for i, (line, offset, record) in enumerate(batch):
            if not names.issuperset(record):
                extra = next(k for k in record if k not in names)
                raise _At(i, TextValueError(f"key {extra!r} is not a column of the schema"
                                            + self._hint(), line, None, offset))
        cols = []
        for plan in self._plans:
            name = plan.field.name
            cols.append(self._column(plan, [r[2].get(name) for r in batch], batch))
        return Table(cols, self.fields)


__all__ = ["LineReader", "TextReader", "CsvReader", "JsonLinesReader", "DEFAULT_INFER_ROWS",
           "DEFAULT_BATCH_SIZE", "DEFAULT_MAX_LINE_BYTES"]
