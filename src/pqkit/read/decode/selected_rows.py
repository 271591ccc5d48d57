"""Decoding the rows of a :class:`RowSelection`: the one road of filtered reads, ``take``
and anything else that reads some rows of a row group.

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
from pqkit.read.decode.records import keep_records
from pqkit.read.fetch.page_index import read_offset_index
from pqkit.threads import map_ordered

__all__ = ["read_selected", "leaf_reads"]


def read_selected(reader, g, tops, wanted, selection, use_threads=True):
    """A Table of exactly the rows of ``selection`` (over row group ``g``) of the
    top-level nodes ``tops`` and leaf paths ``wanted``, columns decoded on the worker
    threads with ``use_threads``."""
    stats = reader.stats
    if stats is not None:
        stats.add(rows_selected=selection.count)
    columns = [(top, [n for n in reader.schema.columns
                      if n.path[0] == top.name and n.path in wanted]) for top in tops]
    try:
        pairs = map_ordered(lambda c: _read_top(reader, g, c[0], c[1], selection), columns,
                            use_threads)
    except ParquetError:
        if not use_threads:
            raise
        # The error a single-threaded read raises first, whichever worker failed first.
        reader = reader.restarted()
        pairs = [_read_top(reader, g, top, nodes, selection) for top, nodes in columns]
    return Table([c for _, c in pairs], [f for f, _ in pairs],
                 reader.metadata.key_value_metadata,
                 num_rows=None if pairs else selection.count)


def _read_top(reader, g, top, nodes, selection):
    """(field, column) of top-level node ``top`` holding the selected rows."""
    if selection.is_all():
        return _whole(reader, g, top, nodes, selection)
    if selection.is_empty():
        return reader.nest_one(top, {n.path: reader.leaf(n, reader.empty_chunk(n),
                                                         where_of(n, g)) for n in nodes})
    plans = _page_plans(reader, g, nodes, selection)
    if plans is not None:
        try:
            leaves = {n.path: _paged_leaf(reader, g, n, selection, plans[n.path])
                      for n in nodes}
        except EncodingError:
            pass            # a page starts inside a record: this column is read whole
        else:
            return reader.nest_one(top, leaves)
    f, col = _whole(reader, g, top, nodes, selection)
    return f, col.take(selection.rows())


def _whole(reader, g, top, nodes, selection):
    """(field, column) of top-level node ``top`` over the whole row group, which must
    hold the rows the row group declares (the selection's rows index into it)."""
    f, col = reader.nest_one(top, {n.path: reader.decode_leaf(g, n) for n in nodes})
    if len(col) != selection.num_rows:
        raise CorruptFileError(f"row group {g} declares {selection.num_rows} rows but "
                               f"column {top.name} holds {len(col)}")
    return f, col


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
                               reader.pad)
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
    data = reader.read_pages(g, node, segments)
    ends = np.append(firsts[1:], reader.metadata.checked_row_group(g).num_rows)
    spanned = int((ends[pages] - firsts[pages]).sum())
    data = keep_records(data, selection.positions_in(firsts, pages),
                        node.max_definition_level, where, expected=spanned)
    if reader.stats is not None:
        reader.stats.add_column(node.dotted_path, chunks_paged=1, pages=len(locs),
                                pages_decoded=len(pages),
                                pages_skipped=len(locs) - len(pages))
    return reader.leaf(node, data, where, rows=selection.rows)
