# PLAIN encoding kernels.
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int64_t

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

# PLAIN booleans: n values <-> ceil(n / 8) LSB-first bytes (pack: out zeroed).
cdef void unpack_bools(const uint8_t* src, Py_ssize_t n, uint8_t* out) noexcept nogil
cdef void pack_bools(const uint8_t* v, Py_ssize_t n, uint8_t* out) noexcept nogil

# Check Arrow offsets over data_len bytes (at least one entry, non-decreasing,
# within 0..data_len); raises `exc` naming `what` and the bad offset.
cdef int check_offsets(const int64_t[::1] offsets, Py_ssize_t data_len, str what,
                       object exc) except -1

# Module-local helpers (declared for their exception specs; not for cimport).
cdef int _check_start(Py_ssize_t size, Py_ssize_t offset, Py_ssize_t count,
                      Py_ssize_t base_offset, str what) except -1
cdef int _check_prefixes(Py_ssize_t avail, Py_ssize_t count, Py_ssize_t base_offset) except -1
