# cython: language_level=3
"""List rows as read-only numpy views of one flat array.

pandas holds a list column as an object array whose items are numpy arrays
(pyarrow's ``to_pandas()`` does so). Every row here is a view of the child
values, made with numpy's C API (no Python slicing per row) and keeping the
flat array alive as its base: for the flat array ``[1, 2, 3, 4]`` with offsets
``[0, 2, 2, 4]`` and validity ``[True, False, True]`` the rows are
``array([1, 2])``, None and ``array([3, 4])``, all three sharing the flat
array's memory. The views are read-only, so no row can change the column or
its neighbours.
"""
cimport cython
cimport numpy as cnp
from cpython.object cimport PyObject, PyTypeObject
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int64_t, uint8_t

import numpy as np

cdef extern from "numpy/arrayobject.h":
    PyTypeObject PyArray_Type
    # Steals the reference to descr.
    object PyArray_NewFromDescr(PyTypeObject* subtype, PyObject* descr, int nd,
                                cnp.npy_intp* dims, cnp.npy_intp* strides, void* data,
                                int flags, PyObject* obj)

cnp.import_array()


@cython.boundscheck(False)
@cython.wraparound(False)
def array_rows(cnp.ndarray flat, offsets, validity=None):
    """An object array of ``len(offsets) - 1`` rows: row ``i`` is the read-only view
    ``flat[offsets[i] - offsets[0]:offsets[i + 1] - offsets[0]]``, or None where
    ``validity`` is False.

    Parameters
    ----------
    flat : numpy.ndarray
        1-D and C-contiguous: the child values the rows use.
    offsets : numpy.ndarray of int
        ``rows + 1`` non-decreasing positions.
    validity : numpy.ndarray of bool, optional

    Raises ValueError for offsets that decrease or leave ``flat``.
    """
    if flat.ndim != 1 or not flat.flags.c_contiguous:
        raise ValueError("array_rows needs a 1-D C-contiguous array")
    cdef const int64_t[::1] o = np.ascontiguousarray(offsets, dtype=np.int64)
    cdef Py_ssize_t n = o.shape[0] - 1, i, m = flat.shape[0]
    if n < 0:
        raise ValueError("list offsets need at least one entry")
    cdef const uint8_t[::1] valid = None
    if validity is not None:
        valid = np.ascontiguousarray(validity, dtype=np.bool_).view(np.uint8)
        if valid.shape[0] != n:
            raise ValueError(f"validity of {valid.shape[0]} entries for {n} rows")
    cdef int64_t base = o[0], a, b
    cdef cnp.dtype descr = flat.dtype
    cdef Py_ssize_t itemsize = descr.itemsize
    cdef char* data = <char*>cnp.PyArray_DATA(flat)
    cdef cnp.npy_intp dim
    out = np.empty(n, dtype=object)
    cdef object[::1] ov = out
    cdef object row
    for i in range(n):
        a, b = o[i] - base, o[i + 1] - base
        if a < 0 or b < a or b > m:
            raise ValueError(f"list row {i} spans values {a}..{b} of {m}")
        if valid is not None and not valid[i]:
            continue                       # None is already there
        dim = b - a
        Py_INCREF(descr)                   # PyArray_NewFromDescr steals a reference
        row = PyArray_NewFromDescr(&PyArray_Type, <PyObject*>descr, 1, &dim, NULL,
                                   data + a * itemsize, cnp.NPY_ARRAY_C_CONTIGUOUS |
                                   cnp.NPY_ARRAY_ALIGNED, NULL)
        cnp.set_array_base(row, flat)
        ov[i] = row
    return out
