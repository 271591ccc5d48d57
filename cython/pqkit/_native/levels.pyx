# cython: language_level=3
"""Dremel level kernels: assembly (levels -> nesting) and shredding (the inverse).

A leaf column's path is a list of nodes from the top-level field (index 0) to
the leaf, each REQUIRED, OPTIONAL or REPEATED. Node i has a definition level
def_i (non-REQUIRED nodes at or above it), a repetition level rep_i (REPEATED
nodes at or above it) and a slot level slot_i (def level of the deepest
REPEATED node at or above it, 0 if none). A level entry (r, d) then:

* has a slot at node i  iff  r <= rep_i and d >= slot_i;
* is valid there        iff  d >= def_i (OPTIONAL nodes);
* opens a new list at REPEATED node i  iff  r < rep_i and d >= slot of the parent;
* carries a stored value  iff  d == max_def.

So each node is assembled by one branch-free pass over the levels (node-major
rather than entry-major), after one pass that validates the entries.

Example, path [OPTIONAL, REPEATED, OPTIONAL] (a nullable list of nullable
ints, def levels 1, 2, 3) with records [[1, None], None, []]:

    entries (r, d):  (0, 3) (1, 2) (0, 0) (0, 1)
    node 0 validity: [1, 0, 1]
    node 1 offsets:  [0, 2, 2, 2]
    node 2 validity: [1, 0]          (leaf; one value is stored)

Shredding walks records depth-first and emits a whole run of entries for each
list of the deepest REPEATED node; it runs twice, counting then filling.
"""
cimport cython
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.string cimport memcpy, memset

import numpy as np

from pqkit.errors import EncodingError, SchemaError

_INT16_MAX = 32767


cdef int plan_init(LevelPlan* plan, object repetitions) except -1:
    """Fill *plan* for the path *repetitions* (0/1/2 per node, top to leaf)."""
    cdef Py_ssize_t i, depth
    cdef int kind, rep, dfn
    cdef int16_t slot_def = 0
    cdef LevelNode* node
    plan.nodes = NULL
    plan.list_def = NULL
    plan.rep_node = NULL
    kinds = [int(k) for k in repetitions]
    depth = len(kinds)
    if depth == 0:
        raise SchemaError("a column path needs at least one node")
    for i in range(depth):
        if kinds[i] not in (REP_REQUIRED, REP_OPTIONAL, REP_REPEATED):
            raise SchemaError(f"repetition {kinds[i]} of path node {i} is not 0, 1 or 2")
    dfn = sum(1 for k in kinds if k != REP_REQUIRED)
    rep = sum(1 for k in kinds if k == REP_REPEATED)
    if dfn > _INT16_MAX:
        raise SchemaError(f"path with {dfn} optional or repeated nodes: levels exceed int16")
    plan.depth = depth
    plan.max_def = <int16_t>dfn
    plan.max_rep = <int16_t>rep
    plan.nodes = <LevelNode*>PyMem_Malloc(depth * sizeof(LevelNode))
    plan.list_def = <int16_t*>PyMem_Malloc((rep + 1) * sizeof(int16_t))
    plan.rep_node = <Py_ssize_t*>PyMem_Malloc((rep + 1) * sizeof(Py_ssize_t))
    if plan.nodes == NULL or plan.list_def == NULL or plan.rep_node == NULL:
        plan_free(plan)
        raise MemoryError()
    memset(plan.nodes, 0, depth * sizeof(LevelNode))
    plan.list_def[0] = -1       # lets validate_nested treat r == 0 like any other r
    plan.rep_node[0] = -1
    rep = 0
    dfn = 0
    for i in range(depth):
        kind = kinds[i]
        node = &plan.nodes[i]
        node.parent_def = slot_def
        if kind != REP_REQUIRED:
            dfn += 1
        if kind == REP_REPEATED:
            rep += 1
            plan.list_def[rep] = <int16_t>dfn
            plan.rep_node[rep] = i
            slot_def = <int16_t>dfn
        node.kind = kind
        node.rep_level = <int16_t>rep
        node.def_level = <int16_t>dfn
        node.slot_def = slot_def
    return 0


