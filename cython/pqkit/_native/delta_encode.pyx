# cython: language_level=3
"""Delta encoding: DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY.

The byte layouts, with a worked example, are described in delta.pyx, which
decodes them. The encoder writes the header and then, for each block of
block_size deltas (the last may be short), the zigzag minimum delta, one bit
width per miniblock and the miniblocks holding values, each packed LSB-first
at the smallest width that fits its deltas minus the minimum (padding values
are 0). Miniblocks after the last value get width 0 and no bytes. Deltas wrap
at 32 bits for INT32 and 64 bits for INT64, as the decoder expects.

Example: encode_delta_binary_packed(np.array([7, 5, 3, 1, 2, 3, 4, 5],
np.int32)) gives exactly the bytes of the example in delta.pyx.

DELTA_LENGTH_BYTE_ARRAY writes the lengths as one run (block 128, 4
miniblocks), then the bytes. DELTA_BYTE_ARRAY writes the prefix lengths
(bytes shared with the value before; 0 for the first value) as one run, then
the suffixes as DELTA_LENGTH_BYTE_ARRAY.
"""
cimport cython
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport int32_t, int64_t, uint32_t, INT32_MAX, INT64_MAX
from libc.string cimport memcpy

from pqkit._native.delta cimport zigzag
from pqkit._native.hybrid_encode cimport put_uvarint

import numpy as np

