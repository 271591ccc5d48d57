# cython: language_level=3
"""The most bytes a run of zstd frames can decompress to, from their headers.

python-zstandard's stream reader takes the end of its input for the end of the
data, so a page whose frames are cut short or claim more than they hold must be
caught before decompression. This walks the frames (RFC 8878): a skippable
frame is skipped whole; a zstd frame's header gives its content size when
present, and its blocks bound it otherwise (a raw or compressed block
regenerates at most its size or 128 KiB, an RLE block its size from one byte).

>>> zstd_frames_bound(bytes.fromhex("28b52ffd2005" "2b0000" "61"))   # RLE "aaaaa"
5
"""
cimport cython
from libc.stdint cimport uint8_t, uint32_t, uint64_t

cdef enum:
    ZSTD_MAGIC = 0xFD2FB528
    ZSTD_SKIPPABLE = 0x184D2A50       # skippable frames use magics 0x184D2A50..5F
    BLOCK_MAX = 128 * 1024


cdef inline uint32_t _le32(const uint8_t* p) noexcept nogil:
    return p[0] | (<uint32_t>p[1] << 8) | (<uint32_t>p[2] << 16) | (<uint32_t>p[3] << 24)


@cython.boundscheck(False)
@cython.wraparound(False)
def zstd_frames_bound(const uint8_t[::1] src):
    """The most bytes the frames of ``src`` can decompress to.

    Raises
    ------
    ValueError
        A truncated or malformed frame, naming its byte position.
    """
    cdef Py_ssize_t end = src.shape[0], pos = 0, frame_end, payload
    cdef uint64_t bound = 0, frame_bound, fcs, length
    cdef uint32_t magic, word, kind, block_size
    cdef int fhd, single, fcs_len, header, k
    cdef bint has_fcs
    cdef const uint8_t* s = &src[0] if end else NULL
    while pos < end:
        if end - pos < 4:
            raise ValueError(f"truncated zstd frame at byte {pos} of {end}")
        magic = _le32(s + pos)
        if magic & 0xFFFFFFF0 == ZSTD_SKIPPABLE:
            if end - pos < 8:
                raise ValueError(f"truncated zstd skippable frame at byte {pos} of {end}")
            length = _le32(s + pos + 4)
            pos += 8
            if <uint64_t>(end - pos) < length:
                raise ValueError(f"truncated zstd skippable frame at byte {pos} of {end}")
            pos += <Py_ssize_t>length
            continue
        if magic != ZSTD_MAGIC:
            raise ValueError(f"no zstd frame at byte {pos} (magic {magic:#010x})")
        if end - pos < 5:
            raise ValueError(f"truncated zstd frame header at byte {pos} of {end}")
        fhd = s[pos + 4]
        single = fhd >> 5 & 1
        fcs_len = single if fhd >> 6 == 0 else 1 << (fhd >> 6)          # 0/1, 2, 4, 8
        header = 1 + (1 - single) + (0 if fhd & 3 == 0 else 1 << ((fhd & 3) - 1)) + fcs_len
        if end - pos < 4 + header:
            raise ValueError(f"truncated zstd frame header at byte {pos} of {end}")
        frame_end = pos + 4 + header
        has_fcs = fcs_len > 0
        fcs = 0
        for k in range(fcs_len):
            fcs |= (<uint64_t>s[frame_end - fcs_len + k]) << (8 * k)
        if fcs_len == 2:
            fcs += 256
        pos = frame_end
        frame_bound = 0
        while True:
            if end - pos < 3:
                raise ValueError(f"truncated zstd block header at byte {pos} of {end}")
            word = s[pos] | (<uint32_t>s[pos + 1] << 8) | (<uint32_t>s[pos + 2] << 16)
            kind = word >> 1 & 3
            block_size = word >> 3
            pos += 3
            if kind == 3:
                raise ValueError(f"reserved zstd block type at byte {pos - 3}")
            payload = 1 if kind == 1 else block_size
            if end - pos < payload:
                raise ValueError(f"truncated zstd block at byte {pos} of {end}")
            pos += payload
            frame_bound += BLOCK_MAX if kind == 2 else block_size
            if word & 1:
                break
        if fhd & 4:
            if end - pos < 4:
                raise ValueError(f"truncated zstd frame checksum at byte {pos} of {end}")
            pos += 4
        bound += frame_bound if not has_fcs or frame_bound < fcs else fcs
    return bound
