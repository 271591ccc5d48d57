# cython: language_level=3
"""XXH64, the split-block bloom filter (SBBF) kernels, and the page CRC-32.

XXH64 (64-bit xxHash) reads its input as little-endian 64-bit lanes:

* inputs of 32 bytes or more run four accumulators over 32-byte stripes
  (acc = rotl(acc + lane * P2, 31) * P1), then fold them into one value;
  shorter inputs start from seed + P5;
* the length is added, and the tail is mixed in 8, then 4, then 1 byte(s)
  at a time;
* a final avalanche (xor-shift 33, * P2, xor-shift 29, * P3, xor-shift 32)
  spreads every input bit over the result.

For example xxh64(b"") == 0xEF46DB3751D8E999 (seed 0): only the avalanche of
P5 remains.

A split-block bloom filter is z blocks of 32 bytes, each block eight
little-endian uint32 words. A 64-bit hash h selects block
((h >> 32) * z) >> 32 and, with key = h & 0xFFFFFFFF, bit
(key * SALT[j]) >> 27 (uint32 arithmetic) of word j, for j = 0..7. Inserting
sets those eight bits, checking tests them. Because the words are
little-endian, bit k of word j is bit k & 7 of byte 4 * j + (k >> 3) of the
block, so the kernels work on bytes and need no byte swapping on any host.
For example, with z = 1 and h = 1 the key is 1 and word 0 gets bit
0x47b6137b >> 27 = 8, that is bit 0 of byte 1.
"""
cimport cython
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int64_t

import sys

import numpy as np

cdef enum:
    STRIPE = 32
    BLOCK_BYTES = 32

cdef uint64_t P1 = 0x9E3779B185EBCA87ULL
cdef uint64_t P2 = 0xC2B2AE3D27D4EB4FULL
cdef uint64_t P3 = 0x165667B19E3779F9ULL
cdef uint64_t P4 = 0x85EBCA77C2B2AE63ULL
cdef uint64_t P5 = 0x27D4EB2F165667C5ULL

cdef uint32_t SALT[8]
SALT[:] = [0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d,
           0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31]


cdef inline uint64_t rotl64(uint64_t x, int r) noexcept nogil:
    return (x << r) | (x >> (64 - r))


cdef inline uint64_t le64(const uint8_t* p) noexcept nogil:
    return (<uint64_t>p[0] | (<uint64_t>p[1] << 8) | (<uint64_t>p[2] << 16) |
            (<uint64_t>p[3] << 24) | (<uint64_t>p[4] << 32) | (<uint64_t>p[5] << 40) |
            (<uint64_t>p[6] << 48) | (<uint64_t>p[7] << 56))


cdef inline uint64_t le32(const uint8_t* p) noexcept nogil:
    return (<uint64_t>p[0] | (<uint64_t>p[1] << 8) | (<uint64_t>p[2] << 16) |
            (<uint64_t>p[3] << 24))


cdef inline uint64_t xxh_round(uint64_t acc, uint64_t lane) noexcept nogil:
    acc = acc + lane * P2
    return rotl64(acc, 31) * P1


cdef inline uint64_t xxh_merge(uint64_t h, uint64_t acc) noexcept nogil:
    h = h ^ xxh_round(0, acc)
    return h * P1 + P4


cdef uint64_t xxh64_ptr(const uint8_t* p, Py_ssize_t n, uint64_t seed) noexcept nogil:
    # Safety: the caller guarantees p[0:n] is readable; every read below is at
    # an index < n (stripes while 32 remain, lanes while 8 or 4 remain).
    cdef const uint8_t* end = p + n
    cdef uint64_t h, v1, v2, v3, v4
    if n >= STRIPE:
        v1 = seed + P1 + P2
        v2 = seed + P2
        v3 = seed
        v4 = seed - P1
        while end - p >= STRIPE:
            v1 = xxh_round(v1, le64(p))
            v2 = xxh_round(v2, le64(p + 8))
            v3 = xxh_round(v3, le64(p + 16))
            v4 = xxh_round(v4, le64(p + 24))
            p += STRIPE
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18)
        h = xxh_merge(h, v1)
        h = xxh_merge(h, v2)
        h = xxh_merge(h, v3)
        h = xxh_merge(h, v4)
    else:
        h = seed + P5
    h = h + <uint64_t>n
    while end - p >= 8:
        h = h ^ xxh_round(0, le64(p))
        h = rotl64(h, 27) * P1 + P4
        p += 8
    if end - p >= 4:
        h = h ^ (le32(p) * P1)
        h = rotl64(h, 23) * P2 + P3
        p += 4
    while p < end:
        h = h ^ (<uint64_t>p[0] * P5)
        h = rotl64(h, 11) * P1
        p += 1
    h = h ^ (h >> 33)
    h = h * P2
    h = h ^ (h >> 29)
    h = h * P3
    return h ^ (h >> 32)


