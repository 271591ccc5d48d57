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
Steps 1 and 2 are :func:`pqkit.read.prune.pruning.plan_group`, which also decides for
bloom filters; :meth:`FilteredReader.explain` reports the plan and the pages each
leaf would read without decoding anything, from the same functions.
"""
import numpy as np

from pqkit.chunk_range import dictionary_segment, where_of
from pqkit.columnar.table import Table
from pqkit.errors import CorruptFileError
from pqkit.read.fetch.page_index import page_row_ranges, read_offset_index
from pqkit.read.prune.filters import (bound_decoder, check_values, chunk_may_match, filter_leaves,
                                normalize, row_mask)
from pqkit.read.prune.pruning import pages_with_rows, plan_group

WHOLE_CHUNK = None        # in a read selection: the leaf's chunk is decoded whole


class FilteredReader:
    """Filtered reads of one file, through its
    :class:`pqkit.read.decode.row_group.RowGroupReader`."""

    def __init__(self, groups, filters):
        self.groups = groups
        self.dnf = normalize(filters)
        self.leaves = filter_leaves(self.dnf, groups.schema)
        self.decoders = {p: bound_decoder(n) for p, n in self.leaves.items()}
        check_values(groups.empty(*self.filter_selection()), self.dnf)
        self.pages_read = 0           # data pages decoded (for tests and benchmarks)
        self.pages_total = 0

    def plan(self, g):
        """The :class:`pqkit.read.prune.pruning.GroupPlan` of row group ``g``."""
        return plan_group(self.groups, self.dnf, self.leaves, self.decoders, g)

    def read_group(self, g, tops, wanted):
        """The rows of row group ``g`` matching the filter, or None when it is pruned."""
        plan = self.plan(g)
        if plan.skipped:
            return None
        rg = self.groups.metadata.checked_row_group(g)
        ftops, fwanted = self.filter_selection()
        ftable = self._read_rows(g, rg, ftops, fwanted, plan.candidates)
        mask = row_mask(ftable, self.dnf)
        table = self._read_rows(g, rg, tops, wanted, plan.candidates)
        return table.take(np.flatnonzero(mask))

    def group_may_match(self, g):
        """False when the chunk statistics of row group ``g`` rule every row out (no I/O:
        the fetch planner asks this before anything is fetched)."""
        rg = self.groups.metadata.checked_row_group(g)
        return any(all(chunk_may_match(rg.columns[self.leaves[t[0]].column_index],
                                       self.leaves[t[0]], t, self.decoders[t[0]])
                       for t in conj)
                   for conj in self.dnf)

    def explain(self, g, tops, wanted):
        """(GroupPlan, reads) of row group ``g`` without decoding: ``reads`` maps each leaf
        path read to the set of data page numbers decoded from its OffsetIndex, plus
        WHOLE_CHUNK (None) when its chunk is decoded whole. Empty when the row group is
        skipped."""
        plan = self.plan(g)
        reads = {}
        if not plan.skipped:
            rg = self.groups.metadata.checked_row_group(g)
            for sel_tops, sel_wanted in (self.filter_selection(), (tops, wanted)):
                for node, skip in self._leaves_of(sel_tops, sel_wanted, plan.candidates):
                    choice = self._page_choice(g, rg, node, plan.candidates, skip)
                    pages = reads.setdefault(node.path, set())
                    if choice is None:
                        pages.add(WHOLE_CHUNK)
                    else:
                        pages.update(i for i, _, _ in choice[2])
        return plan, reads

    def filter_selection(self):
        wanted = set(self.leaves)
        tops = [t for t in self.groups.schema.root.children if any(p[0] == t.name for p in wanted)]
        return tops, wanted

    def _leaves_of(self, tops, wanted, candidates):
        """(leaf, whether its pages may be chosen) for each leaf read: pages are chosen
        only for a top-level column of one leaf, whose rows then need no alignment."""
        for top in tops:
            here = [n for n in self.groups.schema.columns
                    if n.path[0] == top.name and n.path in wanted]
            for node in here:
                yield node, candidates is not None and len(here) == 1

    # --- reading candidate rows ------------------------------------------------------------
    def _read_rows(self, g, rg, tops, wanted, candidates):
        fields, cols = [], []
        for top in tops:
            leaves_here = [n for n in self.groups.schema.columns
                           if n.path[0] == top.name and n.path in wanted]
            positions = candidates
            leaves = {}
            skip = candidates is not None and len(leaves_here) == 1
            spanned = None
            for node in leaves_here:
                data, positions, spanned = self._read_leaf(g, rg, node, candidates, skip)
                leaves[node.path] = self.groups.leaf(node, data, where_of(node, g))
            f, col = self.groups.nest_one(top, leaves)
            if spanned is not None and len(col) != spanned:
                # A wrong first_row_index would place the candidate rows in the wrong
                # pages, or past the rows decoded.
                raise CorruptFileError(
                    f"OffsetIndex of {where_of(leaves_here[0], g)}: the pages read hold "
                    f"{len(col)} rows, their first_row_index entries give {spanned}")
            if positions is not None:
                col = col.take(positions)
            fields.append(f)
            cols.append(col)
        return Table(cols, fields, self.groups.metadata.key_value_metadata,
                     num_rows=None if cols else
                     (rg.num_rows if candidates is None else len(candidates)))

    def _page_choice(self, g, rg, node, candidates, skip):
        """(OffsetIndex, row spans, pages_with_rows) when only some pages of the leaf's
        chunk are decoded, None when the whole chunk is."""
        if not skip or rg.columns[node.column_index].meta_data.num_values == 0:
            return None
        chunk = rg.columns[node.column_index]
        oi = read_offset_index(self.groups.source, chunk, self.groups.metadata.footer_offset,
                               where_of(node, g))
        if oi is None:
            return None
        spans = page_row_ranges(oi, rg.num_rows, where_of(node, g))
        return oi, spans, pages_with_rows(spans, candidates)

    def _read_leaf(self, g, rg, node, candidates, skip):
        """(ChunkData, positions of the candidate rows in what was decoded, the rows the
        OffsetIndex gives the pages decoded or None when the whole chunk was)."""
        choice = self._page_choice(g, rg, node, candidates, skip)
        if choice is None:
            return self.groups.read_chunk(g, node), candidates, None
        oi, spans, picks = choice
        md = rg.columns[node.column_index].meta_data
        locs = oi.page_locations
        self.pages_total += len(locs)
        segments, positions, base = [], [], 0
        dictionary = dictionary_segment(md, locs[0].offset if locs else md.data_page_offset)
        if dictionary:
            segments.append(dictionary)
        for i, lo, hi in picks:
            a, b = spans[i]
            segments.append((locs[i].offset, locs[i].compressed_page_size))
            positions.append(candidates[lo:hi] - a + base)
            base += b - a
            self.pages_read += 1
        data = self.groups.read_pages(g, node, segments)
        pos = np.concatenate(positions) if positions else np.zeros(0, np.int64)
        return data, pos, base
