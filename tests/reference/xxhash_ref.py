"""Slow pure-Python XXH64 and split-block bloom filter, the oracles for pqkit._native.hashing.

Written straight from the algorithm descriptions with Python integers masked
to 64 (or 32) bits, one step per line, so that a reader can check each step
against the xxHash and Parquet BloomFilter specifications.
"""
import struct

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1
P1 = 0x9E3779B185EBCA87
P2 = 0xC2B2AE3D27D4EB4F
P3 = 0x165667B19E3779F9
P4 = 0x85EBCA77C2B2AE63
P5 = 0x27D4EB2F165667C5
SALT = (0x47B6137B, 0x44974D91, 0x8824AD5B, 0xA2B7289D,
        0x705495C7, 0x2DF1424B, 0x9EFC4947, 0x5C6BFB31)


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def lane_round(acc, lane):
    acc = (acc + lane * P2) & M64
    acc = rotl(acc, 31)
    return (acc * P1) & M64


def merge_round(h, acc):
    h ^= lane_round(0, acc)
    return (h * P1 + P4) & M64


def xxh64(data, seed=0):
    """XXH64 of ``data`` (bytes) with a 64-bit ``seed``."""
    data = bytes(data)
    n = len(data)
    pos = 0
    if n >= 32:
        acc = [(seed + P1 + P2) & M64, (seed + P2) & M64, seed, (seed - P1) & M64]
        while n - pos >= 32:
            for i in range(4):
                (lane,) = struct.unpack_from("<Q", data, pos + 8 * i)
                acc[i] = lane_round(acc[i], lane)
            pos += 32
        h = (rotl(acc[0], 1) + rotl(acc[1], 7) + rotl(acc[2], 12) + rotl(acc[3], 18)) & M64
        for a in acc:
            h = merge_round(h, a)
    else:
        h = (seed + P5) & M64
    h = (h + n) & M64
    while n - pos >= 8:
        (lane,) = struct.unpack_from("<Q", data, pos)
        h ^= lane_round(0, lane)
        h = (rotl(h, 27) * P1 + P4) & M64
        pos += 8
    if n - pos >= 4:
        (word,) = struct.unpack_from("<I", data, pos)
        h ^= (word * P1) & M64
        h = (rotl(h, 23) * P2 + P3) & M64
        pos += 4
    while pos < n:
        h ^= (data[pos] * P5) & M64
        h = (rotl(h, 11) * P1) & M64
        pos += 1
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    h ^= h >> 32
    return h


def block_bits(h, num_blocks):
    """(block index, [bit of word j for j in 0..7]) selected by hash ``h``."""
    block = ((h >> 32) * num_blocks) >> 32
    key = h & M32
    return block, [((key * s) & M32) >> 27 for s in SALT]


def sbbf_insert(bitset, h):
    """Set the bits of ``h`` in ``bitset`` (a bytearray of 32-byte blocks)."""
    block, bits = block_bits(h, len(bitset) // 32)
    for j, bit in enumerate(bits):
        at = block * 32 + 4 * j
        (word,) = struct.unpack_from("<I", bitset, at)
        struct.pack_into("<I", bitset, at, word | (1 << bit))


def sbbf_check(bitset, h):
    """Whether every bit of ``h`` is set in ``bitset``."""
    block, bits = block_bits(h, len(bitset) // 32)
    for j, bit in enumerate(bits):
        (word,) = struct.unpack_from("<I", bitset, block * 32 + 4 * j)
        if not word >> bit & 1:
            return False
    return True
