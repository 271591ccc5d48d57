"""Writing Parquet files: ``write_table`` and the streaming ``ParquetWriter``.

A file is written front to back::

    PAR1 | row group 0: chunk, chunk, ... | row group 1 ... |
    column indexes | offset indexes | footer (FileMetaData) | footer length | PAR1

Each ``write`` call may complete row groups; rows beyond a full row group wait
for the next call or ``close``, so memory stays bounded by one row group.
"""
import os
import platform

from pqkit import datatypes as T
from pqkit import format as fmt
from pqkit._version import __version__
from pqkit.chunk_range import where_of
from pqkit.columnar.arrow_import import is_arrow_producer, schema_from_arrow
from pqkit.columnar.pandas_metadata import PANDAS_KEY
from pqkit.columnar.table import Table, concat_tables
from pqkit.convert import is_dataframe, table_from_data
from pqkit.crypto.encryptor import FileEncryptor
from pqkit.crypto.key_tools import CryptoFactory
from pqkit.crypto.properties import EncryptionProperties
from pqkit.crypto.modules import ModuleType
from pqkit.errors import ArgumentError, SchemaError
from pqkit.memory import uses_pool
from pqkit.schema.annotations import projjson_keys
from pqkit.schema.arrow_write import encode_arrow_schema
from pqkit.schema.from_table import parquet_schema
from pqkit.schema.tree import Schema
from pqkit.tail import MAGIC, MAGIC_ENCRYPTED, tail_bytes
from pqkit.threads import max_threads
from pqkit.write.existing import start_append
from pqkit.write.geoparquet import geo_metadata
from pqkit.write.options import WriteOptions
from pqkit.write.page_index import column_index, offset_index
from pqkit.write.parallel import ChunkJob, encode_chunks
from pqkit.write.shred import leaf_columns
from pqkit.write.sink import discard, open_sink
from pqkit.write.stats import StatisticsAccumulator, column_order
from pqkit.write.variant_columns import mark_variant_columns, plan_variants
from pqkit.write.version import adapt_column, adapt_field, check_version, footer_version



def created_by():
    """The writer's ``created_by`` string, in the form other readers parse."""
    return (f"pqkit version {__version__} "
            f"(build {platform.python_implementation().lower()}-{platform.python_version()})")


