# DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY encoding
# kernels (delta_encode.pyx). The decoders and the declarations both sides
# share (delta_int, zigzag) are in delta.pxd.
from libc.stdint cimport uint8_t, uint64_t
from pqkit._native.delta cimport delta_int

# Pack 8 values of `width` bits (0..64; values already fit) into `width` bytes.
cdef void pack8(const uint64_t* values, int width, uint8_t* dst) noexcept nogil

cdef Py_ssize_t encode_bound(Py_ssize_t n, Py_ssize_t block_size, Py_ssize_t miniblocks,
                             bint bit64) noexcept nogil
cdef Py_ssize_t encode_kernel(const delta_int* values, Py_ssize_t n, Py_ssize_t block_size,
                              Py_ssize_t miniblocks, uint64_t* scratch,
                              uint8_t* dst) noexcept nogil
