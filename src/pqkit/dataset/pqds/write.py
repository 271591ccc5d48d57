"""Writing to a dataset: ``write`` (stage + commit + publish) and the distributed ``commit``.

``write`` splits the data by partition, stages one file per partition (more
with ``max_rows_per_file``) under one transaction id, commits them as one
version with the commit algorithm of :mod:`pqkit.dataset.pqds.commit`, then publishes. Modes:

* ``create``: version 0; DatasetExists if the dataset exists.
* ``append``: add files (creates the dataset if there is none).
* ``overwrite``: replace every file; the new data carries its own schema and
  partitioning.
* ``replace_partitions``: replace the partitions named by ``scope`` (default:
  the partitions present in the data). A scope naming an unknown column or a
  column that is not a partition column is an error, never "everything".
"""
import copy

from pqkit import datatypes as T
from pqkit.columnar.table import Table
from pqkit.convert import table_from_data
from pqkit.dataset.core import (
    PartitionColumn,
    Partitioning,
    as_table,
    cast_to_fields,
    next_field_id,
    plain_table,
    type_from_json,
    widens,
    with_field_ids,
)
from pqkit.dataset.pqds.index_segments import append_segments, manifest_indices, remove_segments
from pqkit.dataset.pqds.operations import scope_matches
from pqkit.dataset.pqds.staging import Change, as_partition_type, file_fields
from pqkit.errors import DatasetExists, SchemaError, UnsupportedFeature

MODES = ("create", "append", "overwrite", "replace_partitions")


def _refuse_summary_of_encrypted(parent, properties, writer_options):
    """An encrypted write to a dataset that keeps a ``_metadata`` summary is refused up
    front: one summary footer cannot carry the column metadata of files each bound to its
    own keys and file AAD, so publish would have to leave the summary out."""
    options = writer_options.get("options")
    if writer_options.get("encryption") is None and getattr(options, "encryption", None) \
            is None:
        return
    summary = dict(parent.properties if parent is not None else {}, **(properties or {}))
    if summary.get("summary.metadata", "never") == "always":
        raise UnsupportedFeature(
            "an encrypted write to a dataset with summary.metadata='always': a _metadata "
            "summary cannot describe encrypted files (each file's column metadata is bound "
            "to its own keys and AAD); set summary.metadata to 'never' or write unencrypted")


