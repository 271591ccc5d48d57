"""Fuzz level decoding and assembly: repetition and definition levels of a column
path (RLE/bit-packed hybrid, v1 length-prefixed or v2 raw, or legacy BIT_PACKED),
then ``pqkit.levels.assemble`` turning them into validity and offsets.

Input: byte 0 gives the path (2 bits per node: REQUIRED, OPTIONAL, REPEATED; 3 is
read as REQUIRED), byte 1 its depth (1-4, low 2 bits) and the level encoding (bits
2-3: v1, v2, BIT_PACKED), bytes 2-3 the entry count (at most 4095), byte 4 the
repetition section's length for v2, the rest the level bytes (repetition first).
Anything but a result or a :class:`pqkit.ParquetError` is a finding.

Usage: python tools/fuzz/fuzz_levels.py -max_total_time=20 [corpus dir ...]
"""

import atheris
import numpy as np
import seeds

with atheris.instrument_imports():
    import pqkit
    from pqkit.encodings.rle import decode_levels, decode_levels_bit_packed, encode_levels
    from pqkit.levels import assemble, expand_values, path_levels

V1, V2, BIT_PACKED = 0, 1, 2


def decode(mode, body, pos, max_level, count, v2_length):
    """(levels or None, next position)."""
    if not max_level:
        return None, pos
    if mode == BIT_PACKED:
        return decode_levels_bit_packed(body, pos, max_level, count)
    if mode == V2:
        levels, used = decode_levels(body, pos, max_level, count, prefixed=False,
                                     length=min(v2_length, len(body) - pos))
        return levels, pos + used
    levels, used = decode_levels(body, pos, max_level, count)
    return levels, pos + used


def test_one(data):
    if len(data) < 5:
        return
    depth = (data[1] & 3) + 1
    path = [(data[0] >> (2 * i) & 3) % 3 for i in range(depth)]
    mode = (data[1] >> 2 & 3) % 3
    count = int.from_bytes(data[2:4], "little") & 0xFFF
    body = data[5:]
    info = path_levels(path)
    try:
        reps, pos = decode(mode, body, 0, info.max_rep, count, data[4])
        defs, _ = decode(mode, body, pos, info.max_def, count, len(body))
        asm = assemble(defs, reps, path, count, where="fuzzed levels")
        expand_values(np.zeros(asm.num_values, np.int32), asm.value_mask)
    except pqkit.ParquetError:
        pass


def level_seeds():
    """Levels of a few paths, as the writer encodes them."""
    rng = np.random.default_rng(7)
    out = []
    for code, path in ((0b00, [0]), (0b01, [1]), (0b1001, [1, 2, 1]), (0b0110, [2, 1]),
                       (0b011001, [1, 2, 1, 0])):
        info = path_levels(path)
        n = 30
        reps = rng.integers(0, info.max_rep + 1, n).astype(np.int16) if info.max_rep else None
        if reps is not None:
            reps[0] = 0
        defs = rng.integers(0, info.max_def + 1, n).astype(np.int16) if info.max_def else None
        for mode, prefixed in ((V1, True), (V2, False)):
            r = encode_levels(reps, info.max_rep, prefixed=prefixed) if info.max_rep else b""
            d = encode_levels(defs, info.max_def, prefixed=prefixed) if info.max_def else b""
            head = bytes([code, (len(path) - 1) | mode << 2]) + n.to_bytes(2, "little")
            out.append(head + bytes([len(r) & 0xFF]) + r + d)
    return out


if __name__ == "__main__":
    seeds.fuzz("levels", test_one, seeds_of=level_seeds)
