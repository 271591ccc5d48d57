# cython: language_level=3
"""Delta decoding: DELTA_BINARY_PACKED (5), DELTA_LENGTH_BYTE_ARRAY (6), DELTA_BYTE_ARRAY (7).

DELTA_BINARY_PACKED stores integers as a header and blocks::

    header := uleb(block_size) uleb(miniblocks) uleb(count) zigzag(first)
    block  := zigzag(min_delta) width[miniblocks] miniblock*

block_size is a multiple of 128 and values per miniblock (block_size /
miniblocks) a multiple of 32; we also accept multiples of 8, which parquet-mr
allowed (PARQUET-2077). Each miniblock holds delta - min_delta for its values,
bit-packed LSB-first with its own width, padded to a full miniblock. Only the
miniblocks that hold values are written: the last block may list more widths
than it uses, and those widths may be garbage (arrow #14923, arrow-rs #1416),
so they are never looked at. Deltas wrap in two's complement at 32 or 64 bits
(PARQUET-2215). For INT32 the header varints may carry any 64-bit value; only
the low 32 bits matter under that arithmetic.

Example: [7, 5, 3, 1, 2, 3, 4, 5] has deltas -2 -2 -2 1 1 1 1, min delta -2,
so the packed values are 0 0 0 3 3 3 3 (width 2, padded to 32 values)::

    80 01 04 08 0e          block 128, 4 miniblocks, 8 values, first 7
    03 02 00 00 00          min delta -2, widths 2 0 0 0 (the last three unused)
    c0 3f 00 00 00 00 00 00 32 values x 2 bits (7 used)

DELTA_LENGTH_BYTE_ARRAY is a DELTA_BINARY_PACKED run of int32 lengths followed
by the concatenated bytes. DELTA_BYTE_ARRAY is a run of prefix lengths followed
by the suffixes as DELTA_LENGTH_BYTE_ARRAY; value i is the first prefix[i]
bytes of value i-1 followed by suffix i. The value before the first one is
empty, except for pages from parquet-mr < 1.8.0 (PARQUET-246), where the caller
passes the previous page's last value.

Decoders take ``(data, offset, length, max_count, base_offset)``: the encoded
bytes are ``data[offset:offset + length]``, ``max_count`` bounds the value count
read from the data before anything is allocated, and ``base_offset`` is the
file offset of ``data[offset]``, used in error messages. Each returns the
exact number of bytes it consumed. The encoders are in delta_encode.pyx.
"""
cimport cython
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.stdint cimport uint32_t
from libc.string cimport memcpy, memset

from pqkit._native.buffer cimport (Cursor, cursor_init, cursor_fail, cursor_remaining,
                                   read_uvarint)

import numpy as np

from pqkit.errors import AllocationLimitError, EncodingError

cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    static inline uint64_t pqkit_load_le64(const uint8_t *p) {
        uint64_t v;
        memcpy(&v, p, 8);
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = __builtin_bswap64(v);
    #endif
        return v;
    }
    """
    uint64_t load_le64 "pqkit_load_le64"(const uint8_t* p) noexcept nogil

cdef enum:
    MAX_BLOCK_SIZE = 0x7FFFFFFF     # parquet-java reads the header fields as int32

DEFAULT_MAX_BYTES = 1 << 31


# ---------------------------------------------------------------------------
# Bit unpacking (LSB-first, widths 0..64)

@cython.boundscheck(False)
@cython.wraparound(False)
cdef void unpack8(const uint8_t* src, int width, Py_ssize_t avail,
                  uint64_t* out) noexcept nogil:
    # Safety: value k starts at bit k*width; its 8-byte load starts at byte
    # k*width/8 and one more byte is read only when the value straddles nine
    # bytes, so the last index read is below width + 8. With fewer readable
    # bytes the group is first copied into a zeroed local buffer that large.
    cdef uint8_t tmp[72]
    cdef uint64_t mask, x
    cdef int k, bit, byte, shift
    if width == 0:
        memset(out, 0, 8 * sizeof(uint64_t))
        return
    if avail < width + 8:
        memset(tmp, 0, sizeof(tmp))
        memcpy(tmp, src, width)
        src = tmp
    mask = <uint64_t>0 - 1 if width == 64 else (<uint64_t>1 << width) - 1
    for k in range(8):
        bit = k * width
        byte = bit >> 3
        shift = bit & 7
        x = load_le64(src + byte) >> shift
        if shift + width > 64:
            x |= (<uint64_t>src[byte + 8]) << (64 - shift)
        out[k] = x & mask


# ---------------------------------------------------------------------------
# DELTA_BINARY_PACKED decoding

cdef int _fail_at(Cursor* c, Py_ssize_t pos, str message) except -1:
    c.pos = pos
    return cursor_fail(c, EncodingError, message)


cdef int _varint(Cursor* c, uint64_t* out, str what, Py_ssize_t block) except -1:
    try:
        read_uvarint(c, out, EncodingError)
    except EncodingError as exc:
        where = f"{what} of block {block}" if block >= 0 else what
        raise EncodingError(f"DELTA_BINARY_PACKED {where}: {exc}") from None
    return 0


cdef int read_header(Cursor* c, DeltaHeader* h, Py_ssize_t max_count) except -1:
    """Read and validate the header; h.count is checked against max_count."""
    cdef uint64_t size, mini, count, first
    cdef Py_ssize_t start = c.pos
    _varint(c, &size, "block size", -1)
    _varint(c, &mini, "miniblock count", -1)
    _varint(c, &count, "value count", -1)
    _varint(c, &first, "first value", -1)
    if size == 0 or size % 128 != 0 or size > MAX_BLOCK_SIZE:
        _fail_at(c, start, f"DELTA_BINARY_PACKED block size {size}: "
                 f"must be a positive multiple of 128 below 2**31")
    if mini == 0 or size % mini != 0 or (size // mini) % 8 != 0:
        _fail_at(c, start, f"DELTA_BINARY_PACKED {mini} miniblocks per block of {size} "
                 f"values: values per miniblock must be a whole multiple of 8")
    if count > <uint64_t>max_count:
        _fail_at(c, start, f"DELTA_BINARY_PACKED value count {count} exceeds the "
                 f"{max_count} values expected")
    h.block_size = <Py_ssize_t>size
    h.miniblocks = <Py_ssize_t>mini
    h.per_miniblock = <Py_ssize_t>(size // mini)
    h.count = <Py_ssize_t>count
    h.first = unzigzag(first)
    return 0


cdef inline Py_ssize_t _block_count(const DeltaHeader* h) noexcept nogil:
    if h.count <= 1:
        return 0
    return (h.count - 1 + h.block_size - 1) // h.block_size


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t scan_blocks(Cursor* c, const DeltaHeader* h, int max_width,
                            BlockInfo* blocks) except -1:
    """Validate every block and record it in blocks; return the block count."""
    cdef Py_ssize_t left = h.count - 1 if h.count > 1 else 0
    cdef Py_ssize_t vpm = h.per_miniblock, nb = 0, used, i, need
    cdef uint64_t md
    cdef const uint8_t* widths
    while left > 0:
        _varint(c, &md, "min delta", nb)
        if cursor_remaining(c) < h.miniblocks:
            cursor_fail(c, EncodingError, f"DELTA_BINARY_PACKED block {nb} needs {h.miniblocks} "
                        f"bit widths but only {cursor_remaining(c)} bytes remain")
        widths = c.data + c.pos
        c.pos += h.miniblocks
        # Widths past the last used miniblock may be garbage: never read them.
        used = min(h.miniblocks, (left + vpm - 1) // vpm)
        need = 0
        for i in range(used):
            if widths[i] > max_width:
                _fail_at(c, (widths - c.data) + i,
                         f"DELTA_BINARY_PACKED bit width {widths[i]} of miniblock {i} "
                         f"in block {nb}: at most {max_width}")
            need += (vpm // 8) * widths[i]
        if need > cursor_remaining(c):
            cursor_fail(c, EncodingError, f"DELTA_BINARY_PACKED block {nb} needs {need} bytes "
                        f"of miniblocks but only {cursor_remaining(c)} remain")
        blocks[nb].min_delta = unzigzag(md)
        blocks[nb].widths = widths
        blocks[nb].packed = c.data + c.pos
        c.pos += need
        nb += 1
        left -= min(left, h.block_size)
    return nb


@cython.boundscheck(False)
@cython.wraparound(False)
@cython.cdivision(True)
cdef void expand_blocks(const DeltaHeader* h, const BlockInfo* blocks, const uint8_t* end,
                        delta_int* out) noexcept nogil:
    # Safety: out holds h.count values and idx < h.count before every store.
    # scan_blocks checked that each block's used miniblocks (per_miniblock *
    # width / 8 bytes each) lie before `end`; unpack8 reads past a group only
    # when at least 8 more bytes remain before `end`.
    cdef uint64_t last = h.first, md
    cdef uint64_t vals[8]
    cdef Py_ssize_t idx = 1, b = 0, mb, g, k, take
    cdef Py_ssize_t groups = h.per_miniblock // 8
    cdef const uint8_t* p
    cdef int w
    if h.count == 0:
        return
    if delta_int is int32_t:
        out[0] = <int32_t><uint32_t>last
    else:
        out[0] = <int64_t>last
    while idx < h.count:
        md = blocks[b].min_delta
        p = blocks[b].packed
        mb = 0
        while mb < h.miniblocks and idx < h.count:
            w = blocks[b].widths[mb]
            g = 0
            while g < groups and idx < h.count:
                unpack8(p, w, end - p, vals)
                p += w
                take = min(8, h.count - idx)
                for k in range(take):
                    last += md + vals[k]
                    if delta_int is int32_t:
                        out[idx + k] = <int32_t><uint32_t>last
                    else:
                        out[idx + k] = <int64_t>last
                idx += take
                g += 1
            mb += 1
        b += 1


cdef object decode_at(Cursor* c, bint bit64, Py_ssize_t max_count):
    cdef DeltaHeader h
    cdef Py_ssize_t nblocks
    cdef BlockInfo* blocks = NULL
    cdef int32_t[::1] out32
    cdef int64_t[::1] out64
    read_header(c, &h, max_count)
    nblocks = _block_count(&h)
    # Each block takes at least its min delta byte and its bit widths.
    if nblocks > cursor_remaining(c) // (1 + h.miniblocks):
        cursor_fail(c, EncodingError, f"DELTA_BINARY_PACKED {h.count} values need {nblocks} "
                    f"blocks of at least {1 + h.miniblocks} bytes, but only "
                    f"{cursor_remaining(c)} bytes remain")
    out = np.empty(h.count, dtype=np.int64 if bit64 else np.int32)
    if h.count == 0:
        return out
    if nblocks:
        blocks = <BlockInfo*>PyMem_Malloc(nblocks * sizeof(BlockInfo))
        if blocks == NULL:
            raise MemoryError()
    try:
        scan_blocks(c, &h, 64 if bit64 else 32, blocks)
        if bit64:
            out64 = out
            with nogil:
                expand_blocks(&h, blocks, c.data + c.size, &out64[0])
        else:
            out32 = out
            with nogil:
                expand_blocks(&h, blocks, c.data + c.size, &out32[0])
    finally:
        PyMem_Free(blocks)
    return out


cdef int _open(Cursor* c, const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t length,
               Py_ssize_t max_count, Py_ssize_t base_offset) except -1:
    cdef Py_ssize_t size = data.shape[0]
    if offset < 0 or length < 0 or offset > size or length > size - offset:
        raise EncodingError(f"encoded range offset={offset} length={length} lies outside "
                            f"the {size}-byte buffer (at offset {base_offset})")
    if max_count < 0:
        raise ValueError(f"max_count must be >= 0, got {max_count}")
    cursor_init(c, &data[offset] if length else NULL, length, base_offset)
    return 0


def decode_delta_binary_packed(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t length,
                               bint bit64, Py_ssize_t max_count, Py_ssize_t base_offset=0):
    """Decode one DELTA_BINARY_PACKED run from ``data[offset:offset + length]``.

    Parameters
    ----------
    data, offset, length, max_count, base_offset
        The region to decode (the run may end before it does), the most
        values it may declare, and the file offset of ``data[offset]``.
    bit64 : bool
        INT64 (widths up to 64) when true, INT32 (widths up to 32) otherwise.

    Returns
    -------
    (numpy.ndarray, int)
        int64 or int32 values, and the number of bytes consumed.

    Raises
    ------
    pqkit.errors.EncodingError
        Malformed or truncated header or blocks, a count above ``max_count``.
    """
    cdef Cursor c
    _open(&c, data, offset, length, max_count, base_offset)
    values = decode_at(&c, bit64, max_count)
    return values, c.pos


# ---------------------------------------------------------------------------
# Byte arrays

@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _offsets_from_lengths(const int32_t* lengths, Py_ssize_t n, Py_ssize_t limit,
                                      int64_t* offsets) noexcept nogil:
    """Fill offsets[0..n]; return the first bad index (negative or over limit), else -1."""
    # Safety: lengths has n entries and offsets n + 1.
    cdef Py_ssize_t i
    cdef int64_t total = 0
    offsets[0] = 0
    for i in range(n):
        if lengths[i] < 0:
            return i
        total += lengths[i]
        if total > limit:
            return i
        offsets[i + 1] = total
    return -1


cdef object _lengths_at(Cursor* c, Py_ssize_t max_count, str what):
    """Read a run of lengths and check the bytes they cover; return offsets (n + 1)."""
    cdef Py_ssize_t start = c.pos, bad
    cdef const int32_t[::1] lengths = decode_at(c, False, max_count)
    cdef Py_ssize_t n = lengths.shape[0]
    offsets = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] offs = offsets
    with nogil:
        bad = _offsets_from_lengths(&lengths[0] if n else NULL, n, cursor_remaining(c),
                                    &offs[0])
    if bad >= 0:
        if lengths[bad] < 0:
            msg = f"{what} length {lengths[bad]} of value {bad} is negative"
        else:
            msg = (f"{what} lengths up to value {bad} add up to more than the "
                   f"{cursor_remaining(c)} bytes that remain")
        _fail_at(c, start, msg + " (lengths start)")
    return offsets


def decode_delta_length_byte_array(const uint8_t[::1] data, Py_ssize_t offset,
                                   Py_ssize_t length, Py_ssize_t max_count,
                                   Py_ssize_t base_offset=0):
    """Decode DELTA_LENGTH_BYTE_ARRAY values; arguments as for decode_delta_binary_packed.

    Returns ``(offsets, values, consumed)``: int64 offsets (count + 1, from 0)
    and uint8 value bytes. Raises EncodingError for negative lengths or
    lengths that add up to more than the bytes that remain.
    """
    cdef Cursor c
    _open(&c, data, offset, length, max_count, base_offset)
    offsets = _lengths_at(&c, max_count, "DELTA_LENGTH_BYTE_ARRAY")
    cdef Py_ssize_t total = offsets[-1]
    values = np.empty(total, dtype=np.uint8)
    cdef uint8_t[::1] out = values
    if total:
        with nogil:
            memcpy(&out[0], c.data + c.pos, total)
    c.pos += total
    return offsets, values, c.pos


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _prefixed_offsets(const int32_t* prefix, const int64_t* suffix, Py_ssize_t n,
                                  int64_t prev_len, int64_t limit,
                                  int64_t* offsets) noexcept nogil:
    """Fill offsets[0..n] of the rebuilt values; return the first bad index, else -1."""
    # Safety: prefix has n entries, suffix and offsets n + 1.
    cdef Py_ssize_t i
    cdef int64_t total = 0, size
    offsets[0] = 0
    for i in range(n):
        if prefix[i] < 0 or prefix[i] > prev_len:
            return i
        size = prefix[i] + (suffix[i + 1] - suffix[i])
        total += size
        if total > limit:
            return i
        offsets[i + 1] = total
        prev_len = size
    return -1


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _rebuild(const int32_t* prefix, const int64_t* suffix, const uint8_t* suffix_data,
                   const int64_t* offsets, Py_ssize_t n, const uint8_t* previous,
                   uint8_t* out) noexcept nogil:
    # Safety: _prefixed_offsets accepted every prefix (0 <= prefix[i] <= the
    # length of the value before), previous holds the first value's prefix,
    # and out holds offsets[n] bytes.
    cdef Py_ssize_t i
    cdef const uint8_t* prev = previous
    for i in range(n):
        if prefix[i]:
            memcpy(out + offsets[i], prev, prefix[i])
        memcpy(out + offsets[i] + prefix[i], suffix_data + suffix[i], suffix[i + 1] - suffix[i])
        prev = out + offsets[i]


def decode_delta_byte_array(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t length,
                            Py_ssize_t max_count, Py_ssize_t base_offset=0,
                            const uint8_t[::1] previous=None,
                            Py_ssize_t max_bytes=DEFAULT_MAX_BYTES):
    """Decode DELTA_BYTE_ARRAY values; arguments as for decode_delta_binary_packed.

    ``previous`` is the value before the first one (empty by default; the
    previous page's last value for parquet-mr < 1.8.0, PARQUET-246).
    ``max_bytes`` caps the rebuilt size, since prefixes let a few input bytes
    stand for many output bytes (AllocationLimitError). Returns ``(offsets,
    values, consumed)`` as decode_delta_length_byte_array does. Raises
    EncodingError for malformed runs, a prefix outside 0..len(previous value),
    or prefix and suffix counts that differ.
    """
    cdef Cursor c
    cdef Py_ssize_t start, bad, n
    _open(&c, data, offset, length, max_count, base_offset)
    start = c.pos
    cdef const int32_t[::1] prefix = decode_at(&c, False, max_count)
    n = prefix.shape[0]
    suffix_start = c.pos
    suffix = _lengths_at(&c, n, "DELTA_BYTE_ARRAY suffix")
    if suffix.shape[0] != n + 1:
        _fail_at(&c, suffix_start, f"DELTA_BYTE_ARRAY has {n} prefix lengths but "
                 f"{suffix.shape[0] - 1} suffix lengths")
    cdef const int64_t[::1] sfx = suffix
    cdef const uint8_t* prev = NULL
    cdef int64_t prev_len = 0
    if previous is not None and previous.shape[0]:
        prev = &previous[0]
        prev_len = previous.shape[0]
    offsets = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] offs = offsets
    with nogil:
        bad = _prefixed_offsets(&prefix[0] if n else NULL, &sfx[0], n, prev_len,
                                max_bytes, &offs[0])
    if bad >= 0:
        before = prev_len if bad == 0 else offs[bad] - offs[bad - 1]
        if prefix[bad] < 0 or prefix[bad] > before:
            _fail_at(&c, start, f"DELTA_BYTE_ARRAY prefix length {prefix[bad]} of value {bad} "
                     f"is outside 0..{before}, the previous value's length "
                     f"(prefix lengths start)")
        raise AllocationLimitError(
            f"DELTA_BYTE_ARRAY values up to value {bad} need more than max_bytes={max_bytes} "
            f"bytes (prefix lengths at offset {base_offset + start})")
    values = np.empty(offs[n], dtype=np.uint8)
    cdef uint8_t[::1] out = values
    if offs[n]:
        with nogil:
            _rebuild(&prefix[0], &sfx[0], c.data + c.pos, &offs[0], n, prev, &out[0])
    c.pos += sfx[n]
    return offsets, values, c.pos