def write(root, data, *, partition_by=None, mode="append", run_id=None, scope=None,
          blind=False, schema=None, evolve_schema=False, empty_string_as_null=False,
          max_rows_per_file=None, stats_columns=32, properties=None, metadata=None,
          dataset_key=None, storage_options=None, **writer_options):
    """Write ``data`` to the dataset at ``root`` as one new version.

    Parameters
    ----------
    root : path or URL
        A URL (``s3://bucket/table``) writes to an object store whose PUTs honour
        ``If-None-Match: *`` (checked once; UnsupportedFeature otherwise).
    data : pqkit.Table, dict of columns or pandas.DataFrame
        Partition columns included; they are stored in directory names only.
    partition_by : list of str, optional
        Partition columns, in directory order. Default: the dataset's (none for a new one).
    mode : {"create", "append", "overwrite", "replace_partitions"}
    run_id : str, optional
        ``"app:run"`` idempotency key: a run already committed makes this a no-op.
    scope : dict or list of dict, optional
        replace_partitions only: ``{partition column: value}`` entries (may name a
        prefix of the partition columns) of the partitions to replace.
    blind : bool, default False
        replace_partitions only: do not conflict with files appended concurrently
        inside the scope.
    schema : list of pqkit.Field, optional
        Types of ``data`` (partition columns included), as for ``pqkit.write_table``.
    evolve_schema : bool, default False
        Allow the append to add nullable columns, widen types, relax nullability.
    empty_string_as_null : bool, default False
        Store ``""`` partition values as null instead of refusing them.
    max_rows_per_file : int, optional
        Split each partition into files of at most this many rows.
    stats_columns : int, default 32
        Per-file statistics for the first this-many flat columns.
    properties, metadata : dict, optional
        Set (merged into) the version's ``properties`` and (replace) its ``metadata``.
    storage_options : dict, optional
        fsspec options of a URL ``root``.
    **writer_options
        Passed to :class:`pqkit.ParquetWriter` (compression, row_group_size,
        bloom_filter_columns, ...).

    Returns
    -------
    int
        The committed version (the current one when ``run_id`` was already applied).

    Raises
    ------
    CommitConflict
        A concurrent version conflicts (see the conflict table); ``retryable`` says
        whether re-running the whole write may succeed.
    DatasetExists, SchemaError
    """
    if mode not in MODES:
        raise SchemaError(f"mode {mode!r}: use one of {', '.join(MODES)}")
    change = Change(root, storage_options, writable=True)
    read_version, parent = change.current()
    _refuse_summary_of_encrypted(parent, properties, writer_options)
    if mode == "create" and parent is not None:
        raise DatasetExists(f"{change.paths.root} already holds a dataset (version {parent.version})")
    if parent is not None:
        parent.check_writable()
    table = plain_table(as_table(data) if schema is None else _typed(data, schema))
    partitioning = _write_partitioning(table, partition_by, mode, parent)
    data_table = table.drop(partitioning.names)
    if not data_table.num_columns:
        raise SchemaError("the data has no column besides the partition columns; a data "
                          "file needs at least one")
    fields = _write_fields(data_table, parent, mode, evolve_schema)
    physical = file_fields(parent, mode, fields, partitioning)
    data_table = cast_to_fields(data_table, fields)
    part_cols = [as_partition_type(table, c) for c in partitioning.columns]
    table = Table(data_table.columns + part_cols,
                  fields + [T.Field(c.name, c.type) for c in partitioning.columns])
    groups = partitioning.split(table, empty_string_as_null=empty_string_as_null)
    if mode == "replace_partitions":
        scope = resolve_scope(partitioning, scope, [texts for texts, _ in groups])
    segments = []
    indexed = [ix["column"] for ix in manifest_indices(parent)] \
        if mode in ("append", "replace_partitions") else []
    pieces = {}                                 # file key -> its indexed columns (§3.4)
    try:
        with change:
            for texts, rows in groups:
                for piece in _pieces(rows, max_rows_per_file):
                    entry = change.stage(partitioning, texts, piece, fields, stats_columns,
                                         writer_options, physical)
                    if indexed:
                        pieces[entry["key"]] = piece.select(
                            [c for c in indexed if c in piece.column_names])
            segments = append_segments(change.paths, parent, mode, fields, pieces,
                                       read_version + 1)
        return change.commit(mode, scope=scope, blind=blind, run_id=run_id,
                             read_version=read_version, partition_by=partitioning.names,
                             partitioning=partitioning, schema=fields,
                             evolve_schema=evolve_schema, properties=properties,
                             metadata=metadata, dataset_key=dataset_key,
                             index_segments=segments,
                             physical_added=_added_names(fields, physical))
    except BaseException:
        remove_segments(change.paths, [seg for _, seg in segments])
        raise


def _typed(data, schema):
    return table_from_data(data, schema)


def _write_partitioning(table, partition_by, mode, parent):
    current = parent.partitioning if parent is not None else None
    if partition_by is not None:
        if isinstance(partition_by, str):
            partition_by = [partition_by]
        partition_by = list(partition_by)
    if current is not None and mode != "overwrite":
        if partition_by is not None and partition_by != current.names:
            raise SchemaError(f"the dataset is partitioned by {current.names}, not "
                              f"{partition_by}")
        return current
    names = partition_by if partition_by is not None else \
        (current.names if current is not None else [])
    cols = []
    for name in names:
        if name not in table.column_names:
            raise SchemaError(f"partition column {name!r} is not a column of the data "
                              f"(columns: {table.column_names})")
        keep = current is not None and name in current.by_name and \
            current.by_name[name].type == table.field(name).type
        cols.append(current.by_name[name] if keep else
                    PartitionColumn(name, table.field(name).type))
    return Partitioning(cols)


def _write_fields(data_table, parent, mode, evolve):
    """The data files' fields: ids from the dataset; types from it unless evolving/overwriting."""
    known = {f.name: f for f in parent.schema.fields} if parent is not None else {}
    if mode == "overwrite" or not known:
        out, _ = with_field_ids(data_table.schema, 1, known)
        return out
    fields = []
    for f in data_table.schema:
        old = known.get(f.name)
        if old is None:
            if not evolve:
                raise SchemaError(f"column {f.name!r} is not in the dataset (columns "
                                  f"{list(known)}); pass evolve_schema=True to add it")
            fields.append(T.Field(f.name, f.type, True))
        elif evolve and f.type != old.type and widens(old.type, f.type):
            fields.append(T.Field(f.name, f.type, old.nullable or f.nullable, old.metadata))
        elif evolve and f.nullable and not old.nullable and f.type == old.type:
            fields.append(T.Field(f.name, old.type, True, old.metadata))
        else:
            fields.append(old)
    out, _ = with_field_ids(fields, next_field_id(parent), known)
    return out


def _added_names(fields, physical):
    """{column name: physical name} where the files name a column differently."""
    return {f.name: p.name for f, p in zip(fields, physical) if f.name != p.name}


