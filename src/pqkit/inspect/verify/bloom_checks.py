"""Bloom filter rules: where a chunk's filter lies, its header and, with ``--deep``, its bits.

A column chunk's split-block bloom filter (see :mod:`pqkit.bloom`) is stored
at ``ColumnMetaData.bloom_filter_offset``; ``bloom_filter_length``, when set,
covers header and bitset::

    BloomFilterHeader{numBytes, algorithm=BLOCK, hash=XXHASH, compression=UNCOMPRESSED}
    bitset: numBytes bytes, 32-byte blocks of eight little-endian uint32 words

An offset of 0 or below means "no filter": some parquet-mr builds wrote 0
(PARQUET-1979). For a chunk with a filter:

* header and bitset lie in the data, after the leading magic and before the
  footer (PQ-BLOOM-001);
* the header decodes and has all four fields (PQ-BLOOM-002), with the only
  algorithm, hash and compression the format defines (PQ-BLOOM-003), and
  numBytes is a positive multiple of 32 (PQ-BLOOM-004; above 128 MiB, the
  most any writer produces, it is a warning and the filter is not probed);
* ``bloom_filter_length`` is the header's size plus numBytes (PQ-BLOOM-005): a
  reader that reads the length's bytes and probes the header's numBytes goes
  past them (ClickHouse crashed on such files, ClickHouse #112498);
* no filter shares bytes with a column chunk's pages, a page index or
  another filter (PQ-BLOOM-006);
* with ``--deep``, every non-null value of the chunk probes as present
  (PQ-BLOOM-007). A split-block bloom filter has no false negatives, so a
  miss means the filter was built from other bytes than the values' PLAIN
  encoding -- e.g. by a writer that hashed byte arrays with their 4-byte
  length prefix. BOOLEAN columns have no defined hash and are not probed.

Example: a 14-byte header saying numBytes 1024 at offset 5000 with
bloom_filter_length 1038 is well formed; with bloom_filter_length 1040 it
breaks PQ-BLOOM-005, and a header saying numBytes 1000 breaks PQ-BLOOM-004.
"""
from dataclasses import dataclass

import numpy as np

from pqkit import format as fmt
from pqkit._native.hashing import xxh64_byte_arrays, xxh64_fixed
from pqkit.bloom import MAX_BYTES, MIN_BYTES, SplitBlockBloomFilter
from pqkit.errors import ParquetError
from pqkit.format import Type
from pqkit.inspect.verify.chunk_rules import declared_span
from pqkit.inspect.verify.findings import Where
from pqkit.inspect.verify.footer_rules import usable_chunk
from pqkit.read.decode import values as V

# A BloomFilterHeader takes under 20 bytes; unknown fields could make it longer.
_HEADER_WINDOW = 4096
_DEFINED = (("algorithm", "BLOCK"), ("hash", "XXHASH"), ("compression", "UNCOMPRESSED"))


@dataclass
class ChunkFilter:
    """A chunk's bloom filter that passed the structural rules: where it is, its bits."""
    offset: int
    filter: SplitBlockBloomFilter


def check_filter(ctx, g, node, chunk):
    """Check where a chunk's bloom filter lies and its header.

    Returns
    -------
    ChunkFilter or None
        The filter to probe with ``--deep``; None when the chunk has none or it
        cannot be read (the finding says why).
    """
    cmd = chunk.meta_data
    if cmd is None or chunk.file_path is not None or chunk.crypto_metadata is not None:
        return None                       # no bytes here, or encrypted (PQ-CHUNK-011)
    offset, length = cmd.bloom_filter_offset, cmd.bloom_filter_length
    if offset is None or offset <= 0:
        return None
    where = Where(g, node.dotted_path)
    limit = ctx.md.footer_offset
    if offset < 4 or offset >= limit or (length is not None and (
            length <= 0 or offset + length > limit)):
        ctx.add("PQ-BLOOM-001", f"the bloom filter at offset {offset} with bloom_filter_length "
                f"{length} lies outside the data, which runs from offset 4 to {limit}",
                offset, where)
        return None
    ctx.counters["bloom_filters"] += 1
    found, end = _read(ctx, where, offset, length, limit)
    if length is not None:
        end = max(end, offset + length)
    ctx.bloom_spans.append((offset, min(end, limit), where))
    return found


