# cython: language_level=3
"""Bit unpacking and the decoder of the RLE/bit-packed hybrid (Parquet encoding RLE = 3).

Bit-packing (LSB-first). Values of bit width w are written back to back into a
bit stream whose bit k is bit (k mod 8) of byte k // 8, each value starting at
its own least significant bit. Eight values fill exactly w bytes, so the
kernels work on groups of 8. Values 0..7 at width 3::

    value:  0   1   2   3   4   5   6   7
    bits:  000 100 010 110 001 101 011 111   (each value LSB first)
    bytes: 0x88 0xC6 0xFA                     (0b10001000 0b11000110 0b11111010)

Hybrid. A sequence of runs, each introduced by a ULEB128 varint header::

    header & 1 == 0   RLE run: header >> 1 copies of one value, stored in
                      ceil(w / 8) little-endian bytes
    header & 1 == 1   bit-packed run: header >> 1 groups of 8 values,
                      (header >> 1) * w bytes

Levels of v1 data pages and RLE booleans put a 4-byte little-endian byte
length in front of the runs; dictionary-index pages put one bit-width byte in
front and have no length. Eight copies of 5 at width 3 followed by 1, 2, 3
encode as ``10 05 03 d1 00 00`` (an RLE run of 8, then one bit-packed group
holding 1, 2, 3 and five padding zeros). A reader produces exactly the values
it was asked for and ignores the padding of the last group; bit width 0 means
every value is 0 and no runs are read.

What the decoder rejects: run headers above 32 bits, empty runs (length 0),
runs above 2^31 - 1 values, RLE values wider than w, and runs cut short. It
accepts a final bit-packed group whose padding bytes are missing (old
fastparquet wrote those, #979) as long as the values it needs are present.

All decoders take ``base_offset``, the file offset of ``data[offset]``, so
their errors name absolute file offsets. The writing side (bit packing and
the hybrid encoder) is :mod:`pqkit._native.hybrid_encode`.
"""
cimport cython
from libc.string cimport memcpy, memset

import sys

from pqkit.errors import EncodingError

from pqkit._native.buffer cimport cursor_init

if sys.byteorder != "little":  # the kernels load little-endian words directly
    raise ImportError("pqkit's bit-packing kernels need a little-endian host")

cdef enum:
    CHUNK = 512                          # values staged per narrowing copy


# ---------------------------------------------------------------- unpacking

cdef inline uint64_t _le64(const uint8_t* p) noexcept nogil:
    cdef uint64_t v
    memcpy(&v, p, 8)
    return v


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline void _group_fast(const uint8_t* s, uint32_t* o, int w) noexcept nogil:
    # Safety: value i starts at bit i*w, so its 8-byte load ends at byte
    # (7*w >> 3) + 8 <= w + 8; callers guarantee w + 8 readable bytes.
    cdef uint64_t m = (<uint64_t>1 << w) - 1
    cdef int i
    for i in range(8):
        o[i] = <uint32_t>((_le64(s + ((i * w) >> 3)) >> ((i * w) & 7)) & m)


