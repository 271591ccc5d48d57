# cython: language_level=3
"""Dictionary-index pages decoded straight into values.

A dictionary-encoded data page of numbers holds one bit-width byte and then
RLE/bit-packed hybrid runs of indices into the chunk's dictionary (layout in
:mod:`pqkit._native.bitpack`). The unfused path decodes every index into an
int32 buffer and then gathers; here each run is expanded where it stands: an
RLE run ``k`` copies of index ``i`` becomes ``k`` copies of ``dictionary[i]``,
and a bit-packed run is unpacked 512 indices at a time into a stack block and
gathered from there, so no index buffer the size of the page is ever made.

With the dictionary ``[10, 20, 30]`` (int64) the page ``02 06 02 03 09``
(bit width 2; an RLE run of 3 copies of index 2; one bit-packed group holding
1, 2, 0 and padding) gives ``[30, 30, 30, 20, 30, 10]`` for ``count == 6``.

Every fault (a bad run header, missing bytes, an index past the dictionary)
makes the kernel give up; the Python entry then runs the unfused decoder on
the same bytes, which raises the error naming the offset, so both paths report
the same message.
"""
cimport cython
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int32_t
from libc.string cimport memcpy

from pqkit._native.bitpack cimport (
    HF_NONE,
    MAX_PACKED_GROUPS,
    packed_run_values,
    run_header,
    skip_packed_run,
    unpack_values,
)
from pqkit._native.buffer cimport cursor_init
from pqkit._native.take cimport gather_fixed

import numpy as np

from pqkit._native.bitpack import decode_dict_indices

cdef enum:
    BLOCK = 512                          # indices unpacked per gather


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline void _repeat(uint8_t* dst, const uint8_t* row, Py_ssize_t width,
                         Py_ssize_t n) noexcept nogil:
    # Safety: dst holds n rows of width bytes.
    cdef Py_ssize_t i
    if width == 8:
        for i in range(n):
            memcpy(dst + 8 * i, row, 8)
    elif width == 4:
        for i in range(n):
            memcpy(dst + 4 * i, row, 4)
    else:
        for i in range(n):
            memcpy(dst + width * i, row, width)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline Py_ssize_t _unpack_gather_w(const uint8_t* s, Py_ssize_t nfast, int w,
                                        const uint8_t* dictionary, Py_ssize_t width,
                                        Py_ssize_t dict_len, uint8_t* dst) noexcept nogil:
    # Safety: the caller checked that value nfast - 1's 8-byte window, which starts
    # at byte ((nfast - 1) * w) >> 3, lies inside the run; an index is used only after
    # the compare with dict_len; dst holds nfast rows.
    cdef uint64_t m = (<uint64_t>1 << w) - 1, k, word
    cdef Py_ssize_t i, bit = 0
    for i in range(nfast):
        memcpy(&word, s + (bit >> 3), 8)
        k = (word >> (bit & 7)) & m
        if k >= <uint64_t>dict_len:
            return -1
        memcpy(dst + i * width, dictionary + k * width, width)
        bit += w
    return nfast


cdef Py_ssize_t _unpack_gather(const uint8_t* s, Py_ssize_t avail, int w, Py_ssize_t n,
                               const uint8_t* dictionary, Py_ssize_t width,
                               Py_ssize_t dict_len, uint8_t* dst) noexcept nogil:
    """Unpack and gather the first values of a bit-packed run in one pass, each index
    read with one 8-byte load (no index block in between): as many as whole groups of
    eight whose loads stay inside the ``avail`` bytes allow. Returns how many (a
    multiple of 8), or -1 for an index past the dictionary."""
    cdef Py_ssize_t nfast
    if w > 16 or avail < 8:         # wider: large dictionaries gather faster from a block
        return 0
    nfast = ((avail - 8) * 8) // w + 1          # values whose 8-byte window fits
    if nfast > n:
        nfast = n
    nfast &= ~(<Py_ssize_t>7)
    if nfast == 0:
        return 0
    # Constant row widths let the compiler turn each row copy into one load and store.
    if width == 8:
        return _unpack_gather_w(s, nfast, w, dictionary, 8, dict_len, dst)
    if width == 4:
        return _unpack_gather_w(s, nfast, w, dictionary, 4, dict_len, dst)
    return _unpack_gather_w(s, nfast, w, dictionary, width, dict_len, dst)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int gather_hybrid(Cursor* c, int w, const uint8_t* dictionary, Py_ssize_t width,
                       Py_ssize_t dict_len, uint8_t* dst, Py_ssize_t count) noexcept nogil:
    # Safety: each run's bytes are checked against c.size before they are read (as in
    # bitpack.hybrid_decode); every index is compared with dict_len before its row is
    # read (gather_fixed, or the RLE check below); no run writes past dst + count rows.
    cdef Py_ssize_t produced = 0, n, m, done, avail, skip
    cdef uint64_t header, value, groups
    cdef int k, vbytes = (w + 7) >> 3
    cdef uint32_t block[BLOCK]
    while produced < count:
        if c.pos >= c.size or run_header(c, &header) != HF_NONE or header >> 1 == 0:
            return -1
        if not (header & 1):
            if c.size - c.pos < vbytes:
                return -1
            value = 0
            for k in range(vbytes):
                value |= (<uint64_t>c.data[c.pos + k]) << (8 * k)
            if value >> w or value >= <uint64_t>dict_len:
                return -1
            c.pos += vbytes
            n = <Py_ssize_t>(header >> 1)
            if n > count - produced:
                n = count - produced
            _repeat(dst + produced * width, dictionary + value * width, width, n)
        else:
            groups = header >> 1
            if groups > MAX_PACKED_GROUPS:
                return -1
            if packed_run_values(c, groups, w, count - produced, &n):
                return -1
            avail = c.size - c.pos
            done = _unpack_gather(c.data + c.pos, avail, w, n, dictionary, width, dict_len,
                                  dst + produced * width)
            if done < 0:
                return -1
            while done < n:
                m = n - done
                if m > BLOCK:
                    m = BLOCK
                skip = (done >> 3) * w          # done is a multiple of 8 here
                unpack_values(c.data + c.pos + skip, avail - skip, block, m, w)
                if gather_fixed(dictionary, width, dict_len, <const int32_t*>block, m,
                                dst + (produced + done) * width) >= 0:
                    return -1
                done += m
            skip_packed_run(c, groups, w)
        produced += n
    return 0


