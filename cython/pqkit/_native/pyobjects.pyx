# cython: language_level=3
"""Python-side objects from Arrow buffers: str values, list and dict rows.

* ``utf8_objects`` decodes selected byte-array values to ``str`` in C
  (``PyUnicode_DecodeUTF8``) straight into an object array, instead of a
  Python-level slice and decode per value.
* ``list_rows`` cuts one flat list of child values into the rows of a list
  column (``PyList_GetSlice`` per row); ``struct_rows`` zips per-field value
  lists into one dict per row. Both put None at null rows: with offsets
  ``[0, 2, 2, 3]`` over ``[1, 2, 3]`` and validity ``[1, 0, 1]`` the rows are
  ``[[1, 2], None, [3]]``.
* ``decimal_objects`` makes ``decimal.Decimal`` values of int32/int64 unscaled
  decimals from digits written in C.
"""
cimport cython
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_New
from cpython.ref cimport Py_INCREF, Py_XDECREF, PyObject
from cpython.dict cimport PyDict_SetItem
from cpython.list cimport PyList_GetSlice
from cpython.unicode cimport PyUnicode_DecodeASCII, PyUnicode_DecodeUTF8
from libc.stdint cimport int32_t, int64_t, uint8_t, uint16_t, uint64_t
from libc.string cimport memcpy
from libc.stdlib cimport calloc, free, malloc

import numpy as np


@cython.boundscheck(False)
@cython.wraparound(False)
def utf8_objects(offsets, data, positions):
    """An object array of ``str``: value ``positions[i]`` of Arrow binary (offsets, data).

    Raises UnicodeDecodeError for invalid UTF-8 and ValueError for offsets that
    do not fit the data.
    """
    cdef const int64_t[::1] o = np.ascontiguousarray(offsets, dtype=np.int64)
    cdef const uint8_t[::1] d = np.ascontiguousarray(data, dtype=np.uint8).reshape(-1)
    cdef const int64_t[::1] p = np.ascontiguousarray(positions, dtype=np.int64)
    cdef Py_ssize_t n = p.shape[0], i, k, m = o.shape[0] - 1
    cdef int64_t a, b
    out = np.empty(n, dtype=object)
    cdef object[::1] ov = out
    cdef const char* base = <const char*>&d[0] if d.shape[0] else <const char*>""
    for i in range(n):
        k = p[i]
        if k < 0 or k >= m:
            raise ValueError(f"value position {k} outside {m} values")
        a, b = o[k], o[k + 1]
        if a < 0 or b < a or b > d.shape[0]:
            raise ValueError(f"offsets of value {k} ({a}..{b}) do not fit {d.shape[0]} bytes")
        ov[i] = PyUnicode_DecodeUTF8(base + a, b - a, NULL)
    return out


@cython.boundscheck(False)
@cython.wraparound(False)
def take_objects(values, positions):
    """``values[positions]`` for an object array ``values`` and integer positions (a new
    object array; each position is checked)."""
    cdef object[::1] src = values
    pos = np.asarray(positions)
    if pos.dtype not in (np.uint8, np.uint16, np.int32, np.int64):
        pos = pos.astype(np.int64)
    pos = np.ascontiguousarray(pos)
    cdef Py_ssize_t n = pos.shape[0], m = src.shape[0], i
    out = np.empty(n, dtype=object)
    cdef object[::1] dst = out
    cdef const uint8_t[::1] p8
    cdef const uint16_t[::1] p16
    cdef const int32_t[::1] p32
    cdef const int64_t[::1] p64
    cdef int64_t k
    if pos.dtype == np.uint8:
        p8 = pos
        for i in range(n):
            k = p8[i]
            if k >= m:
                raise IndexError(f"position {k} outside {m} values")
            dst[i] = src[k]
    elif pos.dtype == np.uint16:
        p16 = pos
        for i in range(n):
            k = p16[i]
            if k >= m:
                raise IndexError(f"position {k} outside {m} values")
            dst[i] = src[k]
    elif pos.dtype == np.int32:
        p32 = pos
        for i in range(n):
            k = p32[i]
            if k < 0 or k >= m:
                raise IndexError(f"position {k} outside {m} values")
            dst[i] = src[k]
    else:
        p64 = pos
        for i in range(n):
            k = p64[i]
            if k < 0 or k >= m:
                raise IndexError(f"position {k} outside {m} values")
            dst[i] = src[k]
    return out


