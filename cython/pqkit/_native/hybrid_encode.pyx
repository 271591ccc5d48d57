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
from libc.stdint cimport UINT32_MAX, int16_t, int32_t, int64_t, uint16_t

import sys

import numpy as np

if sys.byteorder != "little":  # _pack_group stores little-endian words directly
    raise ImportError("pqkit's bit-packing kernels need a little-endian host")

cdef enum:
    MAX_RUN = 2147483647                 # run lengths are at most 2^31 - 1 values
    ENCODE_MAX_GROUPS = 63               # keeps every bit-packed header in one byte

# What the encoder reads: uint32 values (the Python API), int16 levels and int32
# dictionary indices as the writer holds them, each checked to be in 0..2^w - 1 first,
# so no copy to uint32 is made.
ctypedef fused small_t:
    uint32_t
    int16_t
    int32_t


# ------------------------------------------------------------------ packing

@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline void _pack_group(const small_t* v, uint8_t* d, int w) noexcept nogil:
    # Safety: writes exactly w bytes at d (8 values of w bits, little-endian).
    cdef uint64_t acc, m = (<uint64_t>1 << w) - 1
    cdef int i, bit
    if w == 1:              # levels of a flat nullable column, or of one list
        d[0] = <uint8_t>((v[0] & 1) | (v[1] & 1) << 1 | (v[2] & 1) << 2 | (v[3] & 1) << 3 |
                         (v[4] & 1) << 4 | (v[5] & 1) << 5 | (v[6] & 1) << 6 |
                         (v[7] & 1) << 7)
        return
    if w == 2:
        d[0] = <uint8_t>((v[0] & 3) | (v[1] & 3) << 2 | (v[2] & 3) << 4 | (v[3] & 3) << 6)
        d[1] = <uint8_t>((v[4] & 3) | (v[5] & 3) << 2 | (v[6] & 3) << 4 | (v[7] & 3) << 6)
        return
    # Wider values: shifted into a 64-bit accumulator, 32 bits stored at a time (a
    # value of w <= 32 bits above fewer than 32 pending bits always fits).
    acc = 0
    bit = 0
    for i in range(8):
        acc |= (<uint64_t><uint32_t>v[i] & m) << bit
        bit += w
        if bit >= 32:
            memcpy(d, &acc, 4)
            d += 4
            acc >>= 32
            bit -= 32
    if bit:
        memcpy(d, &acc, bit >> 3)     # 8 * w bits in all: whole bytes remain


cdef void pack_values(const small_t* values, Py_ssize_t n, uint8_t* dst, int w) noexcept nogil:
    # Safety: dst holds ceil(n / 8) * w bytes; the last group is zero-padded.
    cdef Py_ssize_t g, full = n >> 3, rest = n & 7
    cdef small_t tmp[8]
    if w == 0:
        return
    for g in range(full):
        _pack_group(values + g * 8, dst + g * w, w)
    if rest:
        memset(tmp, 0, sizeof(tmp))
        memcpy(tmp, values + full * 8, rest * sizeof(small_t))
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


cdef Py_ssize_t _emit_packed(const small_t* v, Py_ssize_t n, int w, uint8_t* d) noexcept nogil:
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
cdef Py_ssize_t hybrid_encode(const small_t* v, Py_ssize_t n, int w, uint8_t* dst) noexcept nogil:
    # Repeats of 8 or more become RLE runs; everything else goes into
    # bit-packed runs. A bit-packed run must hold whole groups of 8, so the
    # literal block before a repeat borrows values from the repeat to fill
    # its last group, and the repeat stays RLE only if 8 or more remain.
    cdef Py_ssize_t pos = 0, j = 1, cnt = 1, s, e, run, pending, pad, lit = 0
    # cnt is the length of the run of equal values ending at j (branch-free
    # update); a run becomes interesting only once it reaches 8.
    while j < n:
        # A mask, not a branch: in short mixed runs (levels of small lists) the
        # comparison is unpredictable.
        cnt = (cnt & -<Py_ssize_t>(v[j] == v[j - 1])) + 1
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
                pos += _emit_rle(<uint32_t>v[s], run - pad, w, dst + pos)
                lit = e
            j = e       # v[e] != v[e - 1], so cnt restarts at 1 there
            continue
        j += 1
    if lit < n:
        j = lit + 1
        while j < n and v[j] == v[lit]:
            j += 1
        if j == n:      # a short tail of one value: an RLE run is never larger
            pos += _emit_rle(<uint32_t>v[lit], n - lit, w, dst + pos)
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
    return _encoded(v, bit_width, HEAD_LENGTH if prefixed else HEAD_NONE)


cdef enum:
    HEAD_NONE = 0               # v2 levels
    HEAD_WIDTH = 1              # dictionary indices: the bit-width byte
    HEAD_LENGTH = 4             # v1 levels, RLE booleans: the 4-byte length


