# cython: language_level=3
"""Definition levels -> validity and values placed in their row slots, in one pass.

For a flat column (no repetition, one OPTIONAL node on its path, so max_def is
1) every level entry is one row slot: level 1 holds the next stored value,
level 0 a null. The unfused read decodes the levels into an int16 array,
assembles validity from it and then scatters the dense values into a new
array; here each level run is applied where it is decoded: an RLE run of
``k`` ones moves ``k`` values at once (one ``memmove``) and sets ``k``
validity bytes, a run of zeros clears ``k`` rows, and bit-packed levels (bit
width 1) are read a byte -- eight entries -- at a time: the byte's validity
bytes come from a 256-entry table, a byte of ones moves eight values at once,
and a mixed byte places its values without branches.

The values may come from a separate buffer (a decompressed page body) or lie
in the output itself, stored densely at the tail of the rows the page covers
(a page decompressed or gathered straight into its final place): then value
``k`` sits at or after row ``k + nulls``, the row it goes to, so a forward pass
never overwrites a value it has yet to read.

With levels ``02 01 03 05`` (bit width 1: an RLE run of one 1, then one bit-packed
group 1, 0, 1, 0, 0, 0, 0, 0 of which 4 entries are wanted) and values ``[7, 8, 9]``,
``count == 5`` gives rows ``[7, 8, 0, 9, 0]`` and validity ``[1, 1, 0, 1, 0]``.

A fault makes the kernel return -1; the reader then decodes the chunk with the
unfused path, which raises the error naming the offset.
"""
cimport cython
from libc.stdint cimport uint32_t, uint64_t
from libc.string cimport memcpy, memmove, memset

from pqkit._native.bitpack cimport HF_NONE, MAX_PACKED_GROUPS, run_header
from pqkit._native.buffer cimport cursor_init

cdef extern from *:
    int __builtin_popcount(unsigned int x) nogil


ctypedef fused word_t:
    uint32_t
    uint64_t


cdef inline Py_ssize_t _spread(word_t* row, const uint8_t* src, Py_ssize_t taken,
                               Py_ssize_t have, uint8_t b, int k) noexcept nogil:
    # Branch-free: every entry loads the next value (its index clamped below `have`,
    # which is at least 1 here since b has a bit set) and stores it or zero; `row`
    # picks the value width (4 or 8 bytes) and is used only as an address.
    # Safety: the caller checked popcount(b) <= have - taken.
    cdef int bit
    cdef word_t v, keep
    cdef Py_ssize_t at
    for bit in range(k):
        at = taken if taken < have else have - 1
        memcpy(&v, src + at * sizeof(word_t), sizeof(word_t))
        keep = (b >> bit) & 1
        v &= (<word_t>0) - keep
        memcpy(<uint8_t*>row + bit * sizeof(word_t), &v, sizeof(word_t))
        taken += <Py_ssize_t>keep
    return taken


cdef uint64_t _SPREAD[256]        # byte b -> 8 validity bytes, byte i = bit i of b
cdef int _i, _j
for _i in range(256):
    _SPREAD[_i] = 0
    for _j in range(8):
        if (_i >> _j) & 1:
            _SPREAD[_i] |= (<uint64_t>1) << (8 * _j)


cdef inline int _next_run(Cursor* c, Py_ssize_t remaining, Py_ssize_t* n, int* value,
                          const uint8_t** packed) noexcept nogil:
    """Read the next run of levels at bit width 1, at most `remaining` entries of it in
    n. An RLE run gives its level (0 or 1) in value; a bit-packed run gives value -1
    and its bytes in packed (one byte per 8 entries, LSB first), and the cursor moves
    past it. -1 on a bad header or missing bytes."""
    cdef uint64_t header, runlen
    cdef Py_ssize_t need
    if c.pos >= c.size or run_header(c, &header) != HF_NONE or header >> 1 == 0:
        return -1
    runlen = header >> 1
    if not (header & 1):
        if c.pos >= c.size or c.data[c.pos] > 1:
            return -1
        value[0] = c.data[c.pos]
        c.pos += 1
        n[0] = <Py_ssize_t>runlen if runlen < <uint64_t>remaining else remaining
        return 0
    if runlen > MAX_PACKED_GROUPS:
        return -1
    n[0] = <Py_ssize_t>(runlen * 8) if runlen * 8 < <uint64_t>remaining else remaining
    need = (n[0] + 7) >> 3
    if c.size - c.pos < need:
        return -1
    value[0] = -1
    packed[0] = c.data + c.pos
    if <uint64_t>(c.size - c.pos) > runlen:
        c.pos += <Py_ssize_t>runlen
    else:
        c.pos = c.size           # the final run may lack its padding bytes
    return 0


