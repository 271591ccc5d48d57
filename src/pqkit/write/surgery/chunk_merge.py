"""Column chunks copied by ``pqkit.concat``: their moved offsets, and merged metadata.

A copied chunk keeps its bytes; what changes is in the footer and the page
index. One chunk moved by ``delta`` bytes gets every offset plus ``delta``.
Several chunks merged into one (their pages placed back to back) give:

- ``num_values``, sizes, null and NaN counts, level histograms and byte-array
  sizes: the sums; ``encodings`` and ``encoding_stats``: the union;
- min / max: the least min and greatest max in the column's sort order, or none
  when a part lacks them or the type has no order (the deprecated signed
  ``min``/``max`` and ``distinct_count`` are dropped);
- bloom filters: the bitwise OR when every part has one of the same size (a
  split-block filter of the union), else none;
- the OffsetIndex: the parts' pages, offsets moved and ``first_row_index``
  plus the rows before; the ColumnIndex: the parts' entries in a row with the
  boundary order recomputed, or none when a part has none.

Merging needs the later chunks to have no dictionary page (only a chunk's first
page may be one) and the same codec: :func:`can_merge` says why not.
"""
import numpy as np

from pqkit import format as fmt
from pqkit.bloom import parse_bloom_filter, read_bloom_filter_header
from pqkit.chunk_range import has_dictionary_page
from pqkit.errors import CorruptFileError
from pqkit.write.page_index import boundary_order, sort_key

MAX_INDEX_BYTES = 64 << 20


def can_merge(earlier, later):
    """None when row group ``later`` can be appended to ``earlier`` chunk by chunk, else
    the reason."""
    for i, (a, b) in enumerate(zip(earlier.columns, later.columns)):
        if a.meta_data is None or b.meta_data is None:
            return f"column {i} has no meta_data"
        if a.meta_data.codec != b.meta_data.codec:
            return f"column {i}: codec {b.meta_data.codec} differs from {a.meta_data.codec}"
        if has_dictionary_page(b.meta_data):
            return f"column {i} starts with a dictionary page"
    return None


def _seek(handle, offset, what, where):
    if offset is None or offset < 0:
        raise CorruptFileError(f"{where}: {what} at offset {offset}")
    handle.seek(offset)


def _read(handle, offset, length, what, where):
    if length is None or length < 0 or length > MAX_INDEX_BYTES:
        raise CorruptFileError(f"{where}: {what} at offset {offset} has length {length}")
    _seek(handle, offset, what, where)
    data = handle.read(length)
    if len(data) != length:
        raise CorruptFileError(f"{where}: {what} at offset {offset} with {length} bytes runs "
                               "past the end of the file")
    return data


def _bloom_bytes(handle, offset, length, where):
    if length is None:          # optional in the footer: the header gives it
        _seek(handle, offset, "bloom filter", where)
        header, used = read_bloom_filter_header(handle.read(64), origin=offset)
        length = used + header.numBytes
    return _read(handle, offset, length, "bloom filter", where)


class _Part:
    def __init__(self, chunk, source, delta, rows_before, where):
        self.chunk, self.source, self.delta = chunk, source, delta
        self.rows_before, self.where = rows_before, where
        # Where this part's indexes and filter lie in its source.
        self.column_index = (chunk.column_index_offset, chunk.column_index_length)
        self.offset_index = (chunk.offset_index_offset, chunk.offset_index_length)
        self.bloom = (chunk.meta_data.bloom_filter_offset, chunk.meta_data.bloom_filter_length)


