"""Errors of the text converters, with the place in the input they refer to."""
from pqkit.errors import ParquetError, SchemaError


def _where(line, offset, column):
    parts = []
    if line is not None:
        parts.append(f"line {line}")
    if offset is not None:
        parts.append(f"byte offset {offset}")
    if column is not None:
        parts.append(f"column {column!r}")
    return ", ".join(parts)


class TextFormatError(ParquetError, ValueError):
    """A CSV or JSON Lines input is malformed (bad quoting, invalid JSON or UTF-8, a line
    too long, a record with the wrong number of fields).

    Attributes
    ----------
    line : int or None
        1-based line number where the problem starts.
    offset : int or None
        Byte offset in the input of that line (or of the bad byte).
    """

    def __init__(self, message, line=None, offset=None):
        where = _where(line, offset, None)
        super().__init__(f"{where}: {message}" if where else message)
        self.line, self.offset = line, offset


class TextValueError(SchemaError):
    """A value of a CSV or JSON Lines input does not fit its column's type.

    Attributes
    ----------
    line : int or None
        1-based line number of the record that holds the value.
    column : str or None
        Column name; nested positions follow it, as in ``tags[2]`` or ``point['x']``.
    offset : int or None
        Byte offset of that record's first line.
    """

    def __init__(self, message, line=None, column=None, offset=None):
        where = _where(line, offset, column)
        super().__init__(f"{where}: {message}" if where else message)
        self.line, self.column, self.offset = line, column, offset


class ConversionError(ParquetError, ValueError):
    """A conversion cannot run as asked: an unknown format, an option that does not apply
    to the formats, an input that cannot be read the way it is given."""


__all__ = ["TextFormatError", "TextValueError", "ConversionError"]
