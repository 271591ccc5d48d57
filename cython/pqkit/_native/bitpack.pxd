# Bit unpacking (LSB-first) and the RLE/bit-packed hybrid decoder; the
# packing and encoding kernels are declared in hybrid_encode.pxd.
#
# Values are unpacked in groups of 8: a group of 8 values at bit width w
# occupies exactly w bytes. The kernels below are raw-pointer leaf kernels;
# their callers check the block sizes first (see each `# Safety:` comment
# in bitpack.pyx).
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int16_t, int32_t, UINT32_MAX

from pqkit._native.buffer cimport Cursor

ctypedef fused hybrid_t:
    uint8_t
    int16_t
    int32_t

cdef enum HybridFault:
    HF_NONE = 0
    HF_VARINT_TRUNCATED = 1     # run header varint runs past the data
    HF_VARINT_TOO_LONG = 2      # run header varint longer than 5 bytes / above 32 bits
    HF_EMPTY_RUN = 3            # run length 0
    HF_RUN_TOO_LONG = 4         # run length above 2^31 - 1 values
    HF_VALUE_TRUNCATED = 5      # RLE run's value bytes run past the data
    HF_VALUE_RANGE = 6          # RLE run's value does not fit the bit width
    HF_PACKED_TRUNCATED = 7     # bit-packed run shorter than the values still needed
    HF_EXHAUSTED = 8            # data ends before `count` values were produced

cdef struct HybridError:
    int code                    # HybridFault
    Py_ssize_t pos              # position (from the cursor's data) where the fault is
    uint64_t value              # the offending header / value / length
    uint64_t extra              # bytes needed (truncation faults)
    Py_ssize_t produced         # values decoded before the fault

cdef enum:
    MAX_PACKED_GROUPS = 268435455        # (2^31 - 1) // 8 groups: runs stay below 2^31 values


# The values to take from a bit-packed run of `groups` groups (at most `wanted`) in
# *n; returns 0 when their bytes are at the cursor, else the bytes they need. Only
# the bytes of needed values must be present: some writers drop the final padding.
cdef inline Py_ssize_t packed_run_values(const Cursor* c, uint64_t groups, int w,
                                         Py_ssize_t wanted, Py_ssize_t* n) noexcept nogil:
    cdef Py_ssize_t need
    n[0] = <Py_ssize_t>(groups * 8)
    if n[0] > wanted:
        n[0] = wanted
    need = (n[0] * w + 7) >> 3
    return 0 if c.size - c.pos >= need else need


# Move the cursor past a bit-packed run of `groups` groups of width w; the final run
# may lack its padding bytes (the values it needs were checked to be present).
cdef inline void skip_packed_run(Cursor* c, uint64_t groups, int w) noexcept nogil:
    if <uint64_t>(c.size - c.pos) > groups * w:
        c.pos += <Py_ssize_t>(groups * w)
    else:
        c.pos = c.size


# A run header (ULEB128, at most 5 bytes and 32 bits) at the cursor: HF_NONE with
# *out set, or the fault. Shared by hybrid_decode and the fused dictionary gather.
cdef inline int run_header(Cursor* c, uint64_t* out) noexcept nogil:
    cdef uint64_t r = 0
    cdef int shift = 0
    cdef uint8_t b
    while True:
        if c.pos >= c.size:
            return HF_VARINT_TRUNCATED
        b = c.data[c.pos]
        c.pos += 1
        r |= (<uint64_t>(b & 0x7F)) << shift
        if not (b & 0x80):
            break
        shift += 7
        if shift >= 35:
            return HF_VARINT_TOO_LONG
    if r > UINT32_MAX:
        return HF_VARINT_TOO_LONG
    out[0] = r
    return HF_NONE


# Unpack `ngroups` groups of 8 LSB-first values of width w (0..32).
cdef void unpack_groups(const uint8_t* src, Py_ssize_t avail, uint32_t* out,
                        Py_ssize_t ngroups, int w) noexcept nogil
# Unpack n values (n need not be a multiple of 8) from ceil(n*w/8) bytes.
cdef void unpack_values(const uint8_t* src, Py_ssize_t avail, uint32_t* out,
                        Py_ssize_t n, int w) noexcept nogil

# Decode `count` hybrid values from c.data[c.pos:c.size]; advances c.pos past
# the runs read. Tracks the maximum value in *maxv when maxv != NULL.
# Returns 0, or -1 with *err filled.
cdef int hybrid_decode(Cursor* c, int w, hybrid_t* out, Py_ssize_t count,
                       uint32_t* maxv, HybridError* err) noexcept nogil

# Module-local helpers (declared for their exception specs; not for cimport).
cdef void _unpack_into(const uint8_t* src, Py_ssize_t avail, hybrid_t* out, Py_ssize_t n,
                       int w, uint32_t* maxv) noexcept nogil
cdef int _check_width(int bit_width, Py_ssize_t at, int limit) except -1
cdef int _check_region(Py_ssize_t size, Py_ssize_t offset, Py_ssize_t length,
                       Py_ssize_t base_offset, str what) except -1
cdef int _check_out(Py_ssize_t count, Py_ssize_t out_len) except -1
cdef int _raise_hybrid(const HybridError* err, Py_ssize_t base, Py_ssize_t count,
                       Py_ssize_t size, int w) except -1
cdef Py_ssize_t _decode_region(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t length,
                               int w, hybrid_t[::1] out, Py_ssize_t count,
                               Py_ssize_t base_offset, uint32_t* maxv) except -1
