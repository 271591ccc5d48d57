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
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

import numpy as np

from pqkit.errors import SchemaError

# An int32 offset reaches at most this far into a variadic buffer.
cdef int64_t MAX_BUFFER = 2147483647
# Values this long or shorter are stored inside their view.
cdef int64_t INLINE = 12
# fill_views' error returns: FILL_TOO_LONG - i (value i too long for a view),
# FILL_DECREASING - i (offsets decrease after row i); both below any count.
cdef int64_t FILL_TOO_LONG = -1
cdef int64_t FILL_DECREASING = -(<int64_t>1 << 62)


cdef int64_t buffer_bound(int64_t span, int64_t max_buffer) noexcept nogil:
    # A buffer begins at a value ending more than max_buffer past the previous buffer's
    # start, and the buffer after it no earlier than that value's end: every second
    # start is more than max_buffer further on, so `span` bytes begin at most this many.
    return 2 * (span // max_buffer) + 2


cdef inline uint64_t _low_bytes(uint64_t word, int64_t k) noexcept nogil:
    # The k lowest bytes of word (0 <= k <= 8), the others zero.
    if k >= 8:
        return word
    return word & ((<uint64_t>1 << (8 * k)) - 1)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int64_t fill_views(const int64_t* offsets, Py_ssize_t n, const uint8_t* data,
                        int64_t data_len, int64_t max_buffer, uint64_t* views,
                        int64_t* starts) noexcept nogil:
    # Safety: the caller checked offsets[0] >= 0 and offsets[n] <= data_len; each
    # value's end is checked here not to fall below its start, so every value lies
    # within data. A short value is loaded as 12 bytes only when 12 bytes remain.
    # `starts` is sized by buffer_bound over the span the offsets cover.
    cdef Py_ssize_t i
    cdef int64_t s = offsets[0], e, length, nbuf = 0, buf_start = 0
    cdef uint64_t head, tail
    cdef uint32_t word
    for i in range(n):
        e = offsets[i + 1]
        length = e - s
        if length < 0:
            return FILL_DECREASING - i
        if length <= INLINE:
            if s + INLINE <= data_len:
                memcpy(&head, data + s, 8)
                memcpy(&word, data + s + 8, 4)
                head = _low_bytes(head, length)
                tail = _low_bytes(word, length - 8) if length > 8 else 0
            else:
                head = tail = 0
                if length:
                    memcpy(&head, data + s, length if length < 8 else 8)
                if length > 8:
                    memcpy(&tail, data + s + 8, length - 8)
            # [length | value bytes 0-3] [value bytes 4-11]
            views[2 * i] = <uint64_t>length | (head << 32)
            views[2 * i + 1] = (head >> 32) | (tail << 32)
        else:
            if length > max_buffer:
                return FILL_TOO_LONG - i
            if nbuf == 0 or e - buf_start > max_buffer:
                buf_start = s
                starts[nbuf] = s
                nbuf += 1
            memcpy(&word, data + s, 4)
            # [length | prefix] [buffer index | offset in the buffer]
            views[2 * i] = <uint64_t>length | (<uint64_t>word << 32)
            views[2 * i + 1] = <uint64_t><uint32_t>(nbuf - 1) | \
                (<uint64_t><uint32_t>(s - buf_start) << 32)
        s = e
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
    views = np.empty((n, 2), np.uint64)
    starts = np.empty(buffer_bound(max(offsets[n] - offsets[0], 0), max_buffer), np.int64)
    cdef uint64_t[:, ::1] v = views
    cdef int64_t[::1] st = starts
    cdef int64_t nbuf = 0
    if n:
        with nogil:
            nbuf = fill_views(&offsets[0], n, &d[0] if d.shape[0] else NULL, d.shape[0],
                              max_buffer, &v[0, 0], &st[0])
    if nbuf <= FILL_DECREASING:
        i = FILL_DECREASING - nbuf
        raise SchemaError(f"binary offsets decrease at row {i}: {offsets[i]} then "
                          f"{offsets[i + 1]}")
    if nbuf < 0:
        i = FILL_TOO_LONG - nbuf
        raise SchemaError(f"value at row {i} has {offsets[i + 1] - offsets[i]} bytes, more "
                          f"than a binary view addresses ({max_buffer})")
    end = offsets[n]
    buffers = [data[s:min(s + max_buffer, end)] for s in starts[:nbuf].tolist()]
    return views.view(np.uint8), buffers
