# cython: language_level=3
"""Dictionary encoding for the writer: a hash table over value bytes.

Values are byte strings: fixed-width rows (``width`` bytes each) or Arrow
binary (``offsets`` into ``data``). Each value is hashed and looked up in an
open-addressing table (linear probing, power-of-two size, at most half full);
a new value becomes the next dictionary entry, remembered by the position
where it first occurs. Equality is byte equality, so -0.0 and +0.0 stay
distinct entries, as a dictionary must reproduce values exactly.

Encoding stops before the first value whose new entry would push the
dictionary past ``limit`` bytes (each entry counts its bytes plus
``overhead``: 4 for the BYTE_ARRAY length prefix). The caller writes the
values before that point with the dictionary and falls back to plain encoding
for the rest, as parquet-java and Arrow C++ do. Example: values
``b"a", b"b", b"a"`` with no limit give indices ``[0, 1, 0]`` and first
positions ``[0, 1]``.

Each slot of the table keeps what a probe needs without going back to the
data: for byte strings the value's 64-bit hash beside its entry (the bytes
are compared only when the hashes agree), for values of 4 or 8 bytes
(INT32/INT64/FLOAT/DOUBLE) the value itself as a 64-bit word. The table grows
inside the loop, without the GIL; a grown table is refilled from the slots,
never by hashing the values again. The hashes are not part of any output:
only the order of first occurrence is, so the hash functions may change freely.
"""
cimport cython
from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcmp, memcpy

import numpy as np

cdef extern from *:
    """
    #include <stdint.h>
    /* The folded 64x64 -> 128-bit product (the "mum" of wyhash): one multiply that
       mixes every input bit into both halves. Portable fallback without __int128. */
    static inline uint64_t pqkit_mum(uint64_t a, uint64_t b) {
    #if defined(__SIZEOF_INT128__)
        __uint128_t r = (__uint128_t)a * b;
        return (uint64_t)r ^ (uint64_t)(r >> 64);
    #else
        uint64_t ha = a >> 32, la = (uint32_t)a, hb = b >> 32, lb = (uint32_t)b;
        uint64_t rh = ha * hb, rm0 = ha * lb, rm1 = hb * la, rl = la * lb;
        uint64_t t = rl + (rm0 << 32), c = t < rl;
        uint64_t lo = t + (rm1 << 32);
        c += lo < t;
        uint64_t hi = rh + (rm0 >> 32) + (rm1 >> 32) + c;
        return lo ^ hi;
    #endif
    }
    static const uint64_t PQKIT_K0 = 0xA0761D6478BD642FULL;
    static const uint64_t PQKIT_K1 = 0xE7037ED1A0B428DBULL;
    static const uint64_t PQKIT_FIB = 0x9E3779B97F4A7C15ULL;   /* 2^64 / golden ratio */
    """
    uint64_t pqkit_mum(uint64_t a, uint64_t b) nogil
    const uint64_t K0 "PQKIT_K0"
    const uint64_t K1 "PQKIT_K1"
    const uint64_t FIB "PQKIT_FIB"

cdef enum:
    FIRST_BITS = 10
    FIRST_SIZE = 1 << FIRST_BITS      # slots of a new table


cdef struct Slot:
    uint64_t key                # a byte string's hash, or a 4/8-byte value itself
    int64_t entry               # -1: empty


# ----------------------------------------------------------------- hashing

cdef inline uint64_t _load8(const uint8_t* p) noexcept nogil:
    cdef uint64_t w
    memcpy(&w, p, 8)
    return w


cdef inline uint64_t _load4(const uint8_t* p) noexcept nogil:
    cdef uint32_t w
    memcpy(&w, p, 4)
    return w


