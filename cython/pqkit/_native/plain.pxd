# PLAIN encoding kernels and dictionary gathers.
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int32_t, int64_t

# Walk `count` length-prefixed BYTE_ARRAY values in src[0:size], writing the
# running offsets (offsets[0] = 0, count + 1 entries). Returns the bytes the
# values occupy, or -1 with *bad_index / *bad_pos set to the value whose
# length prefix or bytes run past `size`.
cdef Py_ssize_t byte_array_scan(const uint8_t* src, Py_ssize_t size, Py_ssize_t count,
                                int64_t* offsets, Py_ssize_t* bad_index,
                                Py_ssize_t* bad_pos) noexcept nogil
# Copy the value bytes of a scanned BYTE_ARRAY block (src_size bytes) into
# dst (dst_size >= offsets[count] bytes).
cdef void byte_array_copy(const uint8_t* src, Py_ssize_t src_size, Py_ssize_t count,
                          const int64_t* offsets, uint8_t* dst,
                          Py_ssize_t dst_size) noexcept nogil

# Gather rows of `width` bytes: dst[i] = src[idx[i]]. Returns -1 when every
# index is below dict_len, else the position of the first bad index (the
# rows before it are copied).
cdef Py_ssize_t gather_fixed(const uint8_t* src, Py_ssize_t width, Py_ssize_t dict_len,
                             const int32_t* idx, Py_ssize_t n, uint8_t* dst) noexcept nogil

# PLAIN booleans: n values <-> ceil(n / 8) LSB-first bytes (pack: out zeroed).
cdef void unpack_bools(const uint8_t* src, Py_ssize_t n, uint8_t* out) noexcept nogil
cdef void pack_bools(const uint8_t* v, Py_ssize_t n, uint8_t* out) noexcept nogil

# Module-local helpers (declared for their exception specs; not for cimport).
cdef int _check_start(Py_ssize_t size, Py_ssize_t offset, Py_ssize_t count,
                      Py_ssize_t base_offset, str what) except -1
cdef int _check_offsets(const int64_t[::1] offsets, Py_ssize_t data_len, str what,
                        object exc) except -1
cdef int _check_prefixes(Py_ssize_t avail, Py_ssize_t count, Py_ssize_t base_offset) except -1
cdef object _as_indices(indices)
cdef object _narrow_indices(const int64_t[::1] wide)
cdef int _bad_index(indices, const int32_t[::1] idx, Py_ssize_t pos,
                    Py_ssize_t dict_len) except -1