cdef object _byte_view(object data):
    """A 1-D unsigned-byte memoryview of any C-contiguous buffer."""
    mv = memoryview(data)
    if mv.format != "B" or mv.ndim != 1:
        mv = mv.cast("B")
    return mv


def xxh64(data, uint64_t seed=0):
    """XXH64 of a bytes-like object.

    Parameters
    ----------
    data : bytes-like
        Any C-contiguous buffer; its raw bytes are hashed.
    seed : int, default 0
        Unsigned 64-bit seed (Parquet bloom filters use 0).

    Returns
    -------
    int
        The hash, in [0, 2**64).
    """
    cdef const uint8_t[::1] view = _byte_view(data)
    cdef const uint8_t* p = &view[0] if view.shape[0] else NULL
    cdef uint64_t h
    with nogil:
        h = xxh64_ptr(p, view.shape[0], seed)
    return h


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _hash_fixed(const uint8_t[::1] data, Py_ssize_t width, Py_ssize_t count,
                      uint64_t seed, uint64_t[::1] out) noexcept nogil:
    # Safety: the caller checked data.shape[0] == width * count and
    # out.shape[0] == count, so value i is data[i * width : (i + 1) * width].
    cdef Py_ssize_t i
    cdef const uint8_t* base = &data[0] if data.shape[0] else NULL
    for i in range(count):
        out[i] = xxh64_ptr(base + i * width, width, seed)


def xxh64_fixed(values, uint64_t seed=0):
    """XXH64 of each value of a fixed-width array, as its PLAIN bytes.

    Parameters
    ----------
    values : numpy.ndarray
        1-D array of a fixed-width dtype (ints, floats, ``S<n>``/``V<n>``),
        each element hashed as its little-endian bytes; or a 2-D uint8 array
        of shape (count, width), one value per row (INT96, FIXED_LEN_BYTE_ARRAY).
    seed : int, default 0

    Returns
    -------
    numpy.ndarray
        uint64 hashes, one per value.
    """
    cdef Py_ssize_t count, width
    arr = np.asarray(values)
    if arr.dtype.hasobject:
        raise TypeError(f"cannot hash an array of dtype {arr.dtype}: not fixed-width")
    if arr.ndim == 2 and arr.dtype == np.uint8:
        count, width = arr.shape
    elif arr.ndim == 1:
        count, width = arr.shape[0], arr.dtype.itemsize
        if arr.dtype.byteorder == ">" or (arr.dtype.byteorder == "=" and sys.byteorder == "big"):
            arr = arr.astype(arr.dtype.newbyteorder("<"))
    else:
        raise ValueError(f"expected a 1-D array or a 2-D uint8 array, got shape {arr.shape}")
    flat = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    out = np.empty(count, dtype=np.uint64)
    if flat.shape[0] != count * width:
        raise ValueError(f"{flat.shape[0]} bytes do not hold {count} values of {width} bytes")
    cdef uint64_t[::1] out_view = out
    cdef const uint8_t[::1] data = flat
    with nogil:
        _hash_fixed(data, width, count, seed, out_view)
    return out


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _hash_ranges(const int64_t[::1] offsets, const uint8_t[::1] data, uint64_t seed,
                       uint64_t[::1] out) noexcept nogil:
    # Safety: the caller checked 0 <= offsets[0] <= offsets[1] <= ... <=
    # offsets[-1] <= data.shape[0] and out.shape[0] == offsets.shape[0] - 1.
    cdef Py_ssize_t i
    cdef const uint8_t* base = &data[0] if data.shape[0] else NULL
    for i in range(out.shape[0]):
        out[i] = xxh64_ptr(base + offsets[i], offsets[i + 1] - offsets[i], seed)


@cython.boundscheck(False)
@cython.wraparound(False)
cdef Py_ssize_t _bad_offset(const int64_t[::1] offsets, int64_t size) noexcept nogil:
    """Index of the first offset out of order or outside [0, size], or -1."""
    cdef Py_ssize_t i
    cdef int64_t prev = 0
    for i in range(offsets.shape[0]):
        if offsets[i] < prev or offsets[i] > size:
            return i
        prev = offsets[i]
    return -1


