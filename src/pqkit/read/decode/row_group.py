"""One row group's column chunks -> a Table: the unit every reader of a file builds on.

:class:`RowGroupReader` knows a file's source, footer and Arrow schema. For a
row group and a selection of leaves it reads each chunk's byte range
(:func:`pqkit.chunk_range.chunk_range`), decodes its pages
(:class:`pqkit.read.decode.chunk.ColumnChunkReader`), assembles levels into validity
and offsets (:func:`pqkit.levels.assemble`), types the values
(:func:`pqkit.read.decode.leaf.leaf_column`), nests the leaves into top-level columns
(:class:`pqkit.read.decode.assemble.Nester`) and restores the recorded Arrow types.
:class:`pqkit.ParquetFile` reads whole row groups through it; the filtered
reader (:mod:`pqkit.read.prune.filtered`) decodes chosen pages of a chunk with
:meth:`RowGroupReader.read_pages` and then uses the same leaf and nesting steps.
"""
import copy

import numpy as np

from pqkit import datatypes as T
from pqkit.chunk_range import chunk_range, dictionary_header_padding, where_of
from pqkit.columnar.table import Table
from pqkit.errors import CorruptFileError
from pqkit.format import Type
from pqkit.levels import OPTIONAL, Assembly, NodeLayout, assemble
from pqkit.read.budget import ReadBudget
from pqkit.read.decode.arrow_restore import ArrowTypes
from pqkit.read.decode.assemble import Nester
from pqkit.read.decode.chunk import ChunkData, ColumnChunkReader, empty_values
from pqkit.read.decode.leaf import INT96_UNITS, leaf_column
from pqkit.read.decode.placed import placeable
from pqkit.read.decode.text_check import check_utf8, value_rows
from pqkit.read.decode.values import DictionaryValues, FixedValues
from pqkit.read.options import DEFAULT_OPTIONS
from pqkit.schema.logical import leaf_type

__all__ = ["RowGroupReader"]


def _path_repetitions(node):
    reps = []
    while node.parent is not None:
        reps.append(int(node.repetition))
        node = node.parent
    return reps[::-1]


def placed_leaf(node, placed, type_, where, row_of=int):
    """(assembly, typed leaf column) of a flat chunk decoded into its rows: one slot per
    row at every node of the path, the validity on its one OPTIONAL node. ``row_of(i)``
    is the row group's row number of slot ``i`` (for messages)."""
    n, validity = placed.num_entries, placed.validity
    nodes = tuple(NodeLayout(rep, n, validity if rep == OPTIONAL else None)
                  for rep in _path_repetitions(node))
    asm = Assembly(nodes, n, placed.num_values, None)
    own = validity if node.repetition == OPTIONAL else None
    values = FixedValues(placed.values) if placed.dictionary is None else \
        DictionaryValues(placed.values, placed.dictionary)
    if T.is_text_type(type_):
        # one value per row; a null row's index is a 0 that stands for nothing
        check_utf8(values, where, row_of, present=validity)
    return asm, leaf_column(type_, node.physical_type, values, None, own, n)


