"""Slow pure-Python oracle for BYTE_STREAM_SPLIT, written from Encodings.md.

Byte i of value j lives at position i * count + j of the encoded bytes.
"""


def decode_bss(data, count, width):
    """Return the ``count * width`` value bytes in value order."""
    if len(data) < count * width:
        raise ValueError("not enough bytes")
    streams = [data[i * count:(i + 1) * count] for i in range(width)]
    return bytes(streams[i][j] for j in range(count) for i in range(width))


def encode_bss(raw, width):
    """Split ``raw`` (values of ``width`` bytes, in order) into byte streams."""
    if len(raw) % width:
        raise ValueError("length is not a multiple of width")
    return b"".join(bytes(raw[i::width]) for i in range(width))