cdef inline uint64_t _hash_bytes(const uint8_t* p, Py_ssize_t n) noexcept nogil:
    """A 64-bit hash of ``n`` bytes at ``p``, reading only those bytes: the first and
    last 8 (or 4) bytes of a short value, overlapping, every 8 bytes of a longer one."""
    cdef uint64_t a, b, h = K0 ^ <uint64_t>n
    cdef Py_ssize_t i
    if n > 16:
        i = 0
        while i < n - 16:
            h = pqkit_mum(_load8(p + i) ^ K1, _load8(p + i + 8) ^ h)
            i += 16
        a = _load8(p + n - 16)
        b = _load8(p + n - 8)
    elif n >= 8:
        a = _load8(p)
        b = _load8(p + n - 8)
    elif n >= 4:
        a = _load4(p)
        b = _load4(p + n - 4)
    elif n > 0:
        a = (<uint64_t>p[0] << 16) | (<uint64_t>p[n >> 1] << 8) | p[n - 1]
        b = 0
    else:
        a = b = 0
    return pqkit_mum(K1 ^ <uint64_t>n, pqkit_mum(a ^ K1, b ^ h))


cdef inline bint _same_bytes(const uint8_t* a, const uint8_t* b, Py_ssize_t n) noexcept nogil:
    if n >= 8 and n <= 16:
        return _load8(a) == _load8(b) and _load8(a + n - 8) == _load8(b + n - 8)
    if n >= 4 and n < 8:
        return _load4(a) == _load4(b) and _load4(a + n - 4) == _load4(b + n - 4)
    return n == 0 or memcmp(a, b, n) == 0


cdef inline const uint8_t* _value(const uint8_t* data, const int64_t* offsets, Py_ssize_t width,
                                  Py_ssize_t i, Py_ssize_t* length) noexcept nogil:
    if offsets == NULL:
        length[0] = width
        return data + i * width
    length[0] = offsets[i + 1] - offsets[i]
    return data + offsets[i]


# ------------------------------------------------------------------ Python API

@cython.boundscheck(False)
@cython.wraparound(False)
def dictionary_encode(data, offsets, Py_ssize_t width, Py_ssize_t n, int64_t limit,
                      int64_t overhead=0):
    """Dictionary-encode ``n`` values until the dictionary would exceed ``limit`` bytes.

    Parameters
    ----------
    data : numpy.ndarray of uint8
        The value bytes: ``n * width`` bytes of fixed-width rows, or the data of
        Arrow binary values.
    offsets : numpy.ndarray of int64 or None
        ``n + 1`` offsets into ``data`` (binary values), or None for fixed width.
    width : int
        Bytes per fixed-width value (ignored with offsets).
    limit, overhead : int
        Dictionary size limit in bytes, and bytes counted per entry on top of
        its value bytes.

    Returns
    -------
    (indices int32[encoded], first int64[entries], encoded int)
        ``encoded`` < n when the limit stopped the encoding.
    """
    cdef const uint8_t[::1] d = np.ascontiguousarray(data, dtype=np.uint8).reshape(-1)
    cdef const int64_t[::1] o
    cdef const int64_t* op = NULL
    cdef Py_ssize_t i, bad = -1, done, entries = 0
    if n < 0 or width < 0:
        raise ValueError(f"invalid value count {n} or width {width}")
    if offsets is not None:
        o = np.ascontiguousarray(offsets, dtype=np.int64)
        if o.shape[0] != n + 1:
            raise ValueError(f"{o.shape[0]} offsets for {n} values")
        if n and (o[0] < 0 or o[n] > d.shape[0]):
            raise ValueError(f"offsets span {o[0]}..{o[n]}, outside {d.shape[0]} data bytes")
        with nogil:
            for i in range(n):
                if o[i + 1] < o[i]:
                    bad = i
                    break
        if bad >= 0:
            raise ValueError(f"offsets decrease at value {bad}")
        if n:
            op = &o[0]
    elif <int64_t>n * width > d.shape[0]:
        raise ValueError(f"{n} values of {width} bytes need {n * width} bytes, "
                         f"{d.shape[0]} given")
    indices = np.empty(max(n, 1), np.int32)
    cdef int32_t[::1] iv = indices
    cdef int64_t[::1] fv
    cdef Int64s firsts
    cdef const uint8_t* dp = &d[0] if d.shape[0] else NULL
    firsts.cap = 256
    firsts.data = <int64_t*>malloc(firsts.cap * sizeof(int64_t))
    if firsts.data == NULL:
        raise MemoryError("no memory for the dictionary's entries")
    # Safety: every value lies inside ``data`` (checked above); indices hold n entries.
    try:
        with nogil:
            if op == NULL and (width == 4 or width == 8):
                done = _encode_words(dp, width, n, limit, overhead, &iv[0], &firsts,
                                     &entries)
            else:
                done = _encode_bytes(dp, op, width, n, limit, overhead, &iv[0], &firsts,
                                     &entries)
        if done < 0:
            raise MemoryError("no memory for the dictionary's hash table")
        first = np.empty(entries, np.int64)
        if entries:
            fv = first
            memcpy(&fv[0], firsts.data, entries * sizeof(int64_t))
    finally:
        free(firsts.data)
    return indices[:done], first, done


