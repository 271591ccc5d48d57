"""Keeping chosen records of decoded levels and values (a ChunkData), dropping the rest;
and chosen rows of a flat chunk decoded into its rows (a PlacedChunk).

A record starts at each repetition level 0 (every entry is a record when the
column is not repeated); a value is stored for each entry whose definition level
is the maximum. With ``rep = [0, 1, 0, 0, 1]``, ``def = [2, 2, 1, 2, 2]`` and
values ``[a, b, c, d]`` there are three records: entries 0-1 (values a, b),
entry 2 (a null: no value) and entries 3-4 (values c, d). Keeping records 1 and
2 gives ``rep = [0, 0, 1]``, ``def = [1, 2, 2]`` and values ``[c, d]``.
"""
import numpy as np

from pqkit.errors import CorruptFileError
from pqkit.read.decode.chunk import ChunkData
from pqkit.read.decode.placed import PlacedChunk
from pqkit.read.decode.values import BinaryValues, DictionaryValues, FixedValues, take

__all__ = ["keep_records", "keep_rows"]


def keep_records(chunk, records, max_def, where, expected=None):
    """The ChunkData of records ``records`` (sorted, unique positions) of ``chunk``;
    ``expected``, when given, is how many records the chunk must hold.

    Raises
    ------
    pqkit.CorruptFileError
        The chunk holds fewer records than asked for, or not the ``expected`` number
        (a page index that does not match the pages).
    """
    n = chunk.num_entries
    if chunk.rep_levels is None:
        record_of = np.arange(n)
        count = n
    else:
        starts = chunk.rep_levels[:n] == 0
        record_of = np.cumsum(starts) - 1
        count = int(starts.sum())
    if expected is not None and count != expected:
        raise CorruptFileError(f"OffsetIndex of {where}: the pages read hold {count} rows, "
                               f"their first_row_index entries give {expected}")
    if len(records) and records[-1] >= count:
        raise CorruptFileError(f"{where}: the pages read hold {count} records, but the "
                               f"OffsetIndex puts record {int(records[-1])} in them")
    chosen = np.zeros(count, np.bool_)
    chosen[records] = True
    keep = chosen[record_of] if n else np.zeros(0, np.bool_)
    present = keep if chunk.def_levels is None else keep[chunk.def_levels[:n] == max_def]
    return ChunkData(None if chunk.def_levels is None else chunk.def_levels[:n][keep],
                     None if chunk.rep_levels is None else chunk.rep_levels[:n][keep],
                     int(keep.sum()), _values(chunk.values, present, where))


def _values(values, present, where):
    if isinstance(values, FixedValues):
        return FixedValues(values.array[present])
    if isinstance(values, DictionaryValues):
        return DictionaryValues(values.indices[present], values.dictionary)
    if isinstance(values, BinaryValues):
        return take(values, np.flatnonzero(present).astype(np.int32), where)
    raise TypeError(f"{where}: unexpected decoded values {type(values).__name__}")


def keep_rows(placed, rows, where, expected):
    """The :class:`PlacedChunk` of rows ``rows`` (sorted, unique positions) of a flat
    chunk's pages decoded into their rows, which must hold ``expected`` rows; raises
    :class:`pqkit.CorruptFileError` as :func:`keep_records` does."""
    if placed.num_entries != expected:
        raise CorruptFileError(f"OffsetIndex of {where}: the pages read hold "
                               f"{placed.num_entries} rows, their first_row_index entries "
                               f"give {expected}")
    validity = None if placed.validity is None else placed.validity[rows]
    present = len(rows) if validity is None else int(np.count_nonzero(validity))
    return PlacedChunk(placed.values[rows], None if present == len(rows) else validity,
                       len(rows), present, placed.dictionary)
