"""Slow pure-Python oracles for the delta encodings, written from Encodings.md.

Values are plain Python ints and bytes. A miniblock is read as one
little-endian integer and sliced into fields of ``width`` bits, lowest bits
first, which is what LSB-first bit-packing means. Arithmetic is done on
unbounded ints and reduced modulo 2**bits at the end of each step, the
two's-complement wrap that PARQUET-2215 asks for.

Malformed input raises ``ValueError``; the oracle does not try to match the
kernels' messages, only their acceptance.
"""


def _uvarint(data, pos):
    value, shift = 0, 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
        if shift >= 70:
            raise ValueError("varint too long")
    if value >= 1 << 64:
        raise ValueError("varint overflows 64 bits")
    return value, pos


def _unzigzag(u):
    return (u >> 1) ^ -(u & 1)


def _zigzag(v):
    return (v << 1) if v >= 0 else ((-v) << 1) - 1


def _signed(v, bits):
    v %= 1 << bits
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


def _put_uvarint(out, v):
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)


def decode_dbp(data, pos=0, bits=64, max_count=None):
    """Decode a DELTA_BINARY_PACKED run at ``data[pos:]``; return (values, end)."""
    block, pos = _uvarint(data, pos)
    minis, pos = _uvarint(data, pos)
    count, pos = _uvarint(data, pos)
    first, pos = _uvarint(data, pos)
    if block == 0 or block % 128 or block >= 1 << 31:
        raise ValueError(f"bad block size {block}")
    if minis == 0 or block % minis or (block // minis) % 8:
        raise ValueError(f"bad miniblock count {minis}")
    if max_count is not None and count > max_count:
        raise ValueError(f"count {count} > {max_count}")
    per_mini = block // minis
    values = [] if count == 0 else [_signed(_unzigzag(first), bits)]
    while len(values) < count:
        min_delta, pos = _uvarint(data, pos)
        min_delta = _unzigzag(min_delta)
        widths = data[pos:pos + minis]
        if len(widths) < minis:
            raise ValueError("truncated bit widths")
        pos += minis
        for w in widths:
            if len(values) >= count:
                break                   # unused miniblock: width is meaningless
            if w > bits:
                raise ValueError(f"bit width {w}")
            nbytes = per_mini * w // 8
            chunk = data[pos:pos + nbytes]
            if len(chunk) < nbytes:
                raise ValueError("truncated miniblock")
            pos += nbytes
            packed = int.from_bytes(chunk, "little")
            for k in range(per_mini):
                if len(values) >= count:
                    break
                field = (packed >> (k * w)) & ((1 << w) - 1)
                values.append(_signed(values[-1] + min_delta + field, bits))
    return values, pos


def encode_dbp(values, bits=64, block=128, minis=4):
    """Encode ints as DELTA_BINARY_PACKED (widths of unused miniblocks are 0)."""
    out = bytearray()
    for v in (block, minis, len(values), _zigzag(_signed(values[0], bits) if values else 0)):
        _put_uvarint(out, v)
    per_mini = block // minis
    for start in range(1, len(values), block):
        chunk = values[start:start + block]
        prevs = values[start - 1:start - 1 + len(chunk)]
        deltas = [_signed(v - p, bits) for v, p in zip(chunk, prevs)]
        min_delta = min(deltas)
        _put_uvarint(out, _zigzag(min_delta))
        fields = [(d - min_delta) % (1 << bits) for d in deltas]
        used = -(-len(fields) // per_mini)
        fields += [0] * (used * per_mini - len(fields))
        widths = []
        packed = bytearray()
        for m in range(used):
            mini = fields[m * per_mini:(m + 1) * per_mini]
            w = max(mini).bit_length()
            widths.append(w)
            acc = 0
            for k, f in enumerate(mini):
                acc |= f << (k * w)
            packed += acc.to_bytes(per_mini * w // 8, "little")
        out += bytes(widths + [0] * (minis - used)) + packed
    return bytes(out)


def decode_dlba(data, pos=0, max_count=None):
    """DELTA_LENGTH_BYTE_ARRAY -> (list of bytes, end)."""
    lengths, pos = decode_dbp(data, pos, 32, max_count)
    out = []
    for n in lengths:
        if n < 0 or pos + n > len(data):
            raise ValueError(f"bad length {n}")
        out.append(bytes(data[pos:pos + n]))
        pos += n
    return out, pos


def encode_dlba(items):
    return encode_dbp([len(x) for x in items], 32) + b"".join(items)


def decode_dba(data, pos=0, max_count=None, previous=b""):
    """DELTA_BYTE_ARRAY -> (list of bytes, end)."""
    prefixes, pos = decode_dbp(data, pos, 32, max_count)
    suffixes, pos = decode_dlba(data, pos, len(prefixes))
    if len(suffixes) != len(prefixes):
        raise ValueError("prefix and suffix counts differ")
    out, prev = [], bytes(previous)
    for p, s in zip(prefixes, suffixes):
        if p < 0 or p > len(prev):
            raise ValueError(f"prefix {p} longer than previous value {len(prev)}")
        prev = prev[:p] + s
        out.append(prev)
    return out, pos


def encode_dba(items):
    prefixes, suffixes, prev = [], [], b""
    for x in items:
        p = 0
        while p < min(len(x), len(prev)) and x[p] == prev[p]:
            p += 1
        prefixes.append(p)
        suffixes.append(x[p:])
        prev = x
    return encode_dbp(prefixes, 32) + encode_dlba(suffixes)


def value_sections(buf, column=0):
    """Yield ``(page_header, value_bytes, non_null_count)`` per data page of a column.

    Test helper for files written by other implementations: it finds each
    page with pyarrow's column metadata and our own page-header decoder,
    decompresses it (none, gzip, zstd, snappy), and drops the levels. For v1
    pages the levels are skipped through their 4-byte length prefixes and the
    non-null count is None; v2 pages give it in the header.
    """
    import io
    import zlib

    import pyarrow.parquet as pq

    from pqkit import format as fmt

    md = pq.ParquetFile(io.BytesIO(buf)).metadata
    desc = md.schema.column(column)
    for r in range(md.num_row_groups):
        cc = md.row_group(r).column(column)
        pos = cc.data_page_offset
        if cc.has_dictionary_page and 0 < cc.dictionary_page_offset < pos:
            pos = cc.dictionary_page_offset
        end = pos + cc.total_compressed_size
        while pos < end:
            header, used = fmt.decode(fmt.PageHeader, buf, pos, end - pos)
            body = buf[pos + used:pos + used + header.compressed_page_size]
            pos += used + header.compressed_page_size
            v2 = header.data_page_header_v2
            if v2 is not None:
                skip = v2.definition_levels_byte_length + v2.repetition_levels_byte_length
                values = body[skip:]
                if v2.is_compressed is not False:
                    values = _decompress(cc.compression, values, zlib)
                yield header, values, v2.num_values - v2.num_nulls
            elif header.data_page_header is not None:
                body = _decompress(cc.compression, body, zlib)
                skip = 0
                for max_level in (desc.max_repetition_level, desc.max_definition_level):
                    if max_level > 0:
                        skip += 4 + int.from_bytes(body[skip:skip + 4], "little")
                yield header, body[skip:], None


def _decompress(codec, data, zlib):
    if codec == "UNCOMPRESSED":
        return data
    if codec == "GZIP":
        return zlib.decompress(data, 31)
    if codec == "ZSTD":
        import zstandard
        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    if codec == "SNAPPY":
        import cramjam
        return bytes(cramjam.snappy.decompress_raw(data))
    raise ValueError(f"codec {codec} not handled by the test helper")
