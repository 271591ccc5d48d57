# cython: language_level=3
"""Dremel shredding (validity/offsets -> levels), the inverse of assembly.

The input is one set of arrays per path node, shaped as assembly (levels.pyx)
returns them: a validity byte per slot for OPTIONAL nodes (None: all valid)
and offsets over the parent's slots for REPEATED nodes. Levels are numbered
as described in levels.pyx. Records are walked depth-first: a null slot or an
empty list emits one entry (r, d), d being the definition level reached above
it, and each list of the deepest REPEATED node emits a whole run of entries,
one per element: the first at the current r, the others at max_rep. The walk
runs twice, counting the entries, then filling arrays of that size. A path
without REPEATED nodes needs no walk: d counts, slot by slot, the OPTIONAL
nodes valid from the top down.

Example, path [OPTIONAL, REPEATED, OPTIONAL] (records [[1, None], None, []]):

    node 0 validity: [1, 0, 1]
    node 1 offsets:  [0, 2, 2, 2]
    node 2 validity: [1, 0]
    entries (r, d):  (0, 3) (1, 2) (0, 0) (0, 1)
    value mask:      [1, 0]          (one value is stored)

The level plan (plan_init/plan_free) is the one assembly uses (levels.pxd).
"""
cimport cython
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.string cimport memcpy, memset

from pqkit._native.levels cimport (REP_OPTIONAL, REP_REPEATED, LevelNode, count_set,
                                   plan_free, plan_init, ptr_i16, ptr_u8, where_suffix)

import numpy as np

from pqkit.errors import SchemaError


cdef inline void emit(ShredState* st, int16_t r, int16_t d) noexcept nogil:
    # Counting: capacity is 0. Filling: defs and reps hold capacity entries.
    if st.count < st.capacity:
        st.defs[st.count] = d
        st.reps[st.count] = r
    st.count += 1


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void shred_run(const LevelPlan* plan, ShredState* st, Py_ssize_t i, Py_ssize_t b,
                    Py_ssize_t e, int16_t r) noexcept nogil:
    """Emit one entry per element b..e-1 of the deepest REPEATED node i."""
    # Safety: b < e <= slots of node i (validated offsets); below_def,
    # below_alive and value_mask hold those slots (the nodes below i are not
    # REPEATED, so the leaf has the same slots). Writes stop at capacity.
    cdef Py_ssize_t t, n = e - b
    cdef int16_t d0 = plan.nodes[i].def_level, max_rep = plan.max_rep
    cdef int16_t* dd
    cdef int16_t* rr
    if st.counting or st.count + n > st.capacity:
        st.count += n
        st.covered += n
        return
    dd = st.defs + st.count
    rr = st.reps + st.count
    if st.below_def != NULL:
        for t in range(n):
            dd[t] = d0 + st.below_def[b + t]
    else:
        d0 += st.below_const
        for t in range(n):
            dd[t] = d0
    rr[0] = r
    for t in range(1, n):
        rr[t] = max_rep
    if st.value_mask != NULL:
        if st.below_alive != NULL:
            memcpy(st.value_mask + b, st.below_alive + b, n)
        else:
            memset(st.value_mask + b, 1, n)
    st.count += n


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int shred_descend(const LevelPlan* plan, ShredState* st, Py_ssize_t i, Py_ssize_t p,
                       int16_t r, int16_t d, int active) noexcept nogil:
    """Emit the entries below slot p of node i (-1: record p) down to the first list.

    Returns the repetition level of the deepest list still being emitted.
    """
    # Safety: shred_layout validated every node: validity holds `slots`
    # bytes, offsets hold `parents + 1` non-decreasing entries within
    # 0..slots, and a non-repeated node has as many slots as its parent, so
    # p always indexes a slot of the node being visited. The path has a
    # REPEATED node, so the loop ends there at the latest.
    cdef const LevelNode* node
    cdef int64_t b, e
    while True:
        i += 1
        node = &plan.nodes[i]
        if node.kind == REP_REPEATED:
            b = node.offsets[p]
            e = node.offsets[p + 1]
            if b == e:
                emit(st, r, d)
                return active
            if node.rep_level == plan.max_rep:
                shred_run(plan, st, i, b, e, r)
                return active
            active = node.rep_level
            st.cur[active] = b
            st.end[active] = e
            p = b
            d += 1
        elif node.kind == REP_OPTIONAL:
            if node.validity != NULL and node.validity[p] == 0:
                emit(st, r, d)
                return active
            d += 1


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void shred_records(const LevelPlan* plan, ShredState* st,
                        Py_ssize_t num_records) noexcept nogil:
    """Emit (or count) the entries of records 0..num_records-1 of a path with lists."""
    # Safety: see shred_descend; `active` is a repetition level in
    # 1..max_rep - 1 whose cur/end were set by the descent that entered it.
    cdef Py_ssize_t k, j
    cdef int active
    for k in range(num_records):
        active = shred_descend(plan, st, -1, k, 0, 0, 0)
        while active > 0:
            st.cur[active] += 1
            if st.cur[active] < st.end[active]:
                j = plan.rep_node[active]
                active = shred_descend(plan, st, j, st.cur[active], <int16_t>active,
                                       plan.nodes[j].def_level, active)
            else:
                active -= 1


