# cython: language_level=3
"""Bit-packing and the RLE/bit-packed hybrid encoding (Parquet encoding RLE = 3).

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
their errors name absolute file offsets.
"""
cimport cython
from libc.string cimport memcpy, memset
from libc.stdint cimport UINT32_MAX, int64_t

import sys

import numpy as np

from pqkit.errors import EncodingError

from pqkit._native.buffer cimport cursor_init

if sys.byteorder != "little":  # the kernels load little-endian words directly
    raise ImportError("pqkit's bit-packing kernels need a little-endian host")

cdef enum:
    MAX_RUN = 2147483647                 # run lengths are at most 2^31 - 1 values
    MAX_PACKED_GROUPS = 268435455        # (2^31 - 1) // 8 groups
    ENCODE_MAX_GROUPS = 63               # keeps every bit-packed header in one byte
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


# ------------------------------------------------------------------ packing

@cython.boundscheck(False)
@cython.wraparound(False)
cdef inline void _pack_group(const uint32_t* v, uint8_t* d, int w) noexcept nogil:
    # Safety: writes exactly w bytes at d. Value i lands in words[k] and
    # words[k + 1] (k = i*w / 64); the spill-over shift is split in two so
    # that it is 0, not undefined, when nothing spills.
    cdef uint64_t words[5]
    cdef uint64_t x, m = (<uint64_t>1 << w) - 1
    cdef int i, bit, k, sh
    words[0] = words[1] = words[2] = words[3] = words[4] = 0
    for i in range(8):
        x = v[i] & m
        bit = i * w
        k = bit >> 6
        sh = bit & 63
        words[k] |= x << sh
        words[k + 1] |= (x >> 1) >> (63 - sh)
    memcpy(d, words, w)


cdef void pack_values(const uint32_t* values, Py_ssize_t n, uint8_t* dst, int w) noexcept nogil:
    # Safety: dst holds ceil(n / 8) * w bytes; the last group is zero-padded.
    cdef Py_ssize_t g, full = n >> 3, rest = n & 7
    cdef uint32_t tmp[8]
    if w == 0:
        return
    for g in range(full):
        _pack_group(values + g * 8, dst + g * w, w)
    if rest:
        memset(tmp, 0, sizeof(tmp))
        memcpy(tmp, values + full * 8, rest * sizeof(uint32_t))
        _pack_group(tmp, dst + full * w, w)


# ----------------------------------------------------------- hybrid decode

cdef inline int _run_header(Cursor* c, uint64_t* out) noexcept nogil:
    """ULEB128 run header: at most 5 bytes and 32 bits (the spec's uint32)."""
    cdef uint64_t r = 0
    cdef int shift = 0
    cdef uint8_t b
    while True:
        if c.pos >= c.size:
            return HF_VARINT_TRUNCATED
        b = c.data[c.pos]
        c.pos += 1
        r |= (<uint64_t>(b & 0x7F)) << shift
        if not (b & 0x80):
            break
        shift += 7
        if shift >= 35:
            return HF_VARINT_TOO_LONG
    if r > UINT32_MAX:
        return HF_VARINT_TOO_LONG
    out[0] = r
    return HF_NONE


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
        code = _run_header(c, &header)
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
            n = <Py_ssize_t>(groups * 8)
            if n > count - produced:
                n = count - produced
            # Only the bytes holding needed values must be present: some
            # writers drop the padding of the final group.
            need = (n * w + 7) >> 3
            avail = c.size - c.pos
            if avail < need:
                return _fault(err, HF_PACKED_TRUNCATED, c.pos, groups, need, produced)
            _unpack_into(c.data + c.pos, avail, out + produced, n, w, maxv)
            if <uint64_t>avail > groups * w:
                c.pos += <Py_ssize_t>(groups * w)
            else:
                c.pos = c.size
        produced += n
    return 0


# ----------------------------------------------------------- hybrid encode

cdef inline Py_ssize_t _put_varint(uint64_t v, uint8_t* d) noexcept nogil:
    cdef Py_ssize_t k = 0
    while v >= 0x80:
        d[k] = <uint8_t>(v | 0x80)
        v >>= 7
        k += 1
    d[k] = <uint8_t>v
    return k + 1