def xxh64_byte_arrays(offsets, data, uint64_t seed=0):
    """XXH64 of each value of a binary column (Arrow layout), without length prefixes.

    Parameters
    ----------
    offsets : numpy.ndarray
        int64 offsets, count + 1 entries, non-decreasing, within ``data``.
    data : bytes-like
        The concatenated values.
    seed : int, default 0

    Returns
    -------
    numpy.ndarray
        uint64 hashes, one per value.
    """
    cdef const int64_t[::1] offs = np.ascontiguousarray(offsets, dtype=np.int64)
    cdef const uint8_t[::1] buf = _byte_view(data)
    cdef Py_ssize_t bad
    count = max(offs.shape[0] - 1, 0)
    out = np.empty(count, dtype=np.uint64)
    if count == 0:
        return out
    with nogil:
        bad = _bad_offset(offs, buf.shape[0])
    if bad >= 0:
        raise ValueError(f"offset {offs[bad]} at index {bad} is out of order or outside "
                         f"the {buf.shape[0]} data bytes")
    cdef uint64_t[::1] out_view = out
    with nogil:
        _hash_ranges(offs, buf, seed, out_view)
    return out


cdef void sbbf_insert_ptr(uint8_t* bitset, uint64_t num_blocks, uint64_t h) noexcept nogil:
    # Safety: the caller guarantees bitset holds num_blocks * 32 bytes and
    # num_blocks <= 2**32, so the block index is < num_blocks and the
    # product below cannot overflow; bit >> 3 < 4 keeps each byte in its word.
    cdef uint8_t* block = bitset + ((h >> 32) * num_blocks >> 32) * BLOCK_BYTES
    cdef uint32_t key = <uint32_t>h
    cdef uint32_t bit
    cdef int j
    for j in range(8):
        bit = <uint32_t>(key * SALT[j]) >> 27
        block[4 * j + (bit >> 3)] |= <uint8_t>(1 << (bit & 7))


cdef bint sbbf_check_ptr(const uint8_t* bitset, uint64_t num_blocks, uint64_t h) noexcept nogil:
    # Safety: as in sbbf_insert_ptr.
    cdef const uint8_t* block = bitset + ((h >> 32) * num_blocks >> 32) * BLOCK_BYTES
    cdef uint32_t key = <uint32_t>h
    cdef uint32_t bit
    cdef uint32_t found = 1
    cdef int j
    for j in range(8):  # branch-free: an early exit mispredicts half the time
        bit = <uint32_t>(key * SALT[j]) >> 27
        found &= block[4 * j + (bit >> 3)] >> (bit & 7)
    return found & 1


cdef uint64_t _num_blocks(Py_ssize_t size) except 0:
    if size <= 0 or size % BLOCK_BYTES or <uint64_t>size // BLOCK_BYTES > (<uint64_t>1 << 32):
        raise ValueError(f"a bloom filter bitset needs a positive multiple of 32 bytes "
                         f"(at most 2**37), got {size}")
    return size // BLOCK_BYTES


@cython.boundscheck(False)
@cython.wraparound(False)
def sbbf_insert(uint8_t[::1] bitset, hashes):
    """Set the bits of each uint64 hash in ``hashes`` in the writable ``bitset``."""
    cdef uint64_t z = _num_blocks(bitset.shape[0])
    cdef const uint64_t[::1] hv = np.ascontiguousarray(hashes, dtype=np.uint64).reshape(-1)
    cdef Py_ssize_t i
    with nogil:
        for i in range(hv.shape[0]):
            sbbf_insert_ptr(&bitset[0], z, hv[i])


@cython.boundscheck(False)
@cython.wraparound(False)
def sbbf_check(const uint8_t[::1] bitset, hashes):
    """Bool array: whether all bits of each uint64 hash are set in ``bitset``."""
    cdef uint64_t z = _num_blocks(bitset.shape[0])
    cdef const uint64_t[::1] hv = np.ascontiguousarray(hashes, dtype=np.uint64).reshape(-1)
    out = np.empty(hv.shape[0], dtype=np.uint8)
    cdef uint8_t[::1] ov = out
    cdef Py_ssize_t i
    with nogil:
        for i in range(hv.shape[0]):
            ov[i] = sbbf_check_ptr(&bitset[0], z, hv[i])
    return out.view(np.bool_)