cdef struct TopLevels:
    # Per record, what the non-repeated nodes above a path's only list give: the
    # def level reached (NULL: every record reaches def_const) and whether the
    # list slot is there (NULL: every record's is).
    const int16_t* defs
    const uint8_t* alive
    int16_t def_const


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void one_list_records(const LevelPlan* plan, ShredState* st, const TopLevels* top,
                           Py_ssize_t num_records) noexcept nogil:
    """shred_records for a path with one REPEATED node (max_rep 1): each record is one
    entry (null above the list, or an empty list) or a run of its elements; counting
    is then a sum over the offsets, with no descent per record."""
    # Safety: the nodes above the list are not REPEATED, so they have num_records
    # slots, as top.defs / top.alive do; the list's offsets hold num_records + 1
    # validated entries (check_layout). shred_run and emit stop at capacity.
    cdef Py_ssize_t k, total = 0
    cdef Py_ssize_t i = plan.rep_node[1]
    cdef const int64_t* off = plan.nodes[i].offsets
    cdef int64_t b, e, length
    cdef int16_t d = top.def_const
    cdef Py_ssize_t covered = 0
    if st.counting:
        for k in range(num_records):
            length = off[k + 1] - off[k]
            if top.alive != NULL and not top.alive[k]:
                length = 0
            covered += length
            total += length if length > 0 else 1
        st.count += total
        st.covered += covered
        return
    if st.below_def == NULL and st.value_mask == NULL:
        _one_list_fill(plan, st, top, num_records)
        return
    for k in range(num_records):
        if top.defs != NULL:
            d = top.defs[k]
        b = off[k]
        e = off[k + 1]
        if b == e or (top.alive != NULL and not top.alive[k]):
            emit(st, 0, d)
        else:
            shred_run(plan, st, i, b, e, 0)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _one_list_fill(const LevelPlan* plan, ShredState* st, const TopLevels* top,
                         Py_ssize_t num_records) noexcept nogil:
    """The filling pass of one_list_records when every element holds a value at one def
    level (no nulls below the list, no mask to keep): the levels are first set to an
    element's (def full, rep 1), then each record writes only its first entry's rep
    and, when it has no elements, that entry's def."""
    # Safety: as one_list_records; every write is at pos < capacity (checked per
    # record), and defs/reps hold capacity entries.
    cdef Py_ssize_t k, t, pos = st.count, cap = st.capacity
    cdef const int64_t* off = plan.nodes[plan.rep_node[1]].offsets
    cdef int16_t full = plan.nodes[plan.rep_node[1]].def_level + st.below_const
    cdef int16_t d = top.def_const
    cdef int64_t length
    for t in range(pos, cap):
        st.defs[t] = full
        st.reps[t] = 1
    for k in range(num_records):
        length = off[k + 1] - off[k]
        if top.alive != NULL and not top.alive[k]:
            length = 0
        if pos >= cap:
            pos += length if length > 0 else 1
            continue
        st.reps[pos] = 0
        if length > 0:
            pos += length
        else:
            if top.defs != NULL:
                d = top.defs[k]
            st.defs[pos] = d
            pos += 1
    st.count = pos


