"""Reading chosen rows by number: a producer of row selections for the one decoding road.

The rows asked for are sorted, deduplicated and split by row group; each row
group's rows become a :class:`RowSelection`, decoded by
:func:`pqkit.read.decode.selected_rows.read_selected` (which decodes only the pages
holding them, through each chunk's OffsetIndex, and whole chunks where there is
none), and the result is put back in the order asked for, repeats included.
"""
import numpy as np

from pqkit.errors import ArgumentError, ArgumentIndexError, CorruptFileError
from pqkit.read.batches import concat_row_groups
from pqkit.read.row_selection import RowSelection
from pqkit.read.decode.selected_rows import read_selected

__all__ = ["take_rows", "check_row_indices"]


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


def take_rows(groups, row_indices, tops, wanted, empty, use_threads=True):
    """A Table of rows ``row_indices`` (file-relative, in the order given, repeats
    allowed) of the top-level nodes ``tops``, leaves ``wanted``, read through the
    RowGroupReader ``groups``; ``empty`` is the Table of no rows returned when no row
    is asked for."""
    md = groups.metadata
    idx = check_row_indices(row_indices, md.num_rows)
    if not len(idx):
        return empty
    rows, inverse = np.unique(idx, return_inverse=True)
    sizes = [md.checked_row_group(g).num_rows for g in range(md.num_row_groups)]
    starts = np.cumsum([0] + sizes)
    if rows[-1] >= starts[-1]:
        # The footer's row count is all check_row_indices knows; a row past the row
        # groups' own would find no row group to read it from.
        raise CorruptFileError(f"the file declares {md.num_rows} rows but its row groups "
                               f"hold {int(starts[-1])}: row {int(rows[-1])} is in none")
    tables = []
    for g, size in enumerate(sizes):
        lo, hi = np.searchsorted(rows, [starts[g], starts[g + 1]])
        if lo < hi:
            if groups.stats is not None:
                groups.stats.add(row_groups=1)
            selection = RowSelection.from_rows(rows[lo:hi] - starts[g], size)
            tables.append(read_selected(groups, g, tops, wanted, selection, use_threads))
    return concat_row_groups(tables).take(inverse)
