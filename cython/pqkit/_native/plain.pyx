# cython: language_level=3
"""PLAIN encoding (Parquet encoding 0): decoding and encoding for every physical type.

PLAIN stores values back to back with no header:

* BOOLEAN: one bit per value, LSB-first within each byte, the last byte
  zero-padded. ``[True, False, True]`` is ``0x05``.
* INT32 / INT64 / FLOAT / DOUBLE: 4 or 8 little-endian bytes per value.
* INT96: 12 bytes per value; FIXED_LEN_BYTE_ARRAY: ``type_length`` bytes.
* BYTE_ARRAY: a 4-byte little-endian unsigned length, then that many bytes.
  ``[b"ab", b""]`` is ``02 00 00 00 61 62 00 00 00 00``.

Byte arrays decode into the Arrow layout: int64 offsets (``count + 1``
entries, the first 0) over one uint8 buffer; the example above gives offsets
``[0, 2, 2]`` and data ``b"ab"``. Decoding runs in two passes: the first
checks every length against the bytes that remain and computes the offsets,
the second copies the bytes into a buffer allocated from the checked total.

Dictionary pages are PLAIN too; expanding dictionary indices into their
values is :mod:`pqkit._native.take`.
"""
cimport cython
from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.string cimport memcpy

import sys

import numpy as np

from pqkit.errors import EncodingError

if sys.byteorder != "little":  # length prefixes are read as native words
    raise ImportError("pqkit's PLAIN kernels need a little-endian host")


cdef inline uint32_t _le32(const uint8_t* p) noexcept nogil:
    cdef uint32_t v
    memcpy(&v, p, 4)
    return v


# ------------------------------------------------------------------ kernels

@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t byte_array_scan(const uint8_t* src, Py_ssize_t size, Py_ssize_t count,
                                int64_t* offsets, Py_ssize_t* bad_index,
                                Py_ssize_t* bad_pos) noexcept nogil:
    # Safety: each 4-byte prefix and each value is checked against `size`
    # before it is read; offsets has count + 1 slots.
    cdef Py_ssize_t i, pos = 0
    cdef uint32_t n
    offsets[0] = 0
    for i in range(count):
        if size - pos < 4:
            bad_index[0] = i
            bad_pos[0] = pos
            return -1
        n = _le32(src + pos)
        if <uint64_t>n > <uint64_t>(size - pos - 4):
            bad_index[0] = i
            bad_pos[0] = pos
            return -1
        pos += 4 + <Py_ssize_t>n
        offsets[i + 1] = offsets[i] + n
    return pos


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void byte_array_copy(const uint8_t* src, Py_ssize_t src_size, Py_ssize_t count,
                          const int64_t* offsets, uint8_t* dst,
                          Py_ssize_t dst_size) noexcept nogil:
    # Safety: src was validated by byte_array_scan, which produced offsets;
    # value i sits at src + 4 * (i + 1) + offsets[i]. Short values are moved
    # as one 16-byte block when both windows fit their buffers; the bytes
    # written past a value belong to later values, which are copied after it.
    cdef Py_ssize_t i, at, n
    for i in range(count):
        at = 4 * (i + 1) + offsets[i]
        n = offsets[i + 1] - offsets[i]
        if n <= 16 and at + 16 <= src_size and offsets[i] + 16 <= dst_size:
            memcpy(dst + offsets[i], src + at, 16)
        else:
            memcpy(dst + offsets[i], src + at, n)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void unpack_bools(const uint8_t* src, Py_ssize_t n, uint8_t* out) noexcept nogil:
    # Safety: src holds ceil(n / 8) bytes and out n bytes.
    # Each input byte becomes one 64-bit word: broadcast it to all 8 lanes,
    # keep bit k in lane k, then turn each nonzero lane into 1.
    cdef Py_ssize_t i, full = n >> 3
    cdef uint64_t x
    for i in range(full):
        x = (src[i] * <uint64_t>0x0101010101010101) & <uint64_t>0x8040201008040201
        x = ((x + <uint64_t>0x7F7F7F7F7F7F7F7F) >> 7) & <uint64_t>0x0101010101010101
        memcpy(out + i * 8, &x, 8)
    for i in range(full * 8, n):
        out[i] = (src[i >> 3] >> (i & 7)) & 1


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void pack_bools(const uint8_t* v, Py_ssize_t n, uint8_t* out) noexcept nogil:
    # Safety: v holds n bytes (0 or 1) and out ceil(n / 8) zeroed bytes.
    cdef Py_ssize_t i, full = n >> 3
    cdef uint8_t b
    cdef int k
    for i in range(full):
        b = 0
        for k in range(8):
            b |= (v[i * 8 + k] != 0) << k
        out[i] = b
    for i in range(full * 8, n):
        out[i >> 3] |= (v[i] != 0) << (i & 7)