@cython.cdivision(True)
cdef void unpack_groups(const uint8_t* src, Py_ssize_t avail, uint32_t* out,
                        Py_ssize_t ngroups, int w) noexcept nogil:
    # Safety: groups whose w + 8 byte window lies inside `avail` are read in
    # place; the rest are copied into a zeroed local block first, so no byte
    # at or past src + avail is read (missing bytes read as zero).
    # (Per-width copies of this loop measured no faster.)
    cdef Py_ssize_t g, nfast = 0, have
    cdef uint8_t tmp[40]
    if w == 0:
        memset(out, 0, ngroups * 8 * sizeof(uint32_t))
        return
    if avail >= 8:
        nfast = min((avail - 8) // w, ngroups)
    for g in range(nfast):
        _group_fast(src + g * w, out + g * 8, w)
    for g in range(nfast, ngroups):
        have = min(max(avail - g * w, 0), w)
        memset(tmp, 0, sizeof(tmp))
        memcpy(tmp, src + g * w, have)
        _group_fast(tmp, out + g * 8, w)


cdef void unpack_values(const uint8_t* src, Py_ssize_t avail, uint32_t* out,
                        Py_ssize_t n, int w) noexcept nogil:
    cdef Py_ssize_t full = n >> 3, rest = n & 7
    cdef uint32_t tmp[8]
    unpack_groups(src, avail, out, full, w)
    if rest:
        unpack_groups(src + full * w, avail - full * w, tmp, 1, w)
        memcpy(out + full * 8, tmp, rest * sizeof(uint32_t))


# ----------------------------------------------------------- hybrid decode

@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline uint32_t _max_u32(const uint32_t* p, Py_ssize_t n, uint32_t mx) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if p[i] > mx:
            mx = p[i]
    return mx


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _unpack_into(const uint8_t* src, Py_ssize_t avail, hybrid_t* out, Py_ssize_t n,
                       int w, uint32_t* maxv) noexcept nogil:
    # Safety: out has n slots; unpack_values never reads past src + avail.
    cdef uint32_t buf[CHUNK]
    cdef Py_ssize_t done = 0, m, i, skip
    if hybrid_t is int32_t:
        unpack_values(src, avail, <uint32_t*>out, n, w)
        if maxv != NULL:
            maxv[0] = _max_u32(<uint32_t*>out, n, maxv[0])
    else:
        while done < n:
            m = n - done
            if m > CHUNK:
                m = CHUNK
            skip = (done >> 3) * w            # done is a multiple of 8 here
            unpack_values(src + skip, avail - skip, buf, m, w)
            for i in range(m):
                out[done + i] = <hybrid_t>buf[i]
            if maxv != NULL:
                maxv[0] = _max_u32(buf, m, maxv[0])
            done += m


@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline void _fill(hybrid_t* out, Py_ssize_t n, hybrid_t value) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = value


cdef inline int _fault(HybridError* err, int code, Py_ssize_t pos, uint64_t value,
                       uint64_t extra, Py_ssize_t produced) noexcept nogil:
    err.code = code
    err.pos = pos
    err.value = value
    err.extra = extra
    err.produced = produced
    return -1


@cython.boundscheck(False)
@cython.wraparound(False)
cdef int hybrid_decode(Cursor* c, int w, hybrid_t* out, Py_ssize_t count,
                       uint32_t* maxv, HybridError* err) noexcept nogil:
    # Safety: every run is checked against c.size before its bytes are read,
    # and no run writes past out + count.
    cdef Py_ssize_t produced = 0, start, n, avail, need
    cdef uint64_t header, value, groups
    cdef int code, k, vbytes = (w + 7) >> 3
    err.code = HF_NONE
    while produced < count:
        start = c.pos
        if start >= c.size:
            return _fault(err, HF_EXHAUSTED, start, 0, 0, produced)
        code = run_header(c, &header)
        if code != HF_NONE:
            return _fault(err, code, start, 0, 0, produced)
        if header >> 1 == 0:
            return _fault(err, HF_EMPTY_RUN, start, header, 0, produced)
        if not (header & 1):
            if c.size - c.pos < vbytes:
                return _fault(err, HF_VALUE_TRUNCATED, c.pos, 0, vbytes, produced)
            value = 0
            for k in range(vbytes):
                value |= (<uint64_t>c.data[c.pos + k]) << (8 * k)
            if value >> w:
                return _fault(err, HF_VALUE_RANGE, c.pos, value, 0, produced)
            c.pos += vbytes
            n = <Py_ssize_t>(header >> 1)
            if n > count - produced:
                n = count - produced
            _fill(out + produced, n, <hybrid_t>value)
            if maxv != NULL and value > maxv[0]:
                maxv[0] = <uint32_t>value
        else:
            groups = header >> 1
            if groups > MAX_PACKED_GROUPS:
                return _fault(err, HF_RUN_TOO_LONG, start, groups, 0, produced)
            need = packed_run_values(c, groups, w, count - produced, &n)
            if need:
                return _fault(err, HF_PACKED_TRUNCATED, c.pos, groups, need, produced)
            avail = c.size - c.pos
            _unpack_into(c.data + c.pos, avail, out + produced, n, w, maxv)
            skip_packed_run(c, groups, w)
        produced += n
    return 0


# ------------------------------------------------------------- Python API

cdef int _check_width(int bit_width, Py_ssize_t at, int limit) except -1:
    if bit_width < 0 or bit_width > 32:
        raise EncodingError(f"RLE bit width {bit_width} at offset {at}: at most 32")
    if bit_width > limit:
        raise ValueError(f"bit width {bit_width} does not fit the output (at most {limit})")
    return 0


cdef int _check_region(Py_ssize_t size, Py_ssize_t offset, Py_ssize_t length,
                       Py_ssize_t base_offset, str what) except -1:
    if offset < 0 or offset > size:
        raise EncodingError(f"{what} at offset {base_offset}: start {offset} is outside "
                            f"the {size}-byte buffer")
    if length < 0 or length > size - offset:
        raise EncodingError(f"{what} at offset {base_offset}: {length} bytes declared, "
                            f"only {size - offset} remain")
    return 0


cdef int _check_out(Py_ssize_t count, Py_ssize_t out_len) except -1:
    if count < 0:
        raise ValueError(f"negative value count {count}")
    if out_len < count:
        raise ValueError(f"output holds {out_len} values, {count} requested")
    return 0


cdef int _raise_hybrid(const HybridError* err, Py_ssize_t base, Py_ssize_t count,
                       Py_ssize_t size, int w) except -1:
    cdef Py_ssize_t at = base + err.pos
    cdef int code = err.code
    if code == HF_VARINT_TRUNCATED:
        msg = f"truncated RLE run header at offset {at}"
    elif code == HF_VARINT_TOO_LONG:
        msg = f"RLE run header at offset {at} is longer than 32 bits"
    elif code == HF_EMPTY_RUN:
        msg = f"empty RLE run (header {err.value}) at offset {at}"
    elif code == HF_RUN_TOO_LONG:
        msg = (f"bit-packed run of {err.value} groups at offset {at}: "
               f"at most {MAX_PACKED_GROUPS}")
    elif code == HF_VALUE_TRUNCATED:
        msg = (f"truncated RLE run value at offset {at}: needs {err.extra} bytes, "
               f"{size - err.pos} remain")
    elif code == HF_VALUE_RANGE:
        msg = f"RLE run value {err.value} at offset {at} does not fit bit width {w}"
    elif code == HF_PACKED_TRUNCATED:
        msg = (f"truncated bit-packed run of {err.value} groups: the values needed at "
               f"offset {at} take {err.extra} bytes, {size - err.pos} remain")
    else:
        msg = (f"RLE data ends at offset {at} after {err.produced} of {count} values")
    raise EncodingError(msg)


cdef Py_ssize_t _decode_region(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t length,
                               int w, hybrid_t[::1] out, Py_ssize_t count,
                               Py_ssize_t base_offset, uint32_t* maxv) except -1:
    """Decode runs in data[offset:offset+length] (already checked); returns bytes used."""
    cdef Cursor c
    cdef HybridError err
    cdef int rc = 0
    if count == 0:
        return 0
    if w == 0:
        with nogil:
            _fill(&out[0], count, <hybrid_t>0)
        return 0
    cursor_init(&c, &data[0] + offset if length else NULL, length, base_offset)
    with nogil:
        rc = hybrid_decode(&c, w, &out[0], count, maxv, &err)
    if rc != 0:
        _raise_hybrid(&err, base_offset, count, length, w)
    return c.pos


def decode_hybrid(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t length,
                  int bit_width, Py_ssize_t count, hybrid_t[::1] out,
                  Py_ssize_t base_offset=0):
    """Decode ``count`` RLE/bit-packed hybrid values with no length prefix.

    Parameters
    ----------
    data : bytes-like
        Buffer holding the runs.
    offset, length : int
        The runs lie in ``data[offset:offset + length]``.
    bit_width : int
        Bits per value, 0..32 (0: every value is 0 and no runs are read).
    count : int
        Values to produce; decoding stops there, ignoring group padding.
    out : numpy.ndarray
        uint8 (width <= 8), int16 (width <= 16) or int32 array of at least
        ``count`` values, written in place.
    base_offset : int
        File offset of ``data[offset]``, used in error messages.

    Returns
    -------
    int
        Bytes of runs consumed (up to the end of the last run read).

    Raises
    ------
    EncodingError
        Bad bit width, malformed or truncated runs, or fewer than ``count``
        values in the data.
    """
    cdef int limit = 8 if hybrid_t is uint8_t else (16 if hybrid_t is int16_t else 32)
    _check_width(bit_width, base_offset, limit)
    _check_out(count, out.shape[0])
    if length < 0:
        length = data.shape[0] - offset
    _check_region(data.shape[0], offset, length, base_offset, "RLE data")
    return _decode_region(data, offset, length, bit_width, out, count, base_offset, NULL)


def decode_hybrid_prefixed(const uint8_t[::1] data, Py_ssize_t offset, int bit_width,
                           Py_ssize_t count, hybrid_t[::1] out, Py_ssize_t base_offset=0):
    """Decode hybrid values preceded by their 4-byte little-endian byte length.

    Used for data page v1 levels and RLE booleans. Parameters as
    :func:`decode_hybrid`; the runs must lie within the declared length.

    Returns
    -------
    int
        Bytes consumed: 4 plus the declared length.
    """
    cdef int limit = 8 if hybrid_t is uint8_t else (16 if hybrid_t is int16_t else 32)
    cdef Py_ssize_t size = data.shape[0]
    cdef uint32_t length
    _check_width(bit_width, base_offset, limit)
    _check_out(count, out.shape[0])
    _check_region(size, offset, 0, base_offset, "RLE data")
    if size - offset < 4:
        raise EncodingError(f"truncated RLE length prefix at offset {base_offset}: "
                            f"{size - offset} bytes remain")
    length = (<uint32_t>data[offset] | (<uint32_t>data[offset + 1] << 8) |
              (<uint32_t>data[offset + 2] << 16) | (<uint32_t>data[offset + 3] << 24))
    if length > <uint64_t>(size - offset - 4):
        raise EncodingError(f"RLE length prefix {length} at offset {base_offset}: only "
                            f"{size - offset - 4} bytes follow")
    _decode_region(data, offset + 4, length, bit_width, out, count, base_offset + 4, NULL)
    return 4 + <Py_ssize_t>length


def decode_dict_indices(const uint8_t[::1] data, Py_ssize_t offset, Py_ssize_t length,
                        Py_ssize_t count, int32_t[::1] out, Py_ssize_t dict_len=-1,
                        Py_ssize_t base_offset=0):
    """Decode a dictionary-index page: one bit-width byte, then hybrid runs.

    Parameters
    ----------
    data, offset, length, count, out, base_offset
        As :func:`decode_hybrid` (``length`` includes the bit-width byte;
        -1 means to the end of ``data``). ``out`` is int32.
    dict_len : int
        When >= 0, every index must be below it.

    Returns
    -------
    (int, int)
        Bytes consumed (including the width byte) and the largest index
        decoded (-1 when ``count`` is 0).

    Raises
    ------
    EncodingError
        As :func:`decode_hybrid`, or an index not below ``dict_len``.
    """
    cdef int w
    cdef uint32_t mx = 0
    cdef Py_ssize_t used, i = 0
    _check_out(count, out.shape[0])
    if length < 0:
        length = data.shape[0] - offset
    _check_region(data.shape[0], offset, length, base_offset, "dictionary indices")
    if count == 0:
        return (1 if length else 0), -1
    if length < 1:
        raise EncodingError(f"dictionary indices at offset {base_offset}: no bit-width byte "
                            f"for {count} values")
    w = data[offset]
    _check_width(w, base_offset, 32)
    used = 1 + _decode_region(data, offset + 1, length - 1, w, out, count,
                              base_offset + 1, &mx)
    if dict_len >= 0 and <uint64_t>mx >= <uint64_t>dict_len:
        for i in range(count):
            if <uint32_t>out[i] == mx:
                break
        raise EncodingError(f"dictionary index {mx} (value {i}) in the page at offset "
                            f"{base_offset}: the dictionary has {dict_len} entries")
    return used, <Py_ssize_t>mx


def unpack_bits(const uint8_t[::1] data, Py_ssize_t offset, int bit_width,
                Py_ssize_t count, uint32_t[::1] out, Py_ssize_t base_offset=0):
    """Unpack ``count`` LSB-first bit-packed values into a uint32 array.

    Reads ``ceil(count * bit_width / 8)`` bytes from ``data[offset]`` and
    returns that byte count. ``bit_width`` is 0..32.
    """
    cdef Py_ssize_t size = data.shape[0], nbytes
    _check_width(bit_width, base_offset, 32)
    _check_out(count, out.shape[0])
    _check_region(size, offset, 0, base_offset, "bit-packed values")
    nbytes = (count * bit_width + 7) >> 3
    if nbytes > size - offset:
        raise EncodingError(f"bit-packed values at offset {base_offset}: {count} values of "
                            f"{bit_width} bits need {nbytes} bytes, {size - offset} remain")
    cdef const uint8_t* src = &data[0] + offset if nbytes else NULL
    if count:
        with nogil:
            unpack_values(src, nbytes, &out[0], count, bit_width)
    return nbytes