cdef Py_ssize_t _emit_rle(uint32_t value, Py_ssize_t run, int w, uint8_t* d) noexcept nogil:
    cdef Py_ssize_t pos = 0, n
    cdef int k, vbytes = (w + 7) >> 3
    while run > 0:
        n = run if run < MAX_RUN else MAX_RUN
        pos += _put_varint((<uint64_t>n) << 1, d + pos)
        for k in range(vbytes):
            d[pos + k] = <uint8_t>(value >> (8 * k))
        pos += vbytes
        run -= n
    return pos


cdef Py_ssize_t _emit_packed(const uint32_t* v, Py_ssize_t n, int w, uint8_t* d) noexcept nogil:
    cdef Py_ssize_t pos = 0, m, groups
    while n > 0:
        m = n if n < ENCODE_MAX_GROUPS * 8 else ENCODE_MAX_GROUPS * 8
        groups = (m + 7) >> 3
        pos += _put_varint((<uint64_t>groups << 1) | 1, d + pos)
        pack_values(v, m, d + pos, w)
        pos += groups * w
        v += m
        n -= m
    return pos


cdef Py_ssize_t hybrid_bound(Py_ssize_t n, int w) noexcept nogil:
    # literal values (plus final padding) + one header per 63 groups, and at
    # most n / 8 RLE runs of <= 9 bytes each with a literal run between them
    return ((n + 7) >> 3) * w + (n >> 3) * 10 + (n + 7) // (ENCODE_MAX_GROUPS * 8) + 32


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t hybrid_encode(const uint32_t* v, Py_ssize_t n, int w, uint8_t* dst) noexcept nogil:
    # Repeats of 8 or more become RLE runs; everything else goes into
    # bit-packed runs. A bit-packed run must hold whole groups of 8, so the
    # literal block before a repeat borrows values from the repeat to fill
    # its last group, and the repeat stays RLE only if 8 or more remain.
    cdef Py_ssize_t pos = 0, j = 1, cnt = 1, s, e, run, pending, pad, lit = 0
    # cnt is the length of the run of equal values ending at j (branch-free
    # update); a run becomes interesting only once it reaches 8.
    while j < n:
        cnt = cnt + 1 if v[j] == v[j - 1] else 1
        if cnt == 8:
            s = j - 7
            e = j + 1
            while e < n and v[e] == v[s]:
                e += 1
            run = e - s
            pending = s - lit
            pad = (8 - (pending & 7)) & 7
            if run - pad >= 8:
                if pending + pad:
                    pos += _emit_packed(v + lit, pending + pad, w, dst + pos)
                pos += _emit_rle(v[s], run - pad, w, dst + pos)
                lit = e
            j = e       # v[e] != v[e - 1], so cnt restarts at 1 there
            continue
        j += 1
    if lit < n:
        j = lit + 1
        while j < n and v[j] == v[lit]:
            j += 1
        if j == n:      # a short tail of one value: an RLE run is never larger
            pos += _emit_rle(v[lit], n - lit, w, dst + pos)
        else:
            pos += _emit_packed(v + lit, n - lit, w, dst + pos)
    return pos


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


