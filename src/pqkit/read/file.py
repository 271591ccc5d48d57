"""Reading Parquet files into :class:`pqkit.Table`: ``ParquetFile`` and ``read_table``.

Per row group and selected leaf: read only that column chunk's byte range,
decode its pages (:mod:`pqkit.read.decode.chunk`), assemble its levels
(:func:`pqkit.levels.assemble`), type its values (:mod:`pqkit.read.decode.leaf`),
then nest the leaves into one column per top-level field (:mod:`pqkit.read.decode.assemble`)
and restore the Arrow types a writer recorded (:mod:`pqkit.read.decode.arrow_restore`).
"""
import numbers

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.nested import StructColumn
from pqkit.columnar.pandas_metadata import pandas_metadata_of
from pqkit.columnar.table import Table
from pqkit.errors import ArgumentError, ArgumentIndexError
from pqkit.memory import uses_pool
from pqkit.read.batches import BatchReader, concat_row_groups, row_group_stream
from pqkit.read.budget import gathered_text_bytes
from pqkit.read.column_selection import select_columns
from pqkit.read.decode.row_group import RowGroupReader
from pqkit.read.decode.selected_rows import read_selections
from pqkit.read.fetch.footer import read_metadata_from
from pqkit.read.fetch.plan import fetch_ahead, plan_read
from pqkit.read.fetch.remote import BufferSource, open_source
from pqkit.read.options import DEFAULT_OPTIONS
from pqkit.read.prune.filtered import FilteredReader
from pqkit.read.prune.pruning import read_bloom_filter
from pqkit.read.row_selection import RowSelection, live_selections
from pqkit.read.take import take_rows
from pqkit.variant import decode_table

__all__ = ["ParquetFile", "read_table"]