def _read(ctx, where, offset, length, limit):
    """(ChunkFilter or None, where the filter's bytes end as far as they are known)."""
    what = f"the bloom filter at offset {offset}"
    available = limit - offset if length is None else length
    head = ctx.src.read(offset, min(available, _HEADER_WINDOW))
    try:
        header, size = fmt.decode(fmt.BloomFilterHeader, head, 0, len(head), offset)
    except ParquetError as exc:
        ctx.add("PQ-BLOOM-002", f"the header of {what} does not decode: {exc}", offset, where)
        return None, offset + 1
    end = offset + size
    missing = [name for name in header.FIELD_NAMES if getattr(header, name) is None]
    if missing:
        ctx.add("PQ-BLOOM-002", f"the header of {what} lacks the required field"
                f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}", offset, where)
        return None, end
    odd = [f"{name} {_member(getattr(header, name))}" for name, wanted in _DEFINED
           if getattr(getattr(header, name), wanted) is None]
    if odd:
        ctx.add("PQ-BLOOM-003", f"{what} has {', '.join(odd)}; the format defines only "
                "algorithm BLOCK, hash XXHASH and compression UNCOMPRESSED, so readers "
                "cannot use it", offset, where)
        return None, end
    n = header.numBytes
    if n <= 0 or n % MIN_BYTES:
        ctx.add("PQ-BLOOM-004", f"{what} has numBytes {n}, not a positive multiple of "
                f"{MIN_BYTES} (a whole number of blocks)", offset, where)
        return None, end
    end += n
    if length is not None and size + n != length:
        ctx.add("PQ-BLOOM-005", f"{what} has a {size}-byte header and numBytes {n}, "
                f"{size + n} bytes in all, but bloom_filter_length says {length}", offset,
                where)
    if end > limit:
        ctx.add("PQ-BLOOM-001", f"the {n}-byte bitset of {what} (after its {size}-byte "
                f"header) runs to offset {end}, past the data's end at offset {limit}",
                offset, where)
        return None, end
    if n > MAX_BYTES:
        ctx.add("PQ-BLOOM-004", f"{what} has numBytes {n}, above {MAX_BYTES} (128 MiB)",
                offset, where, note="legal, but larger than writers produce; not probed")
        return None, end
    bits = ctx.src.read(offset + size, n)
    return ChunkFilter(offset, SplitBlockBloomFilter(bits)), end


def _member(union):
    """The member a Thrift union holds, for messages."""
    for name in union.FIELD_NAMES:
        if getattr(union, name) is not None:
            return name
    return "of no member the format defines"


def check_values(ctx, decoded, found):
    """PQ-BLOOM-007: probe every non-null value of a decoded chunk in its bloom filter."""
    walk = decoded.walk
    if found is None or walk.node.physical_type == Type.BOOLEAN:
        return
    if decoded.dictionary is not None:
        # Each dictionary entry is hashed once; the values probe through their indices.
        present = found.filter.check_hashes(_hashes(decoded.dictionary))[decoded.indices]
    else:
        present = found.filter.check_hashes(_hashes(decoded.values))
    ctx.counters["bloom_values_probed"] += len(present)
    missing = np.flatnonzero(~present)
    if not len(missing):
        return
    first = int(missing[0])
    page = walk.data_pages[decoded.page_of_value(first)]
    shown = walk.ordering.show(decoded.raw_value(first))
    ctx.add("PQ-BLOOM-007", f"{len(missing)} of the {len(present)} non-null values of the "
            f"chunk at offset {walk.start} are absent from its bloom filter at offset "
            f"{found.offset}, the first ({shown}) in the page at offset {page.offset}; a "
            "split-block bloom filter has no false negatives, so it was built from other "
            "bytes than the values' PLAIN encoding", found.offset, walk.where.page(page.offset))


def _hashes(values):
    """XXH64 of each value's PLAIN bytes, byte arrays without their length prefix."""
    if isinstance(values, V.BinaryValues):
        return xxh64_byte_arrays(np.ascontiguousarray(values.offsets, np.int64),
                                 np.ascontiguousarray(values.data, np.uint8))
    return xxh64_fixed(np.ascontiguousarray(values.array))


def check_overlaps(ctx):
    """PQ-BLOOM-006: each bloom filter against the chunks' pages, the page indexes and the
    other filters of the file."""
    if not ctx.bloom_spans:
        return
    spans = [(start, end, f"the bloom filter of {where}", where, True)
             for start, end, where in ctx.bloom_spans]
    spans += _other_spans(ctx)
    spans = sorted((s for s in spans if s[1] > s[0]), key=lambda s: (s[0], s[1]))
    reach = None                          # the span reaching furthest among those before i
    for i, (start, end, _, where, is_filter) in enumerate(spans):
        if is_filter:
            other = None
            if reach is not None and spans[reach][1] > start:
                other = spans[reach]
            elif i + 1 < len(spans) and spans[i + 1][0] < end:
                other = spans[i + 1]
            if other is not None:
                ctx.add("PQ-BLOOM-006", f"the bloom filter at offset {start} ({end - start} "
                        f"bytes) overlaps {other[2]} (offsets {other[0]} to {other[1]})",
                        start, where)
        if reach is None or end > spans[reach][1]:
            reach = i


def _other_spans(ctx):
    spans = []
    for g, rg in enumerate(ctx.md.raw.row_groups):
        for node, chunk in zip(ctx.md.schema.columns, rg.columns or []):
            where = Where(g, node.dotted_path)
            cmd = chunk.meta_data
            if cmd is not None and chunk.file_path is None and usable_chunk(chunk):
                span = declared_span(chunk, ctx.md.footer_offset)
                if span is not None:
                    spans.append((span[0], span[0] + span[1], f"the pages of {where}", where,
                                  False))
            for kind, name in (("column_index", "ColumnIndex"), ("offset_index", "OffsetIndex")):
                at, length = getattr(chunk, kind + "_offset"), getattr(chunk, kind + "_length")
                if at is not None and length is not None:
                    spans.append((at, at + length, f"the {name} of {where}", where, False))
    return spans
