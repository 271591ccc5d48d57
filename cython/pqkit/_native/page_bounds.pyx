# cython: language_level=3
"""Where a column chunk's data pages end, from its levels in one pass.

A page starts at a record start (repetition level 0; every entry of an
unrepeated column) and ends before the first later record start at which
either the page already holds ``per_page`` values (entries at the max
definition level) or which would be its ``max_rows + 1``-th record. The pass
yields each page's first and end entry, first and end value, and its records.

Example, ``per_page=2``, reps ``[0, 1, 0, 0, 1]``, every entry a value: the
first page takes entries 0-1 (2 values; entry 2 starts a record), the second
entries 2-4 (entry 3 starts a record but the page has 1 value only), so the
bounds are ``(0, 2, 0, 2, 1)`` and ``(2, 5, 2, 5, 2)``.
"""
cimport cython
from libc.stdint cimport int16_t, int64_t

import numpy as np


@cython.boundscheck(False)
@cython.wraparound(False)
def page_bounds(reps, defs, Py_ssize_t n, int max_def, Py_ssize_t per_page,
                Py_ssize_t max_rows):
    """int64 array of shape (pages, 5): first entry, end entry, first value, end value
    and records of each page.

    Parameters
    ----------
    reps, defs : numpy.ndarray of int16 or None
        ``n`` repetition / definition levels; None: every entry starts a record /
        is a value.
    per_page, max_rows : int
        Values and records per page (both at least 1).
    """
    cdef const int16_t[::1] rv
    cdef const int16_t[::1] dv
    cdef const int16_t* rp = NULL
    cdef const int16_t* dp = NULL
    if n < 0 or per_page < 1 or max_rows < 1:
        raise ValueError(f"invalid page bounds request: {n} entries, {per_page} values, "
                         f"{max_rows} records per page")
    if reps is not None and n:
        rv = _levels(reps, n, "repetition")
        rp = &rv[0]
    if defs is not None and n:
        dv = _levels(defs, n, "definition")
        dp = &dv[0]
    out = np.empty((max(n, 1), 5), np.int64)
    cdef int64_t[:, ::1] ov = out
    cdef Py_ssize_t pages
    # Safety: rp/dp are NULL or hold n levels; a page holds at least one entry, so
    # there are at most n pages, the rows of ``out``.
    with nogil:
        pages = _bounds(rp, dp, n, max_def, per_page, max_rows, &ov[0, 0])
    return out[:pages]


cdef const int16_t[::1] _levels(levels, Py_ssize_t n, str kind):
    cdef const int16_t[::1] v = np.ascontiguousarray(levels, dtype=np.int16).reshape(-1)
    if v.shape[0] != n:
        raise ValueError(f"{v.shape[0]} {kind} levels for {n} entries")
    return v


cdef inline Py_ssize_t _is_value(const int16_t* defs, Py_ssize_t e, int max_def) noexcept nogil:
    return 1 if defs == NULL else <Py_ssize_t>(defs[e] == max_def)


cdef inline Py_ssize_t _is_start(const int16_t* reps, Py_ssize_t e) noexcept nogil:
    return 1 if reps == NULL else <Py_ssize_t>(reps[e] == 0)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _bounds(const int16_t* reps, const int16_t* defs, Py_ssize_t n, int max_def,
                        Py_ssize_t per_page, Py_ssize_t max_rows,
                        int64_t* out) noexcept nogil:
    cdef Py_ssize_t e0 = 0, e, pages = 0, values_before = 0, values, starts, start
    while e0 < n:
        values = _is_value(defs, e0, max_def)
        starts = 0                  # record starts after e0, up to and including e
        e = e0 + 1
        while e < n:
            start = _is_start(reps, e)
            starts += start
            # Bitwise, not short-circuit: one branch, taken once per page, instead of
            # an unpredictable one at every record start.
            if start & ((values >= per_page) | (starts == max_rows)):
                starts -= 1         # the start at e opens the next page
                break
            values += _is_value(defs, e, max_def)
            e += 1
        out[0] = e0
        out[1] = e
        out[2] = values_before
        out[3] = values_before + values
        out[4] = starts + _is_start(reps, e0)
        out += 5
        pages += 1
        values_before += values
        e0 = e
    return pages
