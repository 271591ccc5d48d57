# Arrow binary views built over int64 offsets + data (see views.pyx).
from libc.stdint cimport int64_t, uint8_t, uint64_t

# Writes the 16-byte views of n values (two little-endian words each); returns the
# number of variadic buffers begun (their starts in `starts`), -1 - i when value i
# is longer than max_buffer, or -2**62 - i when offsets decrease after row i.
# Safety: the caller checked offsets[0] >= 0 and offsets[n] <= data_len, and sized
# `starts` for every buffer a split can begin (see buffer_bound).
cdef int64_t fill_views(const int64_t* offsets, Py_ssize_t n, const uint8_t* data,
                        int64_t data_len, int64_t max_buffer, uint64_t* views,
                        int64_t* starts) noexcept nogil
cdef int64_t buffer_bound(int64_t span, int64_t max_buffer) noexcept nogil