cdef struct Int64s:
    # An int64 per entry, grown as entries come: a chunk of a million values with a
    # thousand distinct ones keeps a thousand, not a million.
    int64_t* data
    Py_ssize_t cap


cdef bint _put(Int64s* a, Py_ssize_t k, int64_t value) noexcept nogil:
    """a[k] = value for the next entry k (k <= cap), growing the buffer; False when out
    of memory."""
    cdef void* grown
    if k == a.cap:
        grown = realloc(a.data, 2 * a.cap * sizeof(int64_t))
        if grown == NULL:
            return False
        a.data = <int64_t*>grown
        a.cap *= 2
    a.data[k] = value
    return True


# ------------------------------------------------------------- byte strings

cdef inline uint64_t _home(uint64_t key, bint words, int shift) noexcept nogil:
    """The first slot to probe for ``key`` in a table of 2^(64 - shift) slots: the top
    bits of a byte string's hash, or of a word times 2^64 / golden ratio (Fibonacci
    hashing: the top bits of the product depend on every bit of the key)."""
    if words:
        key = (key ^ (key >> 32)) * FIB
    return key >> shift


cdef Slot* _new_table(Py_ssize_t size) noexcept nogil:
    cdef Slot* t = <Slot*>malloc(size * sizeof(Slot))
    cdef Py_ssize_t s
    if t != NULL:
        for s in range(size):
            t[s].entry = -1
    return t


cdef Slot* _grown(Slot* old, Py_ssize_t size, bint words, int shift) noexcept nogil:
    """A table of 4 * ``size`` slots (``shift`` = 64 - log2 of that) holding the entries
    of ``old``, which is freed; NULL when out of memory (``old`` freed too)."""
    cdef Slot* t = _new_table(4 * size)
    cdef uint64_t mask = 4 * size - 1, slot
    cdef Py_ssize_t s
    if t != NULL:
        for s in range(size):
            if old[s].entry >= 0:
                slot = _home(old[s].key, words, shift)
                while t[slot].entry >= 0:
                    slot = (slot + 1) & mask
                t[slot] = old[s]
    free(old)
    return t


cdef int64_t _grow_to_insert(Slot** table, Py_ssize_t* size, int* shift, uint64_t key,
                             bint words) noexcept nogil:
    """Grow ``table`` four-fold and return the empty slot where ``key`` goes (-1: out of
    memory, the table freed)."""
    cdef uint64_t slot
    shift[0] -= 2
    table[0] = _grown(table[0], size[0], words, shift[0])
    if table[0] == NULL:
        return -1
    size[0] *= 4
    slot = _home(key, words, shift[0])
    while table[0][slot].entry >= 0:
        slot = (slot + 1) & <uint64_t>(size[0] - 1)
    return slot


cdef struct EntryStore:
    # The bytes of every entry, one after another (entry k is bytes
    # ends[k - 1] .. ends[k]): probes compare against this small block rather than
    # against the values' scattered first occurrences.
    uint8_t* data
    Int64s ends
    int64_t data_cap