def sbbf_insert_one(uint8_t[::1] bitset, uint64_t h):
    """Set the bits of one hash in the writable ``bitset``."""
    cdef uint64_t z = _num_blocks(bitset.shape[0])
    sbbf_insert_ptr(&bitset[0], z, h)


def sbbf_check_one(const uint8_t[::1] bitset, uint64_t h):
    """Whether all bits of one hash are set in ``bitset``."""
    cdef uint64_t z = _num_blocks(bitset.shape[0])
    return sbbf_check_ptr(&bitset[0], z, h)


# ------------------------------------------------------------------ CRC-32
#
# The page checksum is zlib's CRC-32 (reflected polynomial 0xEDB88320). On x86-64
# CPUs with carry-less multiply it runs by folding: four 16-byte lanes advance
# 64 bytes at a time, each lane L (bits as polynomial coefficients, first byte
# highest) replaced by lo(L) * K(543) xor hi(L) * K(479) xor the next 16 bytes,
# where K(e) is x^e mod P bit-reflected to 32 bits, which keeps the remainder of
# everything read so far unchanged; the lanes are then folded into one with K(159)
# and K(95) (a 16-byte step), and the last 16 bytes and the tail go through the
# byte table. CPUs with 256-bit carry-less multiply (VPCLMULQDQ and AVX2) first run
# eight lanes in four 32-byte registers, 128 bytes at a time with K(1055) and
# K(991), over inputs of 256 bytes or more (about twice as fast). Other CPUs use
# the byte table throughout. crc32_copy runs the same kernels, storing each block
# it loads into a second buffer.

