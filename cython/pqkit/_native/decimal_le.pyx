# cython: language_level=3
"""Decimals into Arrow's storage: little-endian two's complement, 16 or 32 bytes a row.

Parquet keeps a decimal's unscaled value as an INT32, an INT64 or big-endian
two's complement bytes (FIXED_LEN_BYTE_ARRAY of ``w`` bytes, or BYTE_ARRAY);
Arrow's decimal128/decimal256 arrays want each value sign-extended to 16 or
32 little-endian bytes. One pass per row here, instead of numpy's strided
byte-swap, widening and sign-extension passes.

The 2-byte big-endian row ``ff 85`` (-123) becomes ``85 ff ff ... ff`` (16
bytes); the int64 ``5`` becomes ``05 00 ... 00``.
"""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcpy, memset

import numpy as np


cdef inline void _check_width(Py_ssize_t out_width) except *:
    if out_width != 16 and out_width != 32:
        raise ValueError(f"Arrow decimals are 16 or 32 bytes wide, not {out_width}")


cdef extern from *:
    uint64_t bswap64 "__builtin_bswap64"(uint64_t) nogil


cdef inline uint64_t _be_word(const uint8_t* src, Py_ssize_t w) noexcept nogil:
    # Up to 8 big-endian bytes, sign-extended to 64 bits.
    cdef uint64_t acc = 0
    cdef Py_ssize_t j
    for j in range(w):
        acc = (acc << 8) | src[j]
    if w < 8:
        return <uint64_t>((<int64_t>(acc << (64 - 8 * w))) >> (64 - 8 * w))
    return acc


cdef inline void _store(uint64_t* d, Py_ssize_t words, uint64_t first,
                        uint64_t sign) noexcept nogil:
    cdef Py_ssize_t k
    d[0] = first
    for k in range(1, words):
        d[k] = sign


@cython.boundscheck(False)
@cython.wraparound(False)
def be_rows_to_le(const uint8_t[:, ::1] rows, Py_ssize_t out_width):
    """``rows`` of ``w`` big-endian bytes each (1 <= w <= ``out_width``) as an
    ``(n, out_width)`` uint8 array of little-endian, sign-extended values."""
    _check_width(out_width)
    cdef Py_ssize_t n = rows.shape[0], w = rows.shape[1], words = out_width // 8, i, j
    if w < 1 or w > out_width:
        raise ValueError(f"cannot widen {w}-byte decimals to {out_width} bytes")
    out = np.empty((n, words), np.uint64)
    if n == 0:
        return out.view(np.uint8)
    cdef uint64_t[:, ::1] dst = out
    cdef uint64_t* dp = &dst[0, 0]
    cdef const uint8_t* src = &rows[0, 0]
    cdef uint64_t lo, hi
    cdef uint8_t* d
    with nogil:
        if w == 8 and words == 2:          # decimal(<=18) as pyarrow writes it
            for i in range(n):
                memcpy(&lo, src + 8 * i, 8)
                lo = bswap64(lo)
                dp[2 * i] = lo
                dp[2 * i + 1] = <uint64_t>(<int64_t>lo >> 63)
        elif w <= 8:
            for i in range(n):
                lo = _be_word(src + i * w, w)
                _store(dp + i * words, words, lo, <uint64_t>(<int64_t>lo >> 63))
        elif w <= 16:
            for i in range(n):
                hi = _be_word(src + i * w, w - 8)
                memcpy(&lo, src + i * w + w - 8, 8)
                dp[i * words] = bswap64(lo)
                _store(dp + i * words + 1, words - 1, hi, <uint64_t>(<int64_t>hi >> 63))
        else:
            for i in range(n):
                d = <uint8_t*>(dp + i * words)
                for j in range(w):
                    d[j] = src[i * w + w - 1 - j]
                memset(d + w, 0xFF if src[i * w] & 0x80 else 0, out_width - w)
    return out.view(np.uint8)


ctypedef fused unscaled_t:
    int32_t
    int64_t


@cython.boundscheck(False)
@cython.wraparound(False)
def ints_to_le(const unscaled_t[::1] values, Py_ssize_t out_width):
    """int32 or int64 unscaled values as an ``(n, out_width)`` uint8 array of
    little-endian, sign-extended values."""
    _check_width(out_width)
    cdef Py_ssize_t n = values.shape[0], i, k, words = out_width // 8
    out = np.empty((n, words), np.int64)
    if n == 0:
        return out.view(np.uint8)
    cdef int64_t[:, ::1] dst = out
    cdef int64_t v, sign
    with nogil:
        for i in range(n):
            v = values[i]
            sign = -1 if v < 0 else 0
            dst[i, 0] = v
            for k in range(1, words):
                dst[i, k] = sign
    return out.view(np.uint8)
