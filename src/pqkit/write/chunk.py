"""Column chunk writing: levels and physical values -> encoded, compressed pages.

One chunk is written as::

    [dictionary page]  data page  data page  ...

Pages start at record boundaries (repetition level 0), so a page index can
give each page's first row; a page ends once its values reach
``data_page_size`` bytes (estimated before encoding) or 20,000 rows. With a
dictionary, values are written as RLE_DICTIONARY indices until the dictionary
would exceed ``dictionary_page_size_limit`` PLAIN bytes; from the page in which
that happens on, the chunk falls back to the column's plain encoding, as
parquet-java and Arrow C++ do. As in parquet-java, a chunk whose first page
(of at least 4,096 values) would not be smaller dictionary-encoded -- its
dictionary page plus indices against its PLAIN values -- is written PLAIN from
the start: mostly distinct values (random ids, measurements) are then not
hashed up to the dictionary limit only to fall back. A dictionary too small
for the first page's values is not written either.

v1 pages compress ``rep levels | def levels | values`` together (levels RLE
with a 4-byte length); v2 pages keep the levels uncompressed in front of the
compressed values, and store booleans RLE-encoded. A v2 page without value
bytes (all nulls, PLAIN) is written ``is_compressed=false``.
"""
from dataclasses import dataclass, field

import numpy as np

from pqkit import format as fmt
from pqkit._native.hashing import crc32, xxh64_byte_arrays, xxh64_fixed
from pqkit._native.hybrid_encode import encode_levels_counted
from pqkit._native.page_bounds import page_bounds
from pqkit.bloom import SplitBlockBloomFilter, optimal_num_bytes
from pqkit.compression import compress
from pqkit.encodings.bss import encode_bss
from pqkit.encodings.delta import encode_delta
from pqkit.encodings.dictionary import Dictionary, build_binary, build_fixed
from pqkit.encodings.physical import NUMERIC, empty_array
from pqkit.encodings.plain import encode_plain
from pqkit.encodings.rle import (
    bit_width_of,
    encode_dictionary_indices,
    encode_rle_booleans,
)
from pqkit.errors import SchemaError
from pqkit.format import CompressionCodec, Encoding, PageType, Type
from pqkit.page import crc_field
from pqkit.write.geo_stats import geo_kind, geospatial_statistics

MAX_ROWS_PER_PAGE = 20_000
# The first page must hold this many values before its test may turn the dictionary off:
# fewer say too little about the rest of the chunk.
DICTIONARY_SAMPLE = 4096


_VALUE_ENCODINGS = {
    Encoding.PLAIN: None,
    Encoding.DELTA_BINARY_PACKED: {Type.INT32, Type.INT64},
    Encoding.DELTA_LENGTH_BYTE_ARRAY: {Type.BYTE_ARRAY},
    Encoding.DELTA_BYTE_ARRAY: {Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY},
    Encoding.BYTE_STREAM_SPLIT: {Type.INT32, Type.INT64, Type.FLOAT, Type.DOUBLE,
                                 Type.FIXED_LEN_BYTE_ARRAY},
    Encoding.RLE: {Type.BOOLEAN},
}


@dataclass
class ChunkOptions:
    """Per-column settings resolved by the file writer."""
    codec: int = CompressionCodec.ZSTD
    level: object = None
    encoding: object = None           # explicit value encoding, or None
    use_dictionary: bool = True
    data_page_size: int = 1 << 20
    dictionary_page_size_limit: int = 1 << 20
    data_page_version: str = "1.0"
    write_statistics: bool = True
    write_checksums: bool = True
    statistics_truncate_length: int = 64
    bloom_fpp: float = None           # write a bloom filter at this false-positive rate
    bloom_ndv: int = None             # size it for this many distinct values (default: exact)


@dataclass
class PageRecord:
    """What the page index needs about one data page."""
    offset: int
    size: int                 # header + payload
    first_row: int
    null_count: int
    num_values: int           # non-null values
    statistics: object = None
    def_histogram: object = None      # count of each definition level (None: max 0)
    rep_histogram: object = None
    byte_array_bytes: int = None      # unencoded BYTE_ARRAY value bytes


