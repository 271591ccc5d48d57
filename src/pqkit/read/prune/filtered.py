"""Reading with filters: a producer of row selections for the one decoding road.

For each row group:

1. :func:`pqkit.read.prune.pruning.plan_group` rules the row group out by chunk
   statistics, bloom filters or dictionaries, or narrows it to the candidate rows of
   the pages whose ColumnIndex bounds may match (a :class:`RowSelection`);
2. the filtered columns are decoded for the candidate rows
   (:func:`pqkit.read.decode.selected_rows.read_selected`, which decodes only the
   pages holding them) and the filter is evaluated exactly on them, which narrows the
   selection to the matching rows;
3. the other selected columns are decoded for the matching rows only; a filtered
   column that is also selected is taken from step 2.

So the result always equals a full read filtered row by row; the metadata only saves
work. :meth:`FilteredReader.explain` reports the plan and the pages each leaf reads,
from the same functions (it decodes the filtered columns' candidate pages to know the
matching rows, and nothing else).
"""
import numpy as np

from pqkit.columnar.table import Table
from pqkit.read.decode.selected_rows import leaf_reads, read_selected
from pqkit.read.prune.filters import (
    bound_decoder,
    check_values,
    chunk_may_match,
    filter_leaves,
    normalize,
    row_mask,
)
from pqkit.read.prune.pruning import plan_group
from pqkit.read.prune.variant_paths import VariantTarget
from pqkit.read.row_selection import RowSelection

WHOLE_CHUNK = None        # in an explanation: the leaf's chunk is decoded whole