cdef void plan_free(LevelPlan* plan) noexcept:
    PyMem_Free(plan.nodes)
    PyMem_Free(plan.list_def)
    PyMem_Free(plan.rep_node)
    plan.nodes = NULL
    plan.list_def = NULL
    plan.rep_node = NULL


cdef void classify_fault(const LevelPlan* plan, Py_ssize_t k, int16_t r, int16_t d,
                         int16_t prev_d, FaultInfo* fault) noexcept nogil:
    """Record why entry k (rep r, def d, previous def prev_d) is invalid."""
    fault.position = k
    fault.rep = r
    fault.def_ = d
    fault.prev_def = prev_d
    if d < 0 or d > plan.max_def:
        fault.code = FAULT_DEF_RANGE
    elif r < 0 or r > plan.max_rep:
        fault.code = FAULT_REP_RANGE
    elif k == 0:
        fault.code = FAULT_FIRST_REP
    elif d < plan.list_def[r]:
        fault.code = FAULT_REP_UNDEFINED
    else:
        fault.code = FAULT_REP_AFTER_EMPTY


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t validate_nested(const LevelPlan* plan, const int16_t* defs, const int16_t* reps,
                                Py_ssize_t n, FaultInfo* fault,
                                Py_ssize_t* num_values) noexcept nogil:
    """Check every entry; return the record count (-1 and *fault set if invalid)."""
    # Safety: defs and reps hold n entries; an out-of-range r is replaced by
    # 0 before it indexes list_def. An entry continuing list r needs
    # min(d, previous d) >= list_def[r]; list_def[0] = -1 and prev_d starts
    # at -1, so the first entry passes only with r == 0. The loop only
    # accumulates a flag (no early exit); a second loop finds the culprit.
    cdef Py_ssize_t k, records = 0, values = 0
    cdef int16_t d, r, low, prev_d = -1, max_d = plan.max_def
    cdef uint16_t max_def = <uint16_t>max_d, max_rep = <uint16_t>plan.max_rep
    cdef int out_of_range, bad = 0
    for k in range(n):
        d = defs[k]
        r = reps[k]
        out_of_range = (<uint16_t>d > max_def) | (<uint16_t>r > max_rep)
        low = d if d < prev_d else prev_d
        bad |= out_of_range | (low < plan.list_def[0 if out_of_range else r])
        records += r == 0
        values += d == max_d
        prev_d = d
    if bad:
        prev_d = -1
        for k in range(n):
            d = defs[k]
            r = reps[k]
            if (<uint16_t>d > max_def or <uint16_t>r > max_rep
                    or (d if d < prev_d else prev_d) < plan.list_def[r]):
                classify_fault(plan, k, r, d, prev_d, fault)
                return -1
            prev_d = d
    num_values[0] = values
    return records


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t validate_flat(const LevelPlan* plan, const int16_t* defs, const int16_t* reps,
                              Py_ssize_t n, FaultInfo* fault) noexcept nogil:
    """Check a path without REPEATED nodes; return the value count (-1 if invalid)."""
    # Safety: defs and reps are NULL or hold n entries.
    cdef Py_ssize_t k, values = 0
    cdef uint16_t max_def = <uint16_t>plan.max_def
    cdef int16_t max_d = plan.max_def
    cdef int bad = 0
    if reps != NULL:
        for k in range(n):
            bad |= reps[k] != 0
        if bad:
            for k in range(n):
                if reps[k] != 0:
                    classify_fault(plan, k, reps[k], defs[k] if defs != NULL else 0, 0, fault)
                    return -1
    if defs == NULL:
        return n if max_d == 0 else 0
    for k in range(n):
        bad |= <uint16_t>defs[k] > max_def
        values += defs[k] == max_d
    if bad:
        for k in range(n):
            if <uint16_t>defs[k] > max_def:
                classify_fault(plan, k, 0, defs[k], 0, fault)
                return -1
    return values


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t count_elements(const int16_t* defs, const int16_t* reps, Py_ssize_t n,
                               int16_t rep_level, int16_t def_level) noexcept nogil:
    """Entries with a slot at a REPEATED node (its element count)."""
    # Safety: defs and reps hold n entries.
    cdef Py_ssize_t k, total = 0
    for k in range(n):
        total += (reps[k] <= rep_level) & (defs[k] >= def_level)
    return total


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t fill_slots(const int16_t* defs, const int16_t* reps, Py_ssize_t n,
                           int16_t rep_level, int16_t slot_def, int16_t value_def,
                           uint8_t* out, Py_ssize_t cap) noexcept nogil:
    """out[slot] = d >= value_def for each entry with a slot; return the slots filled."""
    # Safety: out holds cap + 1 bytes and j <= cap before every write: a block
    # of cap - j entries adds at most cap - j slots, and the last entries run
    # with j clamped. An entry without a slot writes a byte that the next slot
    # overwrites, or out[cap], which is scratch.
    cdef Py_ssize_t k = 0, stop, j = 0
    while k < n and cap - j >= 64:
        stop = k + (cap - j)
        if stop > n:
            stop = n
        while k < stop:
            out[j] = defs[k] >= value_def
            j += (reps[k] <= rep_level) & (defs[k] >= slot_def)
            k += 1
    while k < n:
        out[j] = defs[k] >= value_def
        j += (reps[k] <= rep_level) & (defs[k] >= slot_def)
        j = j if j < cap else cap
        k += 1
    return j


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void fill_flat(const int16_t* defs, Py_ssize_t n, int16_t value_def,
                    uint8_t* out) noexcept nogil:
    # Safety: defs and out hold n entries.
    cdef Py_ssize_t k
    for k in range(n):
        out[k] = defs[k] >= value_def


