"""The allocation budget of one read: what decoding may allocate in total, in proportion
to the bytes the read takes from the file.

Per-page and per-chunk limits (:class:`pqkit.ReadOptions`) stop one absurd size; they
do not stop many sizes that are each allowed. A 251-byte file whose dictionary holds
one 16 KiB string and whose indices repeat it 200,000 times decodes, rightly, to 3.2
GiB of text; a 32 KiB file whose one zstd page holds 1 GiB of zeros is within
``max_page_size``. So a read also keeps a running total of the bytes it allocates --
pages decompressed, levels and values decoded (reckoned from the page headers before
decoding), byte arrays expanded from a dictionary, text a DataFrame is given -- and
fails with :class:`pqkit.AllocationLimitError` once the total would exceed::

    max(ReadOptions.budget_floor, ReadOptions.budget_ratio * bytes read from the file)

by default ``max(1 GiB, 1000 * bytes read)``. Real files do not meet it: a read
allocates about twice the data it decodes (the pages decompressed, then the values),
so passing 1000 times its bytes takes data compressed more than 500 to 1 across
everything the read decodes, while the codecs Parquet uses get 2 to 20 to 1 on real
data; only a column of one value repeated, RLE or dictionary encoded, comes close,
and the floor lets any read allocating up to 1 GiB through whatever its file's size.
A read over budget is of a valid file, not a corrupt one: raise the ratio or the
floor and it reads.
"""
import threading

import numpy as np

from pqkit.columnar.column import BinaryColumn
from pqkit.errors import AllocationLimitError

__all__ = ["ReadBudget", "gathered_text_bytes"]


class ReadBudget:
    """The running totals of one read: bytes read from the file, bytes allocated.

    Parameters
    ----------
    options : pqkit.ReadOptions
        ``budget_ratio`` and ``budget_floor`` give the limit.
    """

    def __init__(self, options):
        self.ratio = options.budget_ratio
        self.floor = options.budget_floor
        self.bytes_read = 0
        self.allocated = 0
        self._lock = threading.Lock()       # columns decode on several threads

    def add_read(self, nbytes):
        """Count ``nbytes`` read from the file."""
        with self._lock:
            self.bytes_read += int(nbytes)

    def charge(self, nbytes, what, where):
        """Count ``nbytes`` about to be allocated for ``what`` (in ``where``), or raise
        AllocationLimitError when the read's total would pass its limit."""
        with self._lock:
            total = self.allocated + int(nbytes)
            limit = max(self.floor, self.ratio * self.bytes_read)
            if total > limit:
                exc = AllocationLimitError(
                    f"{where}: {what} would bring what this read allocates to {total} "
                    f"bytes, over its budget of {limit}: the larger of ReadOptions."
                    f"budget_floor = {self.floor} and ReadOptions.budget_ratio = "
                    f"{self.ratio} times the {self.bytes_read} bytes it read from the "
                    f"file; read with pqkit.ReadOptions(budget_ratio=...) or "
                    f"pqkit.ReadOptions(budget_floor=...) to allow more")
                exc.limit = "budget_ratio"
                raise exc
            self.allocated = total


def gathered_text_bytes(columns):
    """Bytes the byte-array columns among ``columns`` (nested ones included) hold by
    reference to a column of distinct values (a decoded dictionary) and would copy out
    to give one value per row."""
    total = 0
    for col in columns:
        if isinstance(col, BinaryColumn):
            gathered = col.gathered()
            if gathered is not None:
                source, positions = gathered
                lengths = np.diff(np.asarray(source.offsets, np.int64))
                total += int(lengths[positions].sum())
        for child in ("children", "child", "keys", "items"):
            inner = getattr(col, child, None)
            if isinstance(inner, (list, tuple)):
                total += gathered_text_bytes(inner)
            elif inner is not None:
                total += gathered_text_bytes([inner])
    return total
