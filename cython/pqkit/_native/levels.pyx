# cython: language_level=3
"""Dremel level plan and assembly (levels -> validity/offsets).

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
rather than entry-major), after one pass that validates the entries. The
commonest nested shape, one list level ([X, REPEATED, Y] with X and Y not
REPEATED: ``list<primitive>``), has all three nodes filled in one pass instead.

Example, path [OPTIONAL, REPEATED, OPTIONAL] (a nullable list of nullable
ints, def levels 1, 2, 3) with records [[1, None], None, []]:

    entries (r, d):  (0, 3) (1, 2) (0, 0) (0, 1)
    node 0 validity: [1, 0, 1]
    node 1 offsets:  [0, 2, 2, 2]
    node 2 validity: [1, 0]          (leaf; one value is stored)

The plan (plan_init/plan_free) and the small helpers declared in levels.pxd
are shared with shredding, the inverse (shred.pyx). Scattering the stored
values into the leaf slots is value expansion (expand.pyx).
"""
cimport cython
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from libc.string cimport memset

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


cdef str where_suffix(str where):
    return f" in {where}" if where else ""


cdef int raise_fault(LevelPlan* plan, FaultInfo* fault, str where) except -1:
    cdef int16_t r = fault.rep, d = fault.def_
    at = f"at level index {fault.position}{where_suffix(where)}"
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
        msg = f"levels changed while being assembled{where_suffix(where)}"
    raise EncodingError(msg)


cdef void* ptr_u8(uint8_t[::1] mv) except? NULL:
    return <void*>&mv[0] if mv.shape[0] > 0 else NULL


cdef void* ptr_i16(int16_t[::1] mv) except? NULL:
    return <void*>&mv[0] if mv.shape[0] > 0 else NULL


cdef void* ptr_i64(int64_t[::1] mv) except? NULL:
    return <void*>&mv[0] if mv.shape[0] > 0 else NULL


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t fill_one_list(const int16_t* defs, const int16_t* reps, Py_ssize_t n,
                              Py_ssize_t records, int16_t outer_def, int16_t list_def,
                              int16_t elem_def, uint8_t* outer_valid, int64_t* offsets,
                              uint8_t* elem_valid) noexcept nogil:
    """Outer validity, list offsets and element validity of a one-list-level path in
    one pass; returns the element count, or -1 if the records opened disagree with
    ``records`` (the input changed since it was validated)."""
    # Safety: offsets holds records + 1 entries, outer_valid (if not NULL) records + 1
    # bytes and elem_valid (if not NULL) n + 1 bytes. `lists` is clamped to records
    # and `elems` never passes k <= n, so every write is in bounds. Each entry writes
    # the tentative start (and validity) of the list it would open; the entry that
    # does open it (r == 0) writes last before `lists` moves on, and an element's
    # validity byte is kept once `elems` passes it.
    cdef Py_ssize_t k, lists = 0, elems = 0
    cdef int16_t d
    for k in range(n):
        d = defs[k]
        offsets[lists] = elems
        if outer_valid != NULL:
            outer_valid[lists] = d >= outer_def
        lists += reps[k] == 0
        lists = lists if lists < records else records
        if elem_valid != NULL:
            elem_valid[elems] = d >= elem_def
        elems += d >= list_def
    offsets[records] = elems
    if lists != records:
        return -1
    return elems


cdef bint _one_list(const LevelPlan* plan):
    return (plan.depth == 3 and plan.nodes[1].kind == REP_REPEATED
            and plan.nodes[0].kind != REP_REPEATED and plan.nodes[2].kind != REP_REPEATED)


cdef list _one_list_nodes(LevelPlan* plan, const int16_t* dp, const int16_t* rp, Py_ssize_t n,
                          Py_ssize_t records, FaultInfo* fault):
    """The nodes of a validated one-list-level path (see fill_one_list)."""
    cdef LevelNode* outer = &plan.nodes[0]
    cdef LevelNode* lst = &plan.nodes[1]
    cdef LevelNode* elem = &plan.nodes[2]
    cdef uint8_t* optr = NULL
    cdef uint8_t* eptr = NULL
    cdef Py_ssize_t elems
    outer_validity = elem_validity = None
    if outer.kind == REP_OPTIONAL:
        outer_buf = np.empty(records + 1, dtype=np.bool_)
        optr = <uint8_t*>ptr_u8(outer_buf.view(np.uint8))
        outer_validity = outer_buf[:records]
    if elem.kind == REP_OPTIONAL:
        elem_buf = np.empty(n + 1, dtype=np.bool_)
        eptr = <uint8_t*>ptr_u8(elem_buf.view(np.uint8))
    offsets = np.empty(records + 1, dtype=np.int64)
    cdef int64_t* offs = <int64_t*>ptr_i64(offsets)
    with nogil:
        elems = fill_one_list(dp, rp, n, records, outer.def_level, lst.def_level,
                              elem.def_level, optr, offs, eptr)
    if elems < 0:
        fault.code = FAULT_CHANGED
        return []
    if eptr != NULL:
        elem_validity = elem_buf[:elems]
    outer.parents, outer.slots = records, records
    lst.parents, lst.slots = records, elems
    elem.parents, elem.slots = elems, elems
    return [(records, outer_validity, None), (elems, None, offsets),
            (elems, elem_validity, None)]


cdef object _bool_slots(Py_ssize_t n, uint8_t** ptr):
    """A bool array of n slots with one scratch byte behind it (see fill_slots)."""
    buf = np.empty(n + 1, dtype=np.bool_)
    ptr[0] = <uint8_t*>ptr_u8(buf.view(np.uint8))
    return buf[:n]


def assemble_levels(const int16_t[::1] defs, const int16_t[::1] reps, Py_ssize_t num_entries,
                    repetitions, str where="", bint fused=True):
    """Assemble one column's level entries; see pqkit.levels.assemble.

    ``defs``/``reps`` are None when every level is 0 (then ``num_entries``
    gives the entry count; otherwise it must equal their length).

    Returns ``(num_records, num_values, nodes, value_mask)`` where nodes is a
    list of ``(slots, validity, offsets)`` per path node and value_mask is a
    bool array over the leaf slots, or None when every slot holds a value.
    ``fused=False`` assembles a one-list-level path node by node too (for tests).
    """
    cdef LevelPlan plan
    cdef FaultInfo fault
    cdef Py_ssize_t n = num_entries
    cdef Py_ssize_t records, values = 0
    cdef const int16_t* dp = NULL
    cdef const int16_t* rp = NULL
    for name, levels in (("definition", defs), ("repetition", reps)):
        if levels is not None and len(levels) != n:
            raise EncodingError(f"{len(levels)} {name} levels for {n} entries"
                                f"{where_suffix(where)}")
    if n < 0:
        raise EncodingError(f"negative entry count {n}{where_suffix(where)}")
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
        elif fused and _one_list(&plan):
            nodes = _one_list_nodes(&plan, dp, rp, n, records, &fault)
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
            ptr = <uint8_t*>ptr_u8(validity.view(np.uint8))
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
            optr = <int64_t*>ptr_i64(offsets)
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
        ptr = <uint8_t*>ptr_u8(mask.view(np.uint8))
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
