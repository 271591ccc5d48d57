"""Decoding the rows of a :class:`RowSelection`: the one road of every read of row
groups: plain reads and batches (every row), filtered reads, ``take``.

For each top-level column, every leaf maps the selection through its chunk's
OffsetIndex to the pages holding selected rows (:meth:`RowSelection.pages`), decodes
those pages with the dictionary page, and keeps the records of the selected rows
(:func:`pqkit.read.decode.records.keep_records`), so that leaves whose pages break at
different rows still describe the same rows when nested. A column whose leaves lack an
OffsetIndex, whose selection needs every page anyway, or whose pages start inside a
record (old parquet-mr v1 pages) is decoded whole, on the fast path where it applies,
and the selected rows taken from it.

Every page location used is checked against the chunk's byte range (where the
OffsetIndex is read, :func:`pqkit.read.fetch.page_index.read_offset_index`), and the pages
decoded must hold exactly the rows their ``first_row_index`` entries give: an
OffsetIndex that lies raises :class:`pqkit.CorruptFileError` instead of placing
values in the wrong rows.
"""
import numpy as np

from pqkit.chunk_range import dictionary_segment, where_of
from pqkit.columnar.table import Table
from pqkit.errors import CorruptFileError, EncodingError, ParquetError
from pqkit.read.decode.placed import PlacedChunk
from pqkit.read.decode.records import keep_records, keep_rows
from pqkit.read.decode.row_group import placed_leaf
from pqkit.read.fetch.page_index import read_offset_index
from pqkit.threads import map_ordered

__all__ = ["read_selections", "read_selected", "leaf_reads"]


def read_selections(reader, picks, tops, wanted, use_threads=True):
    """One Table per ``(g, selection)`` pair of ``picks``: exactly the rows of the
    :class:`RowSelection` ``selection`` of row group ``g``, of the top-level nodes
    ``tops`` and leaf paths ``wanted``.

    Every leaf chunk of every pick is one task on the worker threads (with
    ``use_threads``): its pages read, decompressed, decoded and typed. Which pages a leaf
    needs is planned first, and nesting the leaves into columns stays in the calling
    thread, so the Tables are the ones a single-threaded read builds; a read that fails
    is done again in the calling thread, so the error raised is the one a
    single-threaded read raises first."""
    picks = list(picks)
    for g, _ in picks:
        # Decode and check each row group's footer part here, not in racing workers.
        reader.metadata.checked_row_group(g)
    columns = [(top, [n for n in reader.schema.columns
                      if n.path[0] == top.name and n.path in wanted]) for top in tops]
    jobs = [[_TopRead(reader, g, top, nodes, selection) for top, nodes in columns]
            for g, selection in picks]
    tasks = [(job, node) for row in jobs for job in row for node in job.nodes]
    try:
        leaves = iter(map_ordered(lambda task: task[0].leaf(task[1]), tasks, use_threads))
    except ParquetError:
        if not use_threads:
            raise
        # The error a single-threaded read raises first, whichever worker failed first,
        # with the read's allocation budget afresh.
        return read_selections(reader.restarted(), picks, tops, wanted, use_threads=False)
    stats = reader.stats
    tables = []
    for (g, selection), row in zip(picks, jobs):
        if stats is not None:
            stats.add(rows_selected=selection.count)
        pairs = [job.column({n.path: next(leaves) for n in job.nodes}) for job in row]
        tables.append(Table([c for _, c in pairs], [f for f, _ in pairs],
                            reader.metadata.key_value_metadata,
                            num_rows=None if pairs else selection.count))
    return tables


def read_selected(reader, g, tops, wanted, selection, use_threads=True):
    """The Table of one pick of :func:`read_selections`: the rows of ``selection`` of
    row group ``g``."""
    return read_selections(reader, [(g, selection)], tops, wanted, use_threads)[0]


