"""The UTF-8 check of text leaves: every STRING, JSON or ENUM value a read hands out is
valid UTF-8, or the read raises :class:`pqkit.InvalidStringError`.

The check runs on a leaf's decoded values before they become a column, on every
road (whole row groups, batches, ``take``, filtered reads, nested leaves), in the
kernel :func:`pqkit._native.utf8.first_invalid_utf8`. A dictionary-encoded leaf
checks its dictionary once instead of every value; a bad dictionary value fails
the read even when no row read uses it, since the dictionary itself is handed out.
Only on a failure are the levels consulted, to name the first row holding a bad
value::

    InvalidStringError: column s, row group 0, row 2: b'\\xff' is not valid UTF-8; ...
"""
import numpy as np

from pqkit._native.utf8 import first_invalid_utf8, invalid_utf8_mask
from pqkit.errors import InvalidStringError
from pqkit.read.decode.values import BinaryValues, DictionaryValues, FixedValues

__all__ = ["check_utf8", "value_rows"]

_SHOWN = 40           # bytes of a bad value quoted in the message


def check_utf8(values, where, row_of, present=None):
    """Raise InvalidStringError when a value of ``values`` is not valid UTF-8.

    ``values`` are a text leaf's dense values: BinaryValues, FixedValues (text on
    FIXED_LEN_BYTE_ARRAY) or DictionaryValues of either. ``row_of(i)`` gives the row
    (for the message) holding value ``i``; ``present``, for DictionaryValues whose
    indices fill null rows too, masks the indices that stand for a value.
    """
    if isinstance(values, DictionaryValues):
        offsets, data = _layout(values.dictionary)
        if first_invalid_utf8(offsets, data) < 0:
            return
        bad = invalid_utf8_mask(offsets, data)
        used = bad[values.indices] if len(values.indices) else np.zeros(0, np.bool_)
        if present is not None:
            used &= present
        hits = np.flatnonzero(used)
        if not len(hits):
            k = int(np.flatnonzero(bad)[0])
            raise InvalidStringError(
                f"{where}: dictionary value {k}, {_shown(offsets, data, k)}, is not valid "
                f"UTF-8 (no row read uses it){_HINT}")
        i = int(hits[0])
        k = int(values.indices[i])
    else:
        if getattr(values, "utf8_valid", False):
            return                      # checked page by page as decoded
        offsets, data = _layout(values)
        i = k = first_invalid_utf8(offsets, data)
        if i < 0:
            return
    raise InvalidStringError(f"{where}, row {row_of(i)}: {_shown(offsets, data, k)} is not "
                             f"valid UTF-8{_HINT}")


_HINT = "; read with pqkit.ReadOptions(strings_as_binary=True) to get the bytes as binary"


def _layout(values):
    """(int64 offsets, uint8 data) of BinaryValues or FIXED_LEN_BYTE_ARRAY FixedValues."""
    if isinstance(values, FixedValues):
        n, width = values.array.shape
        return (np.arange(n + 1, dtype=np.int64) * width,
                np.ascontiguousarray(values.array).reshape(-1))
    assert isinstance(values, BinaryValues)
    return (np.ascontiguousarray(values.offsets, np.int64),
            np.ascontiguousarray(values.data, np.uint8))


def _shown(offsets, data, k):
    value = data[offsets[k]:offsets[k + 1]].tobytes()
    return repr(value[:_SHOWN]) + ("..." if len(value) > _SHOWN else "")


def value_rows(chunk, max_def, rows=None):
    """A function from dense value ``i`` of ``chunk`` (a ChunkData) to its row: the
    record holding it, or ``rows()[record]`` when ``rows`` gives the numbers of the
    chunk's records (called only for a message)."""
    def row_of(i):
        n = chunk.num_entries
        entry = i if chunk.def_levels is None else \
            int(np.flatnonzero(chunk.def_levels[:n] == max_def)[i])
        record = entry if chunk.rep_levels is None else \
            int(np.count_nonzero(chunk.rep_levels[:entry + 1] == 0)) - 1
        return int(rows()[record]) if rows is not None else record
    return row_of