# --------------------------------------------------------------- decoding

cdef int _check_start(Py_ssize_t size, Py_ssize_t offset, Py_ssize_t count,
                      Py_ssize_t base_offset, str what) except -1:
    if count < 0:
        raise ValueError(f"negative value count {count}")
    if offset < 0 or offset > size:
        raise EncodingError(f"{what} at offset {base_offset}: start {offset} is outside "
                            f"the {size}-byte buffer")
    return 0


def decode_booleans(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t count,
                    Py_ssize_t base_offset=0):
    """Decode ``count`` PLAIN booleans (LSB-first bits).

    Parameters
    ----------
    data, offset : bytes-like, int
        The bits start at ``data[offset]``.
    count : int
        Values to decode; ``ceil(count / 8)`` bytes are read.
    base_offset : int
        File offset of ``data[offset]``, used in error messages.

    Returns
    -------
    (numpy.ndarray of bool, int)
        The values and the bytes consumed.
    """
    cdef Py_ssize_t size = data.shape[0], nbytes
    _check_start(size, offset, count, base_offset, "PLAIN booleans")
    nbytes = (count + 7) >> 3
    if nbytes > size - offset:
        raise EncodingError(f"PLAIN booleans at offset {base_offset}: {count} values need "
                            f"{nbytes} bytes, {size - offset} remain")
    out = np.empty(count, dtype=np.bool_)
    cdef uint8_t[::1] o = out.view(np.uint8)
    if count:
        with nogil:
            unpack_bools(&data[0] + offset, count, &o[0])
    return out, nbytes


def decode_fixed(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t count,
                 Py_ssize_t width, Py_ssize_t base_offset=0):
    """Copy ``count`` fixed-width PLAIN values of ``width`` bytes each.

    Covers INT32, INT64, INT96, FLOAT, DOUBLE and FIXED_LEN_BYTE_ARRAY; the
    caller views the result with the right dtype.

    Returns
    -------
    (numpy.ndarray of uint8, int)
        ``count * width`` bytes and the bytes consumed.
    """
    cdef Py_ssize_t size = data.shape[0], nbytes
    _check_start(size, offset, count, base_offset, "PLAIN values")
    if width <= 0:
        raise ValueError(f"value width {width} must be positive")
    if count > (size - offset) // width:
        raise EncodingError(f"PLAIN values at offset {base_offset}: {count} values of "
                            f"{width} bytes need {(<object>count) * width}"
                            f" bytes, {size - offset} remain")
    nbytes = count * width
    out = np.empty(nbytes, dtype=np.uint8)
    cdef uint8_t[::1] o = out
    if nbytes:
        with nogil:
            memcpy(&o[0], &data[0] + offset, nbytes)
    return out, nbytes


