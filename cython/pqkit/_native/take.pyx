# cython: language_level=3
"""Dictionary gathers and row-position narrowing.

A dictionary-encoded page stores indices into the column chunk's dictionary
page (itself PLAIN, decoded by :mod:`pqkit._native.plain`). The gathers expand
those indices into values, checking every index against the dictionary size:

* ``take_fixed``: fixed-width values (numbers, INT96 and FIXED_LEN_BYTE_ARRAY
  rows): ``dictionary[indices]``.
* ``take_byte_array`` / ``take_byte_array_into``: byte arrays in the Arrow
  layout (int64 offsets over one uint8 buffer). The dictionary ``[b"ab",
  b"c"]`` (offsets ``[0, 2, 3]``, data ``b"abc"``) with indices ``[1, 0, 1]``
  gives offsets ``[0, 1, 3, 4]`` and data ``b"cabc"``.

``narrow_positions`` checks row positions against a length and stores them in
the narrowest unsigned dtype that holds them (``[3, 0]`` below 300 rows
becomes uint16), so that lazily gathered binary columns keep small position
arrays.
"""
cimport cython
from libc.stdint cimport uint16_t
from libc.string cimport memcpy

import numpy as np

from pqkit.errors import EncodingError

from pqkit._native.plain cimport check_offsets


# ------------------------------------------------------------------ kernels

@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline Py_ssize_t _gather_w(const uint8_t* src, Py_ssize_t width, Py_ssize_t dict_len,
                                 const int32_t* idx, Py_ssize_t n, uint8_t* dst) noexcept nogil:
    # Safety: an index is used only after the unsigned compare with dict_len
    # (which also rejects negatives); src holds dict_len rows, dst n rows.
    cdef Py_ssize_t i
    cdef uint32_t k
    for i in range(n):
        k = <uint32_t>idx[i]
        if k >= <uint64_t>dict_len:
            return i
        memcpy(dst + i * width, src + k * width, width)
    return -1


cdef Py_ssize_t gather_fixed(const uint8_t* src, Py_ssize_t width, Py_ssize_t dict_len,
                             const int32_t* idx, Py_ssize_t n, uint8_t* dst) noexcept nogil:
    # Constant widths let the compiler turn each memcpy into one load/store.
    if width == 1:
        return _gather_w(src, 1, dict_len, idx, n, dst)
    elif width == 2:
        return _gather_w(src, 2, dict_len, idx, n, dst)
    elif width == 4:
        return _gather_w(src, 4, dict_len, idx, n, dst)
    elif width == 8:
        return _gather_w(src, 8, dict_len, idx, n, dst)
    elif width == 12:
        return _gather_w(src, 12, dict_len, idx, n, dst)
    elif width == 16:
        return _gather_w(src, 16, dict_len, idx, n, dst)
    return _gather_w(src, width, dict_len, idx, n, dst)


# --------------------------------------------------------------- Python API

cdef object _as_indices(indices):
    idx = np.asarray(indices)
    if idx.ndim != 1:
        raise ValueError(f"expected 1-D dictionary indices, got shape {idx.shape}")
    if idx.dtype == np.int32:
        return np.ascontiguousarray(idx)
    if idx.size and idx.dtype.kind not in "iu":
        raise ValueError(f"dictionary indices must be integers, got dtype {idx.dtype}")
    if idx.dtype in (np.int8, np.int16, np.uint8, np.uint16):
        return idx.astype(np.int32)
    # out-of-range values of wider types map to -1 and are reported below
    return _narrow_indices(np.ascontiguousarray(idx, dtype=np.int64))


@cython.boundscheck(False)
@cython.wraparound(False)
cdef object _narrow_indices(const int64_t[::1] wide):
    """int64 -> int32 in one pass, values outside 0..2**31 - 1 as -1."""
    cdef Py_ssize_t i, n = wide.shape[0]
    out = np.empty(n, dtype=np.int32)
    cdef int32_t[::1] ov = out
    cdef int64_t v
    with nogil:
        for i in range(n):
            v = wide[i]
            ov[i] = <int32_t>v if 0 <= v <= 0x7FFFFFFF else -1
    return out


