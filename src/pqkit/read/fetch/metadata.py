"""pyarrow-shaped views of a footer's row groups, column chunks and statistics.

``FileMetadata.row_group(i)`` gives a :class:`RowGroupMetaData`, whose
``column(j)`` gives a :class:`ColumnChunkMetaData`, whose ``statistics`` gives a
:class:`Statistics`: the attribute names, enum names as strings and Python
values that ``pyarrow.parquet`` uses, so code written against
``pq.ParquetFile(f).metadata`` runs on pqkit. Each view keeps its Thrift struct
reachable as ``.thrift``; nothing is copied or decoded until asked for.
"""
from pqkit.errors import MissingKeyError
from pqkit.format import CompressionCodec, ConvertedType, Encoding, Type
from pqkit.schema.tree import enum_name
from pqkit.statistics import legacy_bound, logical_stat_decoder, physical_stat_value

__all__ = ["RowGroupMetaData", "ColumnChunkMetaData", "Statistics", "SortingColumn",
           "compression_name", "format_version_name", "key_values"]

# Codecs are named as the writers' `compression` option names them: LZ4_RAW is "LZ4"
# (pyarrow's name too); the deprecated Hadoop-framed LZ4 is "LZ4_HADOOP", pqkit's option
# for it, where pyarrow 26 says "UNKNOWN".
_PYARROW_CODEC = {CompressionCodec.LZ4_RAW: "LZ4", CompressionCodec.LZ4: "LZ4_HADOOP"}
# Footer version -> the writer `version` pyarrow reports (2 means "the newest 2.x").
_FORMAT_VERSION = {1: "1.0", 2: "2.6"}
_INT96 = int(Type.INT96)        # INT96 bounds have no defined order


def compression_name(codec):
    """The pyarrow name of a Thrift CompressionCodec value, e.g. ``"SNAPPY"``."""
    return _PYARROW_CODEC.get(codec) or enum_name(CompressionCodec, codec)


def format_version_name(version):
    """pyarrow's ``format_version`` for the footer's version field: "1.0" or "2.6"."""
    return _FORMAT_VERSION.get(version, "1.0")


class _ComparedByContents:
    """Equality of two views: the same kind with equal ``to_dict()``, as pyarrow's
    ``equals``. Views are not hashable (they are compared by contents)."""

    def equals(self, other):
        return type(self) is type(other) and self.to_dict() == other.to_dict()

    def __eq__(self, other):
        return self.equals(other)

    __hash__ = None
    __slots__ = ()


class SortingColumn(_ComparedByContents):
    """One entry of a row group's sort order (pyarrow's ``SortingColumn``)."""

    __slots__ = ("column_index", "descending", "nulls_first")

    def __init__(self, column_index, descending=False, nulls_first=False):
        self.column_index = column_index
        self.descending = descending
        self.nulls_first = nulls_first

    def to_dict(self):
        return {"column_index": self.column_index, "descending": self.descending,
                "nulls_first": self.nulls_first}

    def __repr__(self):
        return (f"SortingColumn(column_index={self.column_index}, "
                f"descending={self.descending}, nulls_first={self.nulls_first})")