@dataclass
class WrittenChunk:
    meta: object                        # fmt.ColumnMetaData
    pages: list = field(default_factory=list)
    dictionary_offset: int = None
    bloom: object = None                # SplitBlockBloomFilter, written later by the file

    def move(self, delta):
        """Shift every file offset by ``delta``: the chunk was encoded at offset 0 into
        memory and is written at ``delta`` (:mod:`pqkit.write.parallel`)."""
        self.meta.data_page_offset += delta
        if self.meta.dictionary_page_offset is not None:
            self.meta.dictionary_page_offset += delta
        if self.dictionary_offset is not None:
            self.dictionary_offset += delta
        for page in self.pages:
            page.offset += delta


def bloom_filter(physical, values, fpp, ndv=None):
    """A split-block bloom filter holding every value (physical layout) of a chunk."""
    if values is None:
        hashes = np.zeros(0, np.uint64)
    elif physical == Type.BYTE_ARRAY:
        hashes = xxh64_byte_arrays(*values)
    elif physical == Type.BOOLEAN:
        raise SchemaError("bloom filters are not defined for BOOLEAN columns")
    else:
        hashes = xxh64_fixed(np.ascontiguousarray(values))
    distinct = len(np.unique(hashes)) if ndv is None else int(ndv)
    bloom = SplitBlockBloomFilter(num_bytes=optimal_num_bytes(max(distinct, 1), fpp))
    bloom.insert_hashes(hashes)
    return bloom


def value_encodings(physical):
    """The value encodings ``column_encoding`` accepts for a physical type, PLAIN first
    (dictionary encoding is asked for with ``use_dictionary`` instead)."""
    return [e for e, types in _VALUE_ENCODINGS.items() if types is None or physical in types]


def check_encoding(encoding, physical, path):
    """Validate an explicitly requested value encoding for a column."""
    try:
        encoding = Encoding[encoding.upper()] if isinstance(encoding, str) else Encoding(encoding)
    except (KeyError, ValueError):
        raise SchemaError(f"column {path}: unknown encoding {encoding!r}") from None
    if encoding in (Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY):
        raise SchemaError(f"column {path}: ask for dictionary encoding with use_dictionary, "
                          "not column_encoding")
    allowed = _VALUE_ENCODINGS.get(encoding, set())
    if allowed is not None and physical not in allowed:
        raise SchemaError(f"column {path}: {encoding.name} cannot encode "
                          f"{Type(physical).name} values")
    return encoding


