"""Dictionary building for the writer: distinct values in first-seen order, and indices.

The hash-table kernel (:mod:`pqkit._native.dictenc`) compares values by their
bytes, so ``-0.0`` and ``+0.0`` (and NaNs with different payloads) stay
distinct entries: a dictionary must reproduce the values exactly. It stops
before the first value whose new entry would make the dictionary's PLAIN
encoding larger than the limit; ``encoded`` says how many leading values the
dictionary covers, and the writer falls back to plain encoding after them.
"""
from dataclasses import dataclass

import numpy as np

from pqkit._native.dictenc import dictionary_encode


@dataclass
class Dictionary:
    """``values`` (physical layout, first-seen order), ``size`` entries, ``indices``
    (int32, one per encoded value) and ``encoded``, the number of leading values it covers."""
    values: object
    size: int
    indices: np.ndarray
    encoded: int

    def __len__(self):
        return self.size


def build_fixed(values, limit):
    """Dictionary of a fixed-width numpy array (1-D, or (n, w) uint8 rows)."""
    arr = np.ascontiguousarray(values)
    n = len(arr)
    width = arr.dtype.itemsize * (arr.shape[1] if arr.ndim == 2 else 1)
    indices, first, done = dictionary_encode(arr.reshape(-1).view(np.uint8), None, width, n,
                                             limit)
    return Dictionary(arr[first], len(first), indices, done)


def build_binary(offsets, data, limit):
    """Dictionary of byte arrays given as offsets + data (4 bytes counted per entry)."""
    n = len(offsets) - 1
    indices, first, done = dictionary_encode(data, offsets, 0, n, limit, 4)
    starts = offsets[first]
    lengths = offsets[first + 1] - starts
    dict_offsets = np.zeros(len(first) + 1, np.int64)
    np.cumsum(lengths, out=dict_offsets[1:])
    total = int(dict_offsets[-1])
    pos = np.repeat(starts - dict_offsets[:-1], lengths) + np.arange(total, dtype=np.int64)
    return Dictionary((dict_offsets, np.ascontiguousarray(data[pos])), len(first), indices,
                      done)
