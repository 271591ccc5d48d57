# cython: language_level=3
"""Dictionary encoding for the writer: a hash table over value bytes.

Values are byte strings: fixed-width rows (``width`` bytes each) or Arrow
binary (``offsets`` into ``data``). Each value is hashed with XXH64 and looked
up in an open-addressing table (linear probing, power-of-two size, at most
half full); a new value becomes the next dictionary entry, remembered by the
position where it first occurs. Equality is byte equality, so -0.0 and +0.0
stay distinct entries, as a dictionary must reproduce values exactly.

Encoding stops before the first value whose new entry would push the
dictionary past ``limit`` bytes (each entry counts its bytes plus
``overhead``: 4 for the BYTE_ARRAY length prefix). The caller writes the
values before that point with the dictionary and falls back to plain encoding
for the rest, as parquet-java and Arrow C++ do. Example: values
``b"a", b"b", b"a"`` with no limit give indices ``[0, 1, 0]`` and first
positions ``[0, 1]``.
"""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libc.string cimport memcmp

import numpy as np

from pqkit._native.hashing cimport xxh64_ptr


cdef inline const uint8_t* _value(const uint8_t* data, const int64_t* offsets, Py_ssize_t width,
                                  Py_ssize_t i, Py_ssize_t* length) noexcept nogil:
    if offsets == NULL:
        length[0] = width
        return data + i * width
    length[0] = offsets[i + 1] - offsets[i]
    return data + offsets[i]


def dictionary_encode(data, offsets, Py_ssize_t width, Py_ssize_t n, int64_t limit,
                      int64_t overhead=0):
    """Dictionary-encode ``n`` values until the dictionary would exceed ``limit`` bytes.

    Parameters
    ----------
    data : numpy.ndarray of uint8
        The value bytes: ``n * width`` bytes of fixed-width rows, or the data of
        Arrow binary values.
    offsets : numpy.ndarray of int64 or None
        ``n + 1`` offsets into ``data`` (binary values), or None for fixed width.
    width : int
        Bytes per fixed-width value (ignored with offsets).
    limit, overhead : int
        Dictionary size limit in bytes, and bytes counted per entry on top of
        its value bytes.

    Returns
    -------
    (indices int32[encoded], first int64[entries], encoded int)
        ``encoded`` < n when the limit stopped the encoding.
    """
    cdef const uint8_t[::1] d = np.ascontiguousarray(data, dtype=np.uint8).reshape(-1)
    cdef const int64_t[::1] o
    cdef const int64_t* op = NULL
    cdef Py_ssize_t i
    if n < 0 or width < 0:
        raise ValueError(f"invalid value count {n} or width {width}")
    if offsets is not None:
        o = np.ascontiguousarray(offsets, dtype=np.int64)
        if o.shape[0] != n + 1:
            raise ValueError(f"{o.shape[0]} offsets for {n} values")
        if n and (o[0] < 0 or o[n] > d.shape[0]):
            raise ValueError(f"offsets span {o[0]}..{o[n]}, outside {d.shape[0]} data bytes")
        for i in range(n):
            if o[i + 1] < o[i]:
                raise ValueError(f"offsets decrease at value {i}")
        if n:
            op = &o[0]
    elif <int64_t>n * width > d.shape[0]:
        raise ValueError(f"{n} values of {width} bytes need {n * width} bytes, "
                         f"{d.shape[0]} given")
    indices = np.empty(max(n, 1), np.int32)
    first = np.empty(max(n, 1), np.int64)
    cdef int32_t[::1] iv = indices
    cdef int64_t[::1] fv = first
    cdef Py_ssize_t size = 1024, done = 0, entries = 0, step
    cdef int64_t used = 0
    cdef const uint8_t* dp = &d[0] if d.shape[0] else NULL
    table = np.full(size, -1, np.int32)
    cdef int32_t[::1] tv = table
    while done < n:
        with nogil:
            step = _encode_from(dp, op, width, done, n, limit, overhead, &iv[0], &fv[0],
                                &tv[0], size - 1, &entries, &used)
        done += step
        if done >= n:
            break
        if 2 * (entries + 1) <= size:      # stopped by the limit
            break
        size *= 2                          # grow and rehash the entries seen so far
        table = np.full(size, -1, np.int32)
        tv = table
        with nogil:
            _rehash(dp, op, width, &fv[0], entries, &tv[0], size - 1)
    return indices[:done], first[:entries], done


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _encode_from(const uint8_t* data, const int64_t* offsets, Py_ssize_t width,
                             Py_ssize_t start, Py_ssize_t n, int64_t limit, int64_t overhead,
                             int32_t* indices, int64_t* first, int32_t* table, uint64_t mask,
                             Py_ssize_t* entries, int64_t* used) noexcept nogil:
    """Encode values [start, n) until the table is half full or the limit is reached;
    returns how many were encoded. First positions are absolute.

    # Safety: dictionary_encode checked that every value lies inside ``data`` and
    # that ``indices``/``first`` hold n entries and ``table`` mask + 1.
    """
    cdef Py_ssize_t i, length, other_len, k = entries[0]
    cdef const uint8_t* v
    cdef const uint8_t* other
    cdef uint64_t slot
    cdef int32_t e
    for i in range(start, n):
        v = _value(data, offsets, width, i, &length)
        slot = xxh64_ptr(v, length, 0) & mask
        while True:
            e = table[slot]
            if e < 0:
                break
            other = _value(data, offsets, width, first[e], &other_len)
            if other_len == length and memcmp(other, v, length) == 0:
                break
            slot = (slot + 1) & mask
        if e < 0:
            if used[0] + length + overhead > limit or <uint64_t>(2 * (k + 1)) > mask + 1:
                entries[0] = k
                return i - start
            table[slot] = <int32_t>k
            first[k] = i
            used[0] += length + overhead
            e = <int32_t>k
            k += 1
        indices[i] = e
    entries[0] = k
    return n - start


cdef void _rehash(const uint8_t* data, const int64_t* offsets, Py_ssize_t width,
                  const int64_t* first, Py_ssize_t entries, int32_t* table,
                  uint64_t mask) noexcept nogil:
    cdef Py_ssize_t k, length
    cdef const uint8_t* v
    cdef uint64_t slot
    for k in range(entries):
        v = _value(data, offsets, width, first[k], &length)
        slot = xxh64_ptr(v, length, 0) & mask
        while table[slot] >= 0:
            slot = (slot + 1) & mask
        table[slot] = <int32_t>k
