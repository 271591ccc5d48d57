"""Record batches of a fixed size over a file's row groups, and their Arrow stream.

Row groups rarely hold a multiple of the batch size, so a batch may take its
rows from two (or more) row groups. With row groups of 5 and 4 rows and
``batch_size=3`` the batches are::

    row group 0: r0 r1 r2 | r3 r4 ...      batches: [r0 r1 r2] [r3 r4 s0]
    row group 1: ... s0 | s1 s2 s3                  [s1 s2 s3]

as pyarrow's ``ParquetFile.iter_batches`` gives them: every batch but the last
has exactly ``batch_size`` rows. Only one row group is decoded at a time; the
few rows it leaves over for the next batch are copied, so that the row group's
buffers are freed once its batches are, and memory stays about one row group.
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar import arrow_export
from pqkit.columnar.column import concat_columns
from pqkit.columnar.nested import DictionaryColumn
from pqkit.columnar.table import Table
from pqkit.errors import SchemaError
from pqkit.memory import pooled_buffers

__all__ = ["BatchReader", "concat_row_groups", "row_group_stream"]


def concat_row_groups(tables):
    """Concatenate row-group tables; a column dictionary-encoded in some row groups only
    is decoded so that all pieces share one type."""
    first = tables[0]
    if len(tables) == 1:
        return first
    cols, fields = [], []
    for j, f in enumerate(first.schema):
        pieces = [t.columns[j] for t in tables]
        if any(p.type != pieces[0].type or type(p) is not type(pieces[0]) for p in pieces):
            pieces = [p.decode() if isinstance(p, DictionaryColumn) else p for p in pieces]
            f = T.Field(f.name, pieces[0].type, f.nullable, f.metadata)
        cols.append(concat_columns(pieces))
        fields.append(f)
    return Table(cols, fields, first.metadata,
                 num_rows=None if cols else sum(t.num_rows for t in tables))


def row_group_stream(tables, empty, string_view=False):
    """An Arrow stream producer of decoded row-group ``tables``, one batch each, with
    the fields of ``empty`` (a Table of no rows of the selection)."""
    batches = [(_conform(t, empty.schema).columns, t.num_rows) for t in tables if t.num_rows]
    return arrow_export.TableStream(empty.schema, batches, empty.metadata, string_view)


def _conform(table, fields):
    """``table`` with the column types of ``fields`` (the stream's schema): a row group
    read as dictionary where the schema has plain values is decoded."""
    cols = table.columns
    if all(c.type == f.type for c, f in zip(cols, fields)):
        return table
    out = []
    for c, f in zip(cols, fields):
        if c.type != f.type and isinstance(c, DictionaryColumn):
            c = c.decode()
        if c.type != f.type:
            raise SchemaError(f"column {f.name!r} reads as {c.type} in one row group and "
                              f"as {f.type} in others")
        out.append(c)
    return Table(out, fields, table.metadata, num_rows=None if out else table.num_rows)


class BatchReader:
    """Batches of ``batch_size`` rows of a file, read one row group at a time.

    What :meth:`pqkit.ParquetFile.iter_batches` returns: iterate it for
    :class:`pqkit.Table` batches, or hand it to any consumer of the Arrow PyCapsule
    stream interface (``duckdb.sql("select count(*) from reader")``,
    ``polars.DataFrame(reader)``, ``pyarrow.RecordBatchReader.from_stream(reader)``),
    which then pulls the batches through pqkit one by one. Either way it can be
    consumed once.

    Parameters
    ----------
    read_group : callable
        Row group number -> Table of its selected (and filtered) rows, or None.
    groups : iterable of int
        The row groups to read, in order.
    empty : Table
        A Table of no rows with the selection's fields.
    batch_size : int or None
        None: one batch per row group (what it holds after filtering), which
        keeps memory to one row group whatever its size.

    Attributes
    ----------
    schema : list of Field
        The fields every batch has.
    """

    def __init__(self, read_group, groups, empty, batch_size):
        self._read_group = read_group
        self._groups = list(groups)
        self._empty = empty
        self.schema = empty.schema
        self._metadata = empty.metadata
        self._batch_size = batch_size
        self._batches = self._generate()
        self._started = False

    def __iter__(self):
        return self

    def __next__(self):
        self._started = True
        return next(self._batches)

    def _tables(self):
        for g in self._groups:
            with pooled_buffers():      # not across the yields: that would leak it
                table = self._read_group(g)
            if table is not None and table.num_rows:
                yield _conform(table, self.schema)

    def _generate(self):
        size = self._batch_size
        if size is None:
            yield from self._tables()
            return
        pending, rows = [], 0
        for table in self._tables():
            while rows + table.num_rows >= size:
                need = size - rows
                head = table.slice(0, need)
                yield concat_row_groups(pending + [head]) if pending else head
                pending, rows = [], 0
                table = table.slice(need)
            if table.num_rows:
                # a copy, so the row group's buffers go when its batches do
                pending.append(table.take(np.arange(table.num_rows)))
                rows += table.num_rows
        if pending:
            yield concat_row_groups(pending)

    def __arrow_c_stream__(self, requested_schema=None):
        """An ``arrow_array_stream`` PyCapsule that decodes as the consumer reads;
        ``requested_schema`` is ignored."""
        if self._started:
            raise SchemaError("this BatchReader was already (partly) consumed; call "
                              "iter_batches() again for a new stream")
        self._started = True
        parts = ((t.columns, t.num_rows) for t in self._batches)
        return arrow_export.stream_capsule(self.schema, parts, self._metadata)

    def __arrow_c_schema__(self):
        """An ``arrow_schema`` PyCapsule of the batches' fields."""
        return arrow_export.table_schema_capsule(self.schema, self._metadata)

    def read_all(self):
        """The remaining batches as one Table."""
        tables = list(self)
        return concat_row_groups(tables) if tables else self._empty

    def __repr__(self):
        size = "one per row group" if self._batch_size is None else \
            f"of {self._batch_size} rows"
        return f"<pqkit BatchReader {len(self._groups)} row groups, batches {size}>"
