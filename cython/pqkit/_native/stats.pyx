# cython: language_level=3
"""Statistics kernels: the smallest and largest byte array under unsigned bytewise order.

Byte arrays compare like ``memcmp`` over their common length, then the shorter
one first: ``b"ab" < b"ab\\x00" < b"b"``. One pass keeps the positions of the
current minimum and maximum.
"""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t

import numpy as np


cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    /* memcmp's sign for n bytes, 8 at a time as big-endian words: inline, where a
       call to memcmp would cost more than comparing the short values it gets. */
    static inline int pqkit_bytes_cmp(const uint8_t* a, const uint8_t* b, int64_t n) {
        uint64_t x, y;
        while (n >= 8) {
            memcpy(&x, a, 8);
            memcpy(&y, b, 8);
            if (x != y) {
    #if defined(__GNUC__)
                x = __builtin_bswap64(x);
                y = __builtin_bswap64(y);
                return x < y ? -1 : 1;
    #else
                return memcmp(a, b, 8);
    #endif
            }
            a += 8; b += 8; n -= 8;
        }
        return n ? memcmp(a, b, (size_t)n) : 0;
    }
    """
    int pqkit_bytes_cmp(const uint8_t* a, const uint8_t* b, int64_t n) nogil


cdef inline int _compare(const uint8_t* a, int64_t la, const uint8_t* b,
                         int64_t lb) noexcept nogil:
    cdef int c = pqkit_bytes_cmp(a, b, la if la < lb else lb)
    if c:
        return c
    return (la > lb) - (la < lb)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int _check_offsets(const int64_t[::1] o, Py_ssize_t n, Py_ssize_t size,
                        str what) except -1:
    """Raise ValueError unless 0 <= o[0] <= ... <= o[n] <= size: one branch-free pass,
    then a search for the culprit only when it fails."""
    cdef Py_ssize_t i
    cdef bint bad = o[0] < 0 or o[n] > size
    with nogil:
        for i in range(n):
            bad |= o[i + 1] < o[i]
    if not bad:
        return 0
    for i in range(n):
        if o[i] < 0 or o[i + 1] < o[i] or o[i + 1] > size:
            raise ValueError(f"offsets of {what} {i} ({o[i]}..{o[i + 1]}) do not fit "
                             f"{size} data bytes")
    return 0


@cython.boundscheck(False)
@cython.wraparound(False)
def binary_min_max(offsets, data):
    """(index of the minimum, index of the maximum) of Arrow binary values, or None when empty.

    Raises ValueError when the offsets do not fit the data.
    """
    cdef const int64_t[::1] o = np.ascontiguousarray(offsets, dtype=np.int64)
    cdef const uint8_t[::1] d = np.ascontiguousarray(data, dtype=np.uint8).reshape(-1)
    cdef Py_ssize_t n = o.shape[0] - 1, i, lo = 0, hi = 0
    if n <= 0:
        return None
    _check_offsets(o, n, d.shape[0], "value")
    cdef const uint8_t* base = &d[0] if d.shape[0] else NULL
    # Safety: every offset was checked against the data length above.
    with nogil:
        for i in range(1, n):
            if _compare(base + o[i], o[i + 1] - o[i], base + o[lo], o[lo + 1] - o[lo]) < 0:
                lo = i
            elif _compare(base + o[i], o[i + 1] - o[i], base + o[hi], o[hi + 1] - o[hi]) > 0:
                hi = i
    return lo, hi



@cython.boundscheck(False)
@cython.wraparound(False)
def dictionary_min_max(offsets, data, indices):
    """(entry of the minimum, entry of the maximum) among the dictionary entries that
    ``indices`` use, or None when there are no indices.

    The dictionary is Arrow binary (``offsets`` into ``data``); each entry is
    compared once however often it is used, so a page of dictionary indices
    costs one byte of bookkeeping per value, not a comparison of its bytes.

    Raises ValueError when the offsets do not fit the data or an index is not an entry.
    """
    cdef const int64_t[::1] o = np.ascontiguousarray(offsets, dtype=np.int64)
    cdef const uint8_t[::1] d = np.ascontiguousarray(data, dtype=np.uint8).reshape(-1)
    cdef const int32_t[::1] idx = np.ascontiguousarray(indices, dtype=np.int32)
    cdef Py_ssize_t k = o.shape[0] - 1, n = idx.shape[0], i, bad = -1
    cdef int32_t e, lo = -1, hi = -1
    if n == 0:
        return None
    if k <= 0:
        raise ValueError(f"{n} dictionary indices into an empty dictionary")
    _check_offsets(o, k, d.shape[0], "entry")
    seen = np.zeros(k, np.uint8)
    cdef uint8_t[::1] sv = seen
    cdef const uint8_t* base = &d[0] if d.shape[0] else NULL
    # Safety: entry offsets were checked above, and each index is checked against k
    # before it is used.
    with nogil:
        for i in range(n):
            e = idx[i]
            if e < 0 or e >= k:
                bad = i
                break
            if sv[e]:
                continue
            sv[e] = 1
            if lo < 0:
                lo = hi = e
                continue
            if _compare(base + o[e], o[e + 1] - o[e], base + o[lo], o[lo + 1] - o[lo]) < 0:
                lo = e
            elif _compare(base + o[e], o[e + 1] - o[e], base + o[hi], o[hi + 1] - o[hi]) > 0:
                hi = e
    if bad >= 0:
        raise ValueError(f"dictionary index {idx[bad]} at {bad} is not below {k}")
    return lo, hi
