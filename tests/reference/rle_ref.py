"""Slow pure-Python oracle for bit-packing and the RLE/bit-packed hybrid.

Written from the Parquet spec (Encodings.md), independently of the Cython
kernels: a bit stream is modelled as one Python integer.
"""


def uleb128(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def read_uleb128(data, pos):
    """Return (value, new_pos); raise ValueError on truncation or > 32 bits."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            break
        shift += 7
        if shift >= 35:
            raise ValueError("varint too long")
    if value >= 1 << 32:
        raise ValueError("varint above 32 bits")
    return value, pos


def unpack_lsb(data, width, count):
    """Value i is bits [i*w, i*w + w) of the little-endian integer of data."""
    stream = int.from_bytes(bytes(data), "little")
    mask = (1 << width) - 1
    return [(stream >> (i * width)) & mask for i in range(count)]


def pack_lsb(values, width):
    """Pack LSB-first into ceil(n * w / 8) bytes."""
    stream = 0
    for i, v in enumerate(values):
        stream |= int(v) << (i * width)
    return stream.to_bytes((len(values) * width + 7) // 8, "little")


def unpack_msb(data, width, count):
    """Legacy BIT_PACKED: value i is bits [i*w, i*w + w) of the big-endian stream."""
    nbits = len(data) * 8
    stream = int.from_bytes(bytes(data), "big")
    mask = (1 << width) - 1
    return [(stream >> (nbits - (i + 1) * width)) & mask for i in range(count)]


def pack_msb(values, width):
    nbytes = (len(values) * width + 7) // 8
    stream = 0
    for v in values:
        stream = (stream << width) | int(v)
    stream <<= nbytes * 8 - len(values) * width
    return stream.to_bytes(nbytes, "big")


def rle_run(value, run_len, width):
    return uleb128(run_len << 1) + int(value).to_bytes((width + 7) // 8, "little")


def packed_run(values, width):
    """One bit-packed run holding values, zero-padded to a multiple of 8."""
    groups = (len(values) + 7) // 8
    padded = list(values) + [0] * (groups * 8 - len(values))
    return uleb128(groups << 1 | 1) + pack_lsb(padded, width)


def decode_hybrid(data, width, count):
    """Decode count values; return (values, bytes consumed). ValueError on bad data."""
    if width == 0:
        return [0] * count, 0
    values, pos = [], 0
    while len(values) < count:
        header, pos = read_uleb128(data, pos)
        if header >> 1 == 0:
            raise ValueError("empty run")
        if header & 1 == 0:
            nbytes = (width + 7) // 8
            if pos + nbytes > len(data):
                raise ValueError("truncated RLE value")
            value = int.from_bytes(bytes(data[pos:pos + nbytes]), "little")
            if value >> width:
                raise ValueError("RLE value wider than the bit width")
            pos += nbytes
            values.extend([value] * min(header >> 1, count - len(values)))
        else:
            groups = header >> 1
            if groups * 8 > 2**31 - 1:
                raise ValueError("bit-packed run too long")
            take = min(groups * 8, count - len(values))
            need = (take * width + 7) // 8
            if pos + need > len(data):
                raise ValueError("truncated bit-packed run")
            values.extend(unpack_lsb(data[pos:pos + need], width, take))
            pos = min(pos + groups * width, len(data))
    return values, pos


def encoded_size_all_packed(count, width):
    """Size of the trivial encoding: one bit-packed run per 63 groups."""
    groups = (count + 7) // 8
    size = 0
    while groups:
        g = min(groups, 63)
        size += len(uleb128(g << 1 | 1)) + g * width
        groups -= g
    return size
