# Dictionary gathers (indices -> values) and row-position narrowing.
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int32_t, int64_t

# Gather rows of `width` bytes: dst[i] = src[idx[i]]. Returns -1 when every
# index is below dict_len, else the position of the first bad index (the
# rows before it are copied).
cdef Py_ssize_t gather_fixed(const uint8_t* src, Py_ssize_t width, Py_ssize_t dict_len,
                             const int32_t* idx, Py_ssize_t n, uint8_t* dst) noexcept nogil

# Module-local helpers (declared for their exception specs; not for cimport).
cdef object _as_indices(indices)
cdef object _narrow_indices(const int64_t[::1] wide)
cdef int _bad_index(indices, const int32_t[::1] idx, Py_ssize_t pos,
                    Py_ssize_t dict_len) except -1
