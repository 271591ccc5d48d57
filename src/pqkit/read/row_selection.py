"""Which rows of one row group a read decodes: the one currency of filters, take and batches.

A :class:`RowSelection` holds sorted, disjoint, non-empty ``[start, stop)`` ranges of
row numbers within a row group of ``num_rows`` rows. Filters produce one from
statistics and the page index (then narrow it to the rows that match), ``take``
from row numbers, batches and limits from offsets; selections intersect and unite;
and a chunk's OffsetIndex maps a selection to the pages that hold its rows
(:meth:`RowSelection.pages`) and to the positions of its rows among those pages'
rows (:meth:`RowSelection.positions_in`). Not to be confused with the choice of
columns (:mod:`pqkit.read.column_selection`).

For example, in a row group of 100 rows, ``RowSelection.from_rows([3, 4, 5, 90], 100)``
holds the ranges ``[3, 6)`` and ``[90, 91)``; with pages starting at rows 0, 40 and
80 it needs pages 0 and 2, and its rows sit at positions 3, 4, 5 and 50 of those
pages' 60 rows.
"""
import numpy as np

from pqkit.errors import CorruptFileError

__all__ = ["RowSelection", "live_selections"]

_FEW_RANGES = 64         # up to this many ranges, intersect by ranges instead of masks