cdef bint _store_add(EntryStore* st, Py_ssize_t k, const uint8_t* v,
                     Py_ssize_t length) noexcept nogil:
    """Append entry k's bytes; False when out of memory."""
    cdef int64_t start = st.ends.data[k - 1] if k else 0
    cdef int64_t cap
    cdef void* grown
    if start + length > st.data_cap:
        cap = 2 * st.data_cap
        while start + length > cap:
            cap *= 2
        grown = realloc(st.data, cap)
        if grown == NULL:
            return False
        st.data = <uint8_t*>grown
        st.data_cap = cap
    if length:
        memcpy(st.data + start, v, length)
    return _put(&st.ends, k, start + length)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _encode_bytes(const uint8_t* data, const int64_t* offsets, Py_ssize_t width,
                              Py_ssize_t n, int64_t limit, int64_t overhead, int32_t* indices,
                              Int64s* first, Py_ssize_t* entries) noexcept nogil:
    """Encode values until the limit; returns how many (-1: out of memory).

    # Safety: dictionary_encode checked that every value lies inside ``data`` and
    # that ``indices`` holds n entries. Entry e's bytes are
    # store.data[ends[e - 1] .. ends[e]], kept inside data_cap by _store_add.
    """
    cdef Py_ssize_t size = FIRST_SIZE, i = 0, length, k = 0
    cdef int shift = 64 - FIRST_BITS
    cdef Slot* table = _new_table(size)
    cdef EntryStore store
    cdef uint64_t mask = size - 1, h, slot
    cdef int64_t used = 0, e, start
    cdef const uint8_t* v
    cdef bint failed = False
    store.data_cap = 4096
    store.ends.cap = 256
    store.data = <uint8_t*>malloc(store.data_cap)
    store.ends.data = <int64_t*>malloc(store.ends.cap * sizeof(int64_t))
    if table == NULL or store.data == NULL or store.ends.data == NULL:
        failed = True
        n = 0
    while i < n:
        v = _value(data, offsets, width, i, &length)
        h = _hash_bytes(v, length)
        slot = _home(h, False, shift)
        while True:
            e = table[slot].entry
            if e < 0:
                break
            if table[slot].key == h:
                start = store.ends.data[e - 1] if e else 0
                if store.ends.data[e] - start == length and \
                        _same_bytes(store.data + start, v, length):
                    break
            slot = (slot + 1) & mask
        if e < 0:
            if used + length + overhead > limit:
                break
            if 2 * (k + 1) > size:
                e = _grow_to_insert(&table, &size, &shift, h, False)
                if e < 0:
                    failed = True
                    break
                slot = e
                mask = size - 1
            if not _store_add(&store, k, v, length) or not _put(first, k, i):
                failed = True
                break
            table[slot].key = h
            table[slot].entry = k
            used += length + overhead
            e = k
            k += 1
        indices[i] = <int32_t>e
        i += 1
    free(table)
    free(store.data)
    free(store.ends.data)
    entries[0] = k
    return -1 if failed else i


# ------------------------------------------------------------ 4- and 8-byte values

cdef inline uint64_t _word(const uint8_t* data, Py_ssize_t width, Py_ssize_t i) noexcept nogil:
    if width == 8:
        return _load8(data + 8 * i)
    return _load4(data + 4 * i)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _encode_words(const uint8_t* data, Py_ssize_t width, Py_ssize_t n,
                              int64_t limit, int64_t overhead, int32_t* indices,
                              Int64s* first, Py_ssize_t* entries) noexcept nogil:
    """_encode_bytes for values of ``width`` (4 or 8) bytes, compared as words.

    # Safety: dictionary_encode checked that data holds n * width bytes; indices hold
    # n entries.
    """
    cdef Py_ssize_t size = FIRST_SIZE, i, k = 0
    cdef int shift = 64 - FIRST_BITS
    cdef Slot* table = _new_table(size)
    cdef uint64_t mask = size - 1, v, slot
    cdef int64_t used = 0, e
    if table == NULL:
        return -1
    for i in range(n):
        v = _word(data, width, i)
        slot = _home(v, True, shift)
        while True:
            e = table[slot].entry
            if e < 0 or table[slot].key == v:
                break
            slot = (slot + 1) & mask
        if e < 0:
            if used + width + overhead > limit:
                break
            if 2 * (k + 1) > size:
                e = _grow_to_insert(&table, &size, &shift, v, True)
                if e < 0:
                    return -1
                slot = e
                mask = size - 1
            if not _put(first, k, i):
                free(table)
                return -1
            table[slot].key = v
            table[slot].entry = k
            used += width + overhead
            e = k
            k += 1
        indices[i] = <int32_t>e
    else:
        i = n
    free(table)
    entries[0] = k
    return i
