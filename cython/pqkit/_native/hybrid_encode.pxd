# Bit packing (LSB-first) and the RLE/bit-packed hybrid encoder; the layouts
# and the decoding kernels are in bitpack.pyx / bitpack.pxd.
#
# The kernels below are raw-pointer leaf kernels: their callers size the
# output buffers first (see each `# Safety:` comment in hybrid_encode.pyx).
from libc.stdint cimport uint8_t, uint32_t, uint64_t

# Upper bound on the encoded size of n values at width w (no prefix).
cdef Py_ssize_t hybrid_bound(Py_ssize_t n, int w) noexcept nogil

# Write v as an unsigned LEB128 varint at d (at most 10 bytes); returns its length.
# Shared by the hybrid run headers and the DELTA_* headers.
cdef inline Py_ssize_t put_uvarint(uint8_t* d, uint64_t v) noexcept nogil:
    cdef Py_ssize_t k = 0
    while v >= 0x80:
        d[k] = <uint8_t>(v | 0x80)
        v >>= 7
        k += 1
    d[k] = <uint8_t>v
    return k + 1

# Module-local helpers (declared for their exception specs; not for cimport).
cdef Py_ssize_t _emit_rle(uint32_t value, Py_ssize_t run, int w, uint8_t* d) noexcept nogil
cdef object _as_u32(values, int bit_width)