class ParquetWriter:
    """Write a Parquet file incrementally.

    Parameters
    ----------
    where : path, URL or binary file object
        A URL (``s3://bucket/key``) is written through fsspec and appears when closed.
    schema : list of pqkit.Field, a pqkit.Table or pandas DataFrame whose fields are used,
        or any ``__arrow_c_schema__`` producer (a pyarrow Schema, a pyarrow Table...)
        A Table's (or DataFrame's) ``pandas`` metadata entry is stored too.
    preserve_index : None, True or False, default None
        Which index levels a DataFrame ``schema`` stores, as in :func:`write_table`.
    options : pqkit.WriteOptions, optional
        How the file is written (compression, row group and page sizes, encodings,
        statistics, page index, bloom filters, ...). Without a ``pandas`` entry in
        ``key_value_metadata`` or from ``schema``, the first written table's (or
        DataFrame's) entry is stored.
    **settings
        Any field of :class:`pqkit.WriteOptions` by name, applied over ``options``.
    append : bool, default False
        Add row groups to the existing file at ``where`` (its schema must equal the one
        ``schema`` gives), crash-safe: see :mod:`pqkit.write.existing` for the exact
        guarantee. The file's footer fields (key/value metadata, created_by) are kept.
    kms_client : pqkit.encryption.KmsClient, optional
        Makes and wraps the keys of ``encryption=EncryptionConfiguration(...)``.

    Examples
    --------
    >>> with ParquetWriter("out.parquet", table.schema) as w:   # doctest: +SKIP
    ...     for batch in batches:
    ...         w.write(batch)
    """

    def __init__(self, where, schema, *, options=None, preserve_index=None,
                 storage_options=None, filesystem=None, use_threads=True, append=False,
                 kms_client=None, **settings):
        opts = WriteOptions.coerce(options, **settings)
        self.write_options = opts
        if is_dataframe(schema):
            schema = table_from_data(schema, preserve_index=preserve_index)
        schema_metadata = None
        if isinstance(schema, Table):
            schema_metadata = schema.metadata
            schema = mark_variant_columns(schema.schema, schema.columns)
        elif hasattr(schema, "__arrow_c_schema__"):
            schema = schema_from_arrow(schema)
        self.version = check_version(opts.version)
        self.fields = [adapt_field(f if isinstance(f, T.Field) else T.Field(*f), opts.version)
                       for f in schema]
        self.variants = plan_variants(self.fields, opts.shredding)
        self._opts = opts
        self.schema = None
        if not any(v.pending for v in self.variants.values()):
            self._set_schema()
        elif append:
            raise SchemaError("shredding='auto' cannot append: the file's schema is fixed")
        self.row_group_size = int(opts.row_group_size)
        self.write_page_index = opts.write_page_index
        self.key_value_metadata = dict(opts.key_value_metadata or {})
        _carry_pandas_entry(self.key_value_metadata, schema_metadata)
        self._crs_keys = projjson_keys(self.fields)
        _carry_entries(self.key_value_metadata, schema_metadata, self._crs_keys)
        self.store_schema = opts.store_schema
        self.sorting_columns = opts.sorting_columns
        self._stats_factory = _stats_factory(opts.statistics_truncate_length)
        self.encryptor = None if opts.encryption is None else FileEncryptor(
            _encryption_properties(opts.encryption, kms_client, where),
            [node.dotted_path for node in self.schema.columns])
        if append and self.encryptor is not None:
            raise ArgumentError("append=True cannot encrypt: the row groups added to a file "
                                "would need its keys and file AAD")
        self._owned = isinstance(where, (str, os.PathLike))
        self._switch = None     # appending: the crash-safe tail switch of the old file
        if append:
            if not self._owned or storage_options is not None or filesystem is not None \
                    or "://" in os.fspath(where):
                raise SchemaError("append=True needs a local path, not a file object or URL")
            self._switch = self.sink = start_append(where, self.elements)
        else:
            self.sink = open_sink(where, storage_options, filesystem) if self._owned else where
        self.pos = 0 if self._switch is None else self._switch.pos
        self.row_groups = []
        self.page_records = []          # per row group: per column: WrittenChunk
        self.pending = []
        self.pending_rows = 0
        self.num_rows = 0
        self.closed = False
        self.use_threads = use_threads
        if self._switch is None:
            self._write(MAGIC_ENCRYPTED if self._footer_encrypted() else MAGIC)

    def _footer_encrypted(self):
        return self.encryptor is not None and not self.write_options.encryption.plaintext_footer

    def _chunk_encryptor(self, g, c):
        return None if self.encryptor is None else self.encryptor.chunk(g, c)

    def _set_schema(self):
        """The file's schema: the fields, with each VARIANT column's group as written."""
        self.write_fields = [self.variants[i].field if i in self.variants else f
                             for i, f in enumerate(self.fields)]
        self.elements, self.specs = parquet_schema(self.write_fields)
        self.schema = Schema(self.elements)
        self.options = [self._opts.for_column(node) for node in self.schema.columns]
        self._opts.check_columns(self.schema)

    # --- writing rows -------------------------------------------------------------------
    @uses_pool
    def write(self, data):
        """Append rows: a pqkit Table, a dict of columns, a pandas DataFrame, or any Arrow
        PyCapsule producer (pyarrow Table/RecordBatch, polars DataFrame, DuckDB relation)."""
        if self.closed:
            raise ValueError("write() on a closed ParquetWriter")
        table = _as_table(data, self.fields, self.version, self.variants)
        _carry_pandas_entry(self.key_value_metadata, table.metadata)
        _carry_entries(self.key_value_metadata, table.metadata, self._crs_keys)
        if table.num_rows == 0:
            return
        self.pending.append(table)
        self.pending_rows += table.num_rows
        while self.pending_rows >= self.row_group_size:
            whole = concat_tables(self.pending) if len(self.pending) > 1 else self.pending[0]
            self._write_row_group(whole.slice(0, self.row_group_size))
            rest = whole.slice(self.row_group_size)
            self.pending = [rest] if rest.num_rows else []
            self.pending_rows = rest.num_rows

    # pyarrow's names for the same call.
    write_table = write
    write_batch = write

    def _write_row_group(self, table):
        ordinal = len(self.row_groups)
        rows = {}
        if self.schema is None:         # shredding="auto": inferred from these values
            rows = {i: v.infer(table.columns[i]) for i, v in self.variants.items()
                    if v.pending}
            self._set_schema()
        columns = [self.variants[i].prepare(col, rows.get(i)) if i in self.variants else col
                   for i, col in enumerate(table.columns)]
        jobs = []
        for f, col in zip(self.write_fields, columns):
            for layouts, leaf_col in leaf_columns(col, f):
                i = len(jobs)
                node = self.schema.columns[i]
                jobs.append(ChunkJob(layouts, leaf_col, self.specs[i], node, self.options[i],
                                     self._stats_factory,
                                     where_of(node, ordinal),
                                     self._chunk_encryptor(ordinal, i)))
        start = self.pos
        chunks, written = [], []
        if self.use_threads and max_threads() > 1 and len(jobs) > 1:
            # Encoded into memory on several threads, then written in order and moved.
            for data, out in encode_chunks(jobs):
                chunk_start = self.pos
                self._write(data)
                out.move(chunk_start)
                chunks.append(fmt.ColumnChunk(file_offset=chunk_start, meta_data=out.meta))
                written.append(out)
        else:
            for job in jobs:                # streamed straight to the file
                chunk_start = self.pos
                out = job.encode(_Counting(self), chunk_start)
                chunks.append(fmt.ColumnChunk(file_offset=chunk_start, meta_data=out.meta))
                written.append(out)
        self._finish_row_group(table, ordinal, start, chunks, written)

    def _finish_row_group(self, table, ordinal, start, chunks, written):
        uncompressed = sum(c.meta_data.total_uncompressed_size for c in chunks)
        self.row_groups.append(fmt.RowGroup(
            columns=chunks, total_byte_size=uncompressed, num_rows=table.num_rows,
            file_offset=start, total_compressed_size=self.pos - start, ordinal=ordinal,
            sorting_columns=self._sorting()))
        self.page_records.append(written)
        self.num_rows += table.num_rows

    def _sorting(self):
        if not self.sorting_columns:
            return None
        out = []
        for sc in self.sorting_columns:
            if isinstance(sc, fmt.SortingColumn):
                out.append(sc)
                continue
            name, order = (sc, "ascending") if isinstance(sc, str) else (sc[0], sc[1])
            nulls_first = sc[2] if not isinstance(sc, str) and len(sc) > 2 else False
            try:
                idx = next(c.column_index for c in self.schema.columns if c.dotted_path == name)
            except StopIteration:
                raise SchemaError(f"sorting column {name!r} is not a leaf column") from None
            out.append(fmt.SortingColumn(column_idx=idx, descending=order == "descending",
                                         nulls_first=bool(nulls_first)))
        return out

    # --- closing ------------------------------------------------------------------------
    @uses_pool
    def close(self):
        """Flush the last row group, write the page index and the footer."""
        if self.closed:
            return
        try:
            if self.schema is None and not self.pending_rows:     # nothing to infer from
                for v in self.variants.values():
                    if v.pending:
                        v.infer(None)
                self._set_schema()
            if self.pending_rows or not self.row_groups:
                rest = concat_tables(self.pending) if self.pending else None
                if rest is not None:
                    self._write_row_group(rest)
            self._write_bloom_filters()
            if self.write_page_index:
                self._write_page_indexes()
            self._write_footer()
        finally:
            self.closed = True
            if self._owned:
                self.sink.close()

    def _write_bloom_filters(self):
        for g, (rg, written) in enumerate(zip(self.row_groups, self.page_records)):
            for c, (chunk, out) in enumerate(zip(rg.columns, written)):
                if out.bloom is not None:
                    sealer = self._chunk_encryptor(g, c)
                    data = out.bloom.serialize() if sealer is None else \
                        sealer.module(ModuleType.BLOOM_FILTER_HEADER,
                                      fmt.encode(out.bloom.header())) + \
                        sealer.module(ModuleType.BLOOM_FILTER_BITSET, out.bloom.bitset)
                    chunk.meta_data.bloom_filter_offset = self.pos
                    chunk.meta_data.bloom_filter_length = len(data)
                    self._write(data)

    def _write_page_indexes(self):
        for g, (rg, written) in enumerate(zip(self.row_groups, self.page_records)):
            for c, (chunk, out, node) in enumerate(zip(rg.columns, written,
                                                       self.schema.columns)):
                ci = column_index(node, out.pages)
                if ci is not None:
                    chunk.column_index_offset = self.pos
                    data = self._index_bytes(ci, ModuleType.COLUMN_INDEX, g, c)
                    self._write(data)
                    chunk.column_index_length = len(data)
        for g, (rg, written) in enumerate(zip(self.row_groups, self.page_records)):
            for c, (chunk, out) in enumerate(zip(rg.columns, written)):
                chunk.offset_index_offset = self.pos
                data = self._index_bytes(offset_index(out.pages), ModuleType.OFFSET_INDEX,
                                         g, c)
                self._write(data)
                chunk.offset_index_length = len(data)

    def _index_bytes(self, index, module_type, g, c):
        """A ColumnIndex or OffsetIndex as written: sealed when its column is encrypted."""
        sealer = self._chunk_encryptor(g, c)
        data = fmt.encode(index)
        return data if sealer is None else sealer.module(module_type, data)

    def _write_footer(self):
        missing = sorted(set(self._crs_keys) - set(self.key_value_metadata))
        if missing and self._switch is None:
            raise SchemaError(f"a geometry column's crs names the file metadata key(s) "
                              f"{missing}, which key_value_metadata does not give")
        if self._switch is not None:        # appending: the old footer's fields stay
            self._switch.commit(fmt.encode(self._switch.footer_with(self.row_groups,
                                                                    self.num_rows)))
            return
        if "geo" not in self.key_value_metadata:      # GeoParquet readers' view of it
            tops = {node.path[0]: node.column_index for node in self.schema.columns
                    if len(node.path) == 1}
            geo = geo_metadata(self.write_fields, self.row_groups, tops,
                               self.key_value_metadata)
            if geo is not None:
                self.key_value_metadata["geo"] = geo
        if self.store_schema and "ARROW:schema" not in self.key_value_metadata:
            # Arrow-based readers restore from it what Parquet cannot say (time zone
            # names, durations, large and fixed-size lists, dictionaries). pyarrow takes
            # the table's metadata from inside it and ignores the file's entries, so the
            # pandas entry is repeated there. Made last: a write() may add that entry.
            pandas = self.key_value_metadata.get(PANDAS_KEY)
            self.key_value_metadata["ARROW:schema"] = encode_arrow_schema(
                self.write_fields, None if pandas is None else {PANDAS_KEY: str(pandas)})
        kv = [fmt.KeyValue(key=str(k), value=None if v is None else str(v))
              for k, v in self.key_value_metadata.items()]
        meta = fmt.FileMetaData(
            version=footer_version(self.version), schema=self.elements,
            num_rows=self.num_rows, row_groups=self.row_groups,
            key_value_metadata=kv or None, created_by=created_by(),
            column_orders=[column_order(node) for node in self.schema.columns])
        if self.encryptor is None:
            footer = fmt.encode(meta)
            self._write(footer)
            self._write(tail_bytes(len(footer)))
            return
        for g, rg in enumerate(self.row_groups):
            for c, chunk in enumerate(rg.columns):
                self.encryptor.seal_column(chunk, g, c)
        footer = self.encryptor.footer(meta)
        self._write(footer)
        self._write(tail_bytes(len(footer), MAGIC_ENCRYPTED if self._footer_encrypted()
                               else MAGIC))

    def _write(self, data):
        self.sink.write(data)
        self.pos += len(data)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is None:
            self.close()
        elif self._owned:
            self.closed = True
            discard(self.sink)


