"""Writing data files into the hidden staging area (§3.2, step 2 of §3.6), and the
:class:`Change` that stages them and commits them as one version.

A data file is written with pqkit's :class:`~pqkit.ParquetWriter` straight to
its hidden copy ``_pqkit/shadow/<partition dirs>/_part-{seq:05d}-{txn}.parquet.shadow``
(on a file system; :meth:`~pqkit.dataset.pqds.paths.RootPaths.shadow`), fsynced with its
directories, and described by a *file entry*: the JSON-able dict a version file
lists for it, plus two staging-only keys the commit consumes
(``schema``: the file's fields, ``partition_types``: the types the partition
values were given as). Nothing is visible to any reader until a commit lists
the entry and the publish step moves the file to its visible path.

Every operation that writes a version (write, commit, delete, compact, restore,
merge, renaming and dropping a column, index builds) is one :class:`Change`: it
names the transaction, opens the version the operation reads, stages the new files,
commits an :class:`~pqkit.dataset.pqds.operations.Operation` with the commit loop
(commit.py), removes what it staged when anything fails before the commit lands, and
publishes after it (publishing.py).
"""
from pqkit import datatypes as T
from pqkit.columnar.table import Table
from pqkit.convert import column_from_values
from pqkit.dataset.core import (
    DEFAULT_PROPERTIES,
    ColumnMapping,
    HashingSink,
    PartitionColumn,
    Partitioning,
    as_table,
    cast_to_fields,
    codec_name,
    crash_point,
    deletion_bytes,
    field_id,
    field_to_json,
    file_statistics,
    max_field_id,
    new_txn,
    next_field_id,
    new_writer,
    plain_table,
    type_to_json,
    with_field_ids,
)
from pqkit.dataset.pqds.commit import commit_operation
from pqkit.dataset.pqds.operations import Operation
from pqkit.dataset.pqds.paths import RootPaths, data_file_name, file_key
from pqkit.dataset.pqds.publishing import try_publish
from pqkit.dataset.pqds.reader import open_pqds
from pqkit.errors import DatasetNotFound, SchemaError


class Change:
    """One change to the PQDS/1 dataset at ``root`` (a path, or a URL read with
    ``storage_options``): its transaction id, the files it staged (``staged``: their
    entries) and its commit.

    Used as a context manager around the staging, it removes the staged files when the
    block raises.
    """

    def __init__(self, root, storage_options=None, *, writable=False):
        self.root = root
        self.storage_options = storage_options
        self.paths = RootPaths.at(root, storage_options)
        if writable:
            self.check_writable()
        self.txn = new_txn()
        self.staged = []
        self.deletions = {}         # file key -> the record of the deletion file staged for it

    def check_writable(self):
        """UnsupportedFeature when the store cannot commit a version (an object store
        without conditional PUTs)."""
        self.paths.storage.check_writable(self.paths.root)

    def open(self, version=None):
        """The :class:`~pqkit.dataset.pqds.reader.Dataset` of ``version`` (default the
        latest): the version an operation reads."""
        return open_pqds(self.root, version, storage_options=self.storage_options)

    def load(self, version):
        """The Manifest of ``version``."""
        return self.paths.load(version)

    def current(self):
        """(read version, latest Manifest) for writing, or (-1, None) when there is no
        dataset."""
        try:
            return self.paths.load_latest(for_writing=True)
        except DatasetNotFound:
            return -1, None

    def stage(self, partitioning, texts, table, fields, stats_columns, options,
              physical=None):
        """Stage ``table`` as the next file of the change in partition ``texts``;
        ``physical``: the fields under the names the file gives them (default
        ``fields``), while the entry names the dataset's. Returns the entry."""
        entry = _staged_entry(self.paths, partitioning.directory(texts), self.txn,
                              len(self.staged), table, fields, physical or fields, dict(texts),
                              _partition_types(partitioning), stats_columns=stats_columns,
                              **options)
        self.staged.append(entry)
        return entry

    def rewrite(self, ds, entry, table, writer_options):
        """Stage ``table`` (the data columns of ``ds``'s version) as a new file in
        ``entry``'s partition; returns the new entry."""
        directory = entry["path"].rsplit("/", 1)[0] if "/" in entry["path"] else ""
        # the file names its columns physically (core/column_mapping.py), the entry as the
        # version
        new = _staged_entry(self.paths, directory, self.txn, len(self.staged), table,
                            ds.table_schema.fields, ds.physical_schema.fields,
                            dict(entry.get("partition") or {}), crash=False, **writer_options)
        self.staged.append(new)
        return new

    def stage_deletions(self, entry, rows):
        """Write the deletion file of ``entry``'s data file deleting the positions ``rows``
        (sorted, unique; every earlier deletion of the file included) and note it for
        the commit; returns its record (core/deletion_file.py)."""
        relpath = self.paths.new_deletion_path(entry["key"], self.txn)
        data = deletion_bytes(rows)
        record = {"path": relpath, "rows": int(len(rows)), "size": len(data)}
        self.deletions[entry["key"]] = record
        with self.paths.storage.create(self.paths.visible(relpath)) as f:
            f.write(data)
        crash_point("stage.deletions_written")
        return record

    def discard(self):
        """Remove the staged copies of the files staged so far, and the deletion files."""
        discard_staged(self.paths, self.staged)
        for record in self.deletions.values():
            self.paths.storage.remove(self.paths.visible(record["path"]))

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is not None:
            self.discard()
        return False

    def commit(self, type, **operation):
        """Commit an :class:`Operation` of ``type`` adding the staged files (unless it
        names its own ``entries``) as the next version, then publish; returns the version.
        A failed commit removes the staged files first."""
        operation.setdefault("entries", self.staged)
        operation.setdefault("deletions", self.deletions)
        try:
            version = commit_operation(self.paths, Operation(type, self.txn, **operation))
        except BaseException:
            self.discard()
            raise
        try_publish(self.paths)
        return version