class Statistics(_ComparedByContents):
    """A column chunk's statistics with bounds decoded under the column's type.

    Attributes
    ----------
    thrift : pqkit.format.Statistics
        The stored struct.
    has_min_max : bool
        Whether ``min``/``max`` are usable: both bounds stored, in the field the
        column's sort order allows (``min_value``/``max_value`` when the footer
        declares a column order, else the deprecated ``min``/``max``, which old
        writers ordered as signed and are used only for signed types or when
        min equals max), and a sort order that is defined (INT96 has none).
    min, max
        Bounds as Python values (:func:`pqkit.statistics.logical_stat_value`).
    min_raw, max_raw
        Bounds as physical values (:func:`pqkit.statistics.physical_stat_value`).
    null_count, distinct_count : int or None
        None when not stored (``has_null_count``/``has_distinct_count``).
    num_values : int
        Non-null values in the chunk (its value count less the null count).
    physical_type : str
        e.g. ``"INT64"``.
    logical_type : pqkit.format.LogicalType or None
        The leaf's logical type struct.
    converted_type : str
        The leaf's converted type name, ``"NONE"`` when it has none.
    is_min_value_exact, is_max_value_exact : bool or None
        Whether the bounds are actual values (None: not stated).
    """

    __slots__ = ("thrift", "_node", "_chunk_values", "_lo", "_hi", "_decode")

    def __init__(self, thrift, node, chunk_values, type_defined_order, decode=None):
        self.thrift = thrift
        self._node = node
        self._chunk_values = chunk_values
        # ``decode``: logical_stat_decoder(node), handed on by the row group so a walk
        # over many chunks of one column looks at the column's type once.
        self._decode = logical_stat_decoder(node) if decode is None else decode
        if type_defined_order:
            lo, hi = thrift.min_value, thrift.max_value
        elif thrift.min is not None and thrift.min == thrift.max:
            lo, hi = thrift.min, thrift.max     # one value: its order does not matter
        else:
            lo, hi = legacy_bound(thrift.min, node), legacy_bound(thrift.max, node)
        usable = lo is not None and hi is not None and node.element.type != _INT96
        self._lo, self._hi = (lo, hi) if usable else (None, None)

    @property
    def has_min_max(self):
        return self._lo is not None

    @property
    def min(self):
        return self._decode(self._lo)

    @property
    def max(self):
        return self._decode(self._hi)

    @property
    def min_raw(self):
        return physical_stat_value(self._node, self._lo)

    @property
    def max_raw(self):
        return physical_stat_value(self._node, self._hi)

    @property
    def has_null_count(self):
        return self.thrift.null_count is not None

    @property
    def has_distinct_count(self):
        return self.thrift.distinct_count is not None

    @property
    def null_count(self):
        return self.thrift.null_count

    @property
    def distinct_count(self):
        return self.thrift.distinct_count

    @property
    def nan_count(self):
        return self.thrift.nan_count

    @property
    def num_values(self):
        return self._chunk_values - (self.thrift.null_count or 0)

    @property
    def is_min_value_exact(self):
        return self.thrift.is_min_value_exact

    @property
    def is_max_value_exact(self):
        return self.thrift.is_max_value_exact

    @property
    def physical_type(self):
        return enum_name(Type, self._node.physical_type)

    @property
    def logical_type(self):
        return self._node.logical_type

    @property
    def converted_type(self):
        ct = self._node.converted_type
        return "NONE" if ct is None else enum_name(ConvertedType, ct)

    def to_dict(self):
        """The keys pyarrow's ``Statistics.to_dict`` gives."""
        return {"has_min_max": self.has_min_max, "min": self.min, "max": self.max,
                "null_count": self.null_count, "distinct_count": self.distinct_count,
                "num_values": self.num_values, "physical_type": self.physical_type}

    def __repr__(self):
        return (f"<pqkit Statistics has_min_max={self.has_min_max} min={self.min!r} "
                f"max={self.max!r} null_count={self.null_count}>")


class ColumnChunkMetaData(_ComparedByContents):
    """One column chunk of a row group, as pyarrow shows it.

    Attributes
    ----------
    thrift : pqkit.format.ColumnChunk
        The stored struct (its ``meta_data`` is the ColumnMetaData).
    path_in_schema : str
        Dotted leaf path, e.g. ``"a.list.element"``.
    physical_type, compression : str
        Enum names, e.g. ``"INT64"``, ``"SNAPPY"`` (LZ4_RAW is ``"LZ4"``, as in pyarrow).
    encodings : tuple of str
        e.g. ``("PLAIN", "RLE", "RLE_DICTIONARY")``, in stored order.
    statistics : Statistics or None
        None when the chunk stores none (``is_stats_set``).
    """

    __slots__ = ("thrift", "_node", "_md", "_order", "_decode")

    def __init__(self, thrift, node, type_defined_order, decode=None):
        self.thrift = thrift
        self._node = node
        self._md = thrift.meta_data
        self._order = type_defined_order
        self._decode = decode

    @property
    def file_offset(self):
        return self.thrift.file_offset

    @property
    def file_path(self):
        """The file holding the chunk when not this one; "" when absent, as pyarrow."""
        return self.thrift.file_path or ""

    @property
    def physical_type(self):
        return enum_name(Type, self._md.type)

    @property
    def num_values(self):
        return self._md.num_values

    @property
    def path_in_schema(self):
        return ".".join(self._md.path_in_schema)

    @property
    def is_stats_set(self):
        return self._md.statistics is not None

    @property
    def statistics(self):
        st = self._md.statistics
        return None if st is None else Statistics(st, self._node, self._md.num_values,
                                                  self._order, self._decode)

    @property
    def compression(self):
        return compression_name(self._md.codec)

    @property
    def encodings(self):
        return tuple(enum_name(Encoding, e) for e in self._md.encodings)

    @property
    def has_dictionary_page(self):
        return self._md.dictionary_page_offset is not None

    @property
    def dictionary_page_offset(self):
        return self._md.dictionary_page_offset

    @property
    def data_page_offset(self):
        return self._md.data_page_offset

    @property
    def has_index_page(self):
        return self._md.index_page_offset is not None

    @property
    def index_page_offset(self):
        return self._md.index_page_offset

    @property
    def total_compressed_size(self):
        return self._md.total_compressed_size

    @property
    def total_uncompressed_size(self):
        return self._md.total_uncompressed_size

    @property
    def has_offset_index(self):
        return self.thrift.offset_index_offset is not None

    @property
    def has_column_index(self):
        return self.thrift.column_index_offset is not None

    @property
    def bloom_filter_offset(self):
        return self._md.bloom_filter_offset

    @property
    def bloom_filter_length(self):
        return self._md.bloom_filter_length

    @property
    def metadata(self):
        """The chunk's key/value metadata as ``{bytes: bytes}``, or None."""
        return key_values(self._md.key_value_metadata)

    def to_dict(self):
        """The keys pyarrow's ``ColumnChunkMetaData.to_dict`` gives (geospatial
        statistics are left out)."""
        st = self.statistics
        return {"file_offset": self.file_offset, "file_path": self.file_path,
                "physical_type": self.physical_type, "num_values": self.num_values,
                "path_in_schema": self.path_in_schema, "is_stats_set": self.is_stats_set,
                "statistics": None if st is None else st.to_dict(),
                "compression": self.compression, "encodings": self.encodings,
                "has_dictionary_page": self.has_dictionary_page,
                "dictionary_page_offset": self.dictionary_page_offset,
                "data_page_offset": self.data_page_offset,
                "total_compressed_size": self.total_compressed_size,
                "total_uncompressed_size": self.total_uncompressed_size,
                "bloom_filter_offset": self.bloom_filter_offset,
                "bloom_filter_length": self.bloom_filter_length}

    def __repr__(self):
        return (f"<pqkit ColumnChunkMetaData {self.path_in_schema} {self.physical_type} "
                f"{self.compression} values={self.num_values}>")