cdef object _as_u32(values, int bit_width):
    """Validate encoder input (integers in 0..2^w - 1) and return it as uint32."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise ValueError(f"expected a 1-D array of values, got shape {arr.shape}")
    if bit_width < 0 or bit_width > 32:
        raise ValueError(f"bit width {bit_width}: must be 0..32")
    if arr.dtype == np.bool_:
        arr = arr.view(np.uint8)
    elif arr.size and arr.dtype.kind not in "iu":
        raise ValueError(f"expected integer values, got dtype {arr.dtype}")
    if arr.size:
        lo = int(arr.min())
        hi = int(arr.max())
        if lo < 0 or hi >> bit_width:
            bad = lo if lo < 0 else hi
            raise ValueError(f"value {bad} does not fit bit width {bit_width}")
    return np.ascontiguousarray(arr, dtype=np.uint32)


def pack_bits(values, int bit_width):
    """Pack values LSB-first into ``ceil(n * bit_width / 8)`` bytes (zero-padded).

    ``values`` is a 1-D integer (or bool) array with every value below
    ``2 ** bit_width``.
    """
    cdef const uint32_t[::1] v = _as_u32(values, bit_width)
    cdef Py_ssize_t n = v.shape[0], nbytes = (n * bit_width + 7) >> 3
    buf = np.empty(((n + 7) >> 3) * bit_width, dtype=np.uint8)
    cdef uint8_t[::1] dst = buf
    if n and bit_width:
        with nogil:
            pack_values(&v[0], n, &dst[0], bit_width)
    return buf[:nbytes].tobytes()


def encode_hybrid(values, int bit_width, bint prefixed=False):
    """Encode values with the RLE/bit-packed hybrid.

    Repeats of 8 or more become RLE runs, the rest bit-packed runs of at most
    63 groups, the last group zero-padded.

    Parameters
    ----------
    values : array-like of int
        1-D integers (or bools) in ``0 .. 2 ** bit_width - 1``.
    bit_width : int
        0..32.
    prefixed : bool
        Put the 4-byte little-endian byte length in front (v1 levels, RLE
        booleans).

    Returns
    -------
    bytes
    """
    cdef const uint32_t[::1] v = _as_u32(values, bit_width)
    cdef Py_ssize_t n = v.shape[0], head = 4 if prefixed else 0, used = 0
    buf = np.empty(head + hybrid_bound(n, bit_width), dtype=np.uint8)
    cdef uint8_t[::1] dst = buf
    if n:
        with nogil:
            used = hybrid_encode(&v[0], n, bit_width, &dst[head])
    if prefixed:
        if used > UINT32_MAX:
            raise ValueError(f"encoded levels of {used} bytes exceed the 4-byte length prefix")
        dst[0] = <uint8_t>used
        dst[1] = <uint8_t>(used >> 8)
        dst[2] = <uint8_t>(used >> 16)
        dst[3] = <uint8_t>(used >> 24)
    return buf[:head + used].tobytes()


@cython.boundscheck(False)
@cython.wraparound(False)
def encode_levels_counted(levels, int max_level, bint prefixed):
    """Hybrid-encode int16 levels at the width of ``max_level`` and count each level.

    One pass checks every level against ``0..max_level``, widens it for the
    encoder and counts it, so a page's levels and their histogram (the
    SizeStatistics / ColumnIndex level histograms) cost one read of the levels.

    Returns
    -------
    (bytes, numpy.ndarray of int64)
        The encoding (behind a 4-byte length when ``prefixed``) and
        ``max_level + 1`` counts.
    """
    if max_level < 0 or max_level > 32767:
        raise ValueError(f"max level {max_level} outside 0..32767")
    cdef const int16_t[::1] lv = np.ascontiguousarray(levels, dtype=np.int16).reshape(-1)
    cdef Py_ssize_t n = lv.shape[0], i, bad = -1
    cdef int w = 0
    while (1 << w) <= max_level:
        w += 1
    counts = np.zeros(max_level + 1, np.int64)
    wide = np.empty(max(n, 1), np.uint32)
    cdef int64_t[::1] cv = counts
    cdef uint32_t[::1] wv = wide
    cdef int16_t level
    with nogil:
        for i in range(n):
            level = lv[i]
            if level < 0 or level > max_level:
                bad = i
                break
            cv[level] += 1
            wv[i] = <uint32_t>level
    if bad >= 0:
        raise ValueError(f"level {lv[bad]} at entry {bad} is outside 0..{max_level}")
    cdef Py_ssize_t head = 4 if prefixed else 0, used = 0
    buf = np.empty(head + hybrid_bound(n, w), dtype=np.uint8)
    cdef uint8_t[::1] dst = buf
    if n:
        with nogil:
            used = hybrid_encode(&wv[0], n, w, &dst[head])
    if prefixed:
        if used > UINT32_MAX:
            raise ValueError(f"encoded levels of {used} bytes exceed the 4-byte length prefix")
        dst[0] = <uint8_t>used
        dst[1] = <uint8_t>(used >> 8)
        dst[2] = <uint8_t>(used >> 16)
        dst[3] = <uint8_t>(used >> 24)
    return buf[:head + used].tobytes(), counts