class ColumnChunkWriter:
    """Write one column chunk of one row group to ``sink`` (a binary file object).

    Parameters
    ----------
    node : pqkit.SchemaNode
        The leaf being written (for its physical type, levels and statistics order).
    options : ChunkOptions
    stats_factory : callable or None
        ``stats_factory(node)`` -> an accumulator with ``.page(values, nulls)`` and
        ``.chunk()``; None writes no statistics.
    """

    def __init__(self, node, options, stats_factory=None):
        self.node = node
        self.opt = options
        self.physical = Type(node.physical_type)
        self.type_length = node.element.type_length
        self.max_def = node.max_definition_level
        self.max_rep = node.max_repetition_level
        self.v2 = options.data_page_version == "2.0"
        self.stats = stats_factory(node) if stats_factory and options.write_statistics \
            else None

    def write(self, leaf, sink, start, encryptor=None):
        """Write ``leaf`` (a :class:`pqkit.write.shred.LeafData`) at file offset ``start``;
        with ``encryptor`` (a :class:`pqkit.crypto.ChunkEncryptor`) every page and page
        header is sealed, the CRC covering the plaintext page as parquet-cpp's does."""
        self.sink, self.pos = sink, start
        self.encryptor = encryptor
        self.sizes = [0, 0]                   # uncompressed, compressed (headers included)
        self.encoding_stats = {}
        self.encodings = []
        values, n_values = leaf.values, leaf.num_values
        plain_encoding = self._plain_encoding()
        bounds, page_rows = self._page_layout(leaf, values)
        dictionary, dict_offset = None, None
        if self.opt.encoding is None and self.opt.use_dictionary and n_values \
                and self.physical != Type.BOOLEAN:
            dictionary = self._dictionary(values, n_values, bounds[0][3], leaf.dictionary)
            if dictionary is not None:
                dict_offset = self.pos
                self._dictionary_page(dictionary)
        pages = []
        row = 0
        for (e0, e1, v0, v1), rows in zip(bounds, page_rows):
            use_dict = dictionary is not None and v1 <= dictionary.encoded
            page = self._data_page(leaf, e0, e1, v0, v1, rows,
                                   dictionary if use_dict else None, plain_encoding, row)
            pages.append(page)
            row += rows
        meta = fmt.ColumnMetaData(
            type=self.physical, encodings=self._encodings_list(),
            path_in_schema=list(self.node.path), codec=self.opt.codec,
            num_values=leaf.num_entries, total_uncompressed_size=self.sizes[0],
            total_compressed_size=self.sizes[1],
            data_page_offset=pages[0].offset if pages else self.pos,
            dictionary_page_offset=dict_offset,
            statistics=self.stats.chunk() if self.stats is not None else None,
            size_statistics=size_statistics(pages, self.physical),
            encoding_stats=[fmt.PageEncodingStats(page_type=pt, encoding=enc, count=c)
                            for (pt, enc), c in self.encoding_stats.items()])
        kind = geo_kind(self.node)
        if kind is not None:        # parsed even without statistics: bad WKB fails the write
            geo = geospatial_statistics(kind, values, n_values, f"column {self.node.dotted_path}")
            if self.stats is not None:
                meta.geospatial_statistics = geo
        bloom = None
        if self.opt.bloom_fpp is not None:
            bloom = bloom_filter(self.physical, values, self.opt.bloom_fpp, self.opt.bloom_ndv)
        return WrittenChunk(meta, pages, dict_offset, bloom)

    # -- dictionary ------------------------------------------------------------------
    def _dictionary(self, values, n_values, first_page, seed=None):
        """The chunk's dictionary, or None when it would not pay (see the module doc).

        ``first_page`` is the number of values on the first data page. ``seed``, a
        dictionary column's own dictionary, starts the chunk's dictionary in its order
        (unused entries included), as pyarrow writes dictionary arrays.
        """
        limit = self.opt.dictionary_page_size_limit
        if seed is not None:
            dictionary = self._seeded(seed, values, limit)
            if dictionary is not None:
                return dictionary if dictionary.encoded >= first_page else None
        if DICTIONARY_SAMPLE <= first_page < n_values:
            head = _slice_values(values, 0, first_page, self.physical, self.type_length)
            sample = self._build(head, limit)
            if sample.encoded < first_page or not self._dictionary_pays(sample, head):
                return None
        dictionary = self._build(values, limit)
        # A dictionary that cannot hold the first page's values would serve no page.
        return dictionary if dictionary.encoded >= first_page else None

    def _build(self, values, limit):
        if self.physical == Type.BYTE_ARRAY:
            return build_binary(*values, limit)
        return build_fixed(values, limit)

    def _seeded(self, seed, values, limit):
        """The dictionary of ``seed`` followed by ``values``, indices of ``values`` only;
        None when the seed alone does not fit the limit."""
        if self.physical == Type.BYTE_ARRAY:
            (s_off, s_data), (v_off, v_data) = seed, values
            base = int(v_off[0])
            offsets = np.concatenate([s_off - s_off[0], v_off[1:] - base + (s_off[-1] - s_off[0])])
            data = np.concatenate([s_data[int(s_off[0]):int(s_off[-1])],
                                   v_data[base:int(v_off[-1])]])
            both, k = (offsets, data), len(s_off) - 1
        else:
            both, k = np.concatenate([seed, values]), len(seed)
        d = self._build(both, limit)
        if d.encoded < k:
            return None
        return Dictionary(d.values, d.size, d.indices[k:], d.encoded - k)

    def _dictionary_pays(self, dictionary, values):
        """Whether the dictionary page plus the indices of ``values`` take fewer bytes
        than ``values`` PLAIN-encoded (parquet-java's test on its first page)."""
        count = dictionary.encoded
        indices = len(encode_dictionary_indices(dictionary.indices[:count], len(dictionary)))
        return _plain_size(dictionary.values, self.physical) + indices < \
            _plain_size(values, self.physical)

    # -- layout ----------------------------------------------------------------------
    def _plain_encoding(self):
        if self.opt.encoding is not None:
            return self.opt.encoding
        if self.physical == Type.BOOLEAN and self.v2:
            return Encoding.RLE
        return Encoding.PLAIN

    def _page_bounds(self, leaf, values):
        """[(first entry, end entry, first value, end value)] of each data page."""
        return self._page_layout(leaf, values)[0]

    def _page_layout(self, leaf, values):
        """(page bounds as :meth:`_page_bounds` gives them, records of each page).

        A page ends once its values reach ``data_page_size`` bytes (estimated) or it
        holds MAX_ROWS_PER_PAGE rows, and, for repeated columns, at a record start
        (:mod:`pqkit._native.page_bounds`).
        """
        n = leaf.num_entries
        if n == 0:
            return [(0, 0, 0, 0)], [0]
        per_value = self._value_size(values, leaf.num_values)
        per_page = max(1, int(self.opt.data_page_size // max(per_value, 1e-9)))
        defs = None if leaf.def_levels is None or leaf.num_values == n else leaf.def_levels
        if defs is None and leaf.rep_levels is None:          # entry e is value e and row e
            step = min(per_page, MAX_ROWS_PER_PAGE)
            bounds = [(e, min(e + step, n), e, min(e + step, n)) for e in range(0, n, step)]
            return bounds, [e1 - e0 for e0, e1, _, _ in bounds]
        table = page_bounds(leaf.rep_levels, defs, n, self.max_def, per_page,
                            MAX_ROWS_PER_PAGE).tolist()
        return [tuple(page[:4]) for page in table], [page[4] for page in table]

    def _value_size(self, values, count):
        if values is None or count == 0:
            return 1.0
        if self.physical == Type.BYTE_ARRAY:
            offsets = values[0]
            return 4 + (int(offsets[-1]) - int(offsets[0])) / count
        if self.physical == Type.BOOLEAN:
            return 0.125
        return np.asarray(values).reshape(count, -1).itemsize * \
            np.asarray(values).reshape(count, -1).shape[1]

    # -- pages -----------------------------------------------------------------------
    def _dictionary_page(self, dictionary):
        body = encode_plain(self.physical, dictionary.values, self.type_length)
        header = fmt.PageHeader(type=PageType.DICTIONARY_PAGE,
                                dictionary_page_header=fmt.DictionaryPageHeader(
                                    num_values=len(dictionary), encoding=Encoding.PLAIN))
        self._emit(header, body, [], len(body))
        self._count(PageType.DICTIONARY_PAGE, Encoding.PLAIN)

    def _data_page(self, leaf, e0, e1, v0, v1, rows, dictionary, plain_encoding, first_row):
        defs = None if leaf.def_levels is None else leaf.def_levels[e0:e1]
        reps = None if leaf.rep_levels is None else leaf.rep_levels[e0:e1]
        n_entries = e1 - e0
        nulls = n_entries - (v1 - v0)
        page_values = _slice_values(leaf.values, v0, v1, self.physical, self.type_length)
        indices = None if dictionary is None else dictionary.indices[v0:v1]
        stats = None if self.stats is None else self.stats.page(
            page_values, nulls, None if indices is None else (dictionary.values, indices))
        if dictionary is not None:
            encoding = Encoding.RLE_DICTIONARY
            body = encode_dictionary_indices(indices, len(dictionary))
        else:
            # Encoded even when empty: RLE booleans and DELTA_* have headers readers expect.
            encoding = plain_encoding
            body = self._encode_values(encoding, page_values)
        (rep_bytes, rep_hist), (def_bytes, def_hist) = self._levels(reps, defs, nulls)
        offset = self.pos
        levels_size = len(rep_bytes) + len(def_bytes)
        if self.v2:
            header = fmt.PageHeader(
                type=PageType.DATA_PAGE_V2,
                data_page_header_v2=fmt.DataPageHeaderV2(
                    num_values=n_entries, num_nulls=nulls, num_rows=rows, encoding=encoding,
                    definition_levels_byte_length=len(def_bytes),
                    repetition_levels_byte_length=len(rep_bytes),
                    is_compressed=self._compresses(body),
                    statistics=stats))
            self._emit(header, body, [rep_bytes, def_bytes], levels_size + len(body))
        else:
            header = fmt.PageHeader(
                type=PageType.DATA_PAGE,
                data_page_header=fmt.DataPageHeader(
                    num_values=n_entries, encoding=encoding,
                    definition_level_encoding=Encoding.RLE,
                    repetition_level_encoding=Encoding.RLE, statistics=stats))
            self._emit(header, body, [rep_bytes, def_bytes], levels_size + len(body),
                       compress_prefix=True)
        self._count(header.type, encoding)
        return PageRecord(offset, self.pos - offset, first_row, nulls, v1 - v0, stats,
                          def_hist, rep_hist, _byte_array_bytes(page_values, self.physical))

    def _levels(self, reps, defs, nulls):
        """((rep bytes, rep histogram), (def bytes, def histogram)) of one page; b"" and
        None for a max level of 0."""
        prefixed = not self.v2
        rep = (b"", None)
        if self.max_rep:
            encoded, counts = encode_levels_counted(reps, self.max_rep, prefixed)
            rep = (encoded, counts.tolist())
        if not self.max_def:
            return rep, (b"", None)
        if not nulls and reps is None:      # every entry at the max level
            return rep, (constant_levels(len(defs), self.max_def, prefixed),
                         [0] * self.max_def + [len(defs)])
        encoded, counts = encode_levels_counted(defs, self.max_def, prefixed)
        return rep, (encoded, counts.tolist())

    def _encode_values(self, encoding, values):
        if encoding == Encoding.PLAIN:
            if self.physical in NUMERIC:
                # Fixed-width numbers are their own PLAIN encoding: hand the array's
                # memory on instead of copying it into a bytes object.
                return memoryview(np.ascontiguousarray(
                    values, dtype=NUMERIC[self.physical])).cast("B")
            return encode_plain(self.physical, values, self.type_length)
        if encoding == Encoding.RLE:
            return encode_rle_booleans(values)
        if encoding == Encoding.BYTE_STREAM_SPLIT:
            return encode_bss(self.physical, values, self.type_length)
        return encode_delta(encoding, self.physical, values, self.type_length)

    def _emit(self, header, body, prefix, uncompressed_size, compress_prefix=False):
        """Write one page: ``prefix`` parts (level sections) then ``body``, compressed
        together (v1, ``compress_prefix``) or only ``body`` (v2); CRC over the payload.

        Uncompressed parts go to the sink as they are, the CRC updated part by part,
        so a page body is never copied into a joined buffer.
        """
        prefix = [p for p in prefix if len(p)]
        codec = self.opt.codec
        if codec == CompressionCodec.UNCOMPRESSED:
            parts = prefix + [body]
        elif compress_prefix:
            joined = b"".join(prefix + [body])
            parts = [compress(codec, joined, self.opt.level) if joined else b""]
        else:
            parts = prefix + [compress(codec, body, self.opt.level) if self._compresses(body)
                              else body]
        payload_size = sum(len(p) for p in parts)
        header.uncompressed_page_size = uncompressed_size
        header.compressed_page_size = payload_size
        if self.opt.write_checksums:
            crc = 0
            for part in parts:
                crc = crc32(part, crc)
            header.crc = crc_field(crc)
        if self.encryptor is not None:
            parts = [self.encryptor.page(header.type, b"".join(parts))]
            payload_size = header.compressed_page_size = len(parts[0])
            head = self.encryptor.header(header.type, fmt.encode(header))
        else:
            head = fmt.encode(header)
        self.sink.write(head)
        for part in parts:
            if len(part):
                self.sink.write(part)
        self.pos += len(head) + payload_size
        self.sizes[0] += len(head) + uncompressed_size
        self.sizes[1] += len(head) + payload_size

    def _compresses(self, body):
        """Whether a v2 page's values section is compressed. An empty one is not, and
        says so (``is_compressed=false``) as Arrow C++ does: fastparquet hands a flagged
        empty section to the codec, which rejects 0 bytes."""
        return self.opt.codec != CompressionCodec.UNCOMPRESSED and len(body) > 0

    def _count(self, page_type, encoding):
        key = (page_type, encoding)
        self.encoding_stats[key] = self.encoding_stats.get(key, 0) + 1
        if encoding not in self.encodings:
            self.encodings.append(encoding)

    def _encodings_list(self):
        used = list(self.encodings)
        if (self.max_def or self.max_rep) and Encoding.RLE not in used:
            used.append(Encoding.RLE)
        return used


def constant_levels(count, level, prefixed):
    """``count`` copies of ``level`` in the RLE/bit-packed hybrid: one RLE run (header
    ``count << 1`` as a ULEB128 varint, then the level in ``ceil(width / 8)`` bytes),
    behind a 4-byte length when ``prefixed`` (v1 pages). Byte-identical to
    :func:`pqkit.encodings.rle.encode_levels` of such levels, without making them."""
    if count == 0:
        run = b""
    else:
        header, rest = bytearray(), count << 1
        while rest >= 0x80:
            header.append(rest & 0x7F | 0x80)
            rest >>= 7
        header.append(rest)
        run = bytes(header) + level.to_bytes((bit_width_of(level) + 7) // 8, "little")
    return len(run).to_bytes(4, "little") + run if prefixed else run


def _byte_array_bytes(values, physical):
    if physical != Type.BYTE_ARRAY:
        return None
    offsets = values[0]
    return int(offsets[-1] - offsets[0])


def size_statistics(pages, physical):
    """The chunk's SizeStatistics: its pages' level histograms and byte-array bytes summed."""
    def total(hists):
        hists = [h for h in hists if h is not None]
        return np.sum(hists, axis=0).astype(np.int64).tolist() if hists else None
    unencoded = sum(p.byte_array_bytes for p in pages) if physical == Type.BYTE_ARRAY else None
    return fmt.SizeStatistics(unencoded_byte_array_data_bytes=unencoded,
                              repetition_level_histogram=total(p.rep_histogram for p in pages),
                              definition_level_histogram=total(p.def_histogram for p in pages))


def _plain_size(values, physical):
    """Bytes of ``values`` (physical layout) PLAIN-encoded, without encoding them."""
    if physical == Type.BYTE_ARRAY:
        offsets, _ = values
        return int(offsets[-1] - offsets[0]) + 4 * (len(offsets) - 1)
    return np.asarray(values).nbytes


def _slice_values(values, v0, v1, physical, type_length):
    if values is None:
        if physical == Type.BYTE_ARRAY:
            return np.zeros(1, np.int64), np.zeros(0, np.uint8)
        return empty_array(physical, type_length or 1)
    if physical == Type.BYTE_ARRAY:
        offsets, data = values
        o0, o1 = int(offsets[v0]), int(offsets[v1])
        return offsets[v0:v1 + 1] - o0, data[o0:o1]
    return values[v0:v1]
