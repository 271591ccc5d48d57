"""Write settings: :class:`WriteOptions`, validated once, resolved per column in one place.

Every writer entry point (``write_table``, ``ParquetWriter``, ``append``, the dataset
writers, Spark's) takes ``options=WriteOptions(...)``; keyword arguments of the same
names still work and build one (:meth:`WriteOptions.coerce`). Per-column settings
(``compression``, ``compression_level``, ``column_encoding`` as a dict,
``use_dictionary`` as a list, ``bloom_filter_columns``) name a leaf by dotted path or
its top-level column; :meth:`WriteOptions.for_column` turns them into the
:class:`pqkit.write.chunk.ChunkOptions` of one leaf.

>>> opts = WriteOptions(compression={"id": "snappy"}, row_group_size=10_000)
>>> opts.replace(data_page_version="2.0").data_page_version
'2.0'
"""
import dataclasses
import numbers
from dataclasses import dataclass

from pqkit.compression import codec_from_name
from pqkit.crypto.key_tools import EncryptionConfiguration
from pqkit.crypto.properties import EncryptionProperties
from pqkit.errors import ArgumentError, SchemaError
from pqkit.write.chunk import ChunkOptions, check_encoding
from pqkit.write.version import check_version

__all__ = ["WriteOptions", "DEFAULT_ROW_GROUP_SIZE", "DEFAULT_BLOOM_FPP"]

DEFAULT_ROW_GROUP_SIZE = 1 << 20
DEFAULT_BLOOM_FPP = 0.01


