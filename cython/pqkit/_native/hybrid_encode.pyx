# cython: language_level=3
"""Bit packing and the encoder of the RLE/bit-packed hybrid (Parquet encoding RLE = 3).

The layouts (LSB-first bit packing, RLE and bit-packed runs, the 4-byte length
prefix of v1 levels and RLE booleans) are described in
:mod:`pqkit._native.bitpack`, which holds the decoding side.

How the encoder chooses runs: a repeat of 8 or more equal values becomes an
RLE run; everything else goes into bit-packed runs of at most 63 groups (so
each header is one byte), the last group zero-padded. A bit-packed run holds
whole groups of 8, so the literal values before a repeat borrow values from
the repeat to fill their last group, and the repeat stays RLE only if 8 or
more remain. At width 3, ``[5] * 8 + [1, 2, 3]`` encodes as ``10 05`` (an RLE
run of 8 fives) then ``03 d1 00 00`` (one bit-packed group holding 1, 2, 3
and five padding zeros); ``[1, 2, 3] + [5] * 13`` encodes as ``03 d1 da b6``
(1, 2, 3 and five of the fives) then ``10 05`` (the eight fives left).
A tail of one repeated value is always an RLE run.
"""
cimport cython
from libc.string cimport memcpy, memset
from libc.stdint cimport UINT32_MAX, int16_t, int64_t

import sys

import numpy as np

if sys.byteorder != "little":  # _pack_group stores little-endian words directly
    raise ImportError("pqkit's bit-packing kernels need a little-endian host")

cdef enum:
    MAX_RUN = 2147483647                 # run lengths are at most 2^31 - 1 values
    ENCODE_MAX_GROUPS = 63               # keeps every bit-packed header in one byte


# ------------------------------------------------------------------ packing

@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline void _pack_group(const uint32_t* v, uint8_t* d, int w) noexcept nogil:
    # Safety: writes exactly w bytes at d. Value i lands in words[k] and
    # words[k + 1] (k = i*w / 64); the spill-over shift is split in two so
    # that it is 0, not undefined, when nothing spills.
    cdef uint64_t words[5]
    cdef uint64_t x, m = (<uint64_t>1 << w) - 1
    cdef int i, bit, k, sh
    words[0] = words[1] = words[2] = words[3] = words[4] = 0
    for i in range(8):
        x = v[i] & m
        bit = i * w
        k = bit >> 6
        sh = bit & 63
        words[k] |= x << sh
        words[k + 1] |= (x >> 1) >> (63 - sh)
    memcpy(d, words, w)


cdef void pack_values(const uint32_t* values, Py_ssize_t n, uint8_t* dst, int w) noexcept nogil:
    # Safety: dst holds ceil(n / 8) * w bytes; the last group is zero-padded.
    cdef Py_ssize_t g, full = n >> 3, rest = n & 7
    cdef uint32_t tmp[8]
    if w == 0:
        return
    for g in range(full):
        _pack_group(values + g * 8, dst + g * w, w)
    if rest:
        memset(tmp, 0, sizeof(tmp))
        memcpy(tmp, values + full * 8, rest * sizeof(uint32_t))
        _pack_group(tmp, dst + full * w, w)


# ----------------------------------------------------------- hybrid encode

cdef Py_ssize_t _emit_rle(uint32_t value, Py_ssize_t run, int w, uint8_t* d) noexcept nogil:
    cdef Py_ssize_t pos = 0, n
    cdef int k, vbytes = (w + 7) >> 3
    while run > 0:
        n = run if run < MAX_RUN else MAX_RUN
        pos += put_uvarint(d + pos, (<uint64_t>n) << 1)
        for k in range(vbytes):
            d[pos + k] = <uint8_t>(value >> (8 * k))
        pos += vbytes
        run -= n
    return pos


cdef Py_ssize_t _emit_packed(const uint32_t* v, Py_ssize_t n, int w, uint8_t* d) noexcept nogil:
    cdef Py_ssize_t pos = 0, m, groups
    while n > 0:
        m = n if n < ENCODE_MAX_GROUPS * 8 else ENCODE_MAX_GROUPS * 8
        groups = (m + 7) >> 3
        pos += put_uvarint(d + pos, (<uint64_t>groups << 1) | 1)
        pack_values(v, m, d + pos, w)
        pos += groups * w
        v += m
        n -= m
    return pos


cdef Py_ssize_t hybrid_bound(Py_ssize_t n, int w) noexcept nogil:
    # literal values (plus final padding) + one header per 63 groups, and at
    # most n / 8 RLE runs of <= 9 bytes each with a literal run between them
    return ((n + 7) >> 3) * w + (n >> 3) * 10 + (n + 7) // (ENCODE_MAX_GROUPS * 8) + 32


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t hybrid_encode(const uint32_t* v, Py_ssize_t n, int w, uint8_t* dst) noexcept nogil:
    # Repeats of 8 or more become RLE runs; everything else goes into
    # bit-packed runs. A bit-packed run must hold whole groups of 8, so the
    # literal block before a repeat borrows values from the repeat to fill
    # its last group, and the repeat stays RLE only if 8 or more remain.
    cdef Py_ssize_t pos = 0, j = 1, cnt = 1, s, e, run, pending, pad, lit = 0
    # cnt is the length of the run of equal values ending at j (branch-free
    # update); a run becomes interesting only once it reaches 8.
    while j < n:
        cnt = cnt + 1 if v[j] == v[j - 1] else 1
        if cnt == 8:
            s = j - 7
            e = j + 1
            while e < n and v[e] == v[s]:
                e += 1
            run = e - s
            pending = s - lit
            pad = (8 - (pending & 7)) & 7
            if run - pad >= 8:
                if pending + pad:
                    pos += _emit_packed(v + lit, pending + pad, w, dst + pos)
                pos += _emit_rle(v[s], run - pad, w, dst + pos)
                lit = e
            j = e       # v[e] != v[e - 1], so cnt restarts at 1 there
            continue
        j += 1
    if lit < n:
        j = lit + 1
        while j < n and v[j] == v[lit]:
            j += 1
        if j == n:      # a short tail of one value: an RLE run is never larger
            pos += _emit_rle(v[lit], n - lit, w, dst + pos)
        else:
            pos += _emit_packed(v + lit, n - lit, w, dst + pos)
    return pos