def decode_dict_values(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t length,
                       Py_ssize_t count, dictionary, out, Py_ssize_t base_offset=0):
    """Decode a dictionary-index page straight into ``out[:count]``.

    Parameters
    ----------
    data, offset, length, count, base_offset
        As :func:`pqkit._native.bitpack.decode_dict_indices` (``length`` includes the
        bit-width byte; -1 means to the end of ``data``).
    dictionary : numpy.ndarray
        The decoded dictionary page, C-contiguous, one row per entry.
    out : numpy.ndarray
        C-contiguous, writable, of the dictionary's dtype and row shape, at least
        ``count`` rows.

    Returns
    -------
    int
        Bytes consumed (including the width byte).

    Raises
    ------
    EncodingError
        Exactly as :func:`~pqkit._native.bitpack.decode_dict_indices` with ``dict_len``
        set (bad runs, truncation, an index not below the dictionary's size).
    """
    if count < 0 or out.shape[0] < count:
        raise ValueError(f"output holds {out.shape[0]} values, {count} requested")
    return DictGather(dictionary, out).gather(data, offset, length, count, 0, base_offset)


cdef class DictGather:
    """A chunk's dictionary and output rows, checked once, for decoding its pages one
    after another: :meth:`gather` is :func:`decode_dict_values` into a span of the
    rows without re-checking and re-viewing both arrays for every page (about 5 us
    a call, a quarter of a 20,000-value page's gather).

    Parameters
    ----------
    dictionary, out : numpy.ndarray
        As :func:`decode_dict_values`: ``out`` C-contiguous and writable, of the
        dictionary's dtype and row shape; it receives the rows of every page.
    """
    cdef object dictionary, out
    cdef const uint8_t[::1] src
    cdef uint8_t[::1] dst
    cdef readonly Py_ssize_t width, dict_len, rows

    def __init__(self, dictionary, out):
        if out.dtype != dictionary.dtype or out.shape[1:] != dictionary.shape[1:]:
            raise ValueError(f"output {out.dtype}{out.shape[1:]} does not match the "
                             f"dictionary's {dictionary.dtype}{dictionary.shape[1:]}")
        if not (out.flags.c_contiguous and out.flags.writeable):
            raise ValueError("output must be C-contiguous and writable")
        self.dictionary = np.ascontiguousarray(dictionary)
        self.out = out
        self.dict_len = dictionary.shape[0]
        self.rows = out.shape[0]
        self.width = dictionary.dtype.itemsize
        for extent in dictionary.shape[1:]:
            self.width *= extent
        if self.dict_len and self.width:
            self.src = self.dictionary.reshape(-1).view("u1")
        if self.rows and self.width:
            self.dst = out.reshape(-1).view("u1")

    def gather(self, const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t length,
               Py_ssize_t count, Py_ssize_t row, Py_ssize_t base_offset=0):
        """Decode a dictionary-index page's ``count`` values into rows
        ``[row, row + count)``; the rest as :func:`decode_dict_values`."""
        cdef Cursor c
        cdef int rc = -1, w = -1
        cdef uint8_t* dst
        if row < 0 or count < 0 or count > self.rows - row:
            raise ValueError(f"rows [{row}, {row + count}) are not inside the output's "
                             f"{self.rows}")
        if length < 0:
            length = data.shape[0] - offset
        if count == 0 or self.width == 0 or offset < 0 or length < 1 \
                or length > data.shape[0] - offset:
            return _unfused(data, offset, length, count, self.dictionary, base_offset,
                            self.out[row:row + count])
        dst = &self.dst[0] + row * self.width
        w = data[offset]
        if 0 < w <= 32 and self.dict_len:
            cursor_init(&c, &data[0] + offset + 1, length - 1, base_offset + 1)
            with nogil:
                rc = gather_hybrid(&c, w, &self.src[0], self.width, self.dict_len, dst, count)
        if rc == 0:
            return 1 + c.pos
        if w == 0 and self.dict_len:
            _repeat(dst, &self.src[0], self.width, count)
            return 1
        return _unfused(data, offset, length, count, self.dictionary, base_offset,
                        self.out[row:row + count])


def _unfused(data, offset, length, count, dictionary, base_offset, out=None):
    """The unfused path on the same bytes: decode_dict_indices raises its error for a
    bad page; a page it accepts is gathered from the indices it gives."""
    idx = np.empty(max(count, 0), np.int32)
    used, _ = decode_dict_indices(data, offset, length, count, idx, len(dictionary),
                                  base_offset)
    if count:
        np.take(dictionary, idx, axis=0, out=out[:count])
    return used
