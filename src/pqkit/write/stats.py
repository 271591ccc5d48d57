"""Writer-side statistics: min/max bounds, null and NaN counts for pages and column chunks.

Bounds follow the column's sort order (:func:`pqkit.statistics.sort_order`,
which has the table of orders); a column without one gets no min/max.

Bounds are PLAIN encoded, byte arrays without their length prefix. Floating
point follows the spec's TYPE_ORDER writer rules: NaNs are skipped (a page of
only NaN and nulls gets no bounds), a zero min is written as -0.0 and a zero
max as +0.0, and ``nan_count`` is always set. Byte-array bounds under the
unsigned order longer than ``truncate_length`` are shortened: the min to a
prefix, the max to a prefix whose last byte below 0xFF is incremented (or
kept whole and exact when there is none, e.g. 100 bytes of 0xFF); for text columns the cut falls on a UTF-8
character boundary and the increment bumps a whole character, so the bound
stays valid UTF-8. ``is_*_value_exact`` say whether that happened.

Worked example, ``truncate_length=4``: a BINARY page ``[b"abcdef",
b"zz\\xff\\xff\\xff", None]`` gets ``null_count=1``, ``min_value=b"abcd"``
(inexact) and ``max_value=b"z{"``: the prefix ``b"zz\\xff\\xff"`` loses its 0xFF
tail and its last byte is incremented (inexact). A STRING page ``["日本語"]``
(9 bytes) gets ``min_value="日"`` (3 bytes; 4 would split "本") and
``max_value="旦"`` (U+65E5 + 1), both inexact. Decimals are never truncated:
a prefix of a two's-complement number is not a bound of it.

The deprecated ``min`` / ``max`` fields are written wherever the sort order is
SIGNED, as Arrow C++ (and parquet-java) do, FLBA decimals and FLOAT16 included.
"""
import numpy as np

from pqkit import format as fmt
from pqkit._native.stats import binary_min_max, dictionary_min_max
from pqkit.encodings.physical import PLAIN_WIDTH
from pqkit.format import Type
from pqkit.statistics import SIGNED, bound_kind, is_text, sort_order

# Memory for one block of sign-extended BYTE_ARRAY decimals (see _decimal_binary_extremes).
_DECIMAL_BLOCK_BYTES = 1 << 20


def column_order(node):
    """The footer's ``ColumnOrder`` for a leaf: TYPE_ORDER (the type-defined order)."""
    return fmt.ColumnOrder(TYPE_ORDER=fmt.TypeDefinedOrder())