def _pieces(table, max_rows):
    if not max_rows or table.num_rows <= max_rows:
        return [table]
    return [table.slice(i, i + max_rows) for i in range(0, table.num_rows, int(max_rows))]


def resolve_scope(partitioning, scope, data_partitions):
    """A replace_partitions scope as canonical texts, validated.

    ``scope`` is None (the partitions in the data), a dict, or a list of dicts of
    partition column -> Python value. Every data partition must fall inside it.
    """
    if not partitioning:
        raise SchemaError("replace_partitions needs a partitioned dataset")
    if scope is None:
        out = [dict(p) for p in data_partitions]
    else:
        entries = [scope] if isinstance(scope, dict) else list(scope)
        if not entries:
            raise SchemaError("replace_partitions scope is empty; to replace everything use "
                              "mode='overwrite'")
        out = []
        for entry in entries:
            if not isinstance(entry, dict) or not entry:
                raise SchemaError(f"replace_partitions scope entry {entry!r} must be a "
                                  "non-empty dict of partition column -> value (an empty "
                                  "one would mean every partition)")
            texts = {}
            for name, value in entry.items():
                col = partitioning.by_name.get(name)
                if col is None:
                    raise SchemaError(f"replace_partitions scope names {name!r}, which is not "
                                      f"a partition column (partition columns: "
                                      f"{partitioning.names})")
                texts[name] = col.text_of_value(value, where="replace_partitions scope")
            out.append(texts)
    for p in data_partitions:
        if not scope_matches(out, p):
            raise SchemaError(f"data partition {p} lies outside the replace_partitions scope "
                              f"{out}")
    unique = []
    for s in out:
        if s not in unique:
            unique.append(s)
    return unique


def commit(root, file_entries, *, mode, partition_by=None, run_id=None, schema=None,
           scope=None, blind=False, evolve_schema=False, read_version=None, properties=None,
           metadata=None, storage_options=None):
    """Commit files staged by :func:`stage_file` (e.g. on Spark executors) as one version.

    Parameters
    ----------
    root : path or URL
    file_entries : list of dict
        Entries returned by ``stage_file``; the files must still be staged.
    mode : {"create", "append", "overwrite", "replace_partitions"}
    partition_by : list of str, optional
        Must equal the entries' partition columns (and the dataset's, except for
        create/overwrite). Default: taken from the entries or the dataset.
    run_id : str, optional
        Idempotency key (``"app:run"``); a run already committed is a no-op.
    schema : list of pqkit.Field, optional
        The data schema (no partition columns) of the version; default the union of
        the entries' schemas (create/overwrite) or the dataset's.
    scope, blind
        replace_partitions: as in :func:`write`; default scope = the entries' partitions.
    evolve_schema : bool, default False
    read_version : int, optional
        The version the job read; conflicts are checked from there (default: the
        latest at commit time, i.e. a blind write).
    storage_options : dict, optional
        fsspec options of a URL ``root``.

    Returns
    -------
    int
        The committed version.
    """
    if mode not in MODES:
        raise SchemaError(f"mode {mode!r}: use one of {', '.join(MODES)}")
    change = Change(root, storage_options, writable=True)
    entries = [copy.deepcopy(dict(e)) for e in file_entries]
    if isinstance(partition_by, str):
        partition_by = [partition_by]
    _, parent = change.current()
    fields = None
    if schema is not None:
        known = {f.name: f for f in parent.schema.fields} if parent is not None else {}
        fields, _ = with_field_ids([f if isinstance(f, T.Field) else T.Field(*f)
                                    for f in schema], 1, known, keep_own=True)
    if mode == "replace_partitions":
        names = partition_by or (parent.partitioning.names if parent is not None else
                                 list((entries[0].get("partition") or {}) if entries else []))
        partitioning = parent.partitioning if parent is not None and \
            parent.partitioning.names == names else _entries_partitioning(entries, names)
        scope = resolve_scope(partitioning, scope, [e.get("partition") or {} for e in entries])
    return change.commit(mode, entries=entries, scope=scope, blind=blind, run_id=run_id,
                         read_version=read_version, partition_by=partition_by, schema=fields,
                         evolve_schema=evolve_schema, properties=properties, metadata=metadata)


def _entries_partitioning(entries, names):
    types = (entries[0].get("partition_types") or {}) if entries else {}
    missing = [n for n in names if n not in types]
    if missing:
        raise SchemaError(f"cannot tell the type of partition column {missing[0]!r}")
    return Partitioning([PartitionColumn(n, type_from_json(types[n])) for n in names])


__all__ = ["write", "commit", "resolve_scope", "MODES"]