cdef inline uint8_t _level_byte(const uint8_t* packed, Py_ssize_t i, Py_ssize_t n,
                                int* k) noexcept nogil:
    """Byte i of a bit-packed run of n entries, its bits past the n-th cleared; k gets
    the entries it holds (8, or fewer in the last byte)."""
    cdef uint8_t b = packed[i]
    k[0] = 8 if n - 8 * i >= 8 else <int>(n - 8 * i)
    if k[0] < 8:
        b &= <uint8_t>((1 << k[0]) - 1)
    return b


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t place_runs(Cursor* c, int max_def, Py_ssize_t count, uint8_t* dst,
                           Py_ssize_t width, const uint8_t* src, Py_ssize_t src_len,
                           uint8_t* valid) noexcept nogil:
    # Safety: _next_run checks each run's bytes against c.size; no run writes past
    # dst + count rows or valid + count; values are read from src only below `have`.
    cdef Py_ssize_t produced = 0, taken = 0, n, i, have = src_len // width
    cdef int value, bit, k
    cdef uint8_t b
    cdef uint8_t* row
    cdef const uint8_t* packed = NULL
    if max_def != 1:
        return -1
    while produced < count:
        if _next_run(c, count - produced, &n, &value, &packed):
            return -1
        if value == 1:
            if n > have - taken:
                return -1
            if dst + produced * width != src + taken * width:
                memmove(dst + produced * width, src + taken * width, n * width)
            memset(valid + produced, 1, n)
            taken += n
        elif value == 0:
            memset(dst + produced * width, 0, n * width)
            memset(valid + produced, 0, n)
        else:
            for i in range((n + 7) >> 3):
                b = _level_byte(packed, i, n, &k)
                row = dst + (produced + 8 * i) * width
                memcpy(valid + produced + 8 * i, &_SPREAD[b], k)
                if b == 0xFF and have - taken >= 8:
                    if row != src + taken * width:
                        memmove(row, src + taken * width, 8 * width)
                    taken += 8
                    continue
                if __builtin_popcount(b) > have - taken:
                    return -1
                if b == 0:
                    memset(row, 0, k * width)
                elif width == 8:
                    taken = _spread(<uint64_t*>row, src, taken, have, b, k)
                elif width == 4:
                    taken = _spread(<uint32_t*>row, src, taken, have, b, k)
                else:
                    for bit in range(k):
                        if (b >> bit) & 1:
                            memmove(row + bit * width, src + taken * width, width)
                            taken += 1
                        else:
                            memset(row + bit * width, 0, width)
        produced += n
    return taken


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t count_runs(Cursor* c, int max_def, Py_ssize_t count) noexcept nogil:
    # Safety: as place_runs; nothing is written.
    cdef Py_ssize_t produced = 0, present = 0, n, i
    cdef int value, k
    cdef const uint8_t* packed = NULL
    if max_def != 1:
        return -1
    while produced < count:
        if _next_run(c, count - produced, &n, &value, &packed):
            return -1
        if value == 1:
            present += n
        elif value < 0:
            for i in range((n + 7) >> 3):
                present += __builtin_popcount(_level_byte(packed, i, n, &k))
        produced += n
    return present


def count_present(const uint8_t[::1] levels, Py_ssize_t offset, Py_ssize_t length,
                  int max_def, Py_ssize_t count):
    """Entries among ``count`` hybrid-encoded definition levels at
    ``levels[offset:offset + length]`` that equal ``max_def``; -1 on any fault.
    """
    cdef Cursor c
    cdef Py_ssize_t got
    if offset < 0 or length < 0 or length > levels.shape[0] - offset or max_def < 1 \
            or count < 0:
        return -1
    if count == 0:
        return 0
    if length == 0:
        return -1
    cursor_init(&c, &levels[0] + offset, length, 0)
    with nogil:
        got = count_runs(&c, max_def, count)
    return got


def place_values(const uint8_t[::1] levels, Py_ssize_t offset, Py_ssize_t length,
                 int max_def, Py_ssize_t count, uint8_t[::1] out, Py_ssize_t out_start,
                 Py_ssize_t width, src, Py_ssize_t src_start, Py_ssize_t src_len,
                 uint8_t[::1] valid, Py_ssize_t valid_start):
    """Decode ``count`` definition levels and place the page's values in their rows.

    Parameters
    ----------
    levels, offset, length
        The hybrid-encoded levels (bit width from ``max_def``) at
        ``levels[offset:offset + length]``.
    max_def : int
        The column's maximum definition level (at least 1).
    count : int
        Level entries = rows of the page.
    out, out_start, width
        Rows of ``width`` bytes; the page's first row starts at byte ``out_start``.
    src, src_start, src_len
        The dense values: ``src_len`` bytes at ``src[src_start:]``; ``src`` None means
        ``out`` itself, where they must lie at or after the tail position
        ``out_start + (count - present) * width``.
    valid, valid_start
        One byte per row (1 present, 0 null) from ``valid[valid_start]``.

    Returns
    -------
    int
        Values taken from ``src``, or -1 on any fault (corrupt levels, too few values).
    """
    cdef Cursor c
    cdef Py_ssize_t got, src_size
    cdef const uint8_t[::1] source
    cdef const uint8_t* sp
    if offset < 0 or length < 0 or length > levels.shape[0] - offset or max_def < 1 \
            or count < 0 or width <= 0:
        return -1
    if out_start < 0 or count * width > out.shape[0] - out_start:
        return -1
    if valid_start < 0 or count > valid.shape[0] - valid_start:
        return -1
    if count == 0:
        return 0
    if length == 0:
        return -1
    if src is None:
        src_size = out.shape[0]
        sp = &out[0]
        # In place, a value must never sit before the row it goes to.
        if src_start < out_start + count * width - src_len:
            return -1
    else:
        source = src
        src_size = source.shape[0]
        sp = &source[0] if src_size else NULL
    if src_start < 0 or src_len < 0 or src_len > src_size - src_start:
        return -1
    cursor_init(&c, &levels[0] + offset, length, 0)
    with nogil:
        got = place_runs(&c, max_def, count, &out[0] + out_start,
                         width, sp + src_start if sp != NULL else NULL, src_len,
                         &valid[0] + valid_start)
    return got