class _Counting:
    """The sink as the column writer sees it: writes advance the file writer's position."""

    def __init__(self, writer):
        self.writer = writer

    def write(self, data):
        self.writer._write(data)


def _encryption_properties(encryption, kms_client, where):
    """The EncryptionProperties of ``encryption``: as given, or fresh keys that
    ``kms_client`` wraps for an EncryptionConfiguration."""
    if isinstance(encryption, EncryptionProperties):
        return encryption
    if kms_client is None:
        raise ArgumentError("encryption=EncryptionConfiguration(...) needs kms_client=")
    path = where if isinstance(where, (str, os.PathLike)) and "://" not in os.fspath(where) \
        else None
    return CryptoFactory(kms_client).file_encryption_properties(encryption, path)


def _stats_factory(truncate_length):
    return lambda node: StatisticsAccumulator(node, truncate_length=truncate_length)


def _carry_pandas_entry(key_value_metadata, table_metadata):
    """Store a table's ``pandas`` entry, unless the file already has one: pandas-aware
    readers rebuild the frame's index and dtypes from it."""
    if table_metadata and PANDAS_KEY in table_metadata:
        key_value_metadata.setdefault(PANDAS_KEY, table_metadata[PANDAS_KEY])


def _carry_entries(key_value_metadata, table_metadata, keys):
    """Store the table's entries named ``keys`` (the PROJJSON a ``projjson:key`` crs
    refers to), unless the file already has them."""
    for key in keys:
        if table_metadata and key in table_metadata:
            key_value_metadata.setdefault(key, table_metadata[key])