def decode_byte_array(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t count,
                      Py_ssize_t base_offset=0):
    """Decode ``count`` PLAIN BYTE_ARRAY values into offsets + data.

    Parameters
    ----------
    data, offset : bytes-like, int
        The values start at ``data[offset]`` and may use the rest of ``data``.
    count : int
        Values to decode.
    base_offset : int
        File offset of ``data[offset]``, used in error messages.

    Returns
    -------
    (numpy.ndarray of int64, numpy.ndarray of uint8, int)
        ``count + 1`` offsets (the first 0), the concatenated bytes and the
        bytes consumed.

    Raises
    ------
    EncodingError
        A length prefix, or the bytes it announces, run past the data.
    """
    _check_start(data.shape[0], offset, count, base_offset, "PLAIN byte arrays")
    _check_prefixes(data.shape[0] - offset, count, base_offset)     # before allocating
    offsets = np.empty(count + 1, dtype=np.int64)
    # Values take at most the bytes after their 4-byte length prefixes.
    values = np.empty(max(data.shape[0] - offset - 4 * count, 0), dtype=np.uint8)
    used, end = decode_byte_array_into(data, offset, count, offsets, 0, values, 0, base_offset)
    values.resize(end, refcheck=False)      # shrinks in place: nothing else refers to it
    return offsets, values, used


cdef int _check_prefixes(Py_ssize_t avail, Py_ssize_t count, Py_ssize_t base_offset) except -1:
    if count > avail // 4:
        raise EncodingError(f"PLAIN byte arrays at offset {base_offset}: {count} values need "
                            f"at least {4 * <object>count} bytes, "
                            f"{avail} remain")
    return 0


@cython.boundscheck(False)
@cython.wraparound(False)
def decode_byte_array_into(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t count,
                           int64_t[::1] out_offsets, Py_ssize_t first, uint8_t[::1] out_data,
                           int64_t data_pos, Py_ssize_t base_offset=0):
    """Decode ``count`` PLAIN BYTE_ARRAY values into existing Arrow buffers.

    The values go to ``out_data[data_pos:]`` and their end positions to
    ``out_offsets[first + 1:first + count + 1]``; ``out_offsets[first]`` is set
    to ``data_pos``. Decoding page after page into one pair of buffers builds a
    chunk's values without concatenating per-page pieces.

    Returns
    -------
    (int, int)
        Bytes consumed and the new end of the data, or ``(-1, end needed)``
        when ``out_data`` is too small (nothing is copied then).

    Raises
    ------
    EncodingError
        A length prefix, or the bytes it announces, run past the data.
    ValueError
        ``out_offsets`` has no room for ``count + 1`` entries at ``first``.
    """
    cdef Py_ssize_t size = data.shape[0], avail, used = 0, bad_i = 0, bad_pos = 0, i
    _check_start(size, offset, count, base_offset, "PLAIN byte arrays")
    if first < 0 or first + count + 1 > out_offsets.shape[0]:
        raise ValueError(f"{out_offsets.shape[0]} offsets cannot take {count} values at {first}")
    if data_pos < 0 or data_pos > out_data.shape[0]:
        raise ValueError(f"data position {data_pos} outside {out_data.shape[0]} bytes")
    avail = size - offset
    _check_prefixes(avail, count, base_offset)
    cdef int64_t* off = &out_offsets[first]
    cdef const uint8_t* src = &data[0] + offset if avail else NULL
    with nogil:
        used = byte_array_scan(src, avail, count, off, &bad_i, &bad_pos)
    if used < 0:
        if avail - bad_pos < 4:
            raise EncodingError(f"BYTE_ARRAY value {bad_i} at offset {base_offset + bad_pos}: "
                                f"truncated length prefix, {avail - bad_pos} bytes remain")
        raise EncodingError(f"BYTE_ARRAY value {bad_i} at offset {base_offset + bad_pos}: "
                            f"length {_le32(src + bad_pos)} but only {avail - bad_pos - 4} "
                            f"bytes remain")
    cdef int64_t total = off[count]
    if data_pos + total > out_data.shape[0]:
        off[0] = data_pos
        return -1, data_pos + total
    if total:
        with nogil:
            # Safety: scan checked every value against `avail`; out_data has room for
            # `total` bytes at data_pos (checked above).
            byte_array_copy(src, avail, count, off, &out_data[0] + data_pos,
                            out_data.shape[0] - data_pos)
    if data_pos:
        with nogil:
            for i in range(count + 1):
                off[i] += data_pos
    return used, data_pos + total


