"""Reading with filters: skip row groups by statistics and pages by the page index.

For each row group:

1. the column chunk statistics of the filtered columns rule the row group in or out;
2. where a filtered column has a ColumnIndex and an OffsetIndex, each page's bounds
   rule its rows in or out, giving the *candidate rows*;
3. every selected top-level column made of one leaf with an OffsetIndex decodes only
   the pages that hold candidate rows (plus its dictionary page); other columns
   decode whole chunks; each column then keeps the candidate rows;
4. the filter is evaluated exactly on those rows.

So the result always equals a full read filtered row by row; the index only saves work.
"""
import numpy as np

from pqkit.columnar.table import Table
from pqkit.format import Type
from pqkit.read.filters import (
    bound_decoder,
    check_values,
    chunk_may_match,
    filter_leaves,
    normalize,
    row_mask,
    term_may_match,
)
from pqkit.read.chunk_range import dictionary_segment
from pqkit.read.page_index import page_row_ranges, read_column_index, read_offset_index
from pqkit.read.row_group import where_of

_FLOATS = (Type.FLOAT, Type.DOUBLE)


class FilteredReader:
    """Filtered reads of one file, through its :class:`pqkit.read.row_group.RowGroupReader`."""

    def __init__(self, groups, filters):
        self.groups = groups
        self.dnf = normalize(filters)
        self.leaves = filter_leaves(self.dnf, groups.schema)
        self.decoders = {p: bound_decoder(n) for p, n in self.leaves.items()}
        check_values(groups.empty(*self._filter_selection()), self.dnf)
        self.pages_read = 0           # data pages decoded (for tests and benchmarks)
        self.pages_total = 0

    def read_group(self, g, tops, wanted):
        """The rows of row group ``g`` matching the filter, or None when it is pruned."""
        rg = self.groups.metadata.checked_row_group(g)
        if not self._any_conj(lambda t: self._chunk_may(rg, t)):
            return None
        candidates = self._candidate_rows(g, rg)
        if candidates is not None and not len(candidates):
            return None
        ftops, fwanted = self._filter_selection()
        ftable = self._read_rows(g, rg, ftops, fwanted, candidates)
        mask = row_mask(ftable, self.dnf)
        table = self._read_rows(g, rg, tops, wanted, candidates)
        return table.take(np.flatnonzero(mask))

    def _any_conj(self, test):
        return any(all(test(term) for term in conj) for conj in self.dnf)

    def _filter_selection(self):
        wanted = set(self.leaves)
        tops = [t for t in self.groups.schema.root.children if any(p[0] == t.name for p in wanted)]
        return tops, wanted

    # --- pruning -------------------------------------------------------------------------
    def _chunk_may(self, rg, term):
        node = self.leaves[term[0]]
        return chunk_may_match(rg.columns[node.column_index], node, term,
                               self.decoders[term[0]])

    def _candidate_rows(self, g, rg):
        """Sorted candidate row numbers, or None when every row is a candidate."""
        n = rg.num_rows
        result = np.zeros(n, np.bool_)
        limited = False
        for conj in self.dnf:
            mask = np.ones(n, np.bool_)
            for term in conj:
                rows = self._term_rows(g, rg, term)
                if rows is not None:
                    mask &= rows
                    limited = True
            result |= mask
        return np.flatnonzero(result) if limited else None

    def _term_rows(self, g, rg, term):
        node = self.leaves[term[0]]
        chunk = rg.columns[node.column_index]
        ci = self._index(chunk, read_column_index, node, g)
        oi = self._index(chunk, read_offset_index, node, g)
        if ci is None or oi is None or len(ci.null_pages) != len(oi.page_locations):
            return None
        spans = page_row_ranges(oi, rg.num_rows, where_of(node, g))
        rows = np.zeros(rg.num_rows, np.bool_)
        is_float = Type(node.physical_type) in _FLOATS
        for i, (a, b) in enumerate(spans):
            nulls = ci.null_counts[i] if ci.null_counts else None
            if ci.null_pages[i]:
                rows[a:b] = term[1] == "not in"           # only nulls: only `not in` holds
                continue
            if term_may_match(term, self.decoders[term[0]], ci.min_values[i],
                              ci.max_values[i], nulls, None, is_float):
                rows[a:b] = True
        return rows

    def _index(self, chunk, read_index, node, g):
        return read_index(self.groups.source, chunk, self.groups.metadata.footer_offset,
                          where_of(node, g))

    # --- reading candidate rows ------------------------------------------------------------
    def _read_rows(self, g, rg, tops, wanted, candidates):
        fields, cols = [], []
        for top in tops:
            leaves_here = [n for n in self.groups.schema.columns
                           if n.path[0] == top.name and n.path in wanted]
            positions = candidates
            leaves = {}
            skip = candidates is not None and len(leaves_here) == 1
            for node in leaves_here:
                data, positions = self._read_leaf(g, rg, node, candidates, skip)
                leaves[node.path] = self.groups.leaf(node, data, where_of(node, g))
            f, col = self.groups.nest_one(top, leaves)
            if positions is not None:
                col = col.take(positions)
            fields.append(f)
            cols.append(col)
        return Table(cols, fields, self.groups.metadata.key_value_metadata,
                     num_rows=None if cols else
                     (rg.num_rows if candidates is None else len(candidates)))

    def _read_leaf(self, g, rg, node, candidates, skip):
        """(ChunkData, positions of the candidate rows in what was decoded)."""
        chunk = rg.columns[node.column_index]
        md = chunk.meta_data
        oi = self._index(chunk, read_offset_index, node, g) if skip else None
        if oi is None or md.num_values == 0:
            return self.groups.read_chunk(g, node), candidates
        spans = page_row_ranges(oi, rg.num_rows, where_of(node, g))
        locs = oi.page_locations
        self.pages_total += len(locs)
        segments, positions, base = [], [], 0
        dictionary = dictionary_segment(md, locs[0].offset if locs else md.data_page_offset)
        if dictionary:
            segments.append(dictionary)
        for loc, (a, b) in zip(locs, spans):
            lo = np.searchsorted(candidates, a)
            hi = np.searchsorted(candidates, b)
            if lo == hi:
                continue
            segments.append((loc.offset, loc.compressed_page_size))
            positions.append(candidates[lo:hi] - a + base)
            base += b - a
            self.pages_read += 1
        data = self.groups.read_pages(g, node, segments)
        pos = np.concatenate(positions) if positions else np.zeros(0, np.int64)
        return data, pos
