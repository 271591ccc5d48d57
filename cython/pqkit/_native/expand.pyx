# cython: language_level=3
"""Value expansion: scatter densely decoded values into a leaf's slots.

A page stores values only for the leaf slots that hold one (d == max_def);
assembly (levels.pyx) returns those slots as a value mask. scatter_values
moves fixed-size value j to the slot of the j-th set mask byte and zeroes the
other slots; expand_offsets does the same for binary offsets, giving a slot
without a value length 0.

Example, value mask [1, 0, 1, 1, 0]:

    values [7, 8, 9]           -> [7, 0, 8, 9, 0]
    offsets [0, 2, 5, 6]       -> [0, 2, 2, 5, 6, 6]
"""
cimport cython
from libc.string cimport memcpy, memset

from pqkit._native.levels cimport count_set

import numpy as np

from pqkit.errors import EncodingError


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void scatter_items(const uint8_t* src, uint8_t* dst, const uint8_t* mask, Py_ssize_t n,
                        Py_ssize_t present, item_t kind) noexcept nogil:
    """Branch-free scatter of present items of sizeof(item_t) bytes (kind picks the type)."""
    # Safety: dst holds n items and src `present` items (checked by
    # scatter_values). In the main loop every read is src item j < present: a
    # block of present - j slots moves j forward at most that far; the tail
    # reads only for set mask bytes.
    cdef Py_ssize_t k = 0, j = 0, stop, w = sizeof(item_t)
    cdef item_t v = 0
    cdef uint8_t m
    while k < n and present - j >= 64:
        stop = k + (present - j)
        if stop > n:
            stop = n
        while k < stop:
            m = mask[k] != 0
            memcpy(&v, src + j * w, sizeof(item_t))
            v &= <item_t>(-<int64_t>m)
            memcpy(dst + k * w, &v, sizeof(item_t))
            j += m
            k += 1
    while k < n:
        v = 0
        if mask[k]:
            memcpy(&v, src + j * w, sizeof(item_t))
            j += 1
        memcpy(dst + k * w, &v, sizeof(item_t))
        k += 1


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void scatter_bytes(const uint8_t* src, uint8_t* dst, const uint8_t* mask, Py_ssize_t n,
                        Py_ssize_t width) noexcept nogil:
    # Safety: dst holds n * width bytes and src count_set(mask) * width bytes
    # (checked by scatter_values).
    cdef Py_ssize_t k
    for k in range(n):
        if mask[k]:
            memcpy(dst, src, width)
            src += width
        else:
            memset(dst, 0, width)
        dst += width


def scatter_values(const uint8_t[::1] dense, uint8_t[::1] out, const uint8_t[::1] mask,
                   Py_ssize_t width):
    """Copy item k of ``dense`` to the k-th set slot of ``out``; zero the others.

    All buffers are raw bytes; ``width`` is the item size in bytes.
    """
    cdef Py_ssize_t n = mask.shape[0], present
    cdef const uint8_t* src = &dense[0] if dense.shape[0] else NULL
    cdef uint8_t* dst = &out[0] if out.shape[0] else NULL
    cdef const uint8_t* m = &mask[0] if n else NULL
    if width <= 0 or out.shape[0] != n * width:
        raise ValueError(f"output of {out.shape[0]} bytes for {n} slots of width {width}")
    with nogil:
        present = count_set(m, n)
    if dense.shape[0] != present * width:
        raise EncodingError(f"{dense.shape[0] // width} values decoded but the definition "
                            f"levels call for {present}")
    with nogil:
        if width == 1:
            scatter_items(src, dst, m, n, present, <uint8_t>0)
        elif width == 2:
            scatter_items(src, dst, m, n, present, <uint16_t>0)
        elif width == 4:
            scatter_items(src, dst, m, n, present, <uint32_t>0)
        elif width == 8:
            scatter_items(src, dst, m, n, present, <uint64_t>0)
        else:
            scatter_bytes(src, dst, m, n, width)


@cython.boundscheck(False)
@cython.wraparound(False)
def expand_offsets(const int64_t[::1] dense, const uint8_t[::1] mask):
    """Offsets over all slots from offsets over the present ones (nulls get length 0)."""
    cdef Py_ssize_t n = mask.shape[0], k, j = 0, present
    if dense.shape[0] == 0:
        raise EncodingError("binary offsets need at least one entry")
    with nogil:
        present = count_set(&mask[0] if n else NULL, n)
    if dense.shape[0] != present + 1:
        raise EncodingError(f"{dense.shape[0] - 1} values decoded but the definition "
                            f"levels call for {present}")
    out = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] o = out
    with nogil:
        # Safety: o has n + 1 entries; j counts set mask bytes, at most present.
        o[0] = dense[0]
        for k in range(n):
            j += mask[k] != 0
            o[k + 1] = dense[j]
    return out