# --------------------------------------------------------------- encoding

def encode_booleans(values):
    """Encode booleans as PLAIN (LSB-first bits, the last byte zero-padded)."""
    arr = np.ascontiguousarray(values)
    if arr.ndim != 1:
        raise ValueError(f"expected a 1-D array of booleans, got shape {arr.shape}")
    if arr.dtype != np.bool_:
        if arr.size and arr.dtype.kind not in "biu":
            raise ValueError(f"expected booleans, got dtype {arr.dtype}")
        arr = arr != 0
    cdef const uint8_t[::1] v = arr.view(np.uint8)
    cdef Py_ssize_t n = v.shape[0]
    out = np.zeros((n + 7) >> 3, dtype=np.uint8)
    cdef uint8_t[::1] o = out
    if n:
        with nogil:
            pack_bools(&v[0], n, &o[0])
    return out.tobytes()


cdef int check_offsets(const int64_t[::1] offsets, Py_ssize_t data_len, str what,
                       object exc) except -1:
    """Offsets must be non-decreasing, start at >= 0 and end within the data."""
    cdef Py_ssize_t i, n = offsets.shape[0]
    if n < 1:
        raise exc(f"{what}: offsets need at least one entry")
    if offsets[0] < 0 or offsets[n - 1] > data_len:
        raise exc(f"{what}: offsets span {offsets[0]}..{offsets[n - 1]}, "
                  f"outside the {data_len} data bytes")
    with nogil:
        for i in range(n - 1):
            if offsets[i + 1] < offsets[i]:
                break
        else:
            i = -1
    if i >= 0:
        raise exc(f"{what}: offset {i + 1} ({offsets[i + 1]}) is below offset {i} "
                  f"({offsets[i]})")
    return 0


@cython.boundscheck(False)
@cython.wraparound(False)
def encode_byte_array(const int64_t[::1] offsets, const uint8_t[::1] data):
    """Encode byte arrays given as Arrow offsets + data as PLAIN BYTE_ARRAY.

    Parameters
    ----------
    offsets : numpy.ndarray of int64
        ``n + 1`` non-decreasing offsets into ``data``.
    data : bytes-like
        The concatenated values.

    Returns
    -------
    bytes
        ``4 * n + (offsets[n] - offsets[0])`` bytes.
    """
    check_offsets(offsets, data.shape[0], "BYTE_ARRAY values", ValueError)
    cdef Py_ssize_t i, n = offsets.shape[0] - 1, pos = 0
    cdef int64_t length, longest = 0
    with nogil:
        for i in range(n):
            if offsets[i + 1] - offsets[i] > longest:
                longest = offsets[i + 1] - offsets[i]
    if longest > 0x7FFFFFFF:
        raise ValueError(f"a BYTE_ARRAY value of {longest} bytes exceeds 2^31 - 1")
    # The size is exact, so the values are written straight into a new bytes object
    # (not yet shared with anyone) instead of into an array copied out afterwards.
    out = PyBytes_FromStringAndSize(NULL, 4 * n + (offsets[n] - offsets[0]))
    cdef uint8_t* o = <uint8_t*>PyBytes_AS_STRING(out)
    cdef uint32_t n32
    # Safety: the offsets were checked against the data; out holds 4 bytes per value
    # plus every value's bytes, exactly what is written.
    with nogil:
        for i in range(n):
            length = offsets[i + 1] - offsets[i]
            n32 = <uint32_t>length
            memcpy(o + pos, &n32, 4)
            if length:
                memcpy(o + pos + 4, &data[offsets[i]], length)
            pos += 4 + length
    return out