@cython.boundscheck(False)
@cython.wraparound(False)
cdef bint fill_offsets(const int16_t* defs, const int16_t* reps, Py_ssize_t n,
                       const LevelNode* node, int64_t* offsets) noexcept nogil:
    """Offsets of a REPEATED node over its parent's slots; False if the counts disagree."""
    # Safety: offsets holds parents + 1 entries and lists <= parents before
    # every write (blocks of parents - lists entries, then a clamped tail, as
    # in fill_slots). An entry that opens no list writes the start of the
    # next one, which is overwritten when that list opens.
    cdef Py_ssize_t k = 0, stop, lists = 0, slots = 0, parents = node.parents
    cdef int16_t rep_level = node.rep_level, def_level = node.def_level
    cdef int16_t parent_def = node.parent_def
    cdef int16_t d, r
    while k < n and parents - lists >= 64:
        stop = k + (parents - lists)
        if stop > n:
            stop = n
        while k < stop:
            d = defs[k]
            r = reps[k]
            offsets[lists] = slots
            lists += (r < rep_level) & (d >= parent_def)
            slots += (r <= rep_level) & (d >= def_level)
            k += 1
    while k < n:
        d = defs[k]
        r = reps[k]
        offsets[lists] = slots
        lists += (r < rep_level) & (d >= parent_def)
        lists = lists if lists < parents else parents
        slots += (r <= rep_level) & (d >= def_level)
        k += 1
    offsets[parents] = slots
    return lists == parents and slots == node.slots


cdef str _suffix(str where):
    return f" in {where}" if where else ""


cdef int raise_fault(LevelPlan* plan, FaultInfo* fault, str where) except -1:
    cdef int16_t r = fault.rep, d = fault.def_
    at = f"at level index {fault.position}{_suffix(where)}"
    if fault.code == FAULT_DEF_RANGE:
        msg = f"definition level {d} {at} is outside 0..{plan.max_def}"
    elif fault.code == FAULT_REP_RANGE:
        msg = f"repetition level {r} {at} is outside 0..{plan.max_rep}"
    elif fault.code == FAULT_FIRST_REP:
        msg = (f"repetition level {r} {at}: the repetition level at the start of a "
               f"record must be 0")
    elif fault.code == FAULT_REP_UNDEFINED:
        msg = (f"repetition level {r} with definition level {d} {at}: an element of "
               f"repeated level {r} needs a definition level of at least "
               f"{plan.list_def[r]}")
    elif fault.code == FAULT_REP_AFTER_EMPTY:
        msg = (f"repetition level {r} {at} continues repeated level {r}, but the previous "
               f"entry (definition level {fault.prev_def}) left that list empty or null")
    else:
        msg = f"levels changed while being assembled{_suffix(where)}"
    raise EncodingError(msg)


