"""Operations on existing data: delete, compact, restore, tag, rename and drop a column (§3.9).

* ``delete(root, filters)``: files whose partition values prove that every row
  matches are dropped without being read; files that may partly match are
  rewritten without the matching rows (copy-on-write); the rest stay.
* ``compact(root)``: per partition, files smaller than the target size are
  bin-packed and rewritten into fewer files (a ``compact`` rewrite, validated
  against concurrent commits by the conflict table).
* ``restore(root, version)``: a new version whose files are those of ``version``.
* ``tag(root, name, version)``: a named version that vacuum keeps.
* ``rename_column`` and ``drop_column``: metadata-only ``schema_change`` commits (§3.3
  column_mapping), see below.
"""
import numpy as np

from pqkit.columnar.table import concat_tables
from pqkit.dataset.core import (
    dump_json,
    field_to_json,
    new_txn,
    normalize_filters,
    row_mask,
)
from pqkit.dataset.pqds.commit import commit_operation, load_version
from pqkit.dataset.pqds.operations import Operation
from pqkit.dataset.pqds.paths import RootPaths, data_file_name, file_key
from pqkit.dataset.pqds.publish import try_publish
from pqkit.dataset.pqds.reader import open_pqds
from pqkit.dataset.pqds.staging import write_data_file
from pqkit.dataset.pqds.write import discard_staged
from pqkit.errors import DatasetError, DatasetIncomplete, SchemaError

DEFAULT_TARGET_SIZE = 128 << 20


def _rewrite_entry(paths, ds, entry, table, txn, seq, writer_options):
    """Stage ``table`` (the data columns) as a new file in ``entry``'s partition."""
    directory = entry["path"].rsplit("/", 1)[0] if "/" in entry["path"] else ""
    relpath = (directory + "/" if directory else "") + data_file_name(seq, txn)
    fields = ds.table_schema.fields
    # the file names its columns physically (core/column_mapping.py), the entry as the version
    facts = write_data_file(paths, relpath, table, ds.physical_schema.fields, **writer_options)
    return {"key": file_key(seq, txn), "path": relpath,
            "partition": dict(entry.get("partition") or {}), **facts,
            "schema": [field_to_json(f) for f in fields]}


def _data_table(ds, entry):
    return ds.read_entry(entry, ds.table_schema.names)


def _commit(paths, op, staged):
    try:
        version = commit_operation(paths, op)
    except BaseException:
        discard_staged(paths, staged)
        raise
    try_publish(paths)
    return version


def delete(root, filters, *, run_id=None, storage_options=None, **writer_options):
    """Delete the rows matching ``filters`` (DNF, as for reading) as a new version.

    Returns the new version, or the current one when no row matches. A URL ``root``
    is a dataset on an object store (``storage_options``: its fsspec options).
    """
    dnf = normalize_filters(filters)
    if dnf is None:
        raise DatasetError("delete needs a filter; to remove everything overwrite the dataset")
    paths = RootPaths.at(root, storage_options)
    ds = open_pqds(root, storage_options=storage_options)
    txn, removed, staged = new_txn(), set(), []
    try:
        for entry, residual in ds.plan(dnf):
            if residual == []:
                removed.add(entry["key"])          # partition values prove every row matches
                continue
            table = _data_table(ds, entry)
            matching = row_mask(table, residual, ds.table_schema)
            if not matching.any():
                continue
            removed.add(entry["key"])
            keep = np.flatnonzero(~matching)
            if len(keep):
                staged.append(_rewrite_entry(paths, ds, entry, table.take(keep), txn,
                                             len(staged), writer_options))
    except BaseException:
        discard_staged(paths, staged)
        raise
    if not removed:
        return ds.version
    op = Operation("delete", txn, entries=staged, removed=removed, run_id=run_id,
                   read_version=ds.version)
    return _commit(paths, op, staged)


def compact(root, *, target_size=DEFAULT_TARGET_SIZE, run_id=None, storage_options=None,
            **writer_options):
    """Rewrite each partition's small files (below ``target_size`` bytes) into fewer files.

    Returns the new version, or the current one when there is nothing to compact. A
    URL ``root`` is a dataset on an object store (``storage_options``: its fsspec options).
    """
    paths = RootPaths.at(root, storage_options)
    ds = open_pqds(root, storage_options=storage_options)
    txn, removed, staged = new_txn(), set(), []
    try:
        for group in _compact_groups(ds, target_size):
            tables = [t for t in (_data_table(ds, e) for e in group) if t.num_rows]
            removed.update(e["key"] for e in group)
            if tables:
                merged = concat_tables(tables) if len(tables) > 1 else tables[0]
                staged.append(_rewrite_entry(paths, ds, group[0], merged, txn,
                                             len(staged), writer_options))
    except BaseException:
        discard_staged(paths, staged)
        raise
    if not removed:
        return ds.version
    op = Operation("compact", txn, entries=staged, removed=removed, run_id=run_id,
                   read_version=ds.version)
    return _commit(paths, op, staged)


def compact_plan(root, *, target_size=DEFAULT_TARGET_SIZE, storage_options=None):
    """What :func:`compact` would do now, without writing anything.

    Returns
    -------
    list of list of str
        The groups of file paths that would each be rewritten into one file.
    """
    ds = open_pqds(root, storage_options=storage_options)
    return [[e["path"] for e in group] for group in _compact_groups(ds, target_size)]


