# cython: language_level=3
"""BYTE_STREAM_SPLIT (9): values of K bytes stored as K byte streams.

For N values of K bytes (K = 4 for FLOAT/INT32, 8 for DOUBLE/INT64, 2 for
float16, the type length for FIXED_LEN_BYTE_ARRAY), stream i holds byte i of
every value, and the K streams follow each other: byte i of value j is at
i * N + j. There is no header; N is the number of non-null values in the page
and the page holds exactly K * N value bytes.

Example, two int16-like values 0x0201 and 0x0403 (little-endian bytes
01 02 and 03 04), K = 2::

    value order:  01 02 03 04
    encoded:      01 03 02 04     (stream 0: 01 03, stream 1: 02 04)

The kernels only move bytes; callers view the result as the column's dtype.
"""
cimport cython
from libc.string cimport memcpy

import numpy as np

from pqkit.errors import EncodingError

cdef enum:
    TILE = 2048     # values per tile: keeps K * TILE destination bytes in cache


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline void _transpose(const uint8_t* src, Py_ssize_t src_stride, Py_ssize_t src_step,
                            uint8_t* dst, Py_ssize_t dst_stride, Py_ssize_t dst_step,
                            Py_ssize_t width, Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
    """Copy byte i of values start..stop from src[i*src_stride + j*src_step] to dst[...]."""
    # Safety: the callers pass strides and steps that keep i < width and
    # start <= j < stop inside count * width bytes on both sides. When width
    # is a constant 2, 4 or 8 the C compiler unrolls the inner loop.
    cdef Py_ssize_t i, j
    for j in range(start, stop):
        for i in range(width):
            dst[i * dst_stride + j * dst_step] = src[i * src_stride + j * src_step]


cdef inline void _tiles(const uint8_t* src, Py_ssize_t src_stride, Py_ssize_t src_step,
                        uint8_t* dst, Py_ssize_t dst_stride, Py_ssize_t dst_step,
                        Py_ssize_t width, Py_ssize_t count) noexcept nogil:
    # Safety: as for _transpose; tiles cover 0..count exactly once.
    cdef Py_ssize_t start = 0, stop
    if width == 1:
        memcpy(dst, src, count)
        return
    while start < count:
        stop = min(start + TILE, count)
        if width == 2:
            _transpose(src, src_stride, src_step, dst, dst_stride, dst_step, 2, start, stop)
        elif width == 4:
            _transpose(src, src_stride, src_step, dst, dst_stride, dst_step, 4, start, stop)
        elif width == 8:
            _transpose(src, src_stride, src_step, dst, dst_stride, dst_step, 8, start, stop)
        else:
            _transpose(src, src_stride, src_step, dst, dst_stride, dst_step, width, start, stop)
        start = stop


cdef void bss_decode(const uint8_t* src, Py_ssize_t count, Py_ssize_t width,
                     uint8_t* dst) noexcept nogil:
    # Safety: src and dst each hold count * width bytes.
    _tiles(src, count, 1, dst, 1, width, width, count)


cdef void bss_encode(const uint8_t* src, Py_ssize_t count, Py_ssize_t width,
                     uint8_t* dst) noexcept nogil:
    # Safety: src and dst each hold count * width bytes.
    _tiles(src, 1, width, dst, count, 1, width, count)


def decode_byte_stream_split(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t count,
                             Py_ssize_t width, Py_ssize_t base_offset=0):
    """Decode ``count`` BYTE_STREAM_SPLIT values of ``width`` bytes at ``data[offset:]``.

    Parameters
    ----------
    data : bytes-like
        Buffer holding the streams.
    offset : int
        Start of the streams in ``data``.
    count : int
        Number of values (the page's non-null values).
    width : int
        Bytes per value (K), at least 1.
    base_offset : int
        File offset of ``data[offset]``, for error messages.

    Returns
    -------
    numpy.ndarray
        uint8 array of ``count * width`` bytes in value order; view it as
        the column's dtype.

    Raises
    ------
    pqkit.errors.EncodingError
        Fewer than ``count * width`` bytes remain after ``offset``.
    """
    cdef Py_ssize_t size = data.shape[0]
    if width < 1 or count < 0:
        raise ValueError(f"width must be >= 1 and count >= 0, got width={width} count={count}")
    if offset < 0 or offset > size:
        raise EncodingError(f"BYTE_STREAM_SPLIT offset {offset} lies outside the {size}-byte "
                            f"buffer (at offset {base_offset})")
    if count > (size - offset) // width:
        raise EncodingError(f"BYTE_STREAM_SPLIT needs {count} x {width} bytes but only "
                            f"{size - offset} remain at offset {base_offset}")
    out = np.empty(count * width, dtype=np.uint8)
    cdef uint8_t[::1] dst = out
    if count:
        with nogil:
            bss_decode(&data[offset], count, width, &dst[0])
    return out


def encode_byte_stream_split(const uint8_t[::1] values, Py_ssize_t width):
    """Encode values of ``width`` bytes, given in value order, as BYTE_STREAM_SPLIT.

    Parameters
    ----------
    values : bytes-like
        ``count * width`` bytes, e.g. ``array.view(numpy.uint8)``.
    width : int
        Bytes per value (K), at least 1.

    Returns
    -------
    bytes
    """
    cdef Py_ssize_t size = values.shape[0], count
    if width < 1 or size % width:
        raise ValueError(f"{size} bytes do not split into values of width {width}")
    count = size // width
    out = np.empty(size, dtype=np.uint8)
    cdef uint8_t[::1] dst = out
    if count:
        with nogil:
            bss_encode(&values[0], count, width, &dst[0])
    return out.tobytes()
