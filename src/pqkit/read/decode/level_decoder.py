"""Repetition and definition levels of a column chunk, decoded page by page.

A :class:`LevelDecoder` owns the chunk's two level buffers (int16, one entry
per level entry; None when the column's max level is 0) and fills them from
each data page: v1 pages hold RLE (or the deprecated BIT_PACKED) levels
prefixed with their byte length at the start of the page body, v2 pages hold
unprefixed RLE levels outside the compressed values. For ``optional int32``
values ``[1, None, 3]`` in one v1 page, the page body starts with the
4-byte length of the RLE run(s) for ``def_levels == [1, 0, 1]``, followed by
the values; :meth:`LevelDecoder.decode_page` returns where those values start.
"""
import numpy as np

from pqkit.encodings.rle import (
    bit_width_of,
    decode_hybrid,
    decode_hybrid_prefixed,
    decode_levels_bit_packed,
)
from pqkit.errors import EncodingError
from pqkit.format import Encoding

__all__ = ["LevelDecoder"]


def encoding_name(encoding):
    try:
        return Encoding(encoding).name
    except ValueError:
        return f"UNKNOWN({encoding})"


class LevelDecoder:
    """Levels of ``num_values`` level entries of one leaf column.

    Parameters
    ----------
    max_rep, max_def : int
        The leaf's maximum repetition and definition levels.
    num_values : int
        Level entries in the chunk (checked by the caller against its size).
    where : str
        Names the column and row group in errors.
    whole_chunk : bool
        The pages are the whole chunk in order: then a v1 page may continue the
        previous page's record, as old parquet-mr wrote them.
    """

    def __init__(self, max_rep, max_def, num_values, where, whole_chunk):
        self.max_rep = max_rep
        self.max_def = max_def
        self.reps = np.empty(num_values, np.int16) if max_rep else None
        self.defs = np.empty(num_values, np.int16) if max_def else None
        self.where = where
        self.whole_chunk = whole_chunk

    def decode_page(self, dp, page, at_entry):
        """Decode a data page's levels (``dp``, a split data page) into entries
        ``[at_entry, at_entry + dp.num_values)``.

        Returns (position in ``dp.values`` where the encoded values start, number of
        non-null values the page holds).
        """
        n = dp.num_values
        at = page.payload_offset
        reps = None if self.reps is None else self.reps[at_entry:at_entry + n]
        defs = None if self.defs is None else self.defs[at_entry:at_entry + n]
        pos = 0
        if dp.v2:
            if reps is not None:
                decode_hybrid(dp.rep_levels, 0, len(dp.rep_levels), bit_width_of(self.max_rep),
                              n, reps, at)
            if defs is not None:
                decode_hybrid(dp.def_levels, 0, len(dp.def_levels), bit_width_of(self.max_def),
                              n, defs, at + len(dp.rep_levels))
        else:
            body = dp.values
            if reps is not None:
                pos += self._v1(body, pos, dp.rep_encoding, self.max_rep, reps, at)
            if defs is not None:
                pos += self._v1(body, pos, dp.def_encoding, self.max_def, defs, at + pos)
        # Only the chunk's first page, and any page of a subset chosen through the
        # OffsetIndex, must start a record.
        if reps is not None and n and reps[0] != 0 and (at_entry == 0 or not self.whole_chunk):
            raise EncodingError(f"data page at offset {page.offset} in {self.where} starts "
                                f"with repetition level {int(reps[0])}, not a new record")
        present = n if defs is None else int(np.count_nonzero(defs == self.max_def))
        return pos, present

    def _v1(self, body, pos, encoding, max_level, out, at):
        if encoding == Encoding.BIT_PACKED:
            levels, used = decode_levels_bit_packed(body, pos, max_level, len(out), at)
            out[:] = levels
            return used
        if encoding not in (Encoding.RLE, None):
            raise EncodingError(f"levels at offset {at} in {self.where} use encoding "
                                f"{encoding_name(encoding)}; expected RLE or BIT_PACKED")
        return decode_hybrid_prefixed(body, pos, bit_width_of(max_level), len(out), out, at)

    def result(self, entries):
        """(def_levels, rep_levels) of the first ``entries`` entries decoded."""
        return _first(self.defs, entries), _first(self.reps, entries)


def _first(levels, n):
    if levels is None or len(levels) == n:
        return levels
    return levels[:n]
