"""Slow pure-Python oracle for PLAIN, written from the spec (Encodings.md)."""
import struct

FORMATS = {"INT32": "<i", "INT64": "<q", "FLOAT": "<f", "DOUBLE": "<d"}


def encode_booleans(values):
    out = bytearray((len(values) + 7) // 8)
    for i, v in enumerate(values):
        if v:
            out[i // 8] |= 1 << (i % 8)
    return bytes(out)


def decode_booleans(data, count):
    if (count + 7) // 8 > len(data):
        raise ValueError("too few bytes")
    return [bool(data[i // 8] >> (i % 8) & 1) for i in range(count)]


def encode_fixed(kind, values):
    return b"".join(struct.pack(FORMATS[kind], v) for v in values)


def decode_fixed(kind, data, count):
    size = struct.calcsize(FORMATS[kind])
    if count * size > len(data):
        raise ValueError("too few bytes")
    return [struct.unpack_from(FORMATS[kind], data, i * size)[0] for i in range(count)]


def encode_byte_array(values):
    return b"".join(struct.pack("<I", len(v)) + bytes(v) for v in values)


def decode_byte_array(data, count):
    """Return (list of bytes, consumed); ValueError when a value runs past the end."""
    values, pos = [], 0
    for _ in range(count):
        if pos + 4 > len(data):
            raise ValueError("truncated length")
        (n,) = struct.unpack_from("<I", data, pos)
        pos += 4
        if pos + n > len(data):
            raise ValueError("value runs past the end")
        values.append(bytes(data[pos:pos + n]))
        pos += n
    return values, pos