from pqkit.errors import SchemaError

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    static inline void pqkit_store_le64(uint8_t *p, uint64_t v) {
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v);
    #endif
        memcpy(p, &v, 8);
    }
    static inline int pqkit_bit_length64(uint64_t x) {
    #if defined(__GNUC__)
        return x ? 64 - __builtin_clzll(x) : 0;
    #else
        int n = 0; while (n < 64 && (x >> n)) n++; return n;
    #endif
    }
    """
    void store_le64 "pqkit_store_le64"(uint8_t* p, uint64_t v) noexcept nogil
    int bit_length64 "pqkit_bit_length64"(uint64_t x) noexcept nogil

cdef enum:
    VARINT_MAX_BYTES = 10


# ---------------------------------------------------------------------------
# Bit packing (LSB-first, widths 0..64)

@cython.boundscheck(False)
@cython.wraparound(False)
cdef void pack8(const uint64_t* values, int width, uint8_t* dst) noexcept nogil:
    # Safety: 8 values of `width` bits make exactly `width` bytes: whole
    # 64-bit words are stored as they fill, then the bytes still pending.
    cdef uint64_t acc = 0, v
    cdef int pending = 0, k, pos = 0
    for k in range(8):
        v = values[k]
        acc |= v << pending
        if pending + width >= 64:
            store_le64(dst + pos, acc)
            pos += 8
            acc = v >> (64 - pending) if pending else 0
            pending += width - 64
        else:
            pending += width
    while pending > 0:
        dst[pos] = <uint8_t>acc
        acc >>= 8
        pos += 1
        pending -= 8


# ---------------------------------------------------------------------------
# DELTA_BINARY_PACKED


cdef Py_ssize_t encode_bound(Py_ssize_t n, Py_ssize_t block_size, Py_ssize_t miniblocks,
                             bint bit64) noexcept nogil:
    """Most bytes encode_kernel writes for n values."""
    cdef Py_ssize_t blocks = (n + block_size - 1) // block_size
    return (4 * VARINT_MAX_BYTES
            + blocks * (VARINT_MAX_BYTES + miniblocks + block_size * (8 if bit64 else 4)))


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.cdivision(True)
cdef Py_ssize_t encode_kernel(const delta_int* values, Py_ssize_t n, Py_ssize_t block_size,
                              Py_ssize_t miniblocks, uint64_t* scratch,
                              uint8_t* dst) noexcept nogil:
    # Safety: dst holds encode_bound(n, ...) bytes and scratch block_size
    # values; i + j < n on every read of values.
    cdef Py_ssize_t vpm = block_size // miniblocks
    cdef Py_ssize_t pos = 0, i = 1, count, used, j, mb, g
    cdef int64_t d, min_d
    cdef uint64_t bits
    cdef uint8_t* widths
    cdef int w
    pos += put_uvarint(dst + pos, <uint64_t>block_size)
    pos += put_uvarint(dst + pos, <uint64_t>miniblocks)
    pos += put_uvarint(dst + pos, <uint64_t>n)
    pos += put_uvarint(dst + pos, zigzag(<int64_t>values[0] if n else 0))
    while i < n:
        count = min(block_size, n - i)
        min_d = INT64_MAX
        for j in range(count):
            if delta_int is int32_t:
                d = <int32_t>(<uint32_t>values[i + j] - <uint32_t>values[i + j - 1])
            else:
                d = <int64_t>(<uint64_t>values[i + j] - <uint64_t>values[i + j - 1])
            scratch[j] = <uint64_t>d
            min_d = min(min_d, d)
        for j in range(count):
            if delta_int is int32_t:
                scratch[j] = <uint32_t>(<uint32_t>scratch[j] - <uint32_t>min_d)
            else:
                scratch[j] -= <uint64_t>min_d
        used = (count + vpm - 1) // vpm
        for j in range(count, used * vpm):
            scratch[j] = 0              # padding of the last used miniblock
        pos += put_uvarint(dst + pos, zigzag(min_d))
        widths = dst + pos
        pos += miniblocks
        for mb in range(miniblocks):
            if mb >= used:
                widths[mb] = 0
                continue
            bits = 0
            for j in range(mb * vpm, (mb + 1) * vpm):
                bits |= scratch[j]
            w = bit_length64(bits)
            widths[mb] = <uint8_t>w
            for g in range(0, vpm, 8):
                pack8(scratch + mb * vpm + g, w, dst + pos)
                pos += w
        i += count
    return pos


cdef Py_ssize_t _encode_into(values, uint8_t* dst, Py_ssize_t block_size,
                             Py_ssize_t miniblocks) except -1:
    """Encode an int32 or int64 array at dst (encode_bound bytes); return bytes written."""
    cdef const int32_t[::1] v32
    cdef const int64_t[::1] v64
    cdef Py_ssize_t n = values.shape[0], written
    cdef uint64_t* scratch = <uint64_t*>PyMem_Malloc(block_size * sizeof(uint64_t))
    if scratch == NULL:
        raise MemoryError()
    try:
        if values.dtype == np.int32:
            v32 = values
            with nogil:
                written = encode_kernel(&v32[0] if n else NULL, n, block_size, miniblocks,
                                        scratch, dst)
        else:
            v64 = values
            with nogil:
                written = encode_kernel(&v64[0] if n else NULL, n, block_size, miniblocks,
                                        scratch, dst)
    finally:
        PyMem_Free(scratch)
    return written


def encode_delta_binary_packed(values, Py_ssize_t block_size=128, Py_ssize_t miniblocks=4):
    """Encode integers as DELTA_BINARY_PACKED bytes.

    int32/uint32 values are encoded as INT32 (32-bit wrap-around), int64/uint64
    as INT64. The default layout, 128 values in 4 miniblocks, is parquet-java's
    (Arrow uses 256 for INT64). Unused miniblocks of the last block get width 0.
    """
    arr = np.ascontiguousarray(values)
    if arr.dtype.kind not in "iu" or arr.dtype.itemsize not in (4, 8) or arr.ndim != 1:
        raise TypeError(f"expected a 1-d array of 32- or 64-bit integers, got {arr.dtype} "
                        f"with shape {arr.shape}")
    arr = arr.view(np.int32 if arr.dtype.itemsize == 4 else np.int64)
    if block_size <= 0 or block_size % 128 or miniblocks <= 0 or block_size % miniblocks \
            or (block_size // miniblocks) % 32:
        raise ValueError(f"block_size={block_size} with miniblocks={miniblocks}: need a "
                         f"multiple of 128 split into miniblocks of a multiple of 32 values")
    buf = np.empty(encode_bound(arr.shape[0], block_size, miniblocks, arr.dtype.itemsize == 8),
                   dtype=np.uint8)
    cdef uint8_t[::1] out = buf
    cdef Py_ssize_t n = _encode_into(arr, &out[0], block_size, miniblocks)
    return bytes(out[:n])


# ---------------------------------------------------------------------------
# Byte arrays

@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _check_offsets(const int64_t* offsets, Py_ssize_t n,
                               Py_ssize_t size) noexcept nogil:
    """Return the first index i whose value offsets[i]..offsets[i+1] is bad, else -1."""
    # Safety: offsets has n + 1 entries.
    cdef Py_ssize_t i
    if offsets[0] < 0 or offsets[0] > size:
        return 0
    for i in range(n):
        if (offsets[i + 1] < offsets[i] or offsets[i + 1] > size
                or offsets[i + 1] - offsets[i] > INT32_MAX):
            return i
    return -1


cdef tuple _byte_array_input(offsets, const uint8_t[::1] data):
    offs = np.ascontiguousarray(offsets, dtype=np.int64)
    if offs.ndim != 1 or offs.shape[0] == 0:
        raise SchemaError(f"offsets must be 1-d with count + 1 entries, got shape {offs.shape}")
    cdef const int64_t[::1] o = offs
    cdef Py_ssize_t n = o.shape[0] - 1, bad
    with nogil:
        bad = _check_offsets(&o[0], n, data.shape[0])
    if bad >= 0:
        span = f"{o[bad]}..{o[bad + 1]}" if n else f"{o[bad]}"
        raise SchemaError(f"value {bad} spans offsets {span} of a {data.shape[0]}-byte buffer: "
                          f"offsets must be non-decreasing and in range, and values at most "
                          f"2**31 - 1 bytes long")
    return offs, n


def encode_delta_length_byte_array(offsets, const uint8_t[::1] data):
    """Encode byte strings as DELTA_LENGTH_BYTE_ARRAY bytes.

    ``offsets`` (count + 1 non-decreasing int64 entries, not necessarily from
    0) delimit the values in ``data``. Raises SchemaError for bad offsets or
    values longer than 2**31 - 1 bytes.
    """
    cdef Py_ssize_t n
    offs, n = _byte_array_input(offsets, data)
    lengths = np.diff(offs).astype(np.int32)
    cdef Py_ssize_t first = offs[0], total = offs[-1] - offs[0]
    buf = np.empty(encode_bound(n, 128, 4, False) + total, dtype=np.uint8)
    cdef uint8_t[::1] out = buf
    cdef Py_ssize_t pos = _encode_into(lengths, &out[0], 128, 4)
    if total:
        memcpy(&out[pos], &data[first], total)
    return bytes(out[:pos + total])


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _split_prefixes(const int64_t* offsets, const uint8_t* data, Py_ssize_t n,
                                int32_t* prefix, int32_t* suffix_len) noexcept nogil:
    """Fill prefix/suffix lengths against the previous value; return total suffix bytes."""
    # Safety: _check_offsets accepted offsets (n + 1 entries within data).
    cdef Py_ssize_t i, k, limit, total = 0
    cdef const uint8_t* a
    cdef const uint8_t* b
    for i in range(n):
        k = 0
        if i:
            a = data + offsets[i - 1]
            b = data + offsets[i]
            limit = min(offsets[i] - offsets[i - 1], offsets[i + 1] - offsets[i])
            while k < limit and a[k] == b[k]:
                k += 1
        prefix[i] = <int32_t>k
        suffix_len[i] = <int32_t>(offsets[i + 1] - offsets[i] - k)
        total += suffix_len[i]
    return total


def encode_delta_byte_array(offsets, const uint8_t[::1] data):
    """Encode byte strings as DELTA_BYTE_ARRAY bytes (FIXED_LEN_BYTE_ARRAY too).

    Each prefix is the bytes shared with the value before (none for the first
    value). Arguments as for encode_delta_length_byte_array.
    """
    cdef Py_ssize_t n
    offs, n = _byte_array_input(offsets, data)
    prefix = np.empty(n, dtype=np.int32)
    suffix_len = np.empty(n, dtype=np.int32)
    cdef const int64_t[::1] o = offs
    cdef int32_t[::1] p = prefix
    cdef int32_t[::1] s = suffix_len
    cdef Py_ssize_t total = 0, pos, i
    cdef const uint8_t* src = &data[0] if data.shape[0] else NULL
    if n:
        with nogil:
            total = _split_prefixes(&o[0], src, n, &p[0], &s[0])
    buf = np.empty(2 * encode_bound(n, 128, 4, False) + total, dtype=np.uint8)
    cdef uint8_t[::1] out = buf
    cdef uint8_t* dst = &out[0]
    pos = _encode_into(prefix, dst, 128, 4)
    pos += _encode_into(suffix_len, dst + pos, 128, 4)
    with nogil:
        for i in range(n):
            if s[i]:
                memcpy(dst + pos, src + o[i + 1] - s[i], s[i])
                pos += s[i]
    return bytes(out[:pos])
