# cython: language_level=3
"""UTF-8 validation of byte-array values in the Arrow layout (int64 offsets + uint8 data).

A text column's values are valid only when each one is well-formed UTF-8 as the
Unicode standard defines it (its table 3-7): no overlong forms, no surrogates
(U+D800..U+DFFF), nothing above U+10FFFF, no sequence cut short. Arrow's full
validation applies the same rule, so a column that passes here exports as a
valid ``string`` array.

Values that are each valid concatenate to a valid stream, and in a valid stream
a value is cut short exactly when the next one begins on a continuation byte
(0x80..0xBF). So the kernel checks the values' bytes as one stream, eight bytes
at a time while they are ASCII, and then looks at the byte each value starts
on; only when that finds a fault does it check value by value, to name the
first bad one::

    offsets [0, 2, 4], data b"ab\\xc3\\xa9"  -> -1 (valid: "ab", "é")
    offsets [0, 3, 4], data b"ab\\xc3\\xa9"  ->  0 ("ab\\xc3" is cut short)
"""
cimport cython
from libc.stdint cimport int64_t, uint8_t, uint64_t
from libc.string cimport memcpy

import numpy as np

from pqkit.errors import EncodingError

cdef uint64_t HIGH_BITS = 0x8080808080808080ULL


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline int64_t ascii_run(const uint8_t* s, int64_t n) noexcept nogil:
    # How many bytes from s[0] on are ASCII, looked at 64 and then 8 bytes at a time:
    # the result may stop up to 7 bytes short of the first non-ASCII byte.
    cdef int64_t i = 0
    cdef uint64_t a, b, c, d, e, f, g, h
    while i + 64 <= n:
        memcpy(&a, s + i, 8)
        memcpy(&b, s + i + 8, 8)
        memcpy(&c, s + i + 16, 8)
        memcpy(&d, s + i + 24, 8)
        memcpy(&e, s + i + 32, 8)
        memcpy(&f, s + i + 40, 8)
        memcpy(&g, s + i + 48, 8)
        memcpy(&h, s + i + 56, 8)
        if (((a | b) | (c | d)) | ((e | f) | (g | h))) & HIGH_BITS:
            break
        i += 64
    while i + 8 <= n:
        memcpy(&a, s + i, 8)
        if (a & HIGH_BITS) != 0:
            break
        i += 8
    return i


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int64_t first_bad_byte(const uint8_t* s, int64_t n, bint* multibyte) noexcept nogil:
    # Position of the first byte of the first ill-formed sequence in s[0:n], or -1;
    # sets *multibyte when a byte above 0x7F was met. Safety: every read of s is at
    # an index checked to be below n.
    cdef int64_t i = 0
    cdef uint8_t b, lo, hi
    cdef int need
    while i < n:
        i += ascii_run(s + i, n - i)
        if i >= n:
            break
        b = s[i]
        if b < 0x80:
            i += 1
            continue
        multibyte[0] = True
        # The first continuation byte's range depends on the lead byte (table 3-7);
        # later ones are always 0x80..0xBF.
        lo, hi = 0x80, 0xBF
        if 0xC2 <= b <= 0xDF:
            need = 1
        elif b == 0xE0:
            need, lo = 2, 0xA0
        elif b == 0xED:
            need, hi = 2, 0x9F
        elif 0xE1 <= b <= 0xEF:
            need = 2
        elif b == 0xF0:
            need, lo = 3, 0x90
        elif b == 0xF4:
            need, hi = 3, 0x8F
        elif 0xF1 <= b <= 0xF3:
            need = 3
        else:
            return i
        if i + need >= n:
            return i
        if not (lo <= s[i + 1] <= hi):
            return i
        if need >= 2 and not (0x80 <= s[i + 2] <= 0xBF):
            return i
        if need == 3 and not (0x80 <= s[i + 3] <= 0xBF):
            return i
        i += need + 1
    return -1


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int64_t first_bad_value(const int64_t* offsets, int64_t n, const uint8_t* data,
                             int64_t data_len) noexcept nogil:
    # Index of the first of the n values that is not valid UTF-8, or -1; -2 - i when
    # value i's offsets are out of order or outside [offsets[0], offsets[n]], and -2
    # when those two lie outside the data. Safety: every byte read lies in
    # [start, end), itself checked to lie in the data; offsets between are checked
    # where a byte is read through them. (All-ASCII bytes need no offset in between:
    # the decoders' offsets are in order by construction.)
    cdef int64_t i, start = offsets[0], end = offsets[n], a, b
    cdef bint multibyte = False, cut = False
    if start < 0 or end > data_len or end < start:
        return -2
    if first_bad_byte(data + start, end - start, &multibyte) == -1:
        if not multibyte:
            return -1                  # ASCII only: no value can be cut short
        for i in range(1, n):
            a = offsets[i]
            if a < offsets[i - 1] or (start <= a < end and (data[a] & 0xC0) == 0x80):
                cut = True
                break
        if not cut:
            return -1
    for i in range(n):
        a, b = offsets[i], offsets[i + 1]
        if a < start or b > end or b < a:
            return -2 - i
        if first_bad_byte(data + a, b - a, &multibyte) != -1:
            return i
    return -1


def first_invalid_utf8(const int64_t[::1] offsets not None, const uint8_t[::1] data not None):
    """The index of the first value that is not valid UTF-8, or -1 when all are.

    ``offsets`` (n + 1 entries) delimit value i as ``data[offsets[i]:offsets[i + 1]]``.
    Raises EncodingError when the first or last offset lies outside ``data``, or when
    the check reads a value through offsets that decrease (bytes that are all ASCII
    are checked without reading the offsets between, which the decoders keep in
    order).
    """
    cdef int64_t n = offsets.shape[0] - 1, result
    if n <= 0:
        return -1
    with nogil:
        result = first_bad_value(&offsets[0], n, &data[0] if data.shape[0] else NULL,
                                 data.shape[0])
    if result <= -2:
        raise EncodingError(f"byte-array offsets out of order or past the {data.shape[0]} "
                            f"data bytes at value {-2 - result}")
    return result


@cython.boundscheck(False)
@cython.wraparound(False)
def invalid_utf8_mask(const int64_t[::1] offsets not None, const uint8_t[::1] data not None):
    """A bool array, True for each value that is not valid UTF-8 (offsets as in
    :func:`first_invalid_utf8`, which checks them first)."""
    cdef int64_t n = max(offsets.shape[0] - 1, 0), i
    cdef bint multibyte = False
    out = np.zeros(n, np.bool_)
    if n == 0:
        return out
    cdef uint8_t[::1] mask = out.view(np.uint8)
    cdef const uint8_t* base = &data[0] if data.shape[0] else NULL
    cdef int64_t a, b, length = data.shape[0]
    for i in range(n):
        a, b = offsets[i], offsets[i + 1]
        if a < 0 or b < a or b > length:
            raise EncodingError(f"byte-array offsets out of order or past the {length} "
                                f"data bytes at value {i}")
    with nogil:
        for i in range(n):
            mask[i] = first_bad_byte(base + offsets[i], offsets[i + 1] - offsets[i],
                                     &multibyte) != -1
    return out