cdef void* _ptr_u8(uint8_t[::1] mv) except? NULL:
    return <void*>&mv[0] if mv.shape[0] > 0 else NULL


cdef void* _ptr_i16(int16_t[::1] mv) except? NULL:
    return <void*>&mv[0] if mv.shape[0] > 0 else NULL


cdef void* _ptr_i64(int64_t[::1] mv) except? NULL:
    return <void*>&mv[0] if mv.shape[0] > 0 else NULL


cdef object _bool_slots(Py_ssize_t n, uint8_t** ptr):
    """A bool array of n slots with one scratch byte behind it (see fill_slots)."""
    buf = np.empty(n + 1, dtype=np.bool_)
    ptr[0] = <uint8_t*>_ptr_u8(buf.view(np.uint8))
    return buf[:n]


def assemble_levels(const int16_t[::1] defs, const int16_t[::1] reps, Py_ssize_t num_entries,
                    repetitions, str where=""):
    """Assemble one column's level entries; see pqkit.levels.assemble.

    ``defs``/``reps`` are None when every level is 0 (then ``num_entries``
    gives the entry count; otherwise it must equal their length).

    Returns ``(num_records, num_values, nodes, value_mask)`` where nodes is a
    list of ``(slots, validity, offsets)`` per path node and value_mask is a
    bool array over the leaf slots, or None when every slot holds a value.
    """
    cdef LevelPlan plan
    cdef FaultInfo fault
    cdef Py_ssize_t n = num_entries
    cdef Py_ssize_t records, values = 0
    cdef const int16_t* dp = NULL
    cdef const int16_t* rp = NULL
    for name, levels in (("definition", defs), ("repetition", reps)):
        if levels is not None and len(levels) != n:
            raise EncodingError(f"{len(levels)} {name} levels for {n} entries{_suffix(where)}")
    if n < 0:
        raise EncodingError(f"negative entry count {n}{_suffix(where)}")
    fault.code = FAULT_NONE
    plan_init(&plan, repetitions)
    try:
        if plan.max_def and defs is None:
            defs = np.zeros(n, dtype=np.int16)
        if plan.max_rep and reps is None:
            reps = np.zeros(n, dtype=np.int16)
        if n and defs is not None:
            dp = &defs[0]
        if n and reps is not None:
            rp = &reps[0]
        if plan.max_rep == 0:
            with nogil:
                values = validate_flat(&plan, dp, rp, n, &fault)
            records = n
        else:
            with nogil:
                records = validate_nested(&plan, dp, rp, n, &fault, &values)
        if fault.code != FAULT_NONE:
            raise_fault(&plan, &fault, where)
        if plan.max_rep == 0:
            nodes = _flat_nodes(&plan, dp, n)
        else:
            nodes = _nested_nodes(&plan, dp, rp, n, records, &fault)
            if fault.code != FAULT_NONE:
                raise_fault(&plan, &fault, where)
        leaf = &plan.nodes[plan.depth - 1]
        value_mask = None
        if values != leaf.slots:
            value_mask = nodes[-1][1] if leaf.kind == REP_OPTIONAL else _leaf_mask(
                &plan, dp, rp, n, &fault)
            if fault.code != FAULT_NONE:
                raise_fault(&plan, &fault, where)
        return records, values, nodes, value_mask
    finally:
        plan_free(&plan)


cdef list _flat_nodes(LevelPlan* plan, const int16_t* dp, Py_ssize_t n):
    """Nodes of a path without REPEATED nodes: every entry has a slot everywhere."""
    cdef LevelNode* node
    cdef uint8_t* ptr
    out = []
    for i in range(plan.depth):
        node = &plan.nodes[i]
        node.slots = n
        validity = None
        if node.kind == REP_OPTIONAL:
            validity = np.empty(n, dtype=np.bool_)
            ptr = <uint8_t*>_ptr_u8(validity.view(np.uint8))
            with nogil:
                fill_flat(dp, n, node.def_level, ptr)
        out.append((n, validity, None))
    return out


