"""Operations on existing data: delete, compact, restore, tag, rename and drop a column (§3.9).

* ``delete(root, filters)``: files whose partition values prove that every row
  matches are dropped without being read; files that may partly match are
  rewritten without the matching rows (copy-on-write), or, on a dataset whose
  ``deletes`` property is ``"files"``, keep their bytes and get a deletion file
  listing the matching rows' positions (core/deletion_file.py); a file all of whose
  rows end up deleted is dropped; the rest stay.
* ``compact(root)``: per partition, files smaller than the target size are
  bin-packed and rewritten into fewer files, and every file with a deletion file is
  rewritten without its deleted rows (a ``compact`` rewrite, validated against
  concurrent commits by the conflict table).
* ``restore(root, version)``: a new version whose files are those of ``version``.
* ``tag(root, name, version)``: a named version that vacuum keeps.
* ``rename_column`` and ``drop_column``: metadata-only ``schema_change`` commits (§3.3
  column_mapping), see below.
"""
import numpy as np

from pqkit.columnar.table import concat_tables
from pqkit.dataset.core import dump_json, normalize_filters, row_mask
from pqkit.dataset.pqds.staging import Change
from pqkit.errors import DatasetError, DatasetIncomplete, SchemaError

DEFAULT_TARGET_SIZE = 128 << 20
#: Values of the ``deletes`` property: how ``delete`` removes some rows of a file.
DELETE_MODES = ("copy-on-write", "files")


def _data_table(ds, entry):
    return ds.read_entry(entry, ds.table_schema.names)


def delete(root, filters, *, run_id=None, storage_options=None, **writer_options):
    """Delete the rows matching ``filters`` (DNF, as for reading) as a new version.

    Returns the new version, or the current one when no row matches. A URL ``root``
    is a dataset on an object store (``storage_options``: its fsspec options).
    """
    dnf = normalize_filters(filters)
    if dnf is None:
        raise DatasetError("delete needs a filter; to remove everything overwrite the dataset")
    change = Change(root, storage_options)
    ds = change.open()
    by_files = delete_mode(ds.properties) == "files"
    removed = set()
    with change:
        for entry, residual in ds.plan(dnf):
            if residual == []:
                removed.add(entry["key"])          # partition values prove every row matches
                continue
            if by_files:
                if _delete_by_file(change, ds, entry, residual):
                    removed.add(entry["key"])
                continue
            table = _data_table(ds, entry)
            matching = row_mask(table, residual, ds.table_schema)
            if not matching.any():
                continue
            removed.add(entry["key"])
            keep = np.flatnonzero(~matching)
            if len(keep):
                change.rewrite(ds, entry, table.take(keep), writer_options)
    if not removed and not change.deletions:
        return ds.version
    return change.commit("delete", removed=removed, run_id=run_id, read_version=ds.version)


def delete_mode(properties):
    """The dataset's ``deletes`` property (default copy-on-write); DatasetError for a
    value pqkit does not know."""
    mode = properties.get("deletes", DELETE_MODES[0])
    if mode not in DELETE_MODES:
        raise DatasetError(f"property deletes={mode!r}: use one of {', '.join(DELETE_MODES)}")
    return mode


def _delete_by_file(change, ds, entry, residual):
    """Record the rows of ``entry`` matching ``residual`` in a new deletion file (the
    union with the file's earlier one); True when every row of the file is then
    deleted, so the file is dropped instead."""
    rows = ds.matching_rows(entry, residual)
    if not len(rows):
        return False
    earlier = ds.source.deleted_rows(entry)
    if earlier is not None:            # disjoint: rows excludes what is deleted already
        rows = np.concatenate([earlier, rows])
        rows.sort(kind="stable")
    if len(rows) == int(entry["row_count"]):
        return True
    change.stage_deletions(entry, rows)
    return False


def compact(root, *, target_size=DEFAULT_TARGET_SIZE, run_id=None, storage_options=None,
            **writer_options):
    """Rewrite each partition's small files (below ``target_size`` bytes) into fewer files.

    Returns the new version, or the current one when there is nothing to compact. A
    URL ``root`` is a dataset on an object store (``storage_options``: its fsspec options).
    """
    change = Change(root, storage_options)
    ds = change.open()
    removed = set()
    with change:
        for group in _compact_groups(ds, target_size):
            tables = [t for t in (_data_table(ds, e) for e in group) if t.num_rows]
            removed.update(e["key"] for e in group)
            if tables:
                merged = concat_tables(tables) if len(tables) > 1 else tables[0]
                change.rewrite(ds, group[0], merged, writer_options)
    if not removed:
        return ds.version
    return change.commit("compact", removed=removed, run_id=run_id, read_version=ds.version)