@cython.boundscheck(False)
@cython.wraparound(False)
def narrow_positions(positions, Py_ssize_t limit):
    """``positions`` (integers in ``0..limit - 1``) in the narrowest unsigned dtype that
    holds them (uint8, uint16, uint32 or int64), checked and converted in one pass.

    Raises IndexError for a position outside the range.
    """
    src = np.ascontiguousarray(positions, dtype=np.int64).reshape(-1)
    cdef const int64_t[::1] p = src
    cdef Py_ssize_t n = p.shape[0], i, bad = -1
    if limit > 0x100000000:
        dtype = np.int64
    else:
        dtype = np.uint8 if limit <= 0x100 else np.uint16 if limit <= 0x10000 else np.uint32
    out = np.empty(n, dtype=dtype)
    cdef uint8_t[::1] o8
    cdef uint16_t[::1] o16
    cdef uint32_t[::1] o32
    cdef int64_t[::1] o64
    cdef int64_t v
    cdef int kind = out.dtype.itemsize
    if kind == 1:
        o8 = out
    elif kind == 2:
        o16 = out
    elif kind == 4:
        o32 = out
    else:
        o64 = out
    with nogil:
        for i in range(n):
            v = p[i]
            if v < 0 or v >= limit:
                bad = i
                break
            if kind == 1:
                o8[i] = <uint8_t>v
            elif kind == 2:
                o16[i] = <uint16_t>v
            elif kind == 4:
                o32[i] = <uint32_t>v
            else:
                o64[i] = v
    if bad >= 0:
        raise IndexError(f"position {p[bad]} at {bad} is outside 0..{limit - 1}")
    return out


cdef int _bad_index(indices, const int32_t[::1] idx, Py_ssize_t pos,
                    Py_ssize_t dict_len) except -1:
    bad = np.asarray(indices).reshape(-1)[pos]
    raise EncodingError(f"dictionary index {bad} at position {pos} is out of range: "
                        f"the dictionary has {dict_len} entries")


