# cython: language_level=3
"""Python objects from Arrow buffers: one ``str`` per selected byte-array value.

Decoding in C (``PyUnicode_DecodeUTF8``) straight into an object array avoids a
Python-level slice and decode per value, which dominates turning a million
strings into pandas data.
"""
cimport cython
from cpython.ref cimport Py_INCREF
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.stdint cimport int64_t, uint8_t

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