cdef class _OneList:
    """The TopLevels of a one-list path, and the arrays they point into."""
    cdef TopLevels top
    cdef object defs, alive

    def __cinit__(self):
        self.defs = self.alive = None

    cdef void fill(self, LevelPlan* plan, Py_ssize_t num_records):
        cdef Py_ssize_t i, first = plan.rep_node[1]
        cdef bint nullable = False
        self.top.defs = NULL
        self.top.alive = NULL
        self.top.def_const = 0
        for i in range(first):
            if plan.nodes[i].kind == REP_OPTIONAL:
                self.top.def_const += 1
                nullable |= plan.nodes[i].validity != NULL
        if not nullable or num_records == 0:
            return
        self.defs = np.empty(num_records, dtype=np.int16)
        self.alive = np.empty(num_records, dtype=np.uint8)
        self.top.defs = <int16_t*>ptr_i16(self.defs)
        self.top.alive = <uint8_t*>ptr_u8(self.alive)
        with nogil:
            below_levels(plan, 0, first, <int16_t*>self.top.defs, <uint8_t*>self.top.alive,
                         num_records)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t below_levels(const LevelPlan* plan, Py_ssize_t first, Py_ssize_t stop,
                             int16_t* defs, uint8_t* alive, Py_ssize_t n) noexcept nogil:
    """Def levels added by the non-repeated nodes first..stop-1 for each of their n slots.

    alive[k] ends 1 where slot k is valid all the way down (it holds a value);
    returns how many do. defs may be NULL (no OPTIONAL node on the path).
    """
    # Safety: defs (if not NULL) and alive hold n entries; nodes first..stop-1
    # are not REPEATED, so each validity is NULL or holds n bytes (checked by
    # check_layout).
    cdef Py_ssize_t i, k, values = 0
    cdef const uint8_t* v
    memset(alive, 1, n)
    if defs != NULL:
        memset(defs, 0, n * sizeof(int16_t))
    for i in range(first, stop):
        if plan.nodes[i].kind != REP_OPTIONAL:
            continue
        v = plan.nodes[i].validity
        if v != NULL:
            for k in range(n):
                alive[k] &= v[k] != 0
        for k in range(n):
            defs[k] += alive[k]
    for k in range(n):
        values += alive[k]
    return values


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t bad_offset(const int64_t* off, Py_ssize_t n, int64_t limit) noexcept nogil:
    """Index of the first offset that breaks 0 <= off[0] <= ... <= off[n-1] <= limit, else -1."""
    # Safety: off holds n entries (caller checked the length).
    cdef Py_ssize_t k
    if n and (off[0] < 0 or off[n - 1] > limit):
        return 0 if off[0] < 0 else n - 1
    for k in range(1, n):
        if off[k] < off[k - 1]:
            return k
    return -1


cdef int check_layout(LevelPlan* plan, list validities, list offsets, list lengths,
                      Py_ssize_t num_records, list keep, str where) except -1:
    """Check each node's arrays against the slot counts and point the plan at them."""
    cdef Py_ssize_t i, bad, parents = num_records, slots
    cdef LevelNode* node
    # const: offsets may be read-only (columns over an Arrow producer's memory).
    cdef const int64_t[::1] off
    cdef uint8_t[::1] val
    for i in range(plan.depth):
        node = &plan.nodes[i]
        slots = lengths[i]
        if slots < 0:
            raise SchemaError(f"path node {i} has negative length {slots}{where_suffix(where)}")
        if node.kind != REP_REPEATED and slots != parents:
            raise SchemaError(f"path node {i} has {slots} slots but its parent has "
                              f"{parents}{where_suffix(where)}")
        node.slots = slots
        node.parents = parents
        if node.kind == REP_OPTIONAL and validities[i] is not None:
            val = validities[i]
            if val.shape[0] != slots:
                raise SchemaError(f"validity of path node {i} has {val.shape[0]} entries "
                                  f"for {slots} slots{where_suffix(where)}")
            keep.append(val)
            node.validity = <uint8_t*>ptr_u8(val)
        if node.kind == REP_REPEATED:
            if offsets[i] is None:
                raise SchemaError(f"repeated path node {i} has no offsets{where_suffix(where)}")
            off = offsets[i]
            if off.shape[0] != parents + 1:
                raise SchemaError(f"offsets of path node {i} have {off.shape[0]} entries "
                                  f"for {parents} parent slots{where_suffix(where)}")
            bad = bad_offset(&off[0], off.shape[0], slots)
            if bad >= 0:
                raise SchemaError(f"offset {off[bad]} at index {bad} of path node {i} is "
                                  f"out of order or outside 0..{slots}{where_suffix(where)}")
            keep.append(off)
            node.offsets = <int64_t*>&off[0]      # shredding only reads them
        parents = slots
    return 0


