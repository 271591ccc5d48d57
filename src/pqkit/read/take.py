"""Reading chosen rows by number, decoding only the pages that hold them.

A chunk's OffsetIndex gives each data page's first row (``first_row_index``), so
the page holding row ``r`` is the last one starting at or before ``r``. For the
rows asked for, each leaf decodes those pages (plus its dictionary page) and
nothing else; a chunk without an OffsetIndex is decoded whole.

The leaves of one top-level column must describe the same rows before they can
be nested, but their pages need not break at the same rows. So each leaf decodes
the pages holding the rows and then keeps only the records of those rows
(:func:`pqkit.read.decode.records.keep_records`). Example with two leaves, rows 0-99::

    leaf a pages: [0, 40) [40, 80) [80, 100)     take rows 45 and 90
    leaf b pages: [0, 50) [50, 100)
    a decodes [40, 80) and [80, 100), keeps records 5 and 50 of those 60 rows
    b decodes [0, 50) and [50, 100), keeps records 45 and 90

A v1 page may begin inside the previous page's record (old parquet-mr); such a
chunk cannot be decoded from the middle, so that column is read whole.
"""
import bisect

import numpy as np

from pqkit.chunk_range import dictionary_segment, where_of
from pqkit.columnar.table import Table
from pqkit.errors import ArgumentError, ArgumentIndexError, EncodingError
from pqkit.read.batches import concat_row_groups
from pqkit.read.decode.records import keep_records
from pqkit.read.fetch.page_index import page_row_ranges, read_offset_index

__all__ = ["RowTaker", "check_row_indices"]


def check_row_indices(row_indices, num_rows):
    """``row_indices`` as an int64 array, each in ``[0, num_rows)``.

    Raises
    ------
    TypeError
        Not integers.
    IndexError
        A row outside the file.
    """
    idx = np.asarray(row_indices)
    if idx.size == 0:
        return np.zeros(0, np.int64)
    if idx.ndim != 1 or not np.issubdtype(idx.dtype, np.integer):
        raise ArgumentError(f"row_indices must be a sequence of ints, got {idx.dtype} "
                            f"of shape {idx.shape}")
    idx = idx.astype(np.int64)
    bad = (idx < 0) | (idx >= num_rows)
    if bad.any():
        raise ArgumentIndexError(f"row_indices: row {int(idx[np.argmax(bad)])} out of range: "
                                 f"the file has {num_rows} rows")
    return idx