class ParquetFile:
    """A Parquet file opened for reading.

    Parameters
    ----------
    source : path, URL, bytes-like or seekable binary file object
        A URL (``s3://``, ``gs://``, ``abfs://``, ``https://``, ``memory://``) is read by
        ranged requests through fsspec: the footer with one read of the tail, the
        column chunks planned first, coalesced and fetched concurrently.
    verify_checksums : bool, default True
        Check every page CRC32 that a writer stored; a mismatch raises
        :class:`pqkit.ChecksumError` naming the column, row group and page offset.
    coerce_int96_timestamp_unit : {"ns", "us", "ms", "s"}, optional
        Read INT96 timestamps in this unit (pyarrow's option of the same name). The
        default, nanoseconds, wraps outside the years 1677-2262 as pyarrow does; a
        coarser unit keeps every year exact.
    options : pqkit.ReadOptions, optional
        Resource limits (decompressed page and dictionary sizes, bytes per column
        chunk); exceeding one raises :class:`pqkit.AllocationLimitError`. Its
        ``tail_read``, ``hole_size``, ``max_range_size`` and ``max_concurrency`` say how a
        remote file is fetched.
    storage_options : dict, optional
        Options of the URL's fsspec file system (``{"endpoint_url": ..., "anon": True}``).
    filesystem : fsspec.AbstractFileSystem, optional
        Read ``source`` as a path on this file system.
    footer_key, column_keys, key_retriever, aad_prefix : optional
        The keys of an encrypted file (see :class:`pqkit.DecryptionProperties`):
        ``footer_key=b"..."``, ``column_keys={"a.b": b"..."}``,
        ``key_retriever(key_metadata) -> key``, and the AAD prefix of a file that does
        not store it. A plaintext-footer file reads without keys as long as no
        encrypted column is asked for (:class:`pqkit.MissingKeyError` otherwise).

    Examples
    --------
    >>> with ParquetFile("data.parquet") as f:            # doctest: +SKIP
    ...     for batch in f.iter_batches(batch_size=10_000, columns=["id"]):
    ...         process(batch.to_pandas())
    """

    def __init__(self, source, *, verify_checksums=True, coerce_int96_timestamp_unit=None,
                 options=None, storage_options=None, filesystem=None, footer_key=None,
                 column_keys=None, key_retriever=None, aad_prefix=None, kms_client=None):
        options = (options or DEFAULT_OPTIONS).with_keys(footer_key, column_keys,
                                                         key_retriever, aad_prefix,
                                                         kms_client, source)
        self._source = open_source(source, storage_options, filesystem,
                                   options.coalesce_policy)
        self._tail_read = options.tail_read
        try:
            self.metadata = read_metadata_from(self._source, options)
        except BaseException:
            self._source.close()
            raise
        self.schema = self.metadata.schema
        self.verify_checksums = verify_checksums
        try:
            self.row_group_reader = RowGroupReader(self._source, self.metadata,
                                                   verify_checksums,
                                                   coerce_int96_timestamp_unit or "ns",
                                                   options)
        except BaseException:
            self._source.close()
            raise

    # --- file-level facts ---------------------------------------------------------------
    @property
    def num_row_groups(self):
        return self.metadata.num_row_groups

    @property
    def num_rows(self):
        return self.metadata.num_rows

    @property
    def schema_arrow(self):
        """The fields (:class:`pqkit.datatypes.Field`) of the Table :meth:`read` gives:
        pyarrow's ``ParquetFile.schema_arrow``; ``pyarrow.schema(f)`` makes it a pyarrow
        schema through ``__arrow_c_schema__``."""
        return self._empty(*self._select(None)).schema

    def close(self):
        self._source.close()

    def read_bytes(self, offset, length):
        """``length`` raw bytes of the file from ``offset`` (for inspectors)."""
        return self._source.read(offset, length)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return (f"<pqkit.ParquetFile {self._source.name or '<buffer>'}: {self.num_rows} rows, "
                f"{self.num_row_groups} row groups>")

    def bloom_filter(self, column, row_group):
        """The bloom filter of a column chunk (a SplitBlockBloomFilter), or None.

        ``column`` is a dotted path or leaf index. Use its
        ``might_contain(value, physical_type)``, or :meth:`might_contain`.
        """
        return read_bloom_filter(self._source, self.metadata, self.schema.column(column),
                                 row_group)

    def might_contain(self, column, row_group, value):
        """False when the chunk's bloom filter proves ``value`` absent; True otherwise
        (also when the chunk has no bloom filter)."""
        bloom = self.bloom_filter(column, row_group)
        if bloom is None:
            return True
        node = self.schema.column(column)
        return bloom.might_contain(value, node.physical_type, node.element.type_length)

    # --- selection ----------------------------------------------------------------------
    def _select(self, columns):
        """(top-level nodes in schema order, set of selected leaf paths)."""
        return select_columns(self.schema, columns)

    # --- reading ------------------------------------------------------------------------
    @uses_pool
    def read_row_group(self, i, columns=None, use_threads=True):
        """Read row group ``i`` (the selected columns only) into a Table; ``use_threads``
        as in :meth:`read`."""
        if isinstance(i, bool) or not isinstance(i, numbers.Integral):
            raise ArgumentError(f"read_row_group: {i!r} is not a row group number")
        if not -self.num_row_groups <= i < self.num_row_groups:
            raise ArgumentIndexError(f"row group {i} out of range: the file has "
                                     f"{self.num_row_groups}")
        i %= self.num_row_groups
        tops, wanted = self._select(columns)
        return self._read_whole(self.row_group_reader.for_read(), [i], tops, wanted,
                                use_threads)[0]

    def plan(self, columns=None, filters=None, row_groups=None):
        """The byte ranges :meth:`read` with the same arguments may fetch.

        Returns
        -------
        list of pqkit.read.fetch.plan.ByteRange
            (offset, length) pairs, sorted: the selected column chunks of the row groups
            a filter's statistics keep, and with a filter their page indexes. Fetch them
            yourself and pass them to ``read(..., buffers=...)``.
        """
        _, wanted = self._select(columns)
        fr = FilteredReader(self.row_group_reader, filters) if filters else None
        return plan_read(self.row_group_reader, self._groups(row_groups), wanted, fr)

    @uses_pool
    def read(self, columns=None, row_groups=None, filters=None, use_threads=True, *,
             buffers=None, statistics=None, exclude_rows=None):
        """Read the whole file (or the given row groups) into one Table.

        ``filters`` (DNF, as in pyarrow: ``[("x", "<", 5)]`` or a list of such lists)
        keeps only matching rows, skipping row groups and pages whose statistics or
        page index rule them out (see :mod:`pqkit.read.prune.filtered`). ``buffers``
        (``{offset: bytes}`` or (offset, bytes) pairs, e.g. the ranges :meth:`plan`
        named, fetched by the caller) makes the read decode from them and fetch nothing.
        With ``use_threads`` (the default) column chunks are decoded on
        :func:`pqkit.threads.max_threads` threads (:func:`pqkit.read.decode.selected_rows.read_selections`); the
        Table is the same either way. ``statistics``, a :class:`pqkit.ReadStatistics`,
        counts what the read considered, skipped, decoded and read. ``exclude_rows``
        (sorted, unique file-wide row numbers: a dataset's deletion file) are left out,
        their complement intersected with each row group's selection.
        """
        return self._read(columns, row_groups, filters, use_threads, buffers, statistics,
                          exclude_rows)[0]

    def _read(self, columns, row_groups, filters, use_threads, buffers=None, statistics=None,
              exclude_rows=None):
        """(Table, the read's ReadBudget) of :meth:`read`."""
        tops, wanted = self._select(columns)
        tables, budget = self._read_groups(tops, wanted, row_groups, filters, use_threads,
                                           buffers, statistics, exclude_rows)
        table = concat_row_groups(tables) if tables else self._empty(tops, wanted)
        if statistics is not None:
            statistics.add(rows_returned=table.num_rows)
        return table, budget

    def _read_groups(self, tops, wanted, row_groups, filters, use_threads, buffers=None,
                     statistics=None, exclude_rows=None):
        """(the row groups' Tables, the read's ReadBudget)."""
        groups = self._groups(row_groups)
        live = self._live(exclude_rows)
        reader = self.row_group_reader.with_statistics(statistics).for_read()
        if buffers is not None:
            reader = reader.with_source(BufferSource(self.metadata.file_size, buffers,
                                                     self._source.name))
        fr = FilteredReader(reader, filters) if filters else None
        fetch_ahead(reader, groups, wanted, fr)
        try:
            if fr is not None:
                tables = [t for t in (fr.read_group(g, tops, wanted, use_threads,
                                                    live=live and live[g])
                                      for g in groups) if t is not None]
            else:
                if statistics is not None:
                    statistics.add(row_groups=len(groups))
                tables = self._read_whole(reader, groups, tops, wanted, use_threads, live)
        finally:
            reader.source.forget(self.metadata.file_size - self._tail_read)
        return tables, reader.budget

    @uses_pool
    def arrow_stream(self, columns=None, row_groups=None, *, filters=None, string_view=False,
                     use_threads=True):
        """The selected rows decoded now, as an Arrow stream of one batch per row group.

        The fastest way from a file into another Arrow library when the whole
        selection fits in memory: chunks are decoded as in :meth:`read` (on the
        worker threads with ``use_threads``), but the row groups are not
        concatenated into one Table, and with ``string_view`` strings are exported
        as views over the decoded data (see :meth:`pqkit.Table.arrow_stream`), which
        polars keeps without a copy. ``__arrow_c_stream__`` of the file itself
        decodes lazily instead, one row group per batch the consumer asks for.

        Parameters
        ----------
        columns, row_groups, filters, use_threads
            As :meth:`read`.
        string_view : bool, default False
            Export string and binary columns as ``string_view`` / ``binary_view``.

        Returns
        -------
        pqkit.columnar.arrow_export.TableStream
            A producer with ``__arrow_c_stream__`` and ``__arrow_c_schema__``.

        Examples
        --------
        >>> import polars as pl                                  # doctest: +SKIP
        >>> with pqkit.ParquetFile("x.parquet") as f:
        ...     df = pl.DataFrame(f.arrow_stream(string_view=True))
        """
        tops, wanted = self._select(columns)
        tables, _ = self._read_groups(tops, wanted, row_groups, filters, use_threads)
        return row_group_stream(tables, self._empty(tops, wanted), string_view)

    def read_row_groups(self, row_groups, columns=None, use_threads=True):
        """Read the given row groups (in that order) into one Table, as pyarrow's
        ``ParquetFile.read_row_groups``."""
        return self.read(columns=columns, row_groups=row_groups, use_threads=use_threads)

    @uses_pool
    def take(self, row_indices, columns=None, *, use_threads=True, statistics=None):
        """The rows numbered ``row_indices`` (file-wide, in that order, repeats allowed),
        decoding only the pages that hold them where a chunk has an OffsetIndex
        (whole chunks otherwise); see :mod:`pqkit.read.take`.

        Parameters
        ----------
        row_indices : sequence of int
            Each in ``[0, num_rows)``.
        columns : list of str, optional
            As :meth:`read`.
        use_threads : bool, default True
            Decode the columns on the worker threads.
        statistics : pqkit.ReadStatistics, optional
            Counts row groups, pages and bytes the read touched.

        Returns
        -------
        pqkit.Table
            Equal to ``self.read(columns).take(row_indices)``.

        Raises
        ------
        IndexError
            A row number outside the file.
        """
        tops, wanted = self._select(columns)
        table = take_rows(self.row_group_reader.with_statistics(statistics).for_read(),
                          row_indices, tops, wanted, self._empty(tops, wanted), use_threads)
        if statistics is not None:
            statistics.add(rows_returned=table.num_rows)
        return table

    def iter_batches(self, batch_size=65536, columns=None, row_groups=None, *, filters=None,
                     exclude_rows=None):
        """Batches of ``batch_size`` rows, decoding one row group at a time.

        Every batch but the last has exactly ``batch_size`` rows, across row-group
        boundaries, as in pyarrow; memory stays about one row group's worth.

        Parameters
        ----------
        batch_size : int, default 65536
        columns, row_groups, filters, exclude_rows
            As :meth:`read`; a filter is applied per row group, before batching.

        Returns
        -------
        pqkit.read.batches.BatchReader
            An iterator of :class:`pqkit.Table` and an Arrow stream
            (``__arrow_c_stream__``) that DuckDB, polars or pyarrow read lazily.
        """
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ArgumentError(f"batch_size must be a positive int, got {batch_size!r}")
        return self._batches(batch_size, columns, row_groups, filters, exclude_rows)

    def _batches(self, batch_size, columns=None, row_groups=None, filters=None,
                 exclude_rows=None):
        tops, wanted = self._select(columns)
        groups = self._groups(row_groups)
        reader = self.row_group_reader.for_read()          # one budget for the stream
        live = self._live(exclude_rows)
        if filters:
            fr = FilteredReader(reader, filters)
            def read_group(g):
                fetch_ahead(reader, [g], wanted, fr)
                return fr.read_group(g, tops, wanted, live=live and live[g])
        else:
            def read_group(g):
                fetch_ahead(reader, [g], wanted)
                return self._read_whole(reader, [g], tops, wanted, True, live)[0]
        return BatchReader(read_group, groups, self._empty(tops, wanted), batch_size)

    def __arrow_c_stream__(self, requested_schema=None):
        """The whole file as an Arrow stream of one batch per row group, each decoded when
        the consumer asks for it (``duckdb.sql("select count(*) from f")``,
        ``polars.DataFrame(f)``), so memory stays one row group. Every call starts a new
        stream; :meth:`iter_batches` gives batches of a chosen size instead."""
        return self._batches(None).__arrow_c_stream__(requested_schema)

    def __arrow_c_schema__(self):
        """An ``arrow_schema`` PyCapsule of the file's Table schema."""
        return self._batches(None).__arrow_c_schema__()

    def _groups(self, row_groups):
        groups = range(self.num_row_groups) if row_groups is None else list(row_groups)
        for g in groups:
            if isinstance(g, bool) or not isinstance(g, numbers.Integral):
                raise ArgumentError(f"row_groups: {g!r} is not a row group number")
            if not 0 <= g < self.num_row_groups:
                raise ArgumentIndexError(f"row_groups: row group {g} out of range: the file "
                                         f"has {self.num_row_groups}")
        return groups

    def _read_whole(self, reader, groups, tops, wanted, use_threads, live=None):
        """Every row (every ``live`` one) of each row group in ``groups``, one Table each."""
        md = self.metadata
        picks = [(g, live[g] if live else RowSelection.all(md.checked_row_group(g).num_rows))
                 for g in groups]
        return read_selections(reader, picks, tops, wanted, use_threads)

    def _live(self, exclude_rows):
        """Per row group, the RowSelection of the rows not in ``exclude_rows`` (None when
        no row is excluded)."""
        if exclude_rows is None or not len(exclude_rows):
            return None
        md = self.metadata
        sizes = [md.checked_row_group(g).num_rows for g in range(self.num_row_groups)]
        try:
            return live_selections(sizes, exclude_rows)
        except ValueError as exc:
            raise ArgumentError(f"exclude_rows: {exc}") from None

    def matching_rows(self, filters, exclude_rows=None):
        """The file-wide row numbers (sorted int64) of the rows matching ``filters`` and not
        in ``exclude_rows``; only the filtered columns' candidate pages are decoded (what
        a dataset's delete records in a deletion file)."""
        live = self._live(exclude_rows)
        fr = FilteredReader(self.row_group_reader.for_read(), filters)
        out, first = [], 0
        for g in range(self.num_row_groups):
            picked = fr.matching(g, live and live[g])
            out.append(picked.rows() + first)
            first += picked.num_rows
        return np.concatenate(out) if out else np.zeros(0, np.int64)

    def _empty(self, tops, wanted):
        return self.row_group_reader.empty(tops, wanted)