@dataclass(frozen=True)
class WriteOptions:
    """How a Parquet file is written; the defaults follow pyarrow's.

    Attributes
    ----------
    compression : str, dict or None, default "zstd"
        A codec name, None for none, or ``{column path: codec}`` (unnamed columns: none).
    compression_level : int, dict or None
        The codec's level, or ``{column path: level}``.
    row_group_size : int, default 1,048,576
        Rows per row group.
    data_page_size, dictionary_page_size_limit : int, default 1 MiB
        Target page size; the largest dictionary before falling back to PLAIN.
    use_dictionary : bool or list of column paths, default True
    column_encoding : str or dict, optional
        An encoding for every column, or ``{column path: encoding}``.
    data_page_version : {"1.0", "2.0"}
    write_statistics, write_page_index, write_checksums, store_schema : bool
    bloom_filter_columns : list or dict, optional
        Columns with bloom filters; a dict may give ``{"fpp": ..., "ndv": ...}``.
    key_value_metadata : dict, optional
    sorting_columns : list, optional
    statistics_truncate_length : int, default 64
    version : {"1.0", "2.4", "2.6"}, default "2.6"
    encryption : pqkit.EncryptionProperties or EncryptionConfiguration, optional
        Encrypt the file (Parquet modular encryption): uniformly with the footer key,
        or the columns ``column_keys`` names (leaf paths or top-level names) each with
        its key; a :class:`pqkit.encryption.EncryptionConfiguration` makes fresh keys
        through the writer's ``kms_client``.
    shredding : "auto", dict or None
        How VARIANT columns are shredded: ``{column: schema}`` where a schema is a pqkit
        DataType (:mod:`pqkit.variant.shredding_schema`), ``"auto"`` (inferred from the
        first row group, :mod:`pqkit.variant.infer_shredding`) or None (unshredded);
        ``"auto"`` alone applies to every VARIANT column. Columns left out keep their
        layout (see :mod:`pqkit.write.variant_columns`).
    """

    compression: object = "zstd"
    compression_level: object = None
    row_group_size: int = DEFAULT_ROW_GROUP_SIZE
    data_page_size: int = 1 << 20
    dictionary_page_size_limit: int = 1 << 20
    use_dictionary: object = True
    column_encoding: object = None
    data_page_version: str = "1.0"
    write_statistics: bool = True
    write_page_index: bool = True
    write_checksums: bool = True
    bloom_filter_columns: object = None
    key_value_metadata: object = None
    sorting_columns: object = None
    store_schema: bool = True
    statistics_truncate_length: int = 64
    version: str = "2.6"
    encryption: object = None
    shredding: object = None

    def __post_init__(self):
        if self.encryption is not None and not isinstance(
                self.encryption, (EncryptionProperties, EncryptionConfiguration)):
            raise ArgumentError("encryption must be a pqkit.EncryptionProperties or a "
                                "pqkit.encryption.EncryptionConfiguration, got "
                                f"{type(self.encryption).__name__}")
        if self.data_page_version not in ("1.0", "2.0"):
            raise SchemaError(f"data_page_version must be '1.0' or '2.0', not "
                              f"{self.data_page_version!r}")
        for name in ("row_group_size", "data_page_size", "dictionary_page_size_limit",
                     "statistics_truncate_length"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise ArgumentError(f"{name} must be a positive int, got {value!r}")
            if value <= 0:
                raise SchemaError(f"{name} must be positive, got {value}")
        check_version(self.version)
        if self.shredding is not None and self.shredding != "auto" and \
                not isinstance(self.shredding, dict):
            raise ArgumentError(f"shredding must be 'auto', a dict of column -> schema or "
                                f"None, got {self.shredding!r}")
        if self.key_value_metadata is not None and not isinstance(self.key_value_metadata,
                                                                  dict):
            raise ArgumentError(f"key_value_metadata must be a dict, got "
                                f"{type(self.key_value_metadata).__name__}")

    @classmethod
    def coerce(cls, options=None, **kwargs):
        """``options`` (a WriteOptions, or None for the defaults) with ``kwargs`` applied:
        how every entry point turns its keyword arguments into one object.

        Raises
        ------
        pqkit.ArgumentError
            ``options`` is not a WriteOptions, or a keyword names no setting (the
            message lists the valid ones).
        """
        if options is None:
            options = _DEFAULT
        elif not isinstance(options, WriteOptions):
            raise ArgumentError(f"options must be a pqkit.WriteOptions, got "
                                f"{type(options).__name__}")
        if not kwargs:
            return options
        unknown = sorted(set(kwargs) - set(FIELDS))
        if unknown:
            raise ArgumentError(f"unknown write option(s) {', '.join(unknown)}; valid: "
                                f"{', '.join(FIELDS)}")
        return dataclasses.replace(options, **kwargs)

    def replace(self, **changes):
        """A copy with ``changes`` applied (validated again)."""
        return WriteOptions.coerce(self, **changes)

    def as_dict(self):
        """The settings as keyword arguments."""
        return {name: getattr(self, name) for name in FIELDS}

    # --- one column -------------------------------------------------------------------
    def for_column(self, node):
        """The :class:`ChunkOptions` of leaf ``node`` (a SchemaNode)."""
        path, top = node.dotted_path, node.path[0]
        codec = self.compression
        if isinstance(codec, dict):
            codec = codec.get(path, codec.get(top, "none"))
        level = self.compression_level
        if isinstance(level, dict):
            level = level.get(path, level.get(top))
        if level is not None and (isinstance(level, bool) or
                                  not isinstance(level, numbers.Integral)):
            raise ArgumentError(f"compression_level for column {path} must be an int, got "
                                f"{level!r}")
        encoding = None
        if self.column_encoding:
            enc = self.column_encoding if not isinstance(self.column_encoding, dict) else \
                self.column_encoding.get(path, self.column_encoding.get(top))
            if enc is not None:
                encoding = check_encoding(enc, node.physical_type, path)
        if isinstance(self.use_dictionary, (list, tuple, set)):
            use_dict = path in self.use_dictionary or top in self.use_dictionary
        else:
            use_dict = bool(self.use_dictionary)
        fpp, ndv = self._bloom(path, top)
        return ChunkOptions(codec=_codec(codec, f"column {path}"), level=level,
                            encoding=encoding, use_dictionary=use_dict and encoding is None,
                            data_page_size=int(self.data_page_size),
                            dictionary_page_size_limit=int(self.dictionary_page_size_limit),
                            data_page_version=self.data_page_version,
                            write_statistics=self.write_statistics,
                            write_checksums=self.write_checksums, bloom_fpp=fpp,
                            bloom_ndv=ndv)

    def check_columns(self, schema):
        """Refuse per-column settings that name no column of ``schema``."""
        encrypted = self.encryption.column_keys if self.encryption is not None else None
        if isinstance(self.encryption, EncryptionConfiguration) and encrypted:
            encrypted = [c for columns in encrypted.values() for c in columns]
        for option, spec in (("bloom_filter_columns", self.bloom_filter_columns),
                             ("column_encoding", self.column_encoding),
                             ("encryption.column_keys", encrypted)):
            unknown = _unknown_paths(spec if not isinstance(spec, str) else None, schema)
            if unknown:
                raise SchemaError(f"{option} names no column: {unknown}")

    def _bloom(self, path, top):
        """(fpp, ndv) of a leaf from ``bloom_filter_columns``, or (None, None)."""
        spec = self.bloom_filter_columns
        if not spec:
            return None, None
        if isinstance(spec, dict):
            conf = spec.get(path, spec.get(top))
            if conf is None:
                return None, None
            if conf is True:
                conf = {}
            return float(conf.get("fpp", DEFAULT_BLOOM_FPP)), conf.get("ndv")
        return (DEFAULT_BLOOM_FPP, None) if path in spec or top in spec else (None, None)


FIELDS = tuple(f.name for f in dataclasses.fields(WriteOptions))
_DEFAULT = WriteOptions()


def _codec(value, where):
    try:
        return codec_from_name(value)
    except ValueError as exc:               # the message lists the codec names
        raise SchemaError(f"{where}: {exc}") from None
    except TypeError:
        raise SchemaError(f"{where}: unknown compression {value!r}") from None


def _unknown_paths(spec, schema):
    if not spec:
        return []
    known = {c.dotted_path for c in schema.columns} | {c.path[0] for c in schema.columns}
    return sorted(p for p in spec if p not in known)