def _compact_groups(ds, target_size):
    """Groups (two files or more) of small files of one partition, rewritten together."""
    by_partition = {}
    for entry in ds.manifest.files:
        if int(entry["size"]) < target_size:
            key = tuple(sorted((entry.get("partition") or {}).items(), key=lambda kv: kv[0]))
            by_partition.setdefault(key, []).append(entry)
    return [group for entries in by_partition.values()
            for group in _bins(entries, target_size) if len(group) >= 2]


def _bins(entries, target):
    """First-fit-decreasing bins of entries whose sizes add up to at most ``target``."""
    bins = []
    for e in sorted(entries, key=lambda e: -int(e["size"])):
        for b in bins:
            if b[0] + int(e["size"]) <= target:
                b[0] += int(e["size"])
                b[1].append(e)
                break
        else:
            bins.append([int(e["size"]), [e]])
    return [sorted(b[1], key=lambda e: e["key"]) for b in bins]


def restore(root, version, *, run_id=None, storage_options=None):
    """Commit a new version whose files (and schema) are those of ``version``. A URL
    ``root`` is a dataset on an object store (``storage_options``: its fsspec options)."""
    paths = RootPaths.at(root, storage_options)
    target = load_version(paths, int(version))
    ds = open_pqds(root, storage_options=storage_options)
    missing = [f["path"] for f in target.files if not _present(paths, f["path"])]
    if missing:
        raise DatasetIncomplete(f"cannot restore version {version}: file {missing[0]!r} was "
                                "vacuumed")
    current = ds.manifest.by_key()
    added = [dict(f) for f in target.files if f["key"] not in current]
    op = Operation("restore", new_txn(), entries=added, run_id=run_id,
                   read_version=ds.version, restore_from=target)
    return _commit(paths, op, [])


def _present(paths, relpath):
    return paths.find_shadow(relpath) is not None or \
        paths.storage.exists(paths.visible(relpath))


def tag(root, name, version=None, *, storage_options=None):
    """Name ``version`` (default: the latest); vacuum keeps tagged versions. Retagging
    moves the name (the last writer wins)."""
    paths = RootPaths.at(root, storage_options)
    ds = open_pqds(root, version, storage_options=storage_options)
    paths.storage.replace(paths.tag_path(name), dump_json({"version": ds.version}))
    return ds.version


def untag(root, name, *, storage_options=None):
    """Remove a tag (the version becomes subject to retention again); False when there
    was none."""
    paths = RootPaths.at(root, storage_options)
    path = paths.tag_path(name)
    # asked first: a store's DELETE of a missing key succeeds, so it cannot tell
    return paths.storage.exists(path) and paths.storage.remove(path)


# --- renaming and dropping columns --------------------------------------------------------------
# Metadata-only ``schema_change`` commits (§3.3 column_mapping). A rename gives a column's
# field id a new name in the next version's schema; a drop removes the field. Neither reads,
# writes or moves a data file: the data files keep every column under its physical name
# (core/column_mapping.py), and each version reads them under its own names, so time travel to
# a version before the change sees the old names and the dropped column. An inverted index
# follows a renamed column and goes with a dropped one. In the conflict table a schema change
# rebases over appends without new columns, rewrites and index builds, and conflicts with an
# overwrite, a restore or another schema change; a concurrent delete, merge or compaction of
# the files conflicts with it (retryable).
def rename_column(root, old, new, *, run_id=None, storage_options=None):
    """Rename data column ``old`` to ``new`` as a new version; no file is rewritten.

    Returns the new version. A URL ``root`` is a dataset on an object store
    (``storage_options``: its fsspec options).

    Raises
    ------
    SchemaError
        ``old`` is not a data column (partition columns cannot be renamed: their name is
        in every directory), or ``new`` is empty or already a column's name.
    CommitConflict
        A concurrent overwrite, restore or schema change (retryable).
    """
    ds = _data_column(root, old, "rename", storage_options)
    if not isinstance(new, str) or not new or new in ds.column_names:
        raise SchemaError(f"cannot rename {old!r} to {new!r}: the new name must be a "
                          f"non-empty name no column has (columns: {ds.column_names})")
    return _commit_schema_change(root, ds, ("rename", old, new), run_id, storage_options)


def drop_column(root, name, *, run_id=None, storage_options=None):
    """Drop data column ``name`` as a new version; no file is rewritten (older versions
    still read it). A column added later under the same name is a new column.

    Raises
    ------
    SchemaError
        ``name`` is not a data column, or it is the last one.
    """
    ds = _data_column(root, name, "drop", storage_options)
    if len(ds.table_schema.fields) == 1:
        raise SchemaError(f"cannot drop {name!r}: it is the dataset's last data column")
    return _commit_schema_change(root, ds, ("drop", name), run_id, storage_options)


def _data_column(root, name, what, storage_options):
    ds = open_pqds(root, storage_options=storage_options)
    if name in ds.partitioning.by_name:
        raise SchemaError(f"cannot {what} partition column {name!r}: its name is part of "
                          "every file's directory")
    if name not in ds.table_schema.by_name:
        raise SchemaError(f"no column {name!r} to {what} (columns: {ds.column_names})")
    return ds


def _commit_schema_change(root, ds, edit, run_id, storage_options):
    paths = RootPaths.at(root, storage_options)
    paths.storage.check_writable(paths.root)
    op = Operation("schema_change", new_txn(), run_id=run_id, read_version=ds.version,
                   schema_edit=edit)
    return _commit(paths, op, [])