class _TopRead:
    """How one top-level column of one row group is read for a selection: its leaves
    decoded whole (the selected rows taken after nesting), from the pages holding the
    selected rows, or not at all (an empty selection)."""

    __slots__ = ("reader", "g", "top", "nodes", "selection", "plans")

    def __init__(self, reader, g, top, nodes, selection):
        self.reader, self.g, self.top, self.nodes = reader, g, top, nodes
        self.selection = selection
        self.plans = None if selection.is_all() or selection.is_empty() else \
            _page_plans(reader, g, nodes, selection)

    def leaf(self, node):
        """The (levels, typed column) of leaf ``node``: the work of one thread task.
        _UNPAGED when its chosen pages start inside a record."""
        reader = self.reader
        if self.selection.is_empty():
            return reader.leaf(node, reader.empty_chunk(node), where_of(node, self.g))
        if self.plans is None:
            return reader.decode_leaf(self.g, node)
        try:
            return _paged_leaf(reader, self.g, node, self.selection, self.plans[node.path])
        except EncodingError:
            return _UNPAGED

    def column(self, leaves):
        """(field, column) of the top-level node from the leaves :meth:`leaf` gave."""
        reader, selection = self.reader, self.selection
        if any(leaf is _UNPAGED for leaf in leaves.values()):
            # Old parquet-mr v1 pages may start inside a record: read this column whole.
            self.plans = None
            leaves = {n.path: reader.decode_leaf(self.g, n) for n in self.nodes}
        f, col = reader.nest_one(self.top, leaves)
        if self.plans is not None or selection.is_empty():
            return f, col
        if len(col) != selection.num_rows:
            raise CorruptFileError(f"row group {self.g} declares {selection.num_rows} rows "
                                   f"but column {self.top.name} holds {len(col)}")
        return (f, col) if selection.is_all() else (f, col.take(selection.rows()))


_UNPAGED = object()


def leaf_reads(reader, g, nodes, selection):
    """What reading the leaves ``nodes`` of one top-level column for ``selection`` will
    decode, without decoding: ``{leaf path: None}`` for a chunk decoded whole or
    ``{leaf path: [data page numbers]}``; empty when nothing is read. ``pqinspect
    explain`` reports this, so it names what the read does."""
    if selection.is_empty():
        return {}
    plans = None if selection.is_all() else _page_plans(reader, g, nodes, selection)
    if plans is None:
        return {n.path: None for n in nodes}
    return {path: pages.tolist() for path, (_, _, pages) in plans.items()}


def _page_plans(reader, g, nodes, selection):
    """{leaf path: (first rows, page locations, pages to decode)} when every leaf has an
    OffsetIndex and some leaf can skip pages; None when the column is read whole."""
    plans, skips = {}, False
    for node in nodes:
        chunk = reader.column_chunk(g, node)
        if chunk.meta_data is None or chunk.meta_data.num_values == 0:
            return None
        where = where_of(node, g)
        oi = read_offset_index(reader.source, chunk, reader.metadata.footer_offset, where,
                               reader.pad, reader.decryptor(g, node))
        if oi is None or not oi.page_locations:
            return None
        locs = oi.page_locations
        firsts = np.array([loc.first_row_index for loc in locs], np.int64)
        pages = selection.pages(firsts)
        skips |= len(pages) < len(locs)
        plans[node.path] = (firsts, locs, pages)
    return plans if skips else None


def _paged_leaf(reader, g, node, selection, plan):
    """(levels, column) of leaf ``node`` holding the selected rows, from its chosen pages."""
    firsts, locs, pages = plan
    where = where_of(node, g)
    meta = reader.column_chunk(g, node).meta_data
    dictionary = dictionary_segment(meta, locs[0].offset)
    segments = [dictionary] if dictionary else []
    segments += [(locs[i].offset, locs[i].compressed_page_size) for i in pages]
    data = reader.read_pages(g, node, segments, placed=True)
    ends = np.append(firsts[1:], reader.metadata.checked_row_group(g).num_rows)
    spanned = int((ends[pages] - firsts[pages]).sum())
    positions = selection.positions_in(firsts, pages)
    if reader.stats is not None:
        reader.stats.add_column(node.dotted_path, chunks_paged=1, pages=len(locs),
                                pages_decoded=len(pages),
                                pages_skipped=len(locs) - len(pages))
    if isinstance(data, PlacedChunk):
        return placed_leaf(node, keep_rows(data, positions, where, spanned),
                           reader.leaf_type(node), where,
                           lambda i: int(selection.rows()[i]))
    data = keep_records(data, positions, node.max_definition_level, where, expected=spanned)
    return reader.leaf(node, data, where, rows=selection.rows)
