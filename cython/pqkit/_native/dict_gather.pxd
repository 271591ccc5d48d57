# Dictionary-index pages decoded straight into values (index unpacking fused with
# the gather: no index buffer for the page).
from libc.stdint cimport uint8_t

from pqkit._native.buffer cimport Cursor

# Decode `count` hybrid-encoded indices of bit width w from the cursor and write
# dictionary row idx (of `width` bytes; `dict_len` rows at `dictionary`) into dst for
# each. Returns 0, or -1 on any fault (bad run, truncation, index >= dict_len); the
# caller then re-decodes with the unfused path, which names the fault.
cdef int gather_hybrid(Cursor* c, int w, const uint8_t* dictionary, Py_ssize_t width,
                       Py_ssize_t dict_len, uint8_t* dst, Py_ssize_t count) noexcept nogil