cdef bint _all_ascii(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    # Four independent accumulators over 32-byte steps let the compiler keep several
    # loads in flight (and vectorise); one accumulator serialises on the OR.
    cdef Py_ssize_t i = 0
    cdef uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0, w0, w1, w2, w3
    while i + 32 <= n:
        memcpy(&w0, p + i, 8)
        memcpy(&w1, p + i + 8, 8)
        memcpy(&w2, p + i + 16, 8)
        memcpy(&w3, p + i + 24, 8)
        a0 |= w0
        a1 |= w1
        a2 |= w2
        a3 |= w3
        i += 32
    a0 |= a1 | a2 | a3
    while i < n:
        a0 |= p[i]
        i += 1
    return (a0 & 0x8080808080808080ULL) == 0


cdef Py_ssize_t _first_decrease(const int64_t* o, Py_ssize_t n) noexcept nogil:
    """The first i with o[i + 1] < o[i], or -1. A branch-free count over blocks keeps
    the common no-decrease case at memory speed; a hit is then located exactly."""
    cdef Py_ssize_t i = 0, j, hits
    while i < n:
        hits = 0
        for j in range(i, min(i + 4096, n)):
            hits += o[j + 1] < o[j]
        if hits:
            for j in range(i, min(i + 4096, n)):
                if o[j + 1] < o[j]:
                    return j
        i += 4096
    return -1


cdef bint _utf8_valid(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    """RFC 3629 UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF."""
    cdef Py_ssize_t i = 0, k, need
    cdef uint8_t c, lo, hi
    while i < n:
        c = p[i]
        if c < 0x80:
            i += 1
            continue
        lo, hi = 0x80, 0xBF        # the allowed range of the second byte
        if 0xC2 <= c <= 0xDF:
            need = 1
        elif 0xE0 <= c <= 0xEF:
            need = 2
            if c == 0xE0:
                lo = 0xA0
            elif c == 0xED:
                hi = 0x9F
        elif 0xF0 <= c <= 0xF4:
            need = 3
            if c == 0xF0:
                lo = 0x90
            elif c == 0xF4:
                hi = 0x8F
        else:
            return False
        if i + need >= n:          # the sequence runs past the value
            return False
        if p[i + 1] < lo or p[i + 1] > hi:
            return False
        for k in range(2, need + 1):
            if p[i + k] < 0x80 or p[i + k] > 0xBF:
                return False
        i += need + 1
    return True


@cython.boundscheck(False)
@cython.wraparound(False)
def first_invalid_utf8(offsets, data, validity=None, bint check_order=True):
    """The first row (skipping null rows) whose bytes are not valid UTF-8, or -1.

    One pass over the bytes the rows span settles the common all-ASCII case. Decreasing
    offsets raise ValueError; ``check_order=False`` skips that pass when the caller's
    offsets are known to be in order (a column's are) and the bytes are all ASCII.
    Rows are never read one by one before their order is checked.
    """
    cdef const int64_t[::1] o = np.ascontiguousarray(offsets, dtype=np.int64)
    cdef const uint8_t[::1] d = np.ascontiguousarray(data, dtype=np.uint8).reshape(-1)
    cdef Py_ssize_t n = o.shape[0] - 1, i, bad = -1, decrease = -1
    if n <= 0:
        return -1
    cdef const uint8_t[::1] valid = _validity_bytes(validity, n, "utf-8 check")
    cdef bint has_validity = valid is not None
    if o[0] < 0 or o[n] > d.shape[0] or o[n] < o[0]:
        raise ValueError(f"offsets span {o[0]}..{o[n]}, outside {d.shape[0]} data bytes")
    cdef const uint8_t* base = &d[0] if d.shape[0] else NULL
    cdef bint ascii
    with nogil:
        if check_order:
            decrease = _first_decrease(&o[0], n)
        # Safety: [o[0], o[n]] lies within the data (checked above); when those bytes
        # are all ASCII, so is every row inside them. Otherwise the rows are read one
        # by one, and only after their order is checked, so each lies inside it too.
        ascii = decrease < 0 and _all_ascii(base + o[0], o[n] - o[0])
        if not ascii and not check_order:
            decrease = _first_decrease(&o[0], n)
        if not ascii and decrease < 0:
            for i in range(n):
                if has_validity and not valid[i]:
                    continue
                if not _utf8_valid(base + o[i], o[i + 1] - o[i]):
                    bad = i
                    break
    if decrease >= 0:
        raise ValueError(f"offsets decrease at row {decrease}")
    return bad


cdef const uint8_t[::1] _validity_bytes(validity, Py_ssize_t n, str what):
    if validity is None:
        return None
    v = np.ascontiguousarray(validity, dtype=np.bool_).view(np.uint8)
    if v.ndim != 1 or v.shape[0] != n:
        raise ValueError(f"{what}: validity of shape {v.shape} for {n} rows")
    return v


@cython.boundscheck(False)
@cython.wraparound(False)
def list_rows(list values, offsets, validity=None, bint as_array=True):
    """Rows ``values[offsets[i] - offsets[0]:offsets[i + 1] - offsets[0]]`` as lists.

    Parameters
    ----------
    values : list
        The child values the rows use, the first at ``offsets[0]``.
    offsets : numpy.ndarray of int
        ``rows + 1`` non-decreasing positions.
    validity : numpy.ndarray of bool, optional
        False rows become None.
    as_array : bool
        Return a numpy object array (True) or a list.

    Raises ValueError for offsets that decrease or leave ``values``.
    """
    cdef const int64_t[::1] o = np.ascontiguousarray(offsets, dtype=np.int64)
    cdef Py_ssize_t n = o.shape[0] - 1, i, m = len(values)
    if n < 0:
        raise ValueError("list offsets need at least one entry")
    cdef const uint8_t[::1] valid = _validity_bytes(validity, n, "list rows")
    cdef bint has_validity = valid is not None
    cdef int64_t base = o[0], a, b
    out = np.empty(n, dtype=object) if as_array else [None] * n
    cdef object[::1] ov = out if as_array else None
    cdef list lv = None if as_array else out
    cdef object row
    for i in range(n):
        a, b = o[i] - base, o[i + 1] - base
        if a < 0 or b < a or b > m:
            raise ValueError(f"list row {i} spans values {a}..{b} of {m}")
        if has_validity and not valid[i]:
            continue                       # None is already there
        row = PyList_GetSlice(values, a, b)
        if as_array:
            ov[i] = row
        else:
            lv[i] = row
    return out


@cython.boundscheck(False)
@cython.wraparound(False)
def struct_rows(tuple names, list columns, Py_ssize_t n, validity=None, bint as_array=True):
    """One dict ``{names[k]: columns[k][i]}`` per row ``i`` (None where validity is False).

    ``columns`` holds per name either a list of ``n`` values, or a pair
    ``(values, field_validity)`` of a 1-D int64 or float64 array of ``n`` numbers and
    None or ``n`` bools: its Python ints or floats are made here, row by row (None
    where ``field_validity`` is False), so no list of them is built first.
    """
    cdef Py_ssize_t i, k, width = len(names)
    if len(columns) != width:
        raise ValueError(f"{width} field names but {len(columns)} value lists")
    cdef const uint8_t[::1] valid = _validity_bytes(validity, n, "struct rows")
    cdef bint has_validity = valid is not None
    # Per field: 0 a list; 1 int64 numbers; 2 float64 numbers. The arrays stay alive
    # in `keep` while their pointers are used.
    cdef int* kind = <int*>calloc(width if width else 1, sizeof(int))
    cdef const void** data = <const void**>calloc(width if width else 1, sizeof(void*))
    cdef const uint8_t** fvalid = <const uint8_t**>calloc(width if width else 1,
                                                          sizeof(uint8_t*))
    if kind == NULL or data == NULL or fvalid == NULL:
        free(kind)
        free(<void*>data)
        free(<void*>fvalid)
        raise MemoryError()
    keep = []
    cdef const int64_t[::1] iv
    cdef const double[::1] dv
    cdef const uint8_t[::1] fv
    try:
        for k in range(width):
            col = columns[k]
            if isinstance(col, list):
                if len(<list>col) != n:
                    raise ValueError(f"struct field {names[k]!r}: expected a list of {n} values")
                continue
            if not isinstance(col, tuple) or len(<tuple>col) != 2:
                raise ValueError(f"struct field {names[k]!r}: expected a list of values "
                                 f"or a (numbers, validity) pair")
            values, field_validity = col
            if values.ndim != 1 or values.shape[0] != n or not values.flags.c_contiguous:
                raise ValueError(f"struct field {names[k]!r}: expected {n} contiguous numbers")
            if values.dtype == np.int64:
                iv = values
                kind[k] = 1
                data[k] = &iv[0] if n else NULL
            elif values.dtype == np.float64:
                dv = values
                kind[k] = 2
                data[k] = &dv[0] if n else NULL
            else:
                raise ValueError(f"struct field {names[k]!r}: numbers of dtype "
                                 f"{values.dtype} (int64 or float64 expected)")
            keep.append(values)
            if field_validity is not None:
                fv = _validity_bytes(field_validity, n, f"struct field {names[k]!r}")
                keep.append(fv)
                fvalid[k] = &fv[0] if n else NULL
        out = np.empty(n, dtype=object) if as_array else [None] * n
        _fill_struct_rows(names, columns, n, valid, has_validity, kind, data, fvalid,
                          out, as_array)
        return out
    finally:
        free(kind)
        free(<void*>data)
        free(<void*>fvalid)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _fill_struct_rows(tuple names, list columns, Py_ssize_t n,
                            const uint8_t[::1] valid, bint has_validity, const int* kind,
                            const void** data, const uint8_t** fvalid, out,
                            bint as_array) except *:
    # Safety: every list holds n values and every array n numbers (and each field
    # validity n bytes), checked by struct_rows.
    cdef Py_ssize_t i, k, width = len(names)
    cdef object[::1] ov = out if as_array else None
    cdef list lv = None if as_array else out
    cdef dict row
    cdef object value
    for i in range(n):
        if has_validity and not valid[i]:
            continue
        row = {}
        for k in range(width):
            if kind[k] == 0:
                value = (<list>columns[k])[i]
            elif fvalid[k] != NULL and not fvalid[k][i]:
                value = None
            elif kind[k] == 1:
                value = (<const int64_t*>data[k])[i]
            else:
                value = (<const double*>data[k])[i]
            PyDict_SetItem(row, names[k], value)
        if as_array:
            ov[i] = row
        else:
            lv[i] = row


@cython.boundscheck(False)
@cython.wraparound(False)
def decimal_objects(unscaled, int scale, validity=None):
    """An object array of ``decimal.Decimal``: int32/int64 ``unscaled`` values with
    ``scale`` fractional digits (0..38), None where ``validity`` is False.

    Each value's digits are written in C with the point in place (``-123456`` at
    scale 4 gives ``"-12.3456"``) and handed to ``Decimal``: the same value and
    exponent as ``Decimal("-123456E-4")``, without a Python string format per value.
    """
    from decimal import Decimal
    if scale < 0 or scale > 38:
        raise ValueError(f"decimal scale {scale} outside 0..38")
    cdef const int64_t[::1] v = np.ascontiguousarray(unscaled, dtype=np.int64)
    cdef Py_ssize_t n = v.shape[0], i
    cdef const uint8_t[::1] valid = _validity_bytes(validity, n, "decimal values")
    cdef bint has_validity = valid is not None
    cdef char buf[64]
    cdef char* p
    cdef int digits, k
    cdef uint64_t mag
    out = np.empty(n, dtype=object)
    cdef object[::1] ov = out
    for i in range(n):
        if has_validity and not valid[i]:
            continue                       # None is already there
        mag = <uint64_t>(-(v[i] + 1)) + 1 if v[i] < 0 else <uint64_t>v[i]
        # Digits from the right, the point after `scale` of them, at least one before it.
        p = buf + 63
        digits = 0
        while mag or digits <= scale:
            if digits == scale and scale:
                p -= 1
                p[0] = b'.'
            p -= 1
            p[0] = <char>(48 + mag % 10)
            mag //= 10
            digits += 1
        if v[i] < 0:
            p -= 1
            p[0] = b'-'
        k = <int>(buf + 63 - p)
        ov[i] = Decimal(PyUnicode_DecodeASCII(p, k, NULL))
    return out