cdef extern from *:
    """
    #include <stdint.h>
    #include <stddef.h>
    #include <string.h>
    static uint32_t pqkit_crc_table[256];
    static int pqkit_crc_fast = 0;

    static uint32_t pqkit_crc_bytes(uint32_t state, const uint8_t* p, size_t n) {
        while (n--) state = pqkit_crc_table[(state ^ *p++) & 0xFF] ^ (state >> 8);
        return state;
    }

    #if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    #include <cpuid.h>
    #include <immintrin.h>
    #define PQKIT_FOLD_TARGET __attribute__((target("pclmul,sse2")))
    #define PQKIT_WIDE_TARGET __attribute__((target("vpclmulqdq,avx2,pclmul,sse2")))

    PQKIT_FOLD_TARGET static inline __m128i pqkit_fold(__m128i lane, __m128i k, __m128i next) {
        __m128i lo = _mm_clmulepi64_si128(lane, k, 0x00);
        __m128i hi = _mm_clmulepi64_si128(lane, k, 0x11);
        return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
    }

    /* With dst != NULL every block is also stored there as it is loaded (a copy in the
       same pass); dst then advances with p. */
    PQKIT_FOLD_TARGET static inline __m128i pqkit_load_copy(const uint8_t* src, uint8_t* d) {
        __m128i v = _mm_loadu_si128((const __m128i*)src);
        if (d) _mm_storeu_si128((__m128i*)d, v);
        return v;
    }
    #define PQKIT_AT(i) (dst ? dst + (i) : NULL)
    /* One step of four lanes of w bytes each: fold each lane over the next 4 * w bytes. */
    #define PQKIT_FOLD_LANES(a, b, c, d, fold, load, k, w) \
        a = fold(a, k, load(p, PQKIT_AT(0))); \
        b = fold(b, k, load(p + (w), PQKIT_AT(w))); \
        c = fold(c, k, load(p + 2 * (w), PQKIT_AT(2 * (w)))); \
        d = fold(d, k, load(p + 3 * (w), PQKIT_AT(3 * (w)))); \
        p += 4 * (w); \
        n -= 4 * (w); \
        if (dst) dst += 4 * (w);

    /* Four lanes x0..x3 hold the 64 bytes before p, not yet folded: fold the remaining
       n bytes into them, reduce them to one lane and finish with the byte table. */
    PQKIT_FOLD_TARGET static uint32_t pqkit_crc_finish(__m128i x0, __m128i x1, __m128i x2,
                                                       __m128i x3, const uint8_t* p, size_t n,
                                                       uint8_t* dst) {
        const __m128i k64 = _mm_set_epi64x(0x1d9513d7, 0x8f352d95);   /* K(479), K(543) */
        const __m128i k16 = _mm_set_epi64x(0xccaa009e, 0xae689191);   /* K(95), K(159) */
        uint8_t last[16];
        while (n >= 64) {
            PQKIT_FOLD_LANES(x0, x1, x2, x3, pqkit_fold, pqkit_load_copy, k64, 16)
        }
        x0 = pqkit_fold(x0, k16, x1);
        x0 = pqkit_fold(x0, k16, x2);
        x0 = pqkit_fold(x0, k16, x3);
        while (n >= 16) {
            x0 = pqkit_fold(x0, k16, pqkit_load_copy(p, PQKIT_AT(0)));
            p += 16;
            n -= 16;
            if (dst) dst += 16;
        }
        if (dst && n) memcpy(dst, p, n);
        _mm_storeu_si128((__m128i*)last, x0);
        return pqkit_crc_bytes(pqkit_crc_bytes(0, last, 16), p, n);
    }

    /* n >= 64; state is the raw (not inverted) CRC register. */
    PQKIT_FOLD_TARGET static uint32_t pqkit_crc_fold(uint32_t state, const uint8_t* p,
                                                     size_t n, uint8_t* dst) {
        __m128i x0 = pqkit_load_copy(p, PQKIT_AT(0));
        __m128i x1 = pqkit_load_copy(p + 16, PQKIT_AT(16));
        __m128i x2 = pqkit_load_copy(p + 32, PQKIT_AT(32));
        __m128i x3 = pqkit_load_copy(p + 48, PQKIT_AT(48));
        x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)state));
        return pqkit_crc_finish(x0, x1, x2, x3, p + 64, n - 64, dst ? dst + 64 : NULL);
    }

    PQKIT_WIDE_TARGET static inline __m256i pqkit_fold256(__m256i lane, __m256i k, __m256i next) {
        __m256i lo = _mm256_clmulepi64_epi128(lane, k, 0x00);
        __m256i hi = _mm256_clmulepi64_epi128(lane, k, 0x11);
        return _mm256_xor_si256(_mm256_xor_si256(lo, hi), next);
    }

    PQKIT_WIDE_TARGET static inline __m256i pqkit_load_copy256(const uint8_t* src, uint8_t* d) {
        __m256i v = _mm256_loadu_si256((const __m256i*)src);
        if (d) _mm256_storeu_si256((__m256i*)d, v);
        return v;
    }

    /* n >= 256. Eight 16-byte lanes in four 32-byte registers advance 128 bytes at a
       time (K(1055), K(991): the same fold over twice the distance); the lanes are then
       folded pairwise 64 bytes forward into the four lanes of pqkit_crc_finish. */
    PQKIT_WIDE_TARGET static uint32_t pqkit_crc_fold_wide(uint32_t state, const uint8_t* p,
                                                          size_t n, uint8_t* dst) {
        const __m256i k128 = _mm256_set_epi64x(0x910eeec1, 0x33fff533,
                                               0x910eeec1, 0x33fff533); /* K(991), K(1055) */
        const __m128i k64 = _mm_set_epi64x(0x1d9513d7, 0x8f352d95);    /* K(479), K(543) */
        __m256i y0 = pqkit_load_copy256(p, PQKIT_AT(0));
        __m256i y1 = pqkit_load_copy256(p + 32, PQKIT_AT(32));
        __m256i y2 = pqkit_load_copy256(p + 64, PQKIT_AT(64));
        __m256i y3 = pqkit_load_copy256(p + 96, PQKIT_AT(96));
        y0 = _mm256_xor_si256(y0, _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)state));
        p += 128;
        n -= 128;
        if (dst) dst += 128;
        while (n >= 128) {
            PQKIT_FOLD_LANES(y0, y1, y2, y3, pqkit_fold256, pqkit_load_copy256, k128, 32)
        }
        /* Lanes in byte order: y0 = (a0, a1), y1 = (a2, a3), y2 = (a4, a5), y3 = (a6, a7). */
        __m128i x0 = pqkit_fold(_mm256_castsi256_si128(y0), k64, _mm256_castsi256_si128(y2));
        __m128i x1 = pqkit_fold(_mm256_extracti128_si256(y0, 1), k64,
                                _mm256_extracti128_si256(y2, 1));
        __m128i x2 = pqkit_fold(_mm256_castsi256_si128(y1), k64, _mm256_castsi256_si128(y3));
        __m128i x3 = pqkit_fold(_mm256_extracti128_si256(y1, 1), k64,
                                _mm256_extracti128_si256(y3, 1));
        return pqkit_crc_finish(x0, x1, x2, x3, p, n, dst);
    }

    static int pqkit_crc_detect(void) {
        unsigned int a, b, c, d, xcr0_lo, xcr0_hi;
        if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
        if (!((c & bit_PCLMUL) && (d & bit_SSE2))) return 0;
        /* The wide kernel needs AVX2 and VPCLMULQDQ, and the OS saving YMM state. */
        if (!(c & bit_OSXSAVE) || !__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 1;
        if (!((b & bit_AVX2) && (c & (1u << 10)))) return 1;
        __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
        return (xcr0_lo & 6) == 6 ? 2 : 1;
    }
    #else
    static uint32_t pqkit_crc_fold(uint32_t state, const uint8_t* p, size_t n, uint8_t* dst) {
        if (dst) memcpy(dst, p, n);
        return pqkit_crc_bytes(state, p, n);
    }
    static uint32_t pqkit_crc_fold_wide(uint32_t state, const uint8_t* p, size_t n,
                                        uint8_t* dst) {
        return pqkit_crc_fold(state, p, n, dst);
    }
    static int pqkit_crc_detect(void) { return 0; }
    #endif

    static int pqkit_crc_detected = 0;

    static void pqkit_crc_setup(void) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = (c >> 1) ^ ((c & 1) ? 0xEDB88320u : 0);
            pqkit_crc_table[i] = c;
        }
        pqkit_crc_fast = pqkit_crc_detected = pqkit_crc_detect();
    }

    /* dst: NULL, or n writable bytes not overlapping p that receive a copy of p. */
    static uint32_t pqkit_crc32(uint32_t crc, const uint8_t* p, size_t n, uint8_t* dst) {
        uint32_t state = ~crc;
        if (pqkit_crc_fast >= 2 && n >= 256) return ~pqkit_crc_fold_wide(state, p, n, dst);
        if (pqkit_crc_fast && n >= 64) return ~pqkit_crc_fold(state, p, n, dst);
        if (dst && n) memcpy(dst, p, n);
        return ~pqkit_crc_bytes(state, p, n);
    }
    """
    void pqkit_crc_setup() nogil
    uint32_t pqkit_crc32(uint32_t crc, const uint8_t* p, size_t n, uint8_t* dst) nogil
    int pqkit_crc_fast
    int pqkit_crc_detected