cdef list _nested_nodes(LevelPlan* plan, const int16_t* dp, const int16_t* rp, Py_ssize_t n,
                        Py_ssize_t records, FaultInfo* fault):
    cdef LevelNode* node
    cdef uint8_t* ptr = NULL
    cdef int64_t* optr
    cdef Py_ssize_t parents = records, filled = 0
    cdef bint ok = True
    out = []
    for i in range(plan.depth):
        node = &plan.nodes[i]
        node.parents = parents
        validity = offsets = None
        if node.kind == REP_REPEATED:
            with nogil:
                node.slots = count_elements(dp, rp, n, node.rep_level, node.def_level)
            offsets = np.empty(parents + 1, dtype=np.int64)
            optr = <int64_t*>_ptr_i64(offsets)
            with nogil:
                ok = fill_offsets(dp, rp, n, node, optr)
        else:
            node.slots = parents
            if node.kind == REP_OPTIONAL:
                validity = _bool_slots(node.slots, &ptr)
                with nogil:
                    filled = fill_slots(dp, rp, n, node.rep_level, node.slot_def,
                                        node.def_level, ptr, node.slots)
                ok = filled == node.slots
        if not ok:
            fault.code = FAULT_CHANGED
            return out
        out.append((node.slots, validity, offsets))
        parents = node.slots
    return out


cdef object _leaf_mask(LevelPlan* plan, const int16_t* dp, const int16_t* rp, Py_ssize_t n,
                       FaultInfo* fault):
    """Value mask of a REQUIRED leaf that has slots without a value."""
    cdef LevelNode* leaf = &plan.nodes[plan.depth - 1]
    cdef uint8_t* ptr = NULL
    cdef Py_ssize_t filled
    if plan.max_rep == 0:
        mask = np.empty(n, dtype=np.bool_)
        ptr = <uint8_t*>_ptr_u8(mask.view(np.uint8))
        with nogil:
            fill_flat(dp, n, plan.max_def, ptr)
        return mask
    mask = _bool_slots(leaf.slots, &ptr)
    with nogil:
        filled = fill_slots(dp, rp, n, leaf.rep_level, leaf.slot_def, plan.max_def, ptr,
                            leaf.slots)
    if filled != leaf.slots:
        fault.code = FAULT_CHANGED
    return mask


