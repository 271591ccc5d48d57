"""Renaming and dropping columns: metadata-only ``schema_change`` commits (§3.3 column_mapping).

A rename gives a column's field id a new name in the next version's schema; a drop
removes the field. Neither reads, writes or moves a data file: the data files keep every
column under its physical name (core/column_mapping.py), and each version reads them
under its own names, so time travel to a version before the change sees the old names
and the dropped column. An inverted index follows a renamed column and goes with a
dropped one. In the conflict table a schema change rebases over appends without new
columns, rewrites and index builds, and conflicts with an overwrite, a restore or
another schema change; a concurrent delete, merge or compaction of the files conflicts
with it (retryable).
"""
from pqkit.dataset.core import new_txn
from pqkit.dataset.pqds.commit import commit_operation
from pqkit.dataset.pqds.operations import Operation
from pqkit.dataset.pqds.paths import RootPaths
from pqkit.dataset.pqds.publish import try_publish
from pqkit.dataset.pqds.reader import open_pqds
from pqkit.errors import SchemaError


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
    return _commit(root, ds, ("rename", old, new), run_id, storage_options)


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
    return _commit(root, ds, ("drop", name), run_id, storage_options)


def _data_column(root, name, what, storage_options):
    ds = open_pqds(root, storage_options=storage_options)
    if name in ds.partitioning.by_name:
        raise SchemaError(f"cannot {what} partition column {name!r}: its name is part of "
                          "every file's directory")
    if name not in ds.table_schema.by_name:
        raise SchemaError(f"no column {name!r} to {what} (columns: {ds.column_names})")
    return ds


def _commit(root, ds, edit, run_id, storage_options):
    paths = RootPaths.at(root, storage_options)
    paths.storage.check_writable(paths.root)
    op = Operation("schema_change", new_txn(), run_id=run_id, read_version=ds.version,
                   schema_edit=edit)
    version = commit_operation(paths, op)
    try_publish(paths)
    return version


__all__ = ["rename_column", "drop_column"]