class StatisticsAccumulator:
    """Statistics of each page of a column chunk, folded into the chunk's.

    Parameters
    ----------
    node : pqkit.SchemaNode
        The leaf column.
    truncate_length : int or None
        Longest byte-array bound written under the unsigned bytewise order;
        None keeps bounds whole.

    Examples
    --------
    >>> acc = StatisticsAccumulator(int64_node)                # doctest: +SKIP
    >>> acc.page(np.array([3, -1], np.int64), null_count=2)   # doctest: +SKIP
    >>> acc.chunk().min_value                                 # doctest: +SKIP
    b'\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff'
    """

    def __init__(self, node, *, truncate_length=64):
        if truncate_length is not None and truncate_length < 1:
            raise ValueError(f"truncate_length must be at least 1, got {truncate_length}")
        self.node = node
        self.physical = node.physical_type
        self.order = sort_order(node)
        self.kind = bound_kind(node, self.order)
        self.truncate_length = truncate_length
        self.text = is_text(node)
        self.floating = self.kind in ("float", "float16")
        self.null_count = 0
        self.nan_count = 0
        self.lo = self.hi = None            # (key, raw): the chunk's exact extremes

    def page(self, values, null_count, dictionary=None):
        """Statistics of one page; also folds them into the chunk's.

        Parameters
        ----------
        values
            The page's non-null values in physical layout: a numpy bool, int32,
            int64, float32 or float64 array; an (n, width) uint8 array for
            INT96 and FIXED_LEN_BYTE_ARRAY; ``(offsets int64[n + 1], data
            uint8)`` for BYTE_ARRAY.
        null_count : int
            Level entries on the page below the leaf's max definition level:
            nulls at any nesting level, null and empty lists included
            (PARQUET-2067).
        dictionary : (dictionary values, indices) or None
            For a dictionary-encoded page: the chunk's dictionary (physical layout)
            and the page's indices into it, the same values as ``values``. Byte
            arrays then compare each distinct entry once instead of every value.

        Returns
        -------
        pqkit.format.Statistics
        """
        null_count = int(null_count)
        lo = hi = None
        nans = 0
        if self.kind is not None:
            lo, hi, nans = self._extremes(values, dictionary)
        self.null_count += null_count
        self.nan_count += nans
        if lo is not None:
            if self.lo is None or lo[0] < self.lo[0]:
                self.lo = lo
            if self.hi is None or hi[0] > self.hi[0]:
                self.hi = hi
        return self._statistics(null_count, nans, lo, hi)

    def chunk(self):
        """Statistics of the column chunk: every page passed to :meth:`page` so far."""
        return self._statistics(self.null_count, self.nan_count, self.lo, self.hi)

    # -- building the struct -------------------------------------------------------------
    def _statistics(self, null_count, nan_count, lo, hi):
        st = fmt.Statistics(null_count=null_count)
        if self.floating:
            st.nan_count = nan_count
        if lo is None:
            return st
        lo_raw, lo_exact = lo[1], True
        hi_raw, hi_exact = hi[1], True
        if self.kind == "bytes" and self.truncate_length is not None:
            lo_raw, lo_exact = truncate_min(lo_raw, self.truncate_length, self.text)
            hi_raw, hi_exact = truncate_max(hi_raw, self.truncate_length, self.text)
        if hi_raw is None:
            # No short upper bound (a prefix of 0xFF bytes): the exact max, as Arrow C++
            # writes it, rather than none, which would disable pruning and the page index.
            hi_raw, hi_exact = hi[1], True
        st.min_value, st.is_min_value_exact = lo_raw, lo_exact
        st.max_value, st.is_max_value_exact = hi_raw, hi_exact
        if self.order == SIGNED:
            # For readers of the deprecated fields (files without column_orders). Signed
            # orders are never truncated, so both bounds are exact here.
            st.min, st.max = lo_raw, hi_raw
        return st

    # -- per kind: ((key, raw), (key, raw), nan_count); keys compare in the sort order ----
    def _extremes(self, values, dictionary=None):
        kind = self.kind
        if kind == "bytes" and self.physical == Type.BYTE_ARRAY:
            if dictionary is not None:
                (offsets, data), indices = dictionary
                return _binary_extremes(offsets, data, dictionary_min_max(offsets, data,
                                                                          indices)) + (0,)
            return _binary_extremes(*values) + (0,)
        if kind == "decimal" and self.physical == Type.BYTE_ARRAY:
            return _decimal_binary_extremes(*values) + (0,)
        if kind in ("bytes", "decimal", "float16"):
            rows = _fixed_rows(values, self.node.element.type_length)
            if len(rows) == 0:
                return None, None, 0
            if kind == "float16":
                return _float16_extremes(rows)
            i, j = _lex_argextremes(rows, signed=kind == "decimal")
            lo, hi = rows[i].tobytes(), rows[j].tobytes()
            if kind == "decimal":
                return (_be_int(lo), lo), (_be_int(hi), hi), 0
            return (lo, lo), (hi, hi), 0
        arr = np.asarray(values)
        if len(arr) == 0:
            return None, None, 0
        if kind == "bool":
            arr = arr.astype(bool, copy=False)
            lo, hi = bool(arr.all()), bool(arr.any())
            return (lo, bytes([lo])), (hi, bytes([hi])), 0
        if kind == "float":
            return _float_extremes(_checked(arr, "f", PLAIN_WIDTH[self.physical]))
        width = PLAIN_WIDTH[self.physical]
        arr = _checked(arr, "iu", width).view(f"<{'u' if kind == 'uint' else 'i'}{width}")
        lo, hi = arr.min(), arr.max()
        return (int(lo), lo.tobytes()), (int(hi), hi.tobytes()), 0


def _checked(arr, kinds, width):
    if arr.dtype.kind not in kinds or arr.dtype.itemsize != width:
        raise TypeError(f"expected a {width}-byte numpy array of kind {kinds!r}, "
                        f"got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<"))


def _fixed_rows(values, width):
    """FLBA / INT96 values as a C-contiguous (n, width) uint8 array."""
    rows = np.ascontiguousarray(values, dtype=np.uint8)
    if rows.ndim == 1:
        return rows.reshape(-1, width)
    if rows.ndim != 2 or rows.shape[1] != width:
        raise ValueError(f"expected (n, {width}) uint8 values, got shape {rows.shape}")
    return rows


