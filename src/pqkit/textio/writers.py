"""CSV and JSON Lines writers: pqkit Tables in, UTF-8 text out, batch by batch.

Values are rendered as :mod:`pqkit.textio.render` describes (ISO-8601 temporal
values, base64 bytes, decimals as strings, nested values as JSON). Lines end
with ``\\n``. A CSV field is quoted (``"``, inner quotes doubled) when it holds the
delimiter, a quote, ``\\r`` or ``\\n``; the standard ``csv`` writer leaves a lone
``\\r`` unquoted when lines end in ``\\n``, which its own reader then refuses, so
the quoting is done here. A CSV null is an empty field (or ``null_text``); an
empty string is written as an empty field too, so without a ``null_text`` the
two read back alike, as null. A row whose only field is empty is written
``""`` so that it is not a blank line.
"""
import re

from ..errors import SchemaError
from .render import JSON_TEXT, csv_texts, json_values


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

    Examples
    --------
    >>> with open("out.csv", "wb") as f:                       # doctest: +SKIP
    ...     w = CsvWriter(f, table.schema)
    ...     w.write(table)
    ...     w.close()
    """

    def __init__(self, stream, fields, *, delimiter=",", header=True, null_text=""):
        if not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in '"\r\n':
            raise SchemaError(f"the CSV delimiter must be one character other than a quote "
                              f"or a line break, not {delimiter!r}")
        self.stream = stream
        self.fields = list(fields)
        self.null_text = null_text
        self.delimiter = delimiter
        self._special = re.compile(f"[{re.escape(delimiter)}\"\r\n]")
        if header:
            self._write_rows([[f.name for f in self.fields]])

    def _quote(self, text):
        if self._special.search(text) is None:
            return text
        return '"' + text.replace('"', '""') + '"'

    def _write_rows(self, rows):
        quote, delimiter = self._quote, self.delimiter
        lines = []
        for row in rows:
            line = delimiter.join(map(quote, row))
            lines.append(line if line or len(row) != 1 else '""')
        lines.append("")
        self.stream.write("\n".join(lines).encode("utf-8"))

    def write(self, table):
        """Append the rows of a Table with the writer's columns."""
        _check_names(table, self.fields)
        if not table.num_rows:
            return
        if not table.num_columns:
            self.stream.write(b"\n" * table.num_rows)
            return
        self._write_rows(zip(*[csv_texts(c, self.null_text) for c in table.columns]))

    def close(self):
        """Nothing is buffered; kept for symmetry with the other writers."""


class JsonLinesWriter:
    """Write Tables as JSON Lines (one object per row) to a binary stream.

    Parameters
    ----------
    stream : binary file object
    fields : list of pqkit Field
    """

    def __init__(self, stream, fields):
        self.stream = stream
        self.fields = list(fields)

    def write(self, table):
        """Append the rows of a Table with the writer's columns."""
        _check_names(table, self.fields)
        names = table.column_names
        if not names:
            lines = ["{}"] * table.num_rows
        else:
            columns = [json_values(c) for c in table.columns]
            lines = [JSON_TEXT(dict(zip(names, row))) for row in zip(*columns)]
        if lines:
            lines.append("")
            self.stream.write("\n".join(lines).encode("utf-8"))

    def close(self):
        """Nothing is buffered; kept for symmetry with the other writers."""


def _check_names(table, fields):
    names = [f.name for f in fields]
    if table.column_names != names:
        raise SchemaError(f"table columns {table.column_names} do not match the writer's "
                          f"columns {names}")


__all__ = ["CsvWriter", "JsonLinesWriter"]