cdef bytes _encoded(const small_t[::1] v, int w, int head):
    """The hybrid encoding of ``v`` at width ``w`` behind ``head`` (HEAD_*)."""
    cdef Py_ssize_t n = v.shape[0], used = 0
    buf = np.empty(head + hybrid_bound(n, w), dtype=np.uint8)
    cdef uint8_t[::1] dst = buf
    if n:
        with nogil:
            used = hybrid_encode(&v[0], n, w, &dst[head])
    if head == HEAD_LENGTH:
        _put_length(&dst[0], used)
    elif head == HEAD_WIDTH:
        dst[0] = <uint8_t>w
    return buf[:head + used].tobytes()


cdef int _put_length(uint8_t* d, Py_ssize_t used) except -1:
    """The 4-byte little-endian length prefix of v1 levels and RLE booleans."""
    if used > UINT32_MAX:
        raise ValueError(f"encoded levels of {used} bytes exceed the 4-byte length prefix")
    d[0] = <uint8_t>used
    d[1] = <uint8_t>(used >> 8)
    d[2] = <uint8_t>(used >> 16)
    d[3] = <uint8_t>(used >> 24)
    return 0


@cython.boundscheck(False)
@cython.wraparound(False)
def encode_levels_counted(levels, int max_level, bint prefixed):
    """Hybrid-encode int16 levels at the width of ``max_level`` and count each level.

    One pass checks every level against ``0..max_level`` and counts it (the
    SizeStatistics / ColumnIndex level histograms); the encoder then reads the
    int16 levels themselves.

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
    if n and max_level <= SMALL_MAX_LEVEL:
        counts, bad = _small_level_counts(lv, max_level)
    else:
        counts, bad = _level_counts(lv, max_level)
    if bad >= 0:
        raise ValueError(f"level {lv[bad]} at entry {bad} is outside 0..{max_level}")
    return _encoded(lv, w, HEAD_LENGTH if prefixed else HEAD_NONE), counts


cdef enum:
    # Up to this max level the histogram is max_level + 1 branch-free counting passes
    # (each vectorizes) rather than one pass of scattered increments, which wait on
    # each other when neighbouring levels are equal.
    SMALL_MAX_LEVEL = 7


@cython.boundscheck(False)
@cython.wraparound(False)
cdef tuple _small_level_counts(const int16_t[::1] lv, int max_level):
    """(counts, index of the first level outside 0..max_level or -1)."""
    cdef Py_ssize_t n = lv.shape[0], i, bad = -1
    cdef uint16_t top = <uint16_t>max_level, out = 0
    cdef int64_t c
    cdef int level
    counts = np.zeros(max_level + 1, np.int64)
    cdef int64_t[::1] cv = counts
    with nogil:
        for i in range(n):          # negative levels are huge as unsigned
            out |= <uint16_t>(<uint16_t>lv[i] > top)
        if out:
            for i in range(n):
                if lv[i] < 0 or lv[i] > max_level:
                    bad = i
                    break
        else:
            for level in range(max_level + 1):
                c = 0
                for i in range(n):
                    c += lv[i] == level
                cv[level] = c
    return counts, bad


@cython.boundscheck(False)
@cython.wraparound(False)
cdef tuple _level_counts(const int16_t[::1] lv, int max_level):
    """(counts, index of the first level outside 0..max_level or -1)."""
    cdef Py_ssize_t n = lv.shape[0], i, bad = -1
    # Four interleaved histograms: consecutive equal levels would otherwise wait on
    # each other's increment of the same counter.
    lanes = np.zeros((4, max_level + 1), np.int64)
    cdef int64_t[:, ::1] cv = lanes
    cdef int16_t level
    with nogil:
        for i in range(n):
            level = lv[i]
            if level < 0 or level > max_level:
                bad = i
                break
            cv[i & 3, level] += 1
    return lanes.sum(axis=0), bad


@cython.boundscheck(False)
@cython.wraparound(False)
def encode_dictionary_indices(indices, Py_ssize_t dict_len):
    """A dictionary-index page body: the bit-width byte (that of ``dict_len - 1``), then
    the hybrid runs of the int32 ``indices``, each checked to be in ``0..dict_len - 1``."""
    cdef const int32_t[::1] iv = np.ascontiguousarray(indices, dtype=np.int32).reshape(-1)
    cdef Py_ssize_t n = iv.shape[0], i, bad = -1
    cdef int w = 0
    if dict_len < 0 or dict_len > 2147483648:
        raise ValueError(f"dictionary of {dict_len} entries")
    while (<int64_t>1 << w) < dict_len:
        w += 1
    cdef uint32_t top = 0, limit = <uint32_t>max(dict_len, 1) - 1
    with nogil:
        # A branch-free (vectorizable) pass finds whether any index is out of range
        # (negative ones are huge as unsigned); only then is it looked for.
        for i in range(n):
            top |= <uint32_t>(<uint32_t>iv[i] > limit)
        if top or (dict_len == 0 and n):
            for i in range(n):
                if iv[i] < 0 or iv[i] >= dict_len:
                    bad = i
                    break
    if bad >= 0:
        raise ValueError(f"dictionary index {iv[bad]} at {bad} is not below {dict_len}")
    return _encoded(iv, w, HEAD_WIDTH)