def _float_extremes(arr):
    # np.min / np.max propagate NaN, so a non-NaN min proves there is no NaN (one fast
    # pass in the common case); only then are NaNs masked out and counted.
    lo, hi = arr.min(), arr.max()
    nans = 0
    if np.isnan(lo):
        finite = arr[~np.isnan(arr)]
        nans = len(arr) - len(finite)
        if len(finite) == 0:
            return None, None, nans
        lo, hi = finite.min(), finite.max()
    # PARQUET-1222: a zero bound must not exclude the other zero.
    if lo == 0:
        lo = -abs(lo)
    if hi == 0:
        hi = abs(hi)
    return (float(lo), lo.tobytes()), (float(hi), hi.tobytes()), nans


def _float16_extremes(rows):
    """FLBA(2) IEEE half floats (little-endian), compared by value on their bit patterns."""
    bits = rows.view("<u2").reshape(-1)
    nan = (bits & 0x7FFF) > 0x7C00
    nans = int(nan.sum())
    if nans:
        bits = bits[~nan]
        if len(bits) == 0:
            return None, None, nans
    # Totally ordered keys: a negative half keeps its sign bit and flips the others, so
    # signed int16 order is numeric order (-0 just below +0; zeros are normalized below).
    signed = bits.view("<i2")
    keys = np.where(signed < 0, signed ^ np.int16(0x7FFF), signed)
    lo_bits = int(bits[int(np.argmin(keys))])
    hi_bits = int(bits[int(np.argmax(keys))])
    if lo_bits & 0x7FFF == 0:
        lo_bits = 0x8000
    if hi_bits & 0x7FFF == 0:
        hi_bits = 0x0000
    lo_raw, hi_raw = lo_bits.to_bytes(2, "little"), hi_bits.to_bytes(2, "little")
    return ((float(np.frombuffer(lo_raw, "<f2")[0]), lo_raw),
            (float(np.frombuffer(hi_raw, "<f2")[0]), hi_raw), nans)


def _lex_argextremes(rows, signed):
    """Indices of the smallest and largest rows of an (n, w) uint8 array, n > 0.

    Rows compare bytewise unsigned, or as big-endian two's complement when
    ``signed`` (flipping the top bit of byte 0 makes that order bytewise). Rows of
    1, 2, 4 or 8 bytes are compared as big-endian integers; wider ones are read 8
    bytes at a time as big-endian uint64 words; each pass keeps the candidates
    equal to the best word so far, so ties cost one pass per word. The first
    of equal rows is found either way.
    """
    n, w = rows.shape
    if w == 0:
        return 0, 0
    if w in (1, 2, 4, 8):       # one machine word per row: numpy's argmin/argmax
        keys = np.ascontiguousarray(rows).view(f">{'i' if signed else 'u'}{w}").reshape(-1)
        return int(np.argmin(keys)), int(np.argmax(keys))
    pad = -w % 8
    if pad or signed:
        padded = np.zeros((n, w + pad), np.uint8)
        padded[:, :w] = rows
        if signed:
            padded[:, 0] ^= 0x80
        rows = padded
    words = np.ascontiguousarray(rows).view(">u8")
    return _narrow(words, np.min), _narrow(words, np.max)


def _narrow(words, best):
    candidates = None
    for c in range(words.shape[1]):
        col = words[:, c] if candidates is None else words[candidates, c]
        hit = np.flatnonzero(col == best(col))
        candidates = hit if candidates is None else candidates[hit]
        if len(candidates) == 1:
            break
    return int(candidates[0])


def _check_offsets(offsets, size):
    if len(offsets) and (offsets[0] < 0 or offsets[-1] > size or np.any(np.diff(offsets) < 0)):
        raise ValueError(f"byte-array offsets {offsets[0]}..{offsets[-1]} are not "
                         f"non-decreasing within {size} data bytes")


def _binary_extremes(offsets, data, found=False):
    """Unsigned bytewise extremes of BYTE_ARRAY values (one C pass, see _native.stats);
    ``found``, when given, is the (min, max) pair of value positions already known."""
    if found is False:
        found = binary_min_max(offsets, data)
    if found is None:
        return None, None
    data = np.asarray(data, np.uint8).reshape(-1)
    lo, hi = (bytes(data[offsets[i]:offsets[i + 1]]) for i in found)
    return (lo, lo), (hi, hi)