# ---------------------------------------------------------------- shredding

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
        return
    dd = st.defs + st.count
    rr = st.reps + st.count
    if st.below_def != NULL:
        for t in range(n):
            dd[t] = d0 + st.below_def[b + t]
    else:
        for t in range(n):
            dd[t] = d0
    rr[0] = r
    for t in range(1, n):
        rr[t] = max_rep
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


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t below_levels(const LevelPlan* plan, Py_ssize_t first, int16_t* defs,
                             uint8_t* alive, Py_ssize_t n) noexcept nogil:
    """Def levels added by the non-repeated nodes first..leaf for each of their n slots.

    alive[k] ends 1 where slot k is valid all the way down (it holds a value);
    returns how many do. defs may be NULL (no OPTIONAL node on the path).
    """
    # Safety: defs (if not NULL) and alive hold n entries; nodes first..leaf
    # are not REPEATED, so each validity is NULL or holds n bytes (checked by
    # check_layout).
    cdef Py_ssize_t i, k, values = 0
    cdef const uint8_t* v
    memset(alive, 1, n)
    if defs != NULL:
        memset(defs, 0, n * sizeof(int16_t))
    for i in range(first, plan.depth):
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
    cdef int64_t[::1] off
    cdef uint8_t[::1] val
    for i in range(plan.depth):
        node = &plan.nodes[i]
        slots = lengths[i]
        if slots < 0:
            raise SchemaError(f"path node {i} has negative length {slots}{_suffix(where)}")
        if node.kind != REP_REPEATED and slots != parents:
            raise SchemaError(f"path node {i} has {slots} slots but its parent has "
                              f"{parents}{_suffix(where)}")
        node.slots = slots
        node.parents = parents
        if node.kind == REP_OPTIONAL and validities[i] is not None:
            val = validities[i]
            if val.shape[0] != slots:
                raise SchemaError(f"validity of path node {i} has {val.shape[0]} entries "
                                  f"for {slots} slots{_suffix(where)}")
            keep.append(val)
            node.validity = <uint8_t*>_ptr_u8(val)
        if node.kind == REP_REPEATED:
            if offsets[i] is None:
                raise SchemaError(f"repeated path node {i} has no offsets{_suffix(where)}")
            off = offsets[i]
            if off.shape[0] != parents + 1:
                raise SchemaError(f"offsets of path node {i} have {off.shape[0]} entries "
                                  f"for {parents} parent slots{_suffix(where)}")
            bad = bad_offset(&off[0], off.shape[0], slots)
            if bad >= 0:
                raise SchemaError(f"offset {off[bad]} at index {bad} of path node {i} is "
                                  f"out of order or outside 0..{slots}{_suffix(where)}")
            keep.append(off)
            node.offsets = &off[0]
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
            raise SchemaError(f"negative record count {num_records}{_suffix(where)}")
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
        dptr = <int16_t*>_ptr_i16(defs)
    aptr = <uint8_t*>_ptr_u8(alive.view(np.uint8))
    with nogil:
        values = below_levels(plan, 0, dptr, aptr, n)
    return defs, None, (None if values == n else alive), values


cdef tuple _shred_nested(LevelPlan* plan, Py_ssize_t num_records, str where):
    cdef ShredState st
    cdef Py_ssize_t i, entries, values, deepest = plan.rep_node[plan.max_rep]
    cdef Py_ssize_t leaf_slots = plan.nodes[plan.depth - 1].slots
    cdef int16_t* bdef
    cdef uint8_t* balive
    cdef bint optional_below = False
    memset(&st, 0, sizeof(ShredState))
    for i in range(deepest + 1, plan.depth):
        optional_below |= plan.nodes[i].kind == REP_OPTIONAL
    below_def = below_alive = None
    if optional_below:
        below_def = np.empty(leaf_slots, dtype=np.int16)
        below_alive = np.empty(leaf_slots, dtype=np.uint8)
        if leaf_slots:
            bdef = <int16_t*>_ptr_i16(below_def)
            balive = <uint8_t*>_ptr_u8(below_alive)
            with nogil:
                below_levels(plan, deepest + 1, bdef, balive, leaf_slots)
            st.below_def = bdef
            st.below_alive = balive
    st.cur = <Py_ssize_t*>PyMem_Malloc((plan.max_rep + 1) * sizeof(Py_ssize_t))
    st.end = <Py_ssize_t*>PyMem_Malloc((plan.max_rep + 1) * sizeof(Py_ssize_t))
    try:
        if st.cur == NULL or st.end == NULL:
            raise MemoryError()
        st.counting = True
        with nogil:
            shred_records(plan, &st, num_records)
        entries = st.count
        defs = np.empty(entries, dtype=np.int16)
        reps = np.empty(entries, dtype=np.int16)
        value_mask = np.zeros(leaf_slots, dtype=np.bool_)
        st.value_mask = <uint8_t*>_ptr_u8(value_mask.view(np.uint8))
        st.defs = <int16_t*>_ptr_i16(defs)
        st.reps = <int16_t*>_ptr_i16(reps)
        st.capacity = entries
        st.count = 0
        st.counting = False
        with nogil:
            shred_records(plan, &st, num_records)
            values = count_set(st.value_mask, leaf_slots)
        if st.count != entries:
            raise SchemaError(f"layout changed while being shredded{_suffix(where)}")
        return defs, reps, (None if values == leaf_slots else value_mask), values
    finally:
        PyMem_Free(st.cur)
        PyMem_Free(st.end)


# ------------------------------------------------------------ value expansion