class RowGroupReader:
    """Decode row groups of one file.

    Parameters
    ----------
    source : pqkit.read.fetch.source.Source
        The file's bytes.
    metadata : pqkit.FileMetadata
        Its footer.
    verify_checksums : bool
        Check page CRCs where present.
    int96_unit : {"ns", "us", "ms", "s"}
        The unit INT96 timestamps are read in (nanoseconds wrap outside 1677-2262).
    options : pqkit.ReadOptions, optional
        Resource limits of the read.
    """

    def __init__(self, source, metadata, verify_checksums=True, int96_unit="ns",
                 options=DEFAULT_OPTIONS):
        if int96_unit not in INT96_UNITS:
            raise ValueError(f"coerce_int96_timestamp_unit must be one of {INT96_UNITS}, "
                             f"not {int96_unit!r}")
        self.int96_unit = int96_unit
        self.source = source
        self.metadata = metadata
        self.schema = metadata.schema
        self.verify_checksums = verify_checksums
        self.options = options
        self.arrow = ArrowTypes.from_metadata(metadata.key_value_metadata)
        # parquet-mr before 1.2.9 left the dictionary page header out of chunk sizes.
        self.pad = dictionary_header_padding(metadata.created_by)
        # A pqkit.ReadStatistics the reads count into, or None.
        self.stats = None
        # The ReadBudget of the read under way (for_read), or None: no total limit.
        self.budget = None

    def with_source(self, source):
        """A reader of the same file that takes its bytes from ``source``."""
        other = copy.copy(self)
        other.source = source
        return other

    def for_read(self):
        """A reader of the same file for one read, with a fresh
        :class:`~pqkit.read.budget.ReadBudget` (its total allocation limit)."""
        other = copy.copy(self)
        other.budget = ReadBudget(self.options)
        return other

    def restarted(self):
        """This reader for the same read started over (a single-threaded retry that
        finds the error a failed threaded read meant): its budget afresh, so the
        retry is not charged for the first attempt's work."""
        return self if self.budget is None else self.for_read()

    def _count_read(self, length):
        if self.budget is not None:
            self.budget.add_read(length)

    def with_statistics(self, stats):
        """A reader of the same file whose reads count into ``stats`` (a
        :class:`pqkit.ReadStatistics`, or None for no counting)."""
        if stats is self.stats:
            return self
        other = copy.copy(self)
        other.stats = stats
        return other

    def _count_whole(self, node, reader, length):
        if self.stats is not None:
            self.stats.add_column(node.dotted_path, chunks_whole=1, pages=reader.data_pages,
                                  pages_decoded=reader.data_pages, bytes_read=length)

    # --- one column chunk ---------------------------------------------------------------
    def column_chunk(self, g, node):
        """The ColumnChunk of leaf ``node`` in row group ``g``; an encrypted one only when
        the read has its key (:class:`pqkit.MissingKeyError` otherwise)."""
        chunk = self.metadata.checked_row_group(g).columns[node.column_index]
        if chunk.crypto_metadata is not None:
            self.decryptor(g, node)
        return chunk

    def decryptor(self, g, node):
        """The chunk's :class:`pqkit.crypto.ChunkDecryptor`, or None when it is plain."""
        return self.metadata.chunk_decryptor(g, node.column_index, where_of(node, g))

    def chunk_reader(self, g, node):
        md = self.column_chunk(g, node).meta_data
        return ColumnChunkReader(node, md.codec, md.num_values, where_of(node, g),
                                 self.verify_checksums, self.options,
                                 T.is_text_type(self.leaf_type(node)), self.budget,
                                 self.decryptor(g, node))

    def read_chunk(self, g, node):
        """The levels and values of a whole column chunk (:class:`ChunkData`)."""
        chunk = self.column_chunk(g, node)
        if chunk.meta_data.num_values == 0:
            return self.empty_chunk(node)          # some writers give no pages at all
        where = where_of(node, g)
        start, length = chunk_range(chunk, self.metadata.footer_offset, where, self.pad)
        reader = self.chunk_reader(g, node)
        self._count_read(length)
        data = reader.read(self.source.read_view(start, length), start)
        self._count_whole(node, reader, length)
        return data

    def read_pages(self, g, node, segments, placed=False):
        """Decode only some pages of a chunk (a :class:`ChunkData`): ``segments`` are
        (file offset, length) pairs of whole pages, the dictionary page first if the chunk
        has one. With ``placed``, a flat column the placed path takes comes back as a
        :class:`PlacedChunk` of those pages' rows instead."""
        pieces = self.source.read_many(segments)
        self._count_read(sum(length for _, length in segments))
        if self.stats is not None:
            self.stats.add(bytes_read=sum(length for _, length in segments))
        data = list(zip(pieces, (offset for offset, _ in segments)))
        reader = self.chunk_reader(g, node)
        if placed and placeable(node, self.leaf_type(node)):
            rows = reader.read_pages_placed(data)
            if rows is not None:
                return rows
        return reader.read_pages(data)

    def read_dictionary(self, g, node, segment):
        """The dictionary values (FixedValues or BinaryValues) of the page in ``segment``,
        a (file offset, length) pair, of leaf ``node`` in row group ``g``; None when the
        bytes hold no dictionary page."""
        offset, length = segment
        self._count_read(length)
        return self.chunk_reader(g, node).read_dictionary(self.source.read(offset, length),
                                                          offset)

    @staticmethod
    def empty_chunk(node):
        return ChunkData(np.zeros(0, np.int16), np.zeros(0, np.int16), 0,
                         empty_values(node.physical_type, node.element.type_length))

    # --- leaves and nesting ----------------------------------------------------------------
    def leaf(self, node, chunk, where, rows=None):
        """(assembled levels, typed leaf column) of one decoded chunk; ``rows``, when the
        chunk holds some rows of the row group only, returns their numbers (for messages)."""
        asm = assemble(chunk.def_levels, chunk.rep_levels, _path_repetitions(node),
                       chunk.num_entries, where=where)
        if asm.num_values != len(chunk.values):
            raise CorruptFileError(f"{where}: definition levels call for {asm.num_values} "
                                   f"values but the pages hold {len(chunk.values)}")
        # No value mask: every slot holds a value, so an all-true mask would only cost
        # later passes (null counts, null filling, index checks).
        validity = asm.leaf.validity if node.repetition == OPTIONAL and \
            asm.value_mask is not None else None
        type_ = self.leaf_type(node)
        if T.is_text_type(type_):
            check_utf8(chunk.values, where,
                       value_rows(chunk, node.max_definition_level, rows))
        col = leaf_column(type_, node.physical_type, chunk.values,
                          asm.value_mask, validity, asm.leaf.length)
        return asm, col

    def leaf_type(self, node):
        """The data type leaf ``node`` is read as (INT96 timestamps in the read's unit,
        text as binary with ``ReadOptions.strings_as_binary``)."""
        type_ = leaf_type(node)
        if node.physical_type == Type.INT96 and isinstance(type_, T.TimestampType):
            type_ = T.timestamp(self.int96_unit)
        elif self.options.strings_as_binary and T.is_text_type(type_):
            type_ = T.binary()
        return type_

    def nest_one(self, top, leaves):
        """(field, column) of top-level node ``top`` from its leaves, Arrow types restored."""
        f, col = Nester(leaves).field(top, 0)
        return self.arrow.restore(f, col)

    def nest(self, tops, leaves, num_rows):
        """A Table of the top-level nodes ``tops``; ``num_rows`` is its row count when
        ``tops`` is empty (a selection of no column)."""
        fields, cols = [], []
        for top in tops:
            f, col = self.nest_one(top, leaves)
            fields.append(f)
            cols.append(col)
        return Table(cols, fields, self.metadata.key_value_metadata,
                     num_rows=None if cols else num_rows)

    # --- whole row groups --------------------------------------------------------------------
    def read(self, g, tops, wanted):
        """Row group ``g`` as a Table of the top-level nodes ``tops``, decoding the leaves
        whose paths are in ``wanted``."""
        leaves = {node.path: self.decode_leaf(g, node)
                  for node in self.schema.columns if node.path in wanted}
        return self.group_table(g, tops, leaves)

    def decode_leaf(self, g, node):
        """(assembled levels, typed leaf column) of leaf ``node`` in row group ``g``: the
        unit of work :func:`pqkit.read.decode.selected_rows.read_selections` runs on
        several threads."""
        type_ = self.leaf_type(node)
        chunk = self.column_chunk(g, node)
        if placeable(node, type_) and chunk.meta_data.num_values != 0:
            # One read of the chunk's bytes and one walk of its pages serve both
            # paths: a chunk the placed path gives back goes to the general one.
            where = where_of(node, g)
            start, length = chunk_range(chunk, self.metadata.footer_offset, where, self.pad)
            reader = self.chunk_reader(g, node)
            data = self.source.read_view(start, length)
            self._count_read(length)
            placed = reader.read_placed(data, start)
            self._count_whole(node, reader, length)
            if placed is not None:
                return placed_leaf(node, placed, type_, where)
            return self.leaf(node, reader.read(data, start), where)
        return self.leaf(node, self.read_chunk(g, node), where_of(node, g))

    def read_placed(self, g, node):
        """A flat fixed-width or dictionary-string chunk decoded into its rows
        (:mod:`pqkit.read.decode.placed`), or None when it needs the general path."""
        chunk = self.column_chunk(g, node)
        if chunk.meta_data.num_values == 0:
            return None
        start, length = chunk_range(chunk, self.metadata.footer_offset, where_of(node, g),
                                    self.pad)
        self._count_read(length)
        return self.chunk_reader(g, node).read_placed(self.source.read_view(start, length),
                                                      start)

    def group_table(self, g, tops, leaves):
        """Row group ``g``'s Table from its decoded leaves (``{path: decode_leaf(...)}``)."""
        rows = self.metadata.checked_row_group(g).num_rows
        table = self.nest(tops, leaves, rows)
        if table.num_rows != rows:
            raise CorruptFileError(f"row group {g} declares {rows} rows but its columns "
                                   f"hold {table.num_rows}")
        return table

    def empty(self, tops, wanted):
        """A Table of no rows with the schema a read of ``tops``/``wanted`` gives."""
        leaves = {node.path: self.leaf(node, self.empty_chunk(node),
                                       f"column {node.dotted_path}")
                  for node in self.schema.columns if node.path in wanted}
        return self.nest(tops, leaves, 0)