class RowTaker:
    """Read rows by number from one file through its RowGroupReader.

    Parameters
    ----------
    groups : pqkit.read.decode.row_group.RowGroupReader

    Attributes
    ----------
    pages_read : dict
        Leaf path -> data pages decoded from the OffsetIndex (for tests and
        benchmarks); a chunk read whole counts under ``chunks_read`` instead.
    chunks_read : dict
        Leaf path -> column chunks decoded whole.
    """

    def __init__(self, groups):
        self.groups = groups
        self.pages_read = {}
        self.chunks_read = {}

    def take(self, row_indices, tops, wanted, empty):
        """A Table of rows ``row_indices`` (file-relative, in the order given, repeats
        allowed) of the top-level nodes ``tops``, leaves ``wanted``; ``empty`` is the
        Table of no rows to return when no row is asked for."""
        md = self.groups.metadata
        idx = check_row_indices(row_indices, md.num_rows)
        if not len(idx):
            return empty
        rows, inverse = np.unique(idx, return_inverse=True)
        starts = np.cumsum([0] + [md.checked_row_group(g).num_rows
                                  for g in range(md.num_row_groups)])
        tables = []
        for g in range(md.num_row_groups):
            lo, hi = np.searchsorted(rows, [starts[g], starts[g + 1]])
            if lo < hi:
                tables.append(self._take_group(g, rows[lo:hi] - starts[g], tops, wanted))
        return concat_row_groups(tables).take(inverse)

    def _take_group(self, g, rows, tops, wanted):
        """Rows ``rows`` (sorted, unique, relative to row group ``g``) as a Table."""
        num_rows = self.groups.metadata.checked_row_group(g).num_rows
        leaves, columns = {}, []
        for top in tops:
            nodes = [n for n in self.groups.schema.columns
                     if n.path[0] == top.name and n.path in wanted]
            positions = self._read_top(g, nodes, rows, num_rows, leaves)
            columns.append((top, positions))
        fields, cols = [], []
        for top, positions in columns:
            f, col = self.groups.nest_one(top, leaves)
            fields.append(f)
            cols.append(col.take(positions))
        return Table(cols, fields, self.groups.metadata.key_value_metadata,
                     num_rows=None if cols else len(rows))

    def _read_top(self, g, nodes, rows, num_rows, leaves):
        """Decode the leaves of one top-level column into ``leaves``; return where
        ``rows`` sit in what was decoded."""
        spans = self._page_spans(g, nodes, num_rows)
        if spans is not None:
            try:
                for node in nodes:
                    leaves[node.path] = self._leaf_rows(g, node, spans[node.path], rows)
            except EncodingError:
                spans = None        # a page starts inside a record: read the chunks whole
            else:
                return np.arange(len(rows))
        for node in nodes:
            self.chunks_read[node.path] = self.chunks_read.get(node.path, 0) + 1
            leaves[node.path] = self.groups.leaf(node, self.groups.read_chunk(g, node),
                                                 where_of(node, g))
        return rows

    def _leaf_rows(self, g, node, spans, rows):
        """(levels, column) of leaf ``node`` holding exactly ``rows``: the pages holding
        them are decoded and the records of the other rows on those pages dropped."""
        locs, sp = spans
        firsts = [a for a, _ in sp]
        chosen = sorted({_page_of(firsts, sp, int(r)) for r in rows})
        data = self._read_pages(g, node, locs[0].offset, [(locs[i], sp[i]) for i in chosen])
        where = where_of(node, g)
        data = keep_records(data, _positions(_merge(sp[i] for i in chosen), rows),
                            node.max_definition_level, where)
        return self.groups.leaf(node, data, where)

    def _page_spans(self, g, nodes, num_rows):
        """{path: (page locations, row spans)} for every leaf, or None when one lacks an
        OffsetIndex or has no values (then the column is read whole)."""
        out = {}
        for node in nodes:
            chunk = self.groups.column_chunk(g, node)
            if chunk.meta_data is None or chunk.meta_data.num_values == 0:
                return None
            oi = read_offset_index(self.groups.source, chunk,
                                   self.groups.metadata.footer_offset, where_of(node, g))
            if oi is None or not oi.page_locations:
                return None
            out[node.path] = (oi.page_locations,
                              page_row_ranges(oi, num_rows, where_of(node, g)))
        return out or None

    def _read_pages(self, g, node, first_data, pages):
        """Decode the chosen ``pages`` of a chunk whose first data page is at
        ``first_data``, with its dictionary page."""
        meta = self.groups.column_chunk(g, node).meta_data
        locs = [loc for loc, _ in pages]
        dictionary = dictionary_segment(meta, first_data)
        segments = [dictionary] if dictionary else []
        segments.extend((loc.offset, loc.compressed_page_size) for loc in locs)
        self.pages_read[node.path] = self.pages_read.get(node.path, 0) + len(locs)
        return self.groups.read_pages(g, node, segments)


def _page_of(firsts, spans, row):
    """The page holding ``row``: the last non-empty page starting at or before it."""
    i = bisect.bisect_right(firsts, row) - 1
    while i > 0 and spans[i][0] == spans[i][1]:
        i -= 1
    return i


def _merge(intervals):
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _positions(covered, rows):
    """Where each of ``rows`` lies among the rows of the ``covered`` intervals."""
    starts = np.array([a for a, _ in covered], np.int64)
    lengths = np.array([b - a for a, b in covered], np.int64)
    before = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    k = np.searchsorted(starts, rows, side="right") - 1
    return rows - starts[k] + before[k]
