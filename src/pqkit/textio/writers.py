"""CSV and JSON Lines writers: pqkit Tables in, UTF-8 text out, batch by batch.

Values are rendered as :mod:`pqkit.textio.render` describes (ISO-8601 temporal
values, timestamps with a time zone as UTC instants with ``Z``, base64 bytes,
decimals as strings, nested values as JSON); a :class:`~pqkit.textio.render.TextStyle`
changes the spellings it offers a choice of. Lines end with ``\\n``. A CSV field is
quoted (``"``, inner quotes doubled) when it holds the delimiter, a quote, ``\\r`` or
``\\n``; the standard ``csv`` writer leaves a lone ``\\r`` unquoted when lines end in
``\\n``, which its own reader then refuses, so the quoting is done here
(:class:`CsvLines`, which ``pqinspect cat --format csv`` uses too). A CSV null is an
empty field (or ``null_text``); an empty string is written as an empty field too, so
without a ``null_text`` the two read back alike, as null. A row whose only field is
empty is written ``""`` so that it is not a blank line.
"""
import re

from pqkit.errors import EncodingError, SchemaError
from pqkit.textio.render import DEFAULT_STYLE, JSON_TEXT, csv_texts, json_values


class CsvLines:
    """CSV text of rows of field texts, quoted as the module describes.

    Parameters
    ----------
    delimiter : str, default ","
        One character other than a quote or a line break.
    null_text : str, optional
        Given, a row may hold None for a null, written as ``null_text`` unquoted, while a
        string that would read the same (empty, or equal to ``null_text``) is quoted, so
        that nulls and strings stay apart. ``null_text`` must need no quoting itself.

    Examples
    --------
    >>> CsvLines().text([["a", "b,c"], [""], ['say "hi" now', "x\\ry"]])
    'a,"b,c"\\n""\\n"say ""hi"" now","x\\ry"\\n'
    >>> CsvLines(null_text="").text([[None, "", "x"]])
    ',"",x\\n'
    """

    def __init__(self, delimiter=",", null_text=None):
        if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '"\r\n':
            raise SchemaError(f"the CSV delimiter must be one character other than a quote "
                              f"or a line break, not {delimiter!r}")
        self.delimiter = delimiter
        self._special = re.compile(f"[{re.escape(delimiter)}\"\r\n]")
        if null_text is not None and (not isinstance(null_text, str)
                                      or self._special.search(null_text)):
            raise SchemaError(f"the CSV null text must be a str without the delimiter, a "
                              f"quote or a line break, not {null_text!r}")
        self.null_text = null_text
        self._reads_as_null = set() if null_text is None else {"", null_text}

    def _quote(self, text):
        if text is None and self.null_text is not None:
            return self.null_text
        if self._special.search(text) is None and text not in self._reads_as_null:
            return text
        return '"' + text.replace('"', '""') + '"'

    def text(self, rows):
        """The lines of ``rows`` (iterables of str), each ending in ``\\n``."""
        quote, delimiter = self._quote, self.delimiter
        lines = []
        for row in rows:
            row = list(row)
            line = delimiter.join(map(quote, row))
            # a lone empty string is quoted, not a blank line (a lone null with an empty
            # null_text is one: nothing else could stand for it)
            lines.append(line if line or len(row) != 1 or row[0] is None else '""')
        lines.append("")
        return "\n".join(lines) if len(lines) > 1 else ""


class CsvWriter:
    """Write Tables as CSV to a binary stream.

    Parameters
    ----------
    stream : binary file object
    fields : list of pqkit Field
        The columns; their names make the header.
    delimiter : str, default ","
    header : bool, default True
        Write the column names as the first line.
    null_text : str, default ""
        The text of a null field.
    style : pqkit.textio.render.TextStyle, optional
        Spelling choices (binary as base64 or hex, zoned timestamps in UTC or local
        time, invalid UTF-8 refused or replaced); the default reads back unchanged.

    Examples
    --------
    >>> with open("out.csv", "wb") as f:                       # doctest: +SKIP
    ...     w = CsvWriter(f, table.schema)
    ...     w.write(table)
    ...     w.close()
    """

    def __init__(self, stream, fields, *, delimiter=",", header=True, null_text="",
                 style=DEFAULT_STYLE):
        self._lines = CsvLines(delimiter)
        self.stream = stream
        self.fields = list(fields)
        self.null_text = null_text
        self.delimiter = delimiter
        self.style = style
        self._rows_written = 0
        if header:
            self.stream.write(self._lines.text([[f.name for f in self.fields]]).encode("utf-8"))

    def write(self, table):
        """Append the rows of a Table with the writer's columns."""
        _check_names(table, self.fields)
        if not table.num_rows:
            return
        if not table.num_columns:
            self.stream.write(b"\n" * table.num_rows)
        else:
            columns = _rendered(table, self._rows_written, lambda column: csv_texts(
                column, self.null_text, self.style))
            self.stream.write(self._lines.text(zip(*columns)).encode("utf-8"))
        self._rows_written += table.num_rows

    def close(self):
        """Nothing is buffered; kept for symmetry with the other writers."""


class JsonLinesWriter:
    """Write Tables as JSON Lines (one object per row) to a binary stream.

    Parameters
    ----------
    stream : binary file object
    fields : list of pqkit Field
    style : pqkit.textio.render.TextStyle, optional
        Spelling choices, as for :class:`CsvWriter`.
    """

    def __init__(self, stream, fields, *, style=DEFAULT_STYLE):
        self.stream = stream
        self.fields = list(fields)
        self.style = style
        self._rows_written = 0

    def write(self, table):
        """Append the rows of a Table with the writer's columns."""
        _check_names(table, self.fields)
        names = table.column_names
        if not names:
            lines = ["{}"] * table.num_rows
        else:
            columns = _rendered(table, self._rows_written,
                                lambda column: json_values(column, self.style))
            lines = [JSON_TEXT(dict(zip(names, row))) for row in zip(*columns)]
        if lines:
            lines.append("")
            self.stream.write("\n".join(lines).encode("utf-8"))
        self._rows_written += table.num_rows

    def close(self):
        """Nothing is buffered; kept for symmetry with the other writers."""


def _rendered(table, first_row, render):
    """``render`` of each column; invalid UTF-8 is reported with the column's name and
    where the batch starts (the row the error names counts from there)."""
    out = []
    for name, column in zip(table.column_names, table.columns):
        try:
            out.append(render(column))
        except EncodingError as exc:
            raise EncodingError(f"column {name!r}, batch starting at output row "
                                f"{first_row}: {exc}") from None
    return out


def _check_names(table, fields):
    names = [f.name for f in fields]
    if table.column_names != names:
        raise SchemaError(f"table columns {table.column_names} do not match the writer's "
                          f"columns {names}")


__all__ = ["CsvLines", "CsvWriter", "JsonLinesWriter"]
