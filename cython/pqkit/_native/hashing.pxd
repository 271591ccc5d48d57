# XXH64 and the split-block bloom filter kernels.
#
# The pointer kernels are unchecked: each caller proves that the bytes it
# passes are in range (see the "# Safety:" comments in hashing.pyx).
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int64_t

cdef uint64_t xxh64_ptr(const uint8_t* p, Py_ssize_t n, uint64_t seed) noexcept nogil

cdef void sbbf_insert_ptr(uint8_t* bitset, uint64_t num_blocks, uint64_t h) noexcept nogil

cdef bint sbbf_check_ptr(const uint8_t* bitset, uint64_t num_blocks, uint64_t h) noexcept nogil
