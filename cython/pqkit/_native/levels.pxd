# Dremel levels: the level plan and assembly (levels -> validity/offsets),
# implemented in levels.pyx. The plan, the node structs and the helpers below
# are shared with shredding (shred.pyx, validity/offsets -> levels); count_set
# also with value expansion (expand.pyx). The node path runs from the
# top-level field (index 0) down to the leaf (index depth - 1).
from libc.stdint cimport uint8_t, uint16_t, int16_t, int64_t

cdef enum Repetition:
    REP_REQUIRED = 0
    REP_OPTIONAL = 1
    REP_REPEATED = 2

cdef enum LevelFault:
    FAULT_NONE = 0
    FAULT_DEF_RANGE = 1         # definition level < 0 or > max_def
    FAULT_REP_RANGE = 2         # repetition level < 0 or > max_rep
    FAULT_FIRST_REP = 3         # the first entry does not start a record
    FAULT_REP_UNDEFINED = 4     # rep r > 0 but def too low for the r-th list to have an element
    FAULT_REP_AFTER_EMPTY = 5   # rep r > 0 continues a list the previous entry left empty/null
    FAULT_CHANGED = 6           # the input changed between the counting and the filling pass

cdef struct LevelNode:
    int kind                # Repetition
    int16_t rep_level       # REPEATED nodes at or above this node
    int16_t def_level       # non-REQUIRED nodes at or above this node
    int16_t slot_def        # def level of the deepest REPEATED node at or above (0: none)
    int16_t parent_def      # slot_def of the parent (0 for node 0)
    Py_ssize_t slots        # slot count
    Py_ssize_t parents      # slot count of the parent (records for node 0)
    uint8_t* validity       # OPTIONAL: one byte per slot, or NULL (shredding: all valid)
    int64_t* offsets        # REPEATED: parents + 1 entries

cdef struct FaultInfo:
    int code                # LevelFault
    Py_ssize_t position     # index of the offending level entry
    int16_t rep
    int16_t def_
    int16_t prev_def

cdef struct LevelPlan:
    LevelNode* nodes
    Py_ssize_t depth
    int16_t max_def
    int16_t max_rep
    int16_t* list_def       # list_def[r]: def level of the r-th REPEATED node; [0] = -1
    Py_ssize_t* rep_node    # rep_node[r]: index of the r-th REPEATED node; [0] = -1

cdef int plan_init(LevelPlan* plan, object repetitions) except -1
cdef void plan_free(LevelPlan* plan) noexcept

# " in <where>" for error messages ("" when where is empty)
cdef str where_suffix(str where)
# &mv[0], or NULL for an empty view
cdef void* ptr_u8(uint8_t[::1] mv) except? NULL
cdef void* ptr_i16(int16_t[::1] mv) except? NULL
cdef void* ptr_i64(int64_t[::1] mv) except? NULL

# Set bytes of a value mask (n bytes at mask; NULL when n is 0).
cdef inline Py_ssize_t count_set(const uint8_t* mask, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t k, total = 0
    for k in range(n):
        total += mask[k] != 0
    return total

# assembly
cdef Py_ssize_t validate_nested(const LevelPlan* plan, const int16_t* defs, const int16_t* reps,
                                Py_ssize_t n, FaultInfo* fault,
                                Py_ssize_t* num_values) noexcept nogil
cdef Py_ssize_t validate_flat(const LevelPlan* plan, const int16_t* defs, const int16_t* reps,
                              Py_ssize_t n, FaultInfo* fault) noexcept nogil
cdef Py_ssize_t count_elements(const int16_t* defs, const int16_t* reps, Py_ssize_t n,
                               int16_t rep_level, int16_t def_level) noexcept nogil
cdef Py_ssize_t fill_slots(const int16_t* defs, const int16_t* reps, Py_ssize_t n,
                           int16_t rep_level, int16_t slot_def, int16_t value_def,
                           uint8_t* out, Py_ssize_t cap) noexcept nogil
cdef void fill_flat(const int16_t* defs, Py_ssize_t n, int16_t value_def,
                    uint8_t* out) noexcept nogil
cdef bint fill_offsets(const int16_t* defs, const int16_t* reps, Py_ssize_t n,
                       const LevelNode* node, int64_t* offsets) noexcept nogil
cdef void classify_fault(const LevelPlan* plan, Py_ssize_t k, int16_t r, int16_t d,
                         int16_t prev_d, FaultInfo* fault) noexcept nogil