def shred_layout(repetitions, list lengths, list validities, list offsets,
                 Py_ssize_t num_records, str where=""):
    """Shred per-node arrays into levels; see pqkit.levels.shred.

    ``validities[i]`` is a uint8 view (or None: all valid) for OPTIONAL nodes,
    ``offsets[i]`` an int64 array for REPEATED nodes, ``lengths[i]`` the slot
    count of node i. Returns ``(defs, reps, value_mask, num_values)``; defs
    (reps) is None when max_def (max_rep) is 0 and value_mask is None when
    every leaf slot is written as a value.
    """
    cdef LevelPlan plan
    cdef list keep = []
    plan_init(&plan, repetitions)
    try:
        if not (len(lengths) == len(validities) == len(offsets) == plan.depth):
            raise SchemaError(f"{plan.depth} path nodes but {len(lengths)} lengths, "
                              f"{len(validities)} validities, {len(offsets)} offsets")
        if num_records < 0:
            raise SchemaError(f"negative record count {num_records}{where_suffix(where)}")
        check_layout(&plan, validities, offsets, lengths, num_records, keep, where)
        if plan.max_rep == 0:
            return _shred_flat(&plan, num_records)
        return _shred_nested(&plan, num_records, where)
    finally:
        plan_free(&plan)


cdef tuple _shred_flat(LevelPlan* plan, Py_ssize_t n):
    cdef Py_ssize_t values
    cdef int16_t* dptr = NULL
    cdef uint8_t* aptr
    defs = np.empty(n, dtype=np.int16) if plan.max_def else None
    alive = np.empty(n, dtype=np.bool_)
    if n == 0:
        return defs, None, None, 0
    if defs is not None:
        dptr = <int16_t*>ptr_i16(defs)
    aptr = <uint8_t*>ptr_u8(alive.view(np.uint8))
    with nogil:
        values = below_levels(plan, 0, plan.depth, dptr, aptr, n)
    return defs, None, (None if values == n else alive), values


cdef tuple _shred_nested(LevelPlan* plan, Py_ssize_t num_records, str where):
    cdef ShredState st
    cdef _OneList one
    cdef Py_ssize_t i, entries, values, deepest = plan.rep_node[plan.max_rep]
    cdef Py_ssize_t leaf_slots = plan.nodes[plan.depth - 1].slots
    cdef int16_t* bdef
    cdef uint8_t* balive
    cdef bint optional_below = False
    memset(&st, 0, sizeof(ShredState))
    for i in range(deepest + 1, plan.depth):
        if plan.nodes[i].kind == REP_OPTIONAL:
            st.below_const += 1
            optional_below |= plan.nodes[i].validity != NULL
    below_def = below_alive = None
    if optional_below:          # else every slot below holds a value at +below_const
        below_def = np.empty(leaf_slots, dtype=np.int16)
        below_alive = np.empty(leaf_slots, dtype=np.uint8)
        if leaf_slots:
            bdef = <int16_t*>ptr_i16(below_def)
            balive = <uint8_t*>ptr_u8(below_alive)
            with nogil:
                below_levels(plan, deepest + 1, plan.depth, bdef, balive, leaf_slots)
            st.below_def = bdef
            st.below_alive = balive
    st.cur = <Py_ssize_t*>PyMem_Malloc((plan.max_rep + 1) * sizeof(Py_ssize_t))
    st.end = <Py_ssize_t*>PyMem_Malloc((plan.max_rep + 1) * sizeof(Py_ssize_t))
    try:
        if st.cur == NULL or st.end == NULL:
            raise MemoryError()
        st.counting = True
        if plan.max_rep == 1:
            one = _OneList()
            one.fill(plan, num_records)
            with nogil:
                one_list_records(plan, &st, &one.top, num_records)
        else:
            with nogil:
                shred_records(plan, &st, num_records)
        entries = st.count
        defs = np.empty(entries, dtype=np.int16)
        reps = np.empty(entries, dtype=np.int16)
        value_mask = None
        if st.below_alive != NULL or st.covered != leaf_slots:
            # Some leaf slots hold no value (nulls below the list, or slots no list
            # uses): only then is the mask of those that do needed.
            value_mask = np.zeros(leaf_slots, dtype=np.bool_)
            st.value_mask = <uint8_t*>ptr_u8(value_mask.view(np.uint8))
        st.defs = <int16_t*>ptr_i16(defs)
        st.reps = <int16_t*>ptr_i16(reps)
        st.capacity = entries
        st.count = 0
        st.counting = False
        with nogil:
            if plan.max_rep == 1:
                one_list_records(plan, &st, &one.top, num_records)
            else:
                shred_records(plan, &st, num_records)
            values = leaf_slots if st.value_mask == NULL else \
                count_set(st.value_mask, leaf_slots)
        if st.count != entries:
            raise SchemaError(f"layout changed while being shredded{where_suffix(where)}")
        return defs, reps, (None if values == leaf_slots else value_mask), values
    finally:
        PyMem_Free(st.cur)
        PyMem_Free(st.end)
