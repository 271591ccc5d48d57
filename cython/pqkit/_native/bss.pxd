# BYTE_STREAM_SPLIT kernels: K byte streams of N values each <-> N values of K bytes.
from libc.stdint cimport uint8_t

# src holds count * width bytes as `width` streams; dst receives them in value order.
cdef void bss_decode(const uint8_t* src, Py_ssize_t count, Py_ssize_t width,
                     uint8_t* dst) noexcept nogil
# src holds count values of width bytes; dst receives the `width` streams.
cdef void bss_encode(const uint8_t* src, Py_ssize_t count, Py_ssize_t width,
                     uint8_t* dst) noexcept nogil