def _as_table(data, fields, version, variants=()):
    if isinstance(data, Table):
        table = data
    elif is_arrow_producer(data):
        table = Table.from_arrow(data)
    else:
        table = table_from_data(data, fields)
    if version != "2.6":
        table = Table([adapt_column(c, f, version) for c, f in zip(table.columns, table.schema)],
                      [adapt_field(f, version) for f in table.schema], table.metadata)
    names = [f.name for f in fields]
    if table.column_names != names:
        raise SchemaError(f"table columns {table.column_names} do not match the writer's "
                          f"schema {names}")
    for i, (f, col) in enumerate(zip(fields, table.columns)):
        if i in variants:               # any variant layout: VariantWrite.prepare checks it
            continue
        if col.type != f.type and not (isinstance(col.type, T.DictionaryType)
                                       and col.type.value_type == f.type):
            raise SchemaError(f"column {f.name!r} has type {col.type}, the writer's schema "
                              f"says {f.type}")
    return table


def write_table(data, where, *, schema=None, preserve_index=None, options=None,
                kms_client=None, **settings):
    """Write ``data`` to a Parquet file.

    Parameters
    ----------
    data : pqkit.Table, dict of name -> list/numpy array, pandas.DataFrame, or any
        Arrow PyCapsule producer (pyarrow Table, polars DataFrame, DuckDB relation...),
        read through :meth:`pqkit.Table.from_arrow`
    where : path, URL or binary file object
        A URL (``s3://...``, ``memory://...``) is written through fsspec.
    schema : list of pqkit.Field, optional
        Types and nullability; inferred from ``data`` when omitted.
    preserve_index : None, True or False, default None
        For a DataFrame: store its index levels as columns, a RangeIndex as metadata only
        (None); every level as columns (True); nothing of the index (False). The
        ``pandas`` metadata entry (also a Table's) is stored, as pyarrow does, so that
        ``pandas.read_parquet`` and :func:`pqkit.read_pandas` rebuild index and dtypes.
    options : pqkit.WriteOptions, optional
        How the file is written; any of its fields may also be given by name (below),
        applied over ``options``.
    compression : str, dict or None, default "zstd"
        "none", "snappy", "gzip", "zstd", "lz4" (= "lz4_raw", as in pyarrow), "brotli"
        (any case), None for none, or a dict of column path -> codec. The deprecated
        Hadoop-framed LZ4 (codec id 5) only by the name "lz4_hadoop".
    compression_level, row_group_size, data_page_size, dictionary_page_size_limit,
    use_dictionary, column_encoding, data_page_version, write_statistics,
    write_page_index, write_checksums, bloom_filter_columns, key_value_metadata,
    sorting_columns
        See the module documentation; defaults follow pyarrow's.
    version : {"1.0", "2.4", "2.6"}, default "2.6"
        Which logical types the file may use, as pyarrow's option: "1.0" writes
        ``uint32`` as ``int64``; "1.0" and "2.4" write nanosecond timestamps as
        microseconds (refusing any that would lose digits). See
        :mod:`pqkit.write.version`.
    statistics_truncate_length : int, default 64
        Byte-array bounds longer than this are truncated (and flagged inexact).
    store_schema : bool, default True
        Store the Arrow schema (``ARROW:schema``) so that Arrow-based readers, and
        pqkit, restore types Parquet has no annotation for.
    storage_options : dict, optional
        Options of the URL's fsspec file system (credentials, endpoint).
    filesystem : fsspec.AbstractFileSystem, optional
        Write ``where`` as a path on this file system.
    use_threads : bool, default True
        Encode a row group's column chunks on several threads
        (:func:`pqkit.threads.max_threads`, ``PQKIT_NUM_THREADS``), holding the row
        group's encoded chunks in memory until they are written; False streams each
        chunk to the file from the calling thread. The file is the same.
    encryption : pqkit.EncryptionProperties or EncryptionConfiguration, optional
        Encrypt the file; see :class:`pqkit.WriteOptions`.
    kms_client : pqkit.encryption.KmsClient, optional
        Wraps the fresh keys of an ``EncryptionConfiguration``.

    Examples
    --------
    >>> pqkit.write_table({"id": [1, 2, 3], "name": ["a", None, "c"]}, "out.parquet")
    ... # doctest: +SKIP
    """
    if not isinstance(data, Table) and is_arrow_producer(data):
        data = Table.from_arrow(data)
    if isinstance(data, Table) and schema is None:
        table = data
    else:
        table = table_from_data(data, schema, preserve_index)
    fields = mark_variant_columns(table.schema, table.columns)
    with ParquetWriter(where, fields, options=options, kms_client=kms_client,
                       **settings) as w:
        w.write(table)


__all__ = ["ParquetWriter", "write_table", "created_by"]