# ------------------------------------------------------------- Python API

cdef object _as_u32(values, int bit_width):
    """Validate encoder input (integers in 0..2^w - 1) and return it as uint32."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"expected a 1-D array of values, got shape {arr.shape}")
    if bit_width < 0 or bit_width > 32:
        raise ValueError(f"bit width {bit_width}: must be 0..32")
    if arr.dtype == np.bool_:
        arr = arr.view(np.uint8)
    elif arr.size and arr.dtype.kind not in "iu":
        raise ValueError(f"expected integer values, got dtype {arr.dtype}")
    if arr.size:
        lo = int(arr.min())
        hi = int(arr.max())
        if lo < 0 or hi >> bit_width:
            bad = lo if lo < 0 else hi
            raise ValueError(f"value {bad} does not fit bit width {bit_width}")
    return np.ascontiguousarray(arr, dtype=np.uint32)


def pack_bits(values, int bit_width):
    """Pack values LSB-first into ``ceil(n * bit_width / 8)`` bytes (zero-padded).

    ``values`` is a 1-D integer (or bool) array with every value below
    ``2 ** bit_width``.
    """
    cdef const uint32_t[::1] v = _as_u32(values, bit_width)
    cdef Py_ssize_t n = v.shape[0], nbytes = (n * bit_width + 7) >> 3
    buf = np.empty(((n + 7) >> 3) * bit_width, dtype=np.uint8)
    cdef uint8_t[::1] dst = buf
    if n and bit_width:
        with nogil:
            pack_values(&v[0], n, &dst[0], bit_width)
    return buf[:nbytes].tobytes()


def encode_hybrid(values, int bit_width, bint prefixed=False):
    """Encode values with the RLE/bit-packed hybrid.

    Repeats of 8 or more become RLE runs, the rest bit-packed runs of at most
    63 groups, the last group zero-padded.

    Parameters
    ----------
    values : array-like of int
        1-D integers (or bools) in ``0 .. 2 ** bit_width - 1``.
    bit_width : int
        0..32.
    prefixed : bool
        Put the 4-byte little-endian byte length in front (v1 levels, RLE
        booleans).

    Returns
    -------
    bytes
    """
    cdef const uint32_t[::1] v = _as_u32(values, bit_width)
    return _encoded(v, bit_width, prefixed)


cdef bytes _encoded(const uint32_t[::1] v, int w, bint prefixed):
    """The hybrid encoding of ``v`` at width ``w``, behind its 4-byte little-endian
    length when ``prefixed``."""
    cdef Py_ssize_t n = v.shape[0], head = 4 if prefixed else 0, used = 0
    buf = np.empty(head + hybrid_bound(n, w), dtype=np.uint8)
    cdef uint8_t[::1] dst = buf
    if n:
        with nogil:
            used = hybrid_encode(&v[0], n, w, &dst[head])
    if prefixed:
        if used > UINT32_MAX:
            raise ValueError(f"encoded levels of {used} bytes exceed the 4-byte length prefix")
        dst[0] = <uint8_t>used
        dst[1] = <uint8_t>(used >> 8)
        dst[2] = <uint8_t>(used >> 16)
        dst[3] = <uint8_t>(used >> 24)
    return buf[:head + used].tobytes()


@cython.boundscheck(False)
@cython.wraparound(False)
def encode_levels_counted(levels, int max_level, bint prefixed):
    """Hybrid-encode int16 levels at the width of ``max_level`` and count each level.

    One pass checks every level against ``0..max_level``, widens it for the
    encoder and counts it, so a page's levels and their histogram (the
    SizeStatistics / ColumnIndex level histograms) cost one read of the levels.

    Returns
    -------
    (bytes, numpy.ndarray of int64)
        The encoding (behind a 4-byte length when ``prefixed``) and
        ``max_level + 1`` counts.
    """
    if max_level < 0 or max_level > 32767:
        raise ValueError(f"max level {max_level} outside 0..32767")
    cdef const int16_t[::1] lv = np.ascontiguousarray(levels, dtype=np.int16).reshape(-1)
    cdef Py_ssize_t n = lv.shape[0], i, bad = -1
    cdef int w = 0
    while (1 << w) <= max_level:
        w += 1
    counts = np.zeros(max_level + 1, np.int64)
    wide = np.empty(max(n, 1), np.uint32)
    cdef int64_t[::1] cv = counts
    cdef uint32_t[::1] wv = wide
    cdef int16_t level
    with nogil:
        for i in range(n):
            level = lv[i]
            if level < 0 or level > max_level:
                bad = i
                break
            cv[level] += 1
            wv[i] = <uint32_t>level
    if bad >= 0:
        raise ValueError(f"level {lv[bad]} at entry {bad} is outside 0..{max_level}")
    return _encoded(wv[:n], w, prefixed), counts