def discard_staged(paths, entries):
    """Remove the staged copies of files that were never committed."""
    for e in entries:
        for path in paths.storage.staged_copies(paths, e["path"]):
            paths.storage.remove(path)


def _staged_entry(paths, directory, txn, seq, table, fields, physical, partition,
                  partition_types=None, *, crash=True, **options):
    """Write file ``seq`` of ``txn`` in ``directory`` with the ``physical`` fields; its
    entry, which names the ``fields``."""
    relpath = (directory + "/" if directory else "") + data_file_name(seq, txn)
    facts = write_data_file(paths, relpath, table, physical, **options)
    if crash:
        crash_point("stage.written")
    entry = {"key": file_key(seq, txn), "path": relpath, "partition": partition, **facts,
             "schema": [field_to_json(f) for f in fields]}
    if partition_types is not None:
        entry["partition_types"] = partition_types
    return entry


def _partition_types(partitioning):
    return {c.name: type_to_json(c.type) for c in partitioning.columns}


def as_partition_type(table, column):
    """The values of partition column ``column`` in ``table``, as the partition's type."""
    col = table.column(column.name)
    if col.type == column.type:
        return col
    try:
        return column_from_values(col, column.type)
    except SchemaError as exc:
        raise SchemaError(f"partition column {column.name!r} ({col.type}) does not fit the "
                          f"dataset's partition type {column.type}: {exc}") from None


def write_data_file(paths, relpath, table, fields, *, stats_columns=32, **writer_options):
    """Write ``table`` (columns in ``fields`` order) to the staged place of ``relpath``:
    its shadow copy on a file system, its final key on an object store.

    Returns the entry's physical facts: size, row_count, row_groups, codec, stats, sha256.
    """
    options = dict(writer_options)
    if "options" not in options:        # a WriteOptions says its own compression
        options.setdefault("compression", DEFAULT_PROPERTIES["compression"])
    with paths.storage.create(paths.staged(relpath)) as f:
        sink = HashingSink(f)
        writer = new_writer(sink, fields, options)
        writer.write(Table(table.columns, fields))
        crash_point("stage.partial")
        writer.close()
    return {"size": sink.size, "row_count": writer.num_rows,
            "row_groups": len(writer.row_groups),
            "codec": codec_name(writer.row_groups, writer.write_options.compression),
            "stats": file_statistics(fields, writer.schema, writer.row_groups, stats_columns),
            "sha256": sink.hash.hexdigest()}