def read_table(source, columns=None, row_groups=None, *, filters=None, verify_checksums=True,
               variant="struct", coerce_int96_timestamp_unit=None, options=None,
               storage_options=None, filesystem=None, use_threads=True, statistics=None,
               footer_key=None, column_keys=None, key_retriever=None, aad_prefix=None,
               kms_client=None):
    """Read a Parquet file into a :class:`pqkit.Table`.

    Parameters
    ----------
    source : path, URL, bytes-like or seekable binary file object
        A URL is read through fsspec with few, coalesced requests (see :class:`ParquetFile`).
    columns : list of str, optional
        Top-level names or dotted paths (``"a.b"``), in the order the result gives
        them; default all columns, and ``[]`` gives the rows without any column. As
        in pyarrow 26, a path through structs only gives its last node as a
        top-level column named after it (``"st.b.c"`` -> column ``c``, null where
        ``st`` or ``st.b`` is), while :meth:`ParquetFile.read` keeps the struct
        ``st`` pruned to ``b.c``. A path into a list or map (where pyarrow raises)
        gives the top-level column pruned to the selected leaves.
    row_groups : list of int, optional
        Only these row groups.
    filters : list, optional
        Keep rows matching this DNF filter (``[("x", "<", 5)]``); row groups and pages
        that cannot match are skipped using statistics and the page index.
    verify_checksums : bool, default True
    variant : {"struct", "decode"}, default "struct"
        A top-level VARIANT column is read as its physical struct (``metadata``,
        ``value``, ``typed_value``), as pyarrow does; ``"decode"`` reassembles shredded
        values and decodes every row to Python values (a
        :class:`pqkit.variant.VariantColumn`; see :func:`pqkit.variant.decode`).
    coerce_int96_timestamp_unit : {"ns", "us", "ms", "s"}, optional
        See :class:`ParquetFile`.
    options : pqkit.ReadOptions, optional
        Resource limits and remote fetching; see :class:`pqkit.ReadOptions`.
    storage_options : dict, optional
        Options of the URL's fsspec file system.
    filesystem : fsspec.AbstractFileSystem, optional
        Read ``source`` as a path on this file system.
    use_threads : bool, default True
        Decode column chunks on several threads (:func:`pqkit.threads.max_threads`,
        ``PQKIT_NUM_THREADS``); False decodes in the calling thread. Same result.
    statistics : pqkit.ReadStatistics, optional
        Filled in with the row groups and pages the read considered, skipped (and by
        which rule), decoded, and the bytes it read.
    footer_key, column_keys, key_retriever, aad_prefix, kms_client : optional
        The keys of an encrypted file; see :class:`ParquetFile`.

    Examples
    --------
    >>> pqkit.read_table("fixtures/sample.parquet", columns=["id", "point.x"])  # doctest: +SKIP
    """
    if variant not in ("struct", "decode"):
        raise ArgumentError(f"variant must be 'struct' or 'decode', got {variant!r}")
    with ParquetFile(source, verify_checksums=verify_checksums,
                     coerce_int96_timestamp_unit=coerce_int96_timestamp_unit,
                     options=options, storage_options=storage_options,
                     filesystem=filesystem, footer_key=footer_key, column_keys=column_keys,
                     key_retriever=key_retriever, aad_prefix=aad_prefix,
                     kms_client=kms_client) as f:
        table = f.read(columns=columns, row_groups=row_groups, filters=filters,
                       use_threads=use_threads, statistics=statistics)
        if columns is not None:
            table = _as_requested(table, columns)
        return decode_table(table, f.schema) if variant == "decode" else table