class RowGroupMetaData(_ComparedByContents):
    """One row group of a file, as pyarrow shows it.

    Attributes
    ----------
    thrift : pqkit.format.RowGroup
        The stored struct.
    num_rows, num_columns, total_byte_size : int
    sorting_columns : tuple of SortingColumn
    """

    __slots__ = ("thrift", "_schema", "_orders", "_leaves")

    def __init__(self, thrift, schema, column_orders, leaves=None):
        self.thrift = thrift
        self._schema = schema
        self._orders = column_orders
        # ``leaves``: the file's LeafViews, shared by its row groups (built here if not).
        self._leaves = leaves

    @property
    def num_rows(self):
        return self.thrift.num_rows

    @property
    def num_columns(self):
        return len(self.thrift.columns)

    @property
    def total_byte_size(self):
        return self.thrift.total_byte_size

    @property
    def file_offset(self):
        return self.thrift.file_offset

    @property
    def sorting_columns(self):
        return tuple(SortingColumn(s.column_idx, s.descending, s.nulls_first)
                     for s in self.thrift.sorting_columns or ())

    def column(self, i):
        """The :class:`ColumnChunkMetaData` of leaf column `i`."""
        columns = self.thrift.columns
        n = len(columns)
        if not 0 <= i < n:
            if not -n <= i < 0:
                raise IndexError(f"column index {i} out of range for a row group of "
                                 f"{n} columns")
            i += n
        chunk = columns[i]
        if chunk.meta_data is None and chunk.crypto_metadata is not None:
            raise MissingKeyError(f"column {self._schema.columns[i].dotted_path}: its "
                                  "metadata is encrypted with its own key, which was not "
                                  "given")
        if self._leaves is None:
            self._leaves = LeafViews(self._schema, self._orders)
        leaf = self._leaves.known[i]
        node, type_defined, decode = self._leaves[i] if leaf is None else leaf
        return ColumnChunkMetaData(chunk, node, type_defined, decode)

    def to_dict(self):
        """The keys pyarrow's ``RowGroupMetaData.to_dict`` gives."""
        return {"num_columns": self.num_columns, "num_rows": self.num_rows,
                "total_byte_size": self.total_byte_size,
                "columns": [self.column(i).to_dict() for i in range(self.num_columns)],
                "sorting_columns": [s.to_dict() for s in self.sorting_columns]}

    def __repr__(self):
        return (f"<pqkit RowGroupMetaData rows={self.num_rows} columns={self.num_columns} "
                f"bytes={self.total_byte_size}>")


class LeafViews:
    """What every chunk of leaf column ``i`` shares, computed on first use and kept for
    all row groups of a file: ``(schema node, bounds in min_value/max_value, bound
    decoder)``."""

    __slots__ = ("_schema", "_orders", "known")

    def __init__(self, schema, column_orders):
        self._schema = schema
        self._orders = column_orders
        self.known = [None] * len(schema.columns)     # entries worked out so far

    def __getitem__(self, i):
        leaf = self.known[i]
        if leaf is None:
            node = self._schema.columns[i]
            leaf = self.known[i] = (node, declares_order(self._orders, i),
                                    logical_stat_decoder(node))
        return leaf


def declares_order(column_orders, i):
    """Whether a footer's ``column_orders`` declares a sort order (type-defined or IEEE
    754 total) for leaf ``i``. Only then do ``min_value``/``max_value`` and the
    ColumnIndex bounds have a defined meaning; without one they are ignored (as Arrow
    does) and only the deprecated ``min``/``max`` count."""
    return column_orders is not None and i < len(column_orders) and (
        column_orders[i].TYPE_ORDER is not None
        or column_orders[i].IEEE_754_TOTAL_ORDER is not None)


def key_values(pairs):
    """Thrift KeyValue list -> ``{bytes: bytes}`` (pyarrow's form), None when absent."""
    if not pairs:
        return None
    # Keys, like values, were decoded with surrogateescape: encoding them the same way
    # gives back the file's bytes, UTF-8 or not.
    return {kv.key.encode("utf-8", "surrogateescape"):
            (kv.value or "").encode("utf-8", "surrogateescape") for kv in pairs}