def stage_file(root, table, partition_values=None, *, txn=None, seq=0, schema=None,
               partition_types=None, empty_string_as_null=False, stats_columns=32,
               storage_options=None, **writer_options):
    """Write one data file into the staging area and return its file entry.

    This is the executor half of a distributed write: executors stage files,
    the driver passes all entries to :func:`pqkit.dataset.pqds.commit`, which makes
    them one version. A staged file that is never committed stays invisible and
    is removed by ``vacuum`` after the grace period.

    Parameters
    ----------
    root : path or URL
        The dataset root (need not exist yet). On an object store (``s3://...``)
        the file is written straight to its final key; it stays out of every
        version until committed, and ``repair``/``vacuum`` delete it if it never is.
    table : pqkit.Table or dict of columns
        The rows of one partition. Partition columns, if present, are dropped:
        data files never contain them.
    partition_values : dict, optional
        ``{partition column: value}`` in partitioning order; values are Python
        values (``None`` = null). ``""`` is refused unless ``empty_string_as_null``.
    txn : str, optional
        32 hex digits naming the transaction (file names are
        ``part-{seq:05d}-{txn}.parquet``); default a fresh uuid4 per call.
    seq : int, default 0
        Sequence number of the file within ``txn`` (0..99999).
    schema : list of Field, optional
        The dataset's data fields (with ids) to write with; by default the
        latest version's schema when the dataset exists, else the table's.
    partition_types : dict, optional
        Types of the partition columns; default the dataset's, else inferred.
    stats_columns : int, default 32
        Per-file statistics for the first this-many non-repeated leaves.
    storage_options : dict, optional
        fsspec options of a URL ``root``.
    **writer_options
        Passed to :class:`pqkit.ParquetWriter` (compression, row_group_size, ...).

    Returns
    -------
    dict
        The file entry (JSON-able): ``key``, ``path``, ``partition``, ``size``,
        ``row_count``, ``row_groups``, ``codec``, ``stats``, ``sha256``, and the
        staging-only ``schema`` and ``partition_types`` that ``commit`` checks.
    """
    paths = RootPaths.at(root, storage_options)
    txn = txn or new_txn()
    partition_values = dict(partition_values or {})
    known_fields, known_parts, latest = _dataset_defaults(paths, schema)
    partitioning = _partitioning_for(partition_values, partition_types, known_parts)
    texts = {c.name: c.text_of_value(partition_values[c.name],
                                     empty_string_as_null=empty_string_as_null,
                                     where=f"stage_file partition {c.name!r}")
             for c in partitioning.columns}
    table = plain_table(as_table(table))
    table = table.drop([n for n in partitioning.names if n in table.column_names])
    fields = data_fields(table, known_fields, next_field_id(latest))
    table = cast_to_fields(table, fields)
    return _staged_entry(paths, partitioning.directory(texts), txn, seq, table, fields,
                         file_fields(latest, "append", fields, partitioning), texts,
                         _partition_types(partitioning), stats_columns=stats_columns,
                         **writer_options)


def _dataset_defaults(paths, schema):
    """(data fields with ids or None, Partitioning or None, Manifest or None) of the
    latest version, if any."""
    try:
        latest = paths.latest()
    except DatasetNotFound:
        return schema, None, None
    manifest = paths.load(latest)
    return (schema if schema is not None else manifest.schema.fields), \
        manifest.partitioning, manifest


def file_fields(parent, mode, fields, partitioning):
    """The fields as the data files name them: under their physical names when the
    dataset maps columns (core/column_mapping.py), a new column under a name no live or
    dropped column used; ``fields`` itself otherwise (and for create and overwrite, whose
    files start afresh)."""
    if parent is None or mode in ("create", "overwrite"):
        return fields
    mapping = ColumnMapping.of(parent.data, parent.where)
    if not mapping.enabled:
        return fields
    known = {field_id(f) for f in parent.schema.fields}
    out = []
    for f in fields:
        if field_id(f) in known:
            name = mapping.name_of(f)
        else:
            name = mapping.new_physical(f.name, partitioning.names + [g.name for g in out])
        out.append(T.Field(name, f.type, f.nullable, f.metadata))
    return out


def _partitioning_for(values, types, known):
    if known is not None and known.names == list(values):
        return known
    cols = []
    for name, value in values.items():
        t = (types or {}).get(name)
        if t is None and known is not None and name in known.by_name:
            t = known.by_name[name].type
        if t is None:
            t = T.string() if value is None else column_from_values([value]).type
        cols.append(PartitionColumn(name, t))
    return Partitioning(cols)


def data_fields(table, known_fields, start=None):
    """The fields a data file is written with: the dataset's (ids kept) for known columns.

    Columns the dataset lacks get fresh ids from ``start`` (default: after the largest
    id in use).
    """
    known = {f.name: f for f in (known_fields or [])}
    fields = []
    for f in table.schema:
        old = known.get(f.name)
        fields.append(old.with_name(f.name) if old is not None and
                      _same_nullable_or_wider(old, f) else f)
    if start is None:
        start = max_field_id(known_fields or []) + 1
    out, _ = with_field_ids(fields, start, known)
    return out


def _same_nullable_or_wider(old, new):
    return old.nullable or not new.nullable