class MergedChunk:
    """One output chunk made of one or more copied chunks of a leaf column."""

    def __init__(self, node):
        self.node = node
        self.parts = []
        self.chunk = None

    def add(self, chunk, source, delta, rows_before, where):
        self.parts.append(_Part(chunk, source, delta, rows_before, where))

    def finish(self):
        """The output ColumnChunk (index and bloom locations are set when written)."""
        first = self.parts[0]
        meta = first.chunk.meta_data
        d = first.delta
        for name in ("data_page_offset", "dictionary_page_offset", "index_page_offset"):
            value = getattr(meta, name)
            if value is not None and value >= 4:
                setattr(meta, name, value + d)
        if len(self.parts) > 1:
            _merge_meta(meta, [p.chunk.meta_data for p in self.parts], self.node)
        file_offset = first.chunk.file_offset
        self.chunk = fmt.ColumnChunk(
            file_offset=file_offset + d if file_offset else (file_offset or 0),
            meta_data=meta)
        meta.bloom_filter_offset = meta.bloom_filter_length = None
        return self.chunk

    def write_bloom(self, out, handles):
        if any(p.bloom[0] is None for p in self.parts):
            return
        blobs = [_bloom_bytes(handles[p.source], *p.bloom, p.where) for p in self.parts]
        if len(blobs) > 1:
            filters = [parse_bloom_filter(b, origin=p.bloom[0])[1] for b, p in
                       zip(blobs, self.parts)]
            if len({f.num_bytes for f in filters}) != 1:
                return
            bits = np.bitwise_or.reduce([np.frombuffer(f.bitset, np.uint8) for f in filters])
            blobs = [type(filters[0])(bitset=bits.tobytes()).serialize()]
        self.chunk.meta_data.bloom_filter_offset = out.tell()
        self.chunk.meta_data.bloom_filter_length = len(blobs[0])
        out.write(blobs[0])

    def write_column_index(self, out, handles):
        raws = []
        for p in self.parts:
            offset, length = p.column_index
            if offset is None:
                return
            raws.append(_read(handles[p.source], offset, length, "column index", p.where))
        if len(raws) > 1:
            indexes = [fmt.decode(fmt.ColumnIndex, r, 0, len(r), p.column_index[0])[0]
                       for r, p in zip(raws, self.parts)]
            merged = _merge_column_indexes(indexes, self.node)
            if merged is None:
                return
            raws = [fmt.encode(merged)]
        self.chunk.column_index_offset = out.tell()
        self.chunk.column_index_length = len(raws[0])
        out.write(raws[0])

    def write_offset_index(self, out, handles):
        pages, unencoded = [], []
        for p in self.parts:
            offset, length = p.offset_index
            if offset is None:
                return
            raw = _read(handles[p.source], offset, length, "offset index", p.where)
            index, _ = fmt.decode(fmt.OffsetIndex, raw, 0, len(raw), offset)
            for i, loc in enumerate(index.page_locations or []):
                if None in (loc.offset, loc.compressed_page_size, loc.first_row_index):
                    raise CorruptFileError(f"{p.where}: OffsetIndex at offset {offset}: page "
                                           f"location {i} lacks a required field")
                loc.offset += p.delta
                loc.first_row_index += p.rows_before
                pages.append(loc)
            unencoded.append(index.unencoded_byte_array_data_bytes)
        data = fmt.encode(fmt.OffsetIndex(
            page_locations=pages,
            unencoded_byte_array_data_bytes=None if any(u is None for u in unencoded)
            else [x for u in unencoded for x in u]))
        self.chunk.offset_index_offset = out.tell()
        self.chunk.offset_index_length = len(data)
        out.write(data)


def _sum(values):
    return None if any(v is None for v in values) else sum(values)


def _sum_lists(lists):
    if any(v is None for v in lists) or len({len(v) for v in lists}) != 1:
        return None
    return [sum(col) for col in zip(*lists)]


def _merge_meta(meta, metas, node):
    for name in ("num_values", "total_uncompressed_size", "total_compressed_size"):
        setattr(meta, name, sum(getattr(m, name) for m in metas))
    encodings = []
    for m in metas:
        encodings += [e for e in m.encodings or [] if e not in encodings]
    meta.encodings = encodings
    if all(m.encoding_stats is not None for m in metas):
        counts = {}
        for m in metas:
            for s in m.encoding_stats:
                counts[(s.page_type, s.encoding)] = counts.get((s.page_type, s.encoding), 0) \
                    + s.count
        meta.encoding_stats = [fmt.PageEncodingStats(page_type=t, encoding=e, count=c)
                               for (t, e), c in counts.items()]
    else:
        meta.encoding_stats = None
    meta.statistics = _merge_statistics([m.statistics for m in metas], node)
    sizes = [m.size_statistics for m in metas]
    meta.size_statistics = None if any(s is None for s in sizes) else fmt.SizeStatistics(
        unencoded_byte_array_data_bytes=_sum([s.unencoded_byte_array_data_bytes for s in sizes]),
        repetition_level_histogram=_sum_lists([s.repetition_level_histogram for s in sizes]),
        definition_level_histogram=_sum_lists([s.definition_level_histogram for s in sizes]))
    meta.geospatial_statistics = None


def _merge_statistics(stats, node):
    if any(s is None for s in stats):
        return None
    out = fmt.Statistics(null_count=_sum([s.null_count for s in stats]),
                         nan_count=_sum([s.nan_count for s in stats]))
    key = sort_key(node)
    # A part without bounds (all nulls, or bounds not written) leaves the merged
    # bounds unknown: claiming the others' could exclude its values.
    if key is None or any(s.min_value is None or s.max_value is None for s in stats):
        return out
    lo = min(stats, key=lambda s: key(bytes(s.min_value)))
    hi = max(stats, key=lambda s: key(bytes(s.max_value)))
    out.min_value, out.is_min_value_exact = lo.min_value, lo.is_min_value_exact
    out.max_value, out.is_max_value_exact = hi.max_value, hi.is_max_value_exact
    return out


def _merge_column_indexes(indexes, node):
    key = sort_key(node)
    if key is None:
        return None
    null_pages = [n for ci in indexes for n in ci.null_pages]
    mins = [bytes(m) for ci in indexes for m in ci.min_values]
    maxs = [bytes(m) for ci in indexes for m in ci.max_values]

    def joined(name):
        parts = [getattr(ci, name) for ci in indexes]
        return None if any(p is None for p in parts) else [x for p in parts for x in p]
    return fmt.ColumnIndex(
        null_pages=null_pages, min_values=mins, max_values=maxs,
        boundary_order=boundary_order(key, null_pages, mins, maxs),
        null_counts=joined("null_counts"), nan_counts=joined("nan_counts"),
        repetition_level_histograms=joined("repetition_level_histograms"),
        definition_level_histograms=joined("definition_level_histograms"))


__all__ = ["MergedChunk", "can_merge", "has_dictionary_page"]
