# Definition levels decoded into validity while the values move to their row slots
# (flat columns: no repetition, at most one OPTIONAL node on the path).
from libc.stdint cimport uint8_t

from pqkit._native.buffer cimport Cursor

# Decode `count` hybrid-encoded definition levels (max_def 1, so bit width 1) from
# the cursor. For
# each entry, valid[i] = (level == max_def); a present entry takes the next `width`
# bytes of src (src_len bytes in all) into dst row i, a null entry zeroes row i.
# src may lie inside dst at or after dst + (count - present) * width (the values
# stored at the tail of the rows they spread over). Returns the values taken, or -1
# on any fault (bad run, truncation, a level above max_def, src exhausted).
cdef Py_ssize_t place_runs(Cursor* c, int max_def, Py_ssize_t count, uint8_t* dst,
                           Py_ssize_t width, const uint8_t* src, Py_ssize_t src_len,
                           uint8_t* valid) noexcept nogil

# The entries among `count` hybrid-encoded definition levels that equal max_def, or -1
# on any fault (as place_runs).
cdef Py_ssize_t count_runs(Cursor* c, int max_def, Py_ssize_t count) noexcept nogil