class FilteredReader:
    """Filtered reads of one file, through its :class:`pqkit.read.decode.row_group.RowGroupReader`."""

    def __init__(self, groups, filters):
        self.groups = groups
        self.dnf = normalize(filters)
        self.leaves = filter_leaves(self.dnf, groups.schema)
        self.decoders = {p: bound_decoder(n) for p, n in self.leaves.items()}
        check_values(groups.empty(*self.filter_selection()), self.dnf)

    def plan(self, g):
        """The :class:`pqkit.read.prune.pruning.GroupPlan` of row group ``g``."""
        return plan_group(self.groups, self.dnf, self.leaves, self.decoders, g)

    def read_group(self, g, tops, wanted, use_threads=True, groups=None, live=None):
        """The rows of row group ``g`` matching the filter, or None when it is pruned.
        ``groups`` is the RowGroupReader to decode with (this reader's by default: a
        read from fetched buffers or one that counts statistics passes its own);
        ``live``, a RowSelection, limits the read to those rows (a deletion file's
        complement), intersected with the candidates before anything is decoded."""
        groups = groups or self.groups
        plan = self.plan(g)
        if groups.stats is not None:
            groups.stats.add(row_groups=1)
            if plan.skipped:
                groups.stats.skipped_group(plan.skipped_by)
        if plan.skipped:
            return None
        candidates = plan.selection if live is None or live.is_all() else \
            plan.selection.intersect(live)
        if plan.every_row and self._filtered_within(wanted):
            # The statistics say every row matches: no filter pass, but the filter still
            # holds each row to its values, so a damaged bound cannot let others through.
            table = read_selected(groups, g, tops, wanted, candidates, use_threads)
            mask = row_mask(table, self.dnf)
            return table if mask.all() else table.take(np.flatnonzero(mask))
        ftable, mask, matching = self._match(groups, g, candidates, use_threads)
        reuse = self._reused(tops, wanted, ftable)
        rest = [t for t in tops if t.name not in reuse]
        table = read_selected(groups, g, rest, wanted, matching, use_threads)
        keep = None if mask.all() else np.flatnonzero(mask)
        fields, cols = [], []
        for t in tops:
            if t.name in reuse:
                col = ftable.column(t.name)
                fields.append(ftable.field(t.name))
                cols.append(col if keep is None else col.take(keep))
            else:
                fields.append(table.field(t.name))
                cols.append(table.column(t.name))
        return Table(cols, fields, groups.metadata.key_value_metadata,
                     num_rows=None if cols else matching.count)

    def matching(self, g, live=None):
        """The RowSelection of the rows of row group ``g`` (among ``live``) matching the
        filter: only the filtered columns' candidate pages are decoded."""
        plan = self.plan(g)
        if plan.skipped:
            return RowSelection.none(plan.num_rows)
        candidates = plan.selection if live is None else plan.selection.intersect(live)
        if plan.every_row or candidates.is_empty():
            return candidates
        return self._match(self.groups, g, candidates, False)[2]

    def _match(self, groups, g, candidates, use_threads):
        """(filtered columns at the ``candidates`` rows, the filter's mask over them, the
        RowSelection of the matching rows)."""
        ftops, fwanted = self.filter_selection()
        ftable = read_selected(groups, g, ftops, fwanted, candidates, use_threads)
        mask = row_mask(ftable, self.dnf)
        return ftable, mask, candidates.refine(mask)

    def _reused(self, tops, wanted, ftable):
        """Names of the selected columns already decoded by the filter pass: those whose
        selected leaves are exactly their filtered leaves."""
        _, fwanted = self.filter_selection()
        return {t.name for t in tops if t.name in ftable.column_names and
                self._leaves_of(t, wanted) == self._leaves_of(t, fwanted)}

    def group_may_match(self, g):
        """False when the chunk statistics of row group ``g`` rule every row out (no I/O:
        the fetch planner asks this before anything is fetched)."""
        rg = self.groups.metadata.checked_row_group(g)
        return any(all(self._chunk_may_match(rg, t) for t in conj) for conj in self.dnf)

    def _chunk_may_match(self, rg, term):
        leaf = self.leaves[term[0]]
        if isinstance(leaf, VariantTarget):         # the plan decides, with the fallback
            return True
        return chunk_may_match(rg.columns[leaf.column_index], leaf, term,
                               self.decoders[term[0]],
                               self.groups.metadata.declares_order(leaf.column_index))

    def explain(self, g, tops, wanted):
        """(GroupPlan, reads) of row group ``g``: ``reads`` maps each leaf path the read
        decodes to the set of its data page numbers (through its OffsetIndex), or to
        ``{WHOLE_CHUNK}`` (None) when its chunk is decoded whole; empty when the row group
        is skipped. The filtered columns are decoded (their candidate pages only) to
        know the matching rows, exactly as the read does; nothing else is."""
        plan = self.plan(g)
        reads = {}
        if plan.skipped:
            return plan, reads
        if plan.every_row and self._filtered_within(wanted):
            self._add_reads(reads, g, tops, wanted, plan.selection)
            return plan, reads
        ftops, fwanted = self.filter_selection()
        candidates = plan.selection
        self._add_reads(reads, g, ftops, fwanted, candidates)
        ftable, _, matching = self._match(self.groups, g, plan.selection, False)
        reuse = self._reused(tops, wanted, ftable)
        self._add_reads(reads, g, [t for t in tops if t.name not in reuse], wanted, matching)
        return plan, reads

    def _add_reads(self, reads, g, tops, wanted, selection):
        for top in tops:
            nodes = [n for n in self.groups.schema.columns
                     if n.path[0] == top.name and n.path in wanted]
            for path, pages in leaf_reads(self.groups, g, nodes, selection).items():
                reads.setdefault(path, set()).update([WHOLE_CHUNK] if pages is None else pages)

    def _filtered_within(self, wanted):
        """Whether the read decodes every leaf the filter needs (then the filter can be
        checked on the rows read, with no pass of its own)."""
        return self.filter_selection()[1] <= set(wanted)

    def filter_selection(self):
        """(top-level nodes, leaf paths) the filter decodes: its leaves, and every leaf of
        a VARIANT column a variant path reads."""
        wanted = set()
        for path, leaf in self.leaves.items():
            wanted.update(leaf.leaf_paths if isinstance(leaf, VariantTarget) else [path])
        tops = [t for t in self.groups.schema.root.children
                if any(p[0] == t.name for p in wanted)]
        return tops, wanted

    def _leaves_of(self, top, wanted):
        return {n.path for n in self.groups.schema.columns
                if n.path[0] == top.name and n.path in wanted}