def _decimal_binary_extremes(offsets, data):
    """Extremes of big-endian two's-complement BYTE_ARRAY values of any lengths.

    Values are sign-extended to the longest one (an empty value counts as 0),
    right-aligned in an (n, width) matrix and compared as FLBA decimals; blocks
    of rows keep the matrix near _DECIMAL_BLOCK_BYTES.
    """
    offsets = np.asarray(offsets, np.int64)
    data = np.asarray(data, np.uint8).reshape(-1)
    _check_offsets(offsets, len(data))
    n = len(offsets) - 1
    if n <= 0:
        return None, None
    width = max(int(np.diff(offsets).max()), 1)
    step = max(1, _DECIMAL_BLOCK_BYTES // width)
    lo = hi = None
    for start in range(0, n, step):
        block = offsets[start:min(n, start + step) + 1]
        i, j = _lex_argextremes(_sign_extended(block, data, width), signed=True)
        for k, pick_lo in ((i, True), (j, False)):
            raw = bytes(data[block[k]:block[k + 1]])
            cand = (_be_int(raw), raw)
            if pick_lo and (lo is None or cand[0] < lo[0]):
                lo = cand
            if not pick_lo and (hi is None or cand[0] > hi[0]):
                hi = cand
    return lo, hi


def _sign_extended(offsets, data, width):
    lens = np.diff(offsets)
    n = len(lens)
    first = data[np.minimum(offsets[:-1], max(len(data) - 1, 0))] if len(data) else \
        np.zeros(n, np.uint8)
    fill = np.where((lens > 0) & (first >= 0x80), 0xFF, 0).astype(np.uint8)
    mat = np.empty((n, width), np.uint8)
    mat[:] = fill[:, None]
    # Byte t of the block lands at flat position t + shift[row]: row * width plus the
    # right-alignment gap, minus where the row's bytes start.
    shift = np.arange(n, dtype=np.int64) * width + (width - lens) - (offsets[:-1] - offsets[0])
    total = int(offsets[-1] - offsets[0])
    mat.reshape(-1)[np.arange(total, dtype=np.int64) + np.repeat(shift, lens)] = \
        data[offsets[0]:offsets[-1]]
    return mat


def _be_int(raw):
    return int.from_bytes(raw, "big", signed=True)


# -- truncation -----------------------------------------------------------------------------
def _utf8_cut(value, limit):
    """The longest prefix length <= limit that does not split a UTF-8 character."""
    cut = limit
    while cut > 0 and value[cut] & 0xC0 == 0x80:
        cut -= 1
    return cut


def truncate_min(value, limit, text=False):
    """(lower bound of at most ``limit`` bytes, exact?) for a byte-array min.

    A prefix is never larger than the value; ``text`` cuts on a UTF-8
    character boundary so the bound stays valid UTF-8.
    """
    if len(value) <= limit:
        return value, True
    return value[:_utf8_cut(value, limit) if text else limit], False


def truncate_max(value, limit, text=False):
    """(upper bound of at most ``limit`` bytes or None, exact?) for a byte-array max.

    A bare prefix is *not* an upper bound (hyparquet-writer #31): the prefix
    is cut after its last byte below 0xFF and that byte incremented, e.g.
    ``b"ab\\xff\\xffz"`` at 4 bytes gives ``b"ac"``. For valid UTF-8 ``text``
    the last character that can grow without outgrowing ``limit`` is replaced
    by the next code point (arrow-rs #6870). Returns (None, None) when no
    short bound exists: every byte of the prefix is 0xFF, or no character of
    the text prefix can be incremented within ``limit`` bytes.
    """
    if len(value) <= limit:
        return value, True
    if text:
        try:
            chars = value[:_utf8_cut(value, limit)].decode("utf-8")
        except UnicodeDecodeError:
            chars = None            # not UTF-8 after all: the bytewise rule below applies
        if chars is not None:
            bound = _increment_utf8(chars, limit)
            return (bound, False) if bound is not None else (None, None)
    prefix = value[:limit].rstrip(b"\xff")
    if not prefix:
        return None, None
    return prefix[:-1] + bytes([prefix[-1] + 1]), False


def _increment_utf8(chars, limit):
    """A UTF-8 bound of at most ``limit`` bytes above every string starting with ``chars``."""
    for pos in range(len(chars) - 1, -1, -1):
        code = ord(chars[pos]) + 1
        if 0xD800 <= code <= 0xDFFF:
            code = 0xE000           # surrogates are not characters
        if code > 0x10FFFF:
            continue
        bound = (chars[:pos] + chr(code)).encode("utf-8")
        if len(bound) <= limit:
            return bound
    return None


__all__ = ["column_order", "StatisticsAccumulator", "truncate_min", "truncate_max"]