pqkit_crc_setup()


def crc32(data, uint32_t value=0):
    """CRC-32 of a bytes-like object, continuing from ``value``: ``zlib.crc32``'s result
    (an unsigned int), several times faster on CPUs with carry-less multiply."""
    cdef const uint8_t[::1] view = _byte_view(data)
    cdef Py_ssize_t n = view.shape[0]
    cdef uint32_t out
    if n == 0:
        return value
    with nogil:
        out = pqkit_crc32(value, &view[0], <size_t>n, NULL)
    return out


def crc32_copy(data, out, uint32_t value=0):
    """``crc32(data, value)``, copying ``data`` into the start of ``out`` in the same pass
    (one read of the bytes instead of two). ``out`` must be writable, hold at least
    ``len(data)`` bytes and not overlap ``data``."""
    cdef const uint8_t[::1] src = _byte_view(data)
    cdef uint8_t[::1] dst = _byte_view(out)
    cdef Py_ssize_t n = src.shape[0]
    cdef uint32_t crc
    if dst.shape[0] < n:
        raise ValueError(f"out holds {dst.shape[0]} bytes, data has {n}")
    if n == 0:
        return value
    if &dst[0] < &src[0] + n and &src[0] < &dst[0] + n:
        raise ValueError("out overlaps data")
    with nogil:
        crc = pqkit_crc32(value, &src[0], <size_t>n, &dst[0])
    return crc


def crc32_accelerated():
    """Whether crc32 uses a carry-less-multiply kernel on this CPU."""
    return bool(pqkit_crc_fast)


def crc32_kernel():
    """The CRC-32 kernel this CPU runs for long inputs: ``"vpclmulqdq"`` (256-bit
    carry-less multiply), ``"pclmul"`` (128-bit) or ``"table"`` (a byte at a time)."""
    return _KERNELS[pqkit_crc_fast]


_KERNELS = ("table", "pclmul", "vpclmulqdq")


def _use_kernel(name=None):
    """Tests only: run ``name`` (one this CPU has) instead of the fastest kernel; None
    restores the fastest. Not thread-safe against concurrent CRC calls."""
    global pqkit_crc_fast
    level = pqkit_crc_detected if name is None else _KERNELS.index(name)
    if level > pqkit_crc_detected:
        raise ValueError(f"this CPU has no {name} kernel")
    pqkit_crc_fast = level