def _as_requested(table, columns):
    """The columns of a pruned ``table`` in the order and form ``read_table`` names them:
    a dotted path through structs becomes a top-level column of its last node."""
    fields, cols, pruned_tops = [], [], set()
    for name in columns:
        path = tuple(name) if isinstance(name, (tuple, list)) else tuple(str(name).split("."))
        field, col = _descend(table, path)
        if field is None:                  # a path into a list or map: its pruned top
            if path[0] in pruned_tops:
                continue
            pruned_tops.add(path[0])
            field, col = table.field(path[0]), table.column(path[0])
        fields.append(field)
        cols.append(col)
    return Table(cols, fields, table.metadata, num_rows=None if cols else table.num_rows)


def _descend(table, path):
    """(field, column) at ``path`` with its ancestors' nulls, or (None, None) when the
    path goes into a list or map."""
    field, col = table.field(path[0]), table.column(path[0])
    for part in path[1:]:
        if not isinstance(col, StructColumn):
            return None, None
        i = col.type.names.index(part)
        child = col.type.fields[i]
        col = col.flatten()[i]
        field = T.Field(child.name, child.type, child.nullable or field.nullable,
                        child.metadata)
    return field, col


def read_pandas(source, columns=None, row_groups=None, *, filters=None, strings=None,
                verify_checksums=True, storage_options=None, use_threads=True, options=None,
                decimals="decimal", footer_key=None, column_keys=None, key_retriever=None,
                aad_prefix=None, kms_client=None):
    """Read a Parquet file straight into a pandas DataFrame.

    The same frame as ``read_table(...).to_pandas(strings=strings, decimals=decimals)``
    (``decimals``: "decimal", "float" or "str"), without the
    copy: the decoded numeric buffers become the DataFrame's (the Table never
    escapes). Parameters as :func:`read_table` (``options``: the resource limits of
    :class:`pqkit.ReadOptions`) and :meth:`Table.to_pandas`; the
    index and dtypes recorded in the file's ``pandas`` metadata entry (written by
    pqkit, pyarrow and ``DataFrame.to_parquet``) are restored, and a ``columns``
    selection also reads the stored index columns.

    Examples
    --------
    >>> pqkit.read_pandas("fixtures/sample.parquet", columns=["id"])  # doctest: +SKIP
    """
    with ParquetFile(source, verify_checksums=verify_checksums, options=options,
                     storage_options=storage_options, footer_key=footer_key,
                     column_keys=column_keys, key_retriever=key_retriever,
                     aad_prefix=aad_prefix, kms_client=kms_client) as f:
        if columns is not None:
            columns = _with_index_columns(list(columns), f.metadata.key_value_metadata,
                                          f.schema.names)
        table, budget = f._read(columns, row_groups, filters, use_threads)
    if strings != "object":
        # Text a read holds by reference to its distinct values (a decoded dictionary)
        # becomes one string per row in the frame: the read's budget pays for it.
        text = gathered_text_bytes(table.columns)
        if text:
            budget.charge(text, f"giving pandas {text} bytes of text", "read_pandas")
    return table.to_pandas(strings=strings, self_destruct=True, decimals=decimals)


def _with_index_columns(columns, key_value_metadata, names):
    """``columns`` and, after them, the stored index levels (of the top-level ``names``)
    the ``pandas`` entry names, as pandas.read_parquet does: a selection keeps the index."""
    meta = pandas_metadata_of(key_value_metadata)
    if meta is None:
        return columns
    return columns + [d for d in meta.index
                      if isinstance(d, str) and d in names and d not in columns]