class RowSelection:
    """Selected rows of a row group as sorted, disjoint, non-empty ranges.

    Parameters
    ----------
    starts, stops : array-like of int
        Range bounds, ``starts[i] < stops[i] <= starts[i + 1]``, within ``num_rows``.
    num_rows : int
        Rows in the row group.
    """

    __slots__ = ("starts", "stops", "num_rows", "_rows")

    def __init__(self, starts, stops, num_rows):
        starts = np.asarray(starts, np.int64).reshape(-1)
        stops = np.asarray(stops, np.int64).reshape(-1)
        if len(starts) != len(stops):
            raise ValueError("a row selection needs as many range starts as stops")
        if len(starts) and (starts[0] < 0 or stops[-1] > num_rows or
                            (stops <= starts).any() or (starts[1:] < stops[:-1]).any()):
            raise ValueError(f"row ranges must be sorted, disjoint and non-empty within "
                             f"the {num_rows} rows of the row group")
        self.starts, self.stops, self.num_rows = starts, stops, int(num_rows)
        self._rows = None

    # --- making one ------------------------------------------------------------------------
    @classmethod
    def all(cls, num_rows):
        """Every row."""
        return cls([0] if num_rows else [], [num_rows] if num_rows else [], num_rows)

    @classmethod
    def none(cls, num_rows):
        """No row."""
        return cls([], [], num_rows)

    @classmethod
    def from_mask(cls, mask):
        """The rows where boolean ``mask`` (one entry per row) is true."""
        mask = np.asarray(mask, np.bool_)
        edges = np.diff(np.concatenate([[False], mask, [False]]).view(np.int8))
        return cls(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), len(mask))

    @classmethod
    def from_rows(cls, rows, num_rows):
        """The rows numbered ``rows`` (sorted and unique, each in ``[0, num_rows)``)."""
        rows = np.asarray(rows, np.int64)
        if not len(rows):
            return cls.none(num_rows)
        breaks = np.flatnonzero(np.diff(rows) != 1) + 1
        starts = rows[np.concatenate([[0], breaks])]
        stops = rows[np.concatenate([breaks - 1, [len(rows) - 1]])] + 1
        return cls(starts, stops, num_rows)

    @classmethod
    def from_ranges(cls, ranges, num_rows):
        """The union of ``(start, stop)`` pairs, which may overlap, touch or be empty."""
        pairs = [(int(a), int(b)) for a, b in ranges if b > a]
        if not pairs:
            return cls.none(num_rows)
        arr = np.array(sorted(pairs), np.int64)
        reach = np.maximum.accumulate(arr[:, 1])
        new = np.concatenate([[True], arr[1:, 0] > reach[:-1]])
        first = np.flatnonzero(new)
        last = np.concatenate([first[1:] - 1, [len(arr) - 1]])
        return cls(arr[first, 0], reach[last], num_rows)

    @classmethod
    def excluding(cls, rows, num_rows):
        """Every row but those numbered ``rows`` (sorted and unique, each in
        ``[0, num_rows)``): the live rows of a row group some of whose rows were deleted."""
        rows = np.asarray(rows, np.int64)
        starts = np.concatenate([[0], rows + 1])
        stops = np.concatenate([rows, [num_rows]])
        keep = stops > starts
        return cls(starts[keep], stops[keep], num_rows)

    # --- what it holds -----------------------------------------------------------------------
    @property
    def count(self):
        """Rows selected."""
        return int((self.stops - self.starts).sum())

    def is_all(self):
        return self.count == self.num_rows

    def is_empty(self):
        return not len(self.starts)

    def rows(self):
        """The selected row numbers, ascending (int64; computed once, do not modify)."""
        if self._rows is None:
            lengths = self.stops - self.starts
            if not len(lengths):
                self._rows = np.zeros(0, np.int64)
            else:
                shift = np.repeat(self.starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]),
                                  lengths)
                shift += np.arange(len(shift), dtype=np.int64)
                self._rows = shift
        return self._rows

    def mask(self):
        """One boolean per row of the row group."""
        edges = np.bincount(self.starts, minlength=self.num_rows + 1) - \
            np.bincount(self.stops, minlength=self.num_rows + 1)
        return np.cumsum(edges[:-1]).astype(np.bool_)

    def __eq__(self, other):
        return (isinstance(other, RowSelection) and self.num_rows == other.num_rows and
                np.array_equal(self.starts, other.starts) and
                np.array_equal(self.stops, other.stops))

    def __repr__(self):
        shown = ", ".join(f"[{a}, {b})" for a, b in zip(self.starts[:4], self.stops[:4]))
        more = f", ... {len(self.starts) - 4} more" if len(self.starts) > 4 else ""
        return f"RowSelection({shown}{more} of {self.num_rows})"

    # --- combining ---------------------------------------------------------------------------
    def intersect(self, other):
        """Rows selected by both."""
        self._same_group(other)
        if self.is_all() or other.is_empty():
            return other
        if other.is_all() or self.is_empty():
            return self
        few, many = (self, other) if len(self.starts) <= len(other.starts) else (other, self)
        if len(few.starts) > _FEW_RANGES:
            return RowSelection.from_mask(self.mask() & other.mask())
        # each of the few ranges clips the ranges of the other that overlap it
        starts, stops = [], []
        for a, b in zip(few.starts, few.stops):
            i = np.searchsorted(many.stops, a, side="right")
            j = np.searchsorted(many.starts, b, side="left")
            starts.append(np.maximum(many.starts[i:j], a))
            stops.append(np.minimum(many.stops[i:j], b))
        return RowSelection(np.concatenate(starts), np.concatenate(stops), self.num_rows)

    def union(self, other):
        """Rows selected by either."""
        self._same_group(other)
        return RowSelection.from_ranges(
            list(zip(self.starts, self.stops)) + list(zip(other.starts, other.stops)),
            self.num_rows)

    def refine(self, keep):
        """The selected rows for which ``keep`` (one boolean per selected row, in order)
        is true: how an exact filter narrows the candidate rows it was evaluated on."""
        keep = np.asarray(keep, np.bool_)
        if len(keep) != self.count:
            raise ValueError(f"refine needs one flag per selected row ({self.count}), "
                             f"got {len(keep)}")
        if keep.all():
            return self
        if self.is_all():
            return RowSelection.from_mask(keep)
        full = self.mask()
        full[full] = keep
        return RowSelection.from_mask(full)

    def _same_group(self, other):
        if self.num_rows != other.num_rows:
            raise ValueError(f"selections of row groups of {self.num_rows} and "
                             f"{other.num_rows} rows cannot be combined")

    # --- mapping to pages ----------------------------------------------------------------------
    def selected_below(self, bounds):
        """For each row number in ``bounds``, how many selected rows lie below it."""
        bounds = np.asarray(bounds, np.int64)
        if self.is_empty():
            return np.zeros(len(bounds), np.int64)
        lengths = self.stops - self.starts
        before = np.concatenate([[0], np.cumsum(lengths)])
        k = np.searchsorted(self.starts, bounds, side="right") - 1
        inside = np.where(k >= 0, np.minimum(bounds, self.stops[np.maximum(k, 0)]) -
                          self.starts[np.maximum(k, 0)], 0)
        return np.where(k >= 0, before[np.maximum(k, 0)] + inside, 0)

    def pages(self, first_rows):
        """Indices of the pages holding selected rows, for pages starting at rows
        ``first_rows`` (an OffsetIndex's ``first_row_index`` values, ascending from 0,
        each page ending where the next starts and the last at ``num_rows``)."""
        first_rows = np.asarray(first_rows, np.int64)
        ends = np.concatenate([first_rows[1:], [self.num_rows]])
        if len(first_rows) and (first_rows[0] != 0 or (ends < first_rows).any() or
                                ends[-1] > self.num_rows):
            raise CorruptFileError(f"page first rows {first_rows[:8].tolist()} do not "
                                   f"split a row group of {self.num_rows} rows")
        held = self.selected_below(ends) - self.selected_below(first_rows)
        return np.flatnonzero(held > 0)

    def positions_in(self, first_rows, pages):
        """Where the selected rows sit among the rows of ``pages`` (indices into pages
        starting at ``first_rows``, ascending, together holding every selected row)
        once those pages' rows are laid end to end."""
        first_rows = np.asarray(first_rows, np.int64)
        pages = np.asarray(pages, np.int64)
        ends = np.concatenate([first_rows[1:], [self.num_rows]])
        starts, stops = first_rows[pages], ends[pages]
        rows = self.rows()
        k = np.searchsorted(starts, rows, side="right") - 1
        if len(rows) and ((k < 0).any() or (rows >= stops[np.maximum(k, 0)]).any()):
            raise ValueError("the pages given do not hold every selected row")
        base = np.concatenate([[0], np.cumsum(stops - starts)[:-1]])
        return rows - starts[k] + base[k]


def live_selections(group_sizes, excluded):
    """One :class:`RowSelection` per row group of ``group_sizes`` rows: every row but the
    file-wide row numbers ``excluded`` (sorted and unique; None: every row)."""
    sizes = np.asarray(group_sizes, np.int64)
    if excluded is None:
        return [RowSelection.all(int(n)) for n in sizes]
    excluded = np.asarray(excluded, np.int64)
    firsts = np.concatenate([[0], np.cumsum(sizes)])
    if len(excluded) and (excluded[0] < 0 or excluded[-1] >= firsts[-1] or
                          (np.diff(excluded) <= 0).any()):
        raise ValueError(f"excluded rows must be sorted, unique and within the file's "
                         f"{int(firsts[-1])} rows")
    cuts = np.searchsorted(excluded, firsts)
    return [RowSelection.excluding(excluded[cuts[g]:cuts[g + 1]] - firsts[g], int(n))
            for g, n in enumerate(sizes)]
