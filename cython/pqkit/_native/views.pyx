# cython: language_level=3
"""Arrow's binary view layout (``string_view`` / ``binary_view``) over offsets + data.

A view array holds 16 bytes per value. The first four are the value's length
(int32). A value of at most 12 bytes follows inline, zero-padded; a longer one
is described by its first 4 bytes (the prefix), the index of the variadic data
buffer that holds it (int32) and its offset in that buffer (int32)::

    data b"ab" b"user-000000000001" b"user-000000000002", offsets [0, 2, 19, 36]
    "ab"                -> 02 00 00 00 | 61 62 00 00 00 00 00 00 00 00 00 00
    "user-000000000001" -> 11 00 00 00 | 75 73 65 72 | 00 00 00 00 | 00 00 00 00
    "user-000000000002" -> 11 00 00 00 | 75 73 65 72 | 00 00 00 00 | 11 00 00 00
    variadic buffer 0 = data[2:36]

The variadic buffers are slices of the column's own data buffer, so no
value's bytes are copied: one buffer, from the first long value on, while
the data spans less than 2 GiB (the most an int32 offset addresses), else a
new buffer starts at the first value that would end beyond the current one's
reach. Consumers that keep
strings as views (polars, DuckDB) then import the column without copying it.
"""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.string cimport memcpy, memset

import numpy as np

from pqkit.errors import SchemaError

# An int32 offset reaches at most this far into a variadic buffer.
cdef int64_t MAX_BUFFER = 2147483647
# Values this long or shorter are stored inside their view.
cdef int64_t INLINE = 12


cdef int64_t buffer_bound(int64_t span, int64_t max_buffer) noexcept nogil:
    # A buffer begins at a value ending more than max_buffer past the previous buffer's
    # start, and the buffer after it no earlier than that value's end: every second
    # start is more than max_buffer further on, so `span` bytes begin at most this many.
    return 2 * (span // max_buffer) + 2


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int64_t fill_views(const int64_t* offsets, Py_ssize_t n, const uint8_t* data,
                        int64_t max_buffer, uint8_t* views, int64_t* starts) noexcept nogil:
    # Safety: binary_views checked that offsets never decrease and end within data,
    # and sized starts by buffer_bound over the span the offsets cover.
    cdef Py_ssize_t i
    cdef int64_t s, e, nbuf = 0, buf_start = 0
    cdef int32_t length, index, offset
    cdef uint8_t* v
    for i in range(n):
        s = offsets[i]
        e = offsets[i + 1]
        v = views + i * 16
        if e - s <= INLINE:
            length = <int32_t>(e - s)
            memset(v, 0, 16)
            memcpy(v, &length, 4)
            memcpy(v + 4, data + s, length)
            continue
        if e - s > max_buffer:
            return -1 - i
        if nbuf == 0 or e - buf_start > max_buffer:
            buf_start = s
            starts[nbuf] = s
            nbuf += 1
        length = <int32_t>(e - s)
        index = <int32_t>(nbuf - 1)
        offset = <int32_t>(s - buf_start)
        memcpy(v, &length, 4)
        memcpy(v + 4, data + s, 4)
        memcpy(v + 8, &index, 4)
        memcpy(v + 12, &offset, 4)
    return nbuf


@cython.boundscheck(False)
@cython.wraparound(False)
def binary_views(const int64_t[::1] offsets, data, int64_t max_buffer=MAX_BUFFER):
    """The views of the values ``data[offsets[i]:offsets[i + 1]]``, and their data buffers.

    Parameters
    ----------
    offsets : numpy.ndarray of int64
        ``n + 1`` non-decreasing positions into ``data`` (need not start at 0).
    data : numpy.ndarray of uint8
    max_buffer : int
        The most bytes one variadic buffer spans (2**31 - 1; smaller only in tests).

    Returns
    -------
    (numpy.ndarray of uint8, list of numpy.ndarray of uint8)
        ``(n, 16)`` views, and the variadic buffers: zero-copy slices of ``data``.

    Raises
    ------
    SchemaError
        Offsets that decrease or leave ``data``, or a value too long for a view.
    """
    cdef const uint8_t[::1] d = data
    cdef Py_ssize_t n = offsets.shape[0] - 1, i
    if n < 0:
        raise SchemaError("binary views need at least one offset")
    if max_buffer < INLINE + 1 or max_buffer > MAX_BUFFER:
        raise ValueError(f"max_buffer must be in {INLINE + 1}..{MAX_BUFFER}, got {max_buffer}")
    if offsets[0] < 0 or offsets[n] > d.shape[0]:
        raise SchemaError(f"binary offsets {offsets[0]}..{offsets[n]} leave the "
                          f"{d.shape[0]} data bytes")
    for i in range(n):
        if offsets[i + 1] < offsets[i]:
            raise SchemaError(f"binary offsets decrease at row {i}: {offsets[i]} then "
                              f"{offsets[i + 1]}")
    views = np.empty((n, 16), np.uint8)
    starts = np.empty(buffer_bound(offsets[n] - offsets[0], max_buffer), np.int64)
    cdef uint8_t[:, ::1] v = views
    cdef int64_t[::1] st = starts
    cdef int64_t nbuf = 0
    if n:
        with nogil:
            nbuf = fill_views(&offsets[0], n, &d[0] if d.shape[0] else NULL, max_buffer,
                              &v[0, 0], &st[0])
    if nbuf < 0:
        i = -1 - nbuf
        raise SchemaError(f"value at row {i} has {offsets[i + 1] - offsets[i]} bytes, more "
                          f"than a binary view addresses ({max_buffer})")
    end = offsets[n]
    buffers = [data[s:min(s + max_buffer, end)] for s in starts[:nbuf].tolist()]
    return views, buffers
