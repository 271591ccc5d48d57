# DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY decoding
# kernels (delta.pyx), and what decoding and encoding (delta_encode.pxd/.pyx)
# share: the integer types and the zigzag mapping.
#
# Decoding runs in two passes: scan_blocks walks the block headers through the
# bounds-checked Cursor (with the GIL, one step per block) and records where
# each block's widths and packed bytes are; expand_blocks then unpacks every
# miniblock under nogil from those already validated ranges.
from libc.stdint cimport uint8_t, int32_t, int64_t, uint64_t
from pqkit._native.buffer cimport Cursor

ctypedef fused delta_int:
    int32_t
    int64_t

# Zigzag: 0, -1, 1, -2, ... <-> 0, 1, 2, 3, ... (two's complement bits).
cdef inline uint64_t zigzag(int64_t v) noexcept nogil:
    return (<uint64_t>v << 1) ^ (<uint64_t>0 - (<uint64_t>v >> 63))

cdef inline uint64_t unzigzag(uint64_t u) noexcept nogil:
    return (u >> 1) ^ (<uint64_t>0 - (u & 1))

cdef struct DeltaHeader:
    Py_ssize_t block_size       # values per block
    Py_ssize_t miniblocks       # miniblocks per block
    Py_ssize_t per_miniblock    # values per miniblock (a multiple of 8)
    Py_ssize_t count            # total number of values
    uint64_t first              # first value, two's complement bits

cdef struct BlockInfo:
    uint64_t min_delta          # two's complement bits
    const uint8_t* widths       # one bit width per miniblock
    const uint8_t* packed       # the used miniblocks, back to back

# Unpack 8 LSB-first values of `width` bits (0..64) stored in `width` bytes.
# `avail` is the number of readable bytes at src (at least `width`).
cdef void unpack8(const uint8_t* src, int width, Py_ssize_t avail,
                  uint64_t* out) noexcept nogil

cdef int read_header(Cursor* c, DeltaHeader* h, Py_ssize_t max_count) except -1
cdef Py_ssize_t scan_blocks(Cursor* c, const DeltaHeader* h, int max_width,
                            BlockInfo* blocks) except -1
cdef void expand_blocks(const DeltaHeader* h, const BlockInfo* blocks, const uint8_t* end,
                        delta_int* out) noexcept nogil
# Decode one DELTA_BINARY_PACKED run at the cursor into a new int32/int64
# array, advancing the cursor exactly past it.
cdef object decode_at(Cursor* c, bint bit64, Py_ssize_t max_count)
