# Value expansion (dense values -> leaf slots), implemented in expand.pyx:
# the values decoded for the set bytes of a value mask are moved to their
# slots and the other slots are zeroed.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int64_t

ctypedef fused item_t:
    uint8_t
    uint16_t
    uint32_t
    uint64_t

cdef void scatter_items(const uint8_t* src, uint8_t* dst, const uint8_t* mask, Py_ssize_t n,
                        Py_ssize_t present, item_t kind) noexcept nogil
cdef void scatter_bytes(const uint8_t* src, uint8_t* dst, const uint8_t* mask, Py_ssize_t n,
                        Py_ssize_t width) noexcept nogil
