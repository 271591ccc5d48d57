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

Values of 4 or 8 bytes (INT32/INT64/FLOAT/DOUBLE) take a faster path: the
table stores each entry's value as a 64-bit word beside its index, so a probe
compares words without going back to the data, and the hash is a 64-bit
multiply-xorshift mix instead of XXH64 over bytes.
"""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcmp, memcpy

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
    if op == NULL and (width == 4 or width == 8):
        word_done, word_entries = _encode_words(d, width, n, limit, overhead, indices, first)
        return indices[:word_done], first[:word_entries], word_done
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
        # Stopped at a new value: by the limit (even if the table is also half full), or
        # only because the table must grow.
        if used + (o[done + 1] - o[done] if op != NULL else width) + overhead > limit:
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


# ------------------------------------------------------------ 4- and 8-byte values

cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    # The MurmurHash3 finaliser: every input bit affects every output bit.
    x ^= x >> 33
    x *= 0xFF51AFD7ED558CCDULL
    x ^= x >> 33
    x *= 0xC4CEB9FE1A85EC53ULL
    x ^= x >> 33
    return x


cdef inline uint64_t _word(const uint8_t* data, Py_ssize_t width, Py_ssize_t i) noexcept nogil:
    cdef uint64_t w8 = 0
    cdef uint32_t w4 = 0
    if width == 8:
        memcpy(&w8, data + 8 * i, 8)
        return w8
    memcpy(&w4, data + 4 * i, 4)
    return w4


cdef tuple _encode_words(const uint8_t[::1] d, Py_ssize_t width, Py_ssize_t n, int64_t limit,
                         int64_t overhead, indices, first):
    """dictionary_encode for n values of ``width`` (4 or 8) bytes; (done, entries)."""
    cdef int32_t[::1] iv = indices
    cdef int64_t[::1] fv = first
    cdef Py_ssize_t size = 1024, done = 0, entries = 0, step
    cdef int64_t used = 0
    cdef const uint8_t* dp = &d[0] if d.shape[0] else NULL
    slots = np.full(size, -1, np.int32)
    keys = np.empty(size, np.uint64)
    cdef int32_t[::1] sv = slots
    cdef uint64_t[::1] kv = keys
    while done < n:
        with nogil:
            step = _encode_words_from(dp, width, done, n, limit, overhead, &iv[0], &fv[0],
                                      &sv[0], &kv[0], size - 1, &entries, &used)
        done += step
        if done >= n or used + width + overhead > limit:   # finished, or stopped by the limit
            break
        size *= 4      # fewer rounds of rehashing than doubling, for cardinalities in the 100ks
        slots = np.full(size, -1, np.int32)
        keys = np.empty(size, np.uint64)
        sv = slots
        kv = keys
        with nogil:
            _rehash_words(dp, width, &fv[0], entries, &sv[0], &kv[0], size - 1)
    return done, entries


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _encode_words_from(const uint8_t* data, Py_ssize_t width, Py_ssize_t start,
                                   Py_ssize_t n, int64_t limit, int64_t overhead,
                                   int32_t* indices, int64_t* first, int32_t* slots,
                                   uint64_t* keys, uint64_t mask, Py_ssize_t* entries,
                                   int64_t* used) noexcept nogil:
    """As _encode_from, for fixed 4/8-byte values with their words kept in ``keys``.

    # Safety: dictionary_encode checked that data holds n * width bytes; indices and
    # first hold n entries, slots and keys mask + 1.
    """
    cdef Py_ssize_t i, k = entries[0]
    cdef uint64_t v, slot
    cdef int32_t e
    for i in range(start, n):
        v = _word(data, width, i)
        slot = _mix(v) & mask
        while True:
            e = slots[slot]
            if e < 0 or keys[slot] == v:
                break
            slot = (slot + 1) & mask
        if e < 0:
            if used[0] + width + overhead > limit or <uint64_t>(2 * (k + 1)) > mask + 1:
                entries[0] = k
                return i - start
            slots[slot] = <int32_t>k
            keys[slot] = v
            first[k] = i
            used[0] += width + overhead
            e = <int32_t>k
            k += 1
        indices[i] = e
    entries[0] = k
    return n - start


cdef void _rehash_words(const uint8_t* data, Py_ssize_t width, const int64_t* first,
                        Py_ssize_t entries, int32_t* slots, uint64_t* keys,
                        uint64_t mask) noexcept nogil:
    cdef Py_ssize_t k
    cdef uint64_t v, slot
    for k in range(entries):
        v = _word(data, width, first[k])
        slot = _mix(v) & mask
        while slots[slot] >= 0:
            slot = (slot + 1) & mask
        slots[slot] = <int32_t>k
        keys[slot] = v
