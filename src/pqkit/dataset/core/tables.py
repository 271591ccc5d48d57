"""Tables on their way into a data file, for every format pqkit writes.

The data a user hands over becomes a pqkit Table (:func:`as_table`), loses its
dictionary encodings (:func:`plain_table`: a dataset stores values) and is cast
to the dataset's fields (:func:`cast_to_fields`); :func:`new_writer` opens the
Parquet writer on a :class:`HashingSink`, which counts and hashes the bytes as
they are written.
"""
import hashlib

from pqkit import datatypes as T
from pqkit.columnar.nested import DictionaryColumn
from pqkit.columnar.table import Table
from pqkit.convert import column_from_values, table_from_data
from pqkit.errors import SchemaError
from pqkit.write.file import ParquetWriter


class HashingSink:
    """The binary sink the writer sees: bytes go to the file and into a sha256."""

    def __init__(self, f):
        self.f = f
        self.hash = hashlib.sha256()
        self.size = 0

    def write(self, data):
        self.f.write(data)
        self.hash.update(data)
        self.size += len(data)
        return len(data)


def new_writer(sink, fields, options):
    """A ParquetWriter on ``sink``; an unknown writer option is the caller's SchemaError."""
    try:
        return ParquetWriter(sink, fields, **options)
    except TypeError as exc:
        raise SchemaError(f"bad writer option: {exc}") from None


def plain_table(table):
    """``table`` with dictionary columns decoded: a dataset stores values, not dictionaries."""
    cols, fields = [], []
    for f, col in zip(table.schema, table.columns):
        if isinstance(col, DictionaryColumn):
            col = col.decode()
            f = T.Field(f.name, col.type, f.nullable, f.metadata)
        cols.append(col)
        fields.append(f)
    return Table(cols, fields, table.metadata)


def as_table(data):
    """A pqkit Table of ``data``: a Table, a dict of columns, a pandas DataFrame, or any
    producer of the Arrow PyCapsule interface (pyarrow, polars, DuckDB, ...)."""
    if isinstance(data, Table):
        return data
    if _arrow_producer(data):
        return Table.from_arrow(data)
    try:
        return table_from_data(data)
    except SchemaError:
        raise
    except (TypeError, ValueError, OverflowError) as exc:   # user data that is not tabular
        raise SchemaError(f"cannot make a table of the data: {exc}") from None


def _arrow_producer(data):
    # A pandas frame may export Arrow too, but its own path keeps the pandas metadata.
    return (hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__")) and \
        not isinstance(data, dict) and not type(data).__module__.startswith("pandas")


def cast_to_fields(table, fields):
    """The table's columns converted to ``fields``' types (SchemaError if one does not fit)."""
    cols = []
    for f, col in zip(fields, table.columns):
        if col.type != f.type:
            try:
                col = column_from_values(col, f.type)
            except SchemaError as exc:
                raise SchemaError(f"column {f.name!r} ({col.type}) does not fit the dataset's "
                                  f"type {f.type}: {exc}") from None
        if not f.nullable and col.null_count:
            raise SchemaError(f"column {f.name!r} is not nullable in the dataset but holds "
                              f"{col.null_count} nulls")
        cols.append(col)
    return Table(cols, fields)