def compact_plan(root, *, target_size=DEFAULT_TARGET_SIZE, storage_options=None):
    """What :func:`compact` would do now, without writing anything.

    Returns
    -------
    list of list of str
        The groups of file paths that would each be rewritten into one file.
    """
    ds = Change(root, storage_options).open()
    return [[e["path"] for e in group] for group in _compact_groups(ds, target_size)]


def _compact_groups(ds, target_size):
    """Groups of files of one partition rewritten together: two small files or more, or
    any file with a deletion file (folded in by the rewrite)."""
    by_partition = {}
    for entry in ds.manifest.files:
        if int(entry["size"]) < target_size or entry.get("deletions"):
            key = tuple(sorted((entry.get("partition") or {}).items(), key=lambda kv: kv[0]))
            by_partition.setdefault(key, []).append(entry)
    return [group for entries in by_partition.values()
            for group in _bins(entries, target_size)
            if len(group) >= 2 or group[0].get("deletions")]


def _bins(entries, target):
    """First-fit-decreasing bins of entries whose sizes add up to at most ``target`` (a
    file of that size or more alone in its bin)."""
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
    change = Change(root, storage_options)
    target = change.load(int(version))
    ds = change.open()
    missing = [f["path"] for f in target.files if not _present(change.paths, f["path"])]
    if missing:
        raise DatasetIncomplete(f"cannot restore version {version}: file {missing[0]!r} was "
                                "vacuumed")
    current = ds.manifest.by_key()
    added = [dict(f) for f in target.files if f["key"] not in current]
    return change.commit("restore", entries=added, run_id=run_id, read_version=ds.version,
                         restore_from=target)


def _present(paths, relpath):
    return paths.find_shadow(relpath) is not None or \
        paths.storage.exists(paths.visible(relpath))


def tag(root, name, version=None, *, storage_options=None):
    """Name ``version`` (default: the latest); vacuum keeps tagged versions. Retagging
    moves the name (the last writer wins)."""
    change = Change(root, storage_options)
    ds = change.open(version)
    paths = change.paths
    paths.storage.replace(paths.tag_path(name), dump_json({"version": ds.version}))
    return ds.version


def untag(root, name, *, storage_options=None):
    """Remove a tag (the version becomes subject to retention again); False when there
    was none."""
    paths = Change(root, storage_options).paths
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
    change, ds = _data_column(root, old, "rename", storage_options)
    if not isinstance(new, str) or not new or new in ds.column_names:
        raise SchemaError(f"cannot rename {old!r} to {new!r}: the new name must be a "
                          f"non-empty name no column has (columns: {ds.column_names})")
    return _commit_schema_change(change, ds, ("rename", old, new), run_id)


def drop_column(root, name, *, run_id=None, storage_options=None):
    """Drop data column ``name`` as a new version; no file is rewritten (older versions
    still read it). A column added later under the same name is a new column.

    Raises
    ------
    SchemaError
        ``name`` is not a data column, or it is the last one.
    """
    change, ds = _data_column(root, name, "drop", storage_options)
    if len(ds.table_schema.fields) == 1:
        raise SchemaError(f"cannot drop {name!r}: it is the dataset's last data column")
    return _commit_schema_change(change, ds, ("drop", name), run_id)


def _data_column(root, name, what, storage_options):
    """(Change, Dataset it reads) when ``name`` is a data column of the latest version."""
    change = Change(root, storage_options)
    ds = change.open()
    if name in ds.partitioning.by_name:
        raise SchemaError(f"cannot {what} partition column {name!r}: its name is part of "
                          "every file's directory")
    if name not in ds.table_schema.by_name:
        raise SchemaError(f"no column {name!r} to {what} (columns: {ds.column_names})")
    return change, ds


def _commit_schema_change(change, ds, edit, run_id):
    change.check_writable()
    return change.commit("schema_change", run_id=run_id, read_version=ds.version,
                         schema_edit=edit)