@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t count_set(const uint8_t* mask, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t k, total = 0
    for k in range(n):
        total += mask[k] != 0
    return total


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void scatter_items(const uint8_t* src, uint8_t* dst, const uint8_t* mask, Py_ssize_t n,
                        Py_ssize_t present, item_t kind) noexcept nogil:
    """Branch-free scatter of present items of sizeof(item_t) bytes (kind picks the type)."""
    # Safety: dst holds n items and src `present` items (checked by
    # scatter_values). In the main loop every read is src item j < present: a
    # block of present - j slots moves j forward at most that far; the tail
    # reads only for set mask bytes.
    cdef Py_ssize_t k = 0, j = 0, stop, w = sizeof(item_t)
    cdef item_t v = 0
    cdef uint8_t m
    while k < n and present - j >= 64:
        stop = k + (present - j)
        if stop > n:
            stop = n
        while k < stop:
            m = mask[k] != 0
            memcpy(&v, src + j * w, sizeof(item_t))
            v &= <item_t>(-<int64_t>m)
            memcpy(dst + k * w, &v, sizeof(item_t))
            j += m
            k += 1
    while k < n:
        v = 0
        if mask[k]:
            memcpy(&v, src + j * w, sizeof(item_t))
            j += 1
        memcpy(dst + k * w, &v, sizeof(item_t))
        k += 1


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void scatter_bytes(const uint8_t* src, uint8_t* dst, const uint8_t* mask, Py_ssize_t n,
                        Py_ssize_t width) noexcept nogil:
    # Safety: dst holds n * width bytes and src count_set(mask) * width bytes
    # (checked by scatter_values).
    cdef Py_ssize_t k
    for k in range(n):
        if mask[k]:
            memcpy(dst, src, width)
            src += width
        else:
            memset(dst, 0, width)
        dst += width


def scatter_values(const uint8_t[::1] dense, uint8_t[::1] out, const uint8_t[::1] mask,
                   Py_ssize_t width):
    """Copy item k of ``dense`` to the k-th set slot of ``out``; zero the others.

    All buffers are raw bytes; ``width`` is the item size in bytes.
    """
    cdef Py_ssize_t n = mask.shape[0], present
    cdef const uint8_t* src = &dense[0] if dense.shape[0] else NULL
    cdef uint8_t* dst = &out[0] if out.shape[0] else NULL
    cdef const uint8_t* m = &mask[0] if n else NULL
    if width <= 0 or out.shape[0] != n * width:
        raise ValueError(f"output of {out.shape[0]} bytes for {n} slots of width {width}")
    with nogil:
        present = count_set(m, n)
    if dense.shape[0] != present * width:
        raise EncodingError(f"{dense.shape[0] // width} values decoded but the definition "
                            f"levels call for {present}")
    with nogil:
        if width == 1:
            scatter_items(src, dst, m, n, present, <uint8_t>0)
        elif width == 2:
            scatter_items(src, dst, m, n, present, <uint16_t>0)
        elif width == 4:
            scatter_items(src, dst, m, n, present, <uint32_t>0)
        elif width == 8:
            scatter_items(src, dst, m, n, present, <uint64_t>0)
        else:
            scatter_bytes(src, dst, m, n, width)


@cython.boundscheck(False)
@cython.wraparound(False)
def expand_offsets(const int64_t[::1] dense, const uint8_t[::1] mask):
    """Offsets over all slots from offsets over the present ones (nulls get length 0)."""
    cdef Py_ssize_t n = mask.shape[0], k, j = 0, present
    if dense.shape[0] == 0:
        raise EncodingError("binary offsets need at least one entry")
    with nogil:
        present = count_set(&mask[0] if n else NULL, n)
    if dense.shape[0] != present + 1:
        raise EncodingError(f"{dense.shape[0] - 1} values decoded but the definition "
                            f"levels call for {present}")
    out = np.empty(n + 1, dtype=np.int64)
    cdef int64_t[::1] o = out
    with nogil:
        # Safety: o has n + 1 entries; j counts set mask bytes, at most present.
        o[0] = dense[0]
        for k in range(n):
            j += mask[k] != 0
            o[k + 1] = dense[j]
    return out