def take_fixed(dictionary_values, indices):
    """Expand dictionary indices into fixed-width values.

    Parameters
    ----------
    dictionary_values : numpy.ndarray
        The dictionary: a fixed-width array, 1-D or 2-D (FLBA/INT96 rows).
    indices : numpy.ndarray
        Integer indices (int32 preferred) into the dictionary's first axis.

    Returns
    -------
    numpy.ndarray
        ``dictionary_values[indices]``, same dtype and trailing shape.

    Raises
    ------
    EncodingError
        An index is negative or not below the dictionary size.
    """
    dic = np.ascontiguousarray(dictionary_values)
    if dic.dtype.hasobject or dic.ndim == 0:
        raise ValueError(f"take_fixed needs a fixed-width array, got {dic.dtype} {dic.shape}")
    idx_arr = _as_indices(indices)
    cdef const int32_t[::1] idx = idx_arr
    cdef Py_ssize_t n = idx.shape[0], dict_len = dic.shape[0], bad = -1
    cdef Py_ssize_t width = dic.itemsize * (dic.size // dict_len if dict_len else 0)
    out = np.empty((n,) + dic.shape[1:], dtype=dic.dtype)
    if n == 0:
        return out
    if width == 0:
        if dict_len == 0:
            _bad_index(indices, idx, 0, 0)
        return out
    cdef const uint8_t[::1] src = dic.reshape(-1).view(np.uint8)
    cdef uint8_t[::1] dst = out.reshape(-1).view(np.uint8)
    with nogil:
        bad = gather_fixed(&src[0], width, dict_len, &idx[0], n, &dst[0])
    if bad >= 0:
        _bad_index(indices, idx, bad, dict_len)
    return out


@cython.boundscheck(False)
@cython.wraparound(False)
def take_byte_array(const int64_t[::1] dict_offsets, const uint8_t[::1] dict_data, indices):
    """Expand dictionary indices into byte arrays (Arrow offsets + data).

    Parameters
    ----------
    dict_offsets : numpy.ndarray of int64
        The dictionary's ``dict_len + 1`` offsets into ``dict_data``.
    dict_data : numpy.ndarray of uint8
        The dictionary's concatenated values.
    indices : numpy.ndarray
        Integer indices (int32 preferred).

    Returns
    -------
    (numpy.ndarray of int64, numpy.ndarray of uint8)
        Offsets (``len(indices) + 1``, the first 0) and data.

    Raises
    ------
    EncodingError
        An index is negative or not below the dictionary size.
    """
    idx = _as_indices(indices)
    offsets = np.empty(idx.shape[0] + 1, dtype=np.int64)
    fits, total = take_byte_array_into(dict_offsets, dict_data, idx, offsets, 0,
                                       np.empty(0, np.uint8), 0)
    data = np.empty(total, dtype=np.uint8)
    take_byte_array_into(dict_offsets, dict_data, idx, offsets, 0, data, 0)
    return offsets, data


@cython.boundscheck(False)
@cython.wraparound(False)
def take_byte_array_into(const int64_t[::1] dict_offsets, const uint8_t[::1] dict_data, indices,
                         int64_t[::1] out_offsets, Py_ssize_t first, uint8_t[::1] out_data,
                         int64_t data_pos):
    """Expand dictionary indices into existing Arrow buffers (as plain.decode_byte_array_into).

    Returns ``(True, new end of the data)``, or ``(False, end needed)`` when
    ``out_data`` is too small (the offsets are written, no data).

    Raises
    ------
    EncodingError
        An index is negative or not below the dictionary size.
    """
    check_offsets(dict_offsets, dict_data.shape[0], "dictionary", ValueError)
    idx_arr = _as_indices(indices)
    cdef const int32_t[::1] idx = idx_arr
    cdef Py_ssize_t n = idx.shape[0], dict_len = dict_offsets.shape[0] - 1, i, bad = -1
    if first < 0 or first + n + 1 > out_offsets.shape[0]:
        raise ValueError(f"{out_offsets.shape[0]} offsets cannot take {n} values at {first}")
    if data_pos < 0 or data_pos > out_data.shape[0]:
        raise ValueError(f"data position {data_pos} outside {out_data.shape[0]} bytes")
    cdef uint32_t k
    cdef int64_t total = data_pos, length
    cdef int64_t* off = &out_offsets[first]
    off[0] = data_pos
    with nogil:
        # Safety: k is used only after the unsigned compare with dict_len.
        for i in range(n):
            k = <uint32_t>idx[i]
            if k >= <uint64_t>dict_len:
                bad = i
                break
            total += dict_offsets[k + 1] - dict_offsets[k]
            off[i + 1] = total
    if bad >= 0:
        _bad_index(indices, idx, bad, dict_len)
    if total > out_data.shape[0]:
        return False, total
    cdef uint8_t* dst = &out_data[0] if out_data.shape[0] else NULL
    cdef int64_t cap = out_data.shape[0]
    if total > data_pos:
        with nogil:
            # Safety: every index was checked above; dict offsets were validated
            # against dict_data; off[n] == total <= cap. Short values move as one
            # 16-byte block when both windows fit (the extra bytes written belong
            # to later values, copied afterwards).
            for i in range(n):
                k = <uint32_t>idx[i]
                length = off[i + 1] - off[i]
                if (length <= 16 and dict_offsets[k] + 16 <= dict_data.shape[0]
                        and off[i] + 16 <= cap):
                    memcpy(dst + off[i], &dict_data[0] + dict_offsets[k], 16)
                else:
                    memcpy(dst + off[i], &dict_data[0] + dict_offsets[k], length)
    return True, total


ctypedef fused offset_t:
    int32_t
    int64_t


@cython.boundscheck(False)
@cython.wraparound(False)
def compress_byte_array(const offset_t[::1] offsets, const uint8_t[::1] data, keep):
    """The byte arrays whose ``keep`` flag is set, in order (Arrow offsets + data).

    ``offsets`` (int32 or int64, ``n + 1`` of them, checked against ``data``) and
    ``keep`` (``n`` bools) describe the input; each run of kept values is copied
    with one ``memcpy``, which is what the writer needs to drop the slots of null
    parents from a string leaf (most values kept, in long runs).

    Returns
    -------
    (numpy.ndarray of int64, numpy.ndarray of uint8)
        Offsets (one more than the kept values, the first 0) and data.
    """
    cdef const uint8_t[::1] flags = np.ascontiguousarray(keep).view(np.uint8).reshape(-1)
    cdef Py_ssize_t n = offsets.shape[0] - 1, i, j, kept = 0
    if n < 0 or flags.shape[0] != n:
        raise ValueError(f"{flags.shape[0]} flags for {max(n, 0)} values")
    cdef Py_ssize_t falls = -1
    with nogil:
        for i in range(n):
            kept += flags[i] != 0
            if offsets[i + 1] < offsets[i]:
                falls = i
                break
    if n and (falls >= 0 or offsets[0] < 0 or offsets[n] > data.shape[0]):
        raise ValueError(f"offsets do not rise from 0 through the {data.shape[0]} bytes of "
                         f"the values (first fall after value {falls})")
    out_offsets = np.empty(kept + 1, np.int64)
    cdef int64_t[::1] oo = out_offsets
    cdef int64_t total = 0, start
    oo[0] = 0
    j = 0
    with nogil:
        for i in range(n):
            if flags[i]:
                total += offsets[i + 1] - offsets[i]
                j += 1
                oo[j] = total
    out_data = np.empty(total, np.uint8)
    cdef uint8_t[::1] od = out_data
    cdef int64_t pos = 0
    if total:
        with nogil:
            # Safety: offsets were checked to rise within data, and the kept lengths
            # sum to total, the size of out_data.
            i = 0
            while i < n:
                if not flags[i]:
                    i += 1
                    continue
                j = i + 1
                while j < n and flags[j]:
                    j += 1
                start = offsets[i]
                memcpy(&od[pos], &data[start], offsets[j] - start)
                pos += offsets[j] - start
                i = j
    return out_offsets, out_data
