# Dremel shredding (validity/offsets -> levels), implemented in shred.pyx on
# the level plan of levels.pxd (which assembly, the inverse, uses too).
from libc.stdint cimport uint8_t, int16_t, int64_t
from pqkit._native.levels cimport LevelPlan

cdef struct ShredState:
    bint counting           # first pass: count entries only
    int16_t* defs           # output (fill pass)
    int16_t* reps           # output (fill pass)
    Py_ssize_t capacity     # entries the outputs can hold
    Py_ssize_t count        # entries emitted so far
    uint8_t* value_mask     # leaf slots emitted as values (fill pass; NULL: not kept)
    const int16_t* below_def    # per slot of the deepest list: def levels added below it
    const uint8_t* below_alive  # per slot of the deepest list: 1 if it holds a value
    int16_t below_const     # the def levels added below when below_def is NULL
    Py_ssize_t covered      # slots of the deepest list inside emitted runs (counting)
    Py_ssize_t* cur         # cur[r]: element of the r-th list being emitted
    Py_ssize_t* end         # end[r]: one past the last element of that list

cdef void shred_records(const LevelPlan* plan, ShredState* st,
                        Py_ssize_t num_records) noexcept nogil
cdef Py_ssize_t below_levels(const LevelPlan* plan, Py_ssize_t first, Py_ssize_t stop,
                             int16_t* defs, uint8_t* alive, Py_ssize_t n) noexcept nogil
cdef void shred_run(const LevelPlan* plan, ShredState* st, Py_ssize_t i, Py_ssize_t b,
                    Py_ssize_t e, int16_t r) noexcept nogil
cdef int shred_descend(const LevelPlan* plan, ShredState* st, Py_ssize_t i, Py_ssize_t p,
                       int16_t r, int16_t d, int active) noexcept nogil
cdef Py_ssize_t bad_offset(const int64_t* off, Py_ssize_t n, int64_t limit) noexcept nogil
