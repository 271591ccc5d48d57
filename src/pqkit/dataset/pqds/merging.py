"""merge: upsert or delete rows by key, as one copy-on-write ``update`` version (§3.9).

``merge(root, data, on=["id"])`` matches the rows of ``data`` (the *source*)
with the dataset's rows (the *target*) on the key columns ``on``::

    target  id=1 a   id=2 b   id=3 c          source  id=2 B   id=9 Z
    merge(..., when_matched="update", when_not_matched="insert")
    result  id=1 a   id=3 c   id=2 B   id=9 Z

1. The source's keys must be unique and not null (DatasetError otherwise): a
   target row matched by two source rows would have no defined result.
2. Candidate files come from planning with ``on[i] in <source keys>`` for each
   key column: partition values, per-file bounds and inverted indices skip
   files that cannot hold a source key. Only candidates are read.
3. A candidate holding matched rows is rewritten without them (and dropped
   when nothing is left); a candidate without a match is left alone.
4. Matched source rows (``when_matched="update"``) and unmatched ones
   (``when_not_matched="insert"``) are written as new files, split by
   partition, so an update may move a row to another partition.
5. Everything commits as one ``update`` operation, validated by the conflict
   table like a delete: a concurrent append rebases (serial order merge, then
   append), a concurrent rewrite of the same files raises CommitConflict.

Target rows whose key holds a null never match (as in SQL's MERGE).

The source may leave columns out (a *partial* update): it must hold the key
columns, and each matched target row is updated on its own, keeping its
values of the columns the source lacks (a full-row update replaces all target
rows of a key by the one source row). An inserted row gets nulls there, so with ``when_not_matched=
"insert"`` every missing column must be nullable (a missing partition column
is never: the row's partition would be unknown).
"""
import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.table import Table
from pqkit.convert import column_from_values
from pqkit.dataset.core import as_table, cast_to_fields, plain_table
from pqkit.dataset.pqds.staging import Change, as_partition_type
from pqkit.errors import DatasetError, SchemaError

WHEN_MATCHED = ("update", "delete")
WHEN_NOT_MATCHED = ("insert", "ignore")


def merge(root, data, on, *, when_matched="update", when_not_matched="insert", run_id=None,
          stats_columns=32, storage_options=None, **writer_options):
    """Update or delete the dataset's rows whose key is in ``data``, insert the others.

    Parameters
    ----------
    root : path or URL
        A PQDS/1 dataset (a URL: on an object store).
    data : pqkit.Table, dict of columns, pandas DataFrame or Arrow table
        The source rows: the key columns and any other columns of the dataset
        (partition columns included), no unknown ones. A column left out keeps
        its value in updated rows and is null in inserted ones.
    on : str or list of str
        Key columns (data or partition columns).
    when_matched : {"update", "delete"}
        What happens to a target row whose key is in the source.
    when_not_matched : {"insert", "ignore"}
        Whether source rows with no target row are added.
    run_id : str, optional
        ``"app:run"`` idempotency key, as for :func:`pqkit.dataset.pqds.write`.
    stats_columns : int, default 32
    storage_options : dict, optional
        fsspec options of a URL ``root``.
    **writer_options
        Passed to :class:`pqkit.ParquetWriter` for the files written.

    Returns
    -------
    int
        The committed version (the current one when nothing changes).

    Raises
    ------
    DatasetError
        A key column is unknown, or the source repeats a key or has a null key.
    SchemaError
        The source's columns or types do not fit the dataset, or rows may be
        inserted while the source lacks a non-nullable or partition column.
    CommitConflict
        A concurrent operation conflicts (see the conflict table).
    """
    _check_choices(when_matched, when_not_matched)
    change = Change(root, storage_options)
    ds = change.open()
    on = [on] if isinstance(on, str) else list(on)
    source, missing = _source_table(ds, data, on, when_not_matched)
    keys = source_keys(source, on)
    removed, matched, kept = set(), set(), {}
    with change:
        for f, table, hits in _matches(ds, on, keys, matched):
            removed.add(f.key)
            keep = np.flatnonzero(~hits)
            if len(keep):
                change.rewrite(ds, f.entry, table.take(keep), writer_options)
            if missing and when_matched == "update":
                _target_rows(kept, table, f.partition_values, np.flatnonzero(hits), on)
        rows = sorted(_new_rows(keys, matched, when_matched, when_not_matched))
        if rows:
            written = source.take(np.array(rows)) if not missing else \
                _completed(ds, source, rows, on, kept)
            _stage_rows(change, ds, written, stats_columns, writer_options)
    if not removed and not change.staged:
        return ds.version
    return change.commit("update", removed=removed, run_id=run_id, read_version=ds.version)


def merge_plan(root, data, on, *, when_matched="update", when_not_matched="insert",
               storage_options=None):
    """What :func:`merge` would do now: it reads the candidate files but writes nothing.

    Returns
    -------
    dict
        ``version`` (the one read), ``files_read``, ``files_rewritten`` (paths),
        ``rows_matched`` (target rows whose key is in the source),
        ``rows_written`` (source rows the merge would write: updated and inserted).
    """
    _check_choices(when_matched, when_not_matched)
    ds = Change(root, storage_options).open()
    on = [on] if isinstance(on, str) else list(on)
    source, missing = _source_table(ds, data, on, when_not_matched)
    keys = source_keys(source, on)
    matched, rewritten, rows_matched, read = set(), [], 0, []
    for f, _, hits in _matches(ds, on, keys, matched, read):
        rewritten.append(f.path)
        rows_matched += int(hits.sum())
    written = len(_new_rows(keys, matched, when_matched, when_not_matched))
    if missing and when_matched == "update":          # one row per matched target row
        written += rows_matched - len(matched)
    return {"version": ds.version, "files_read": len(read), "files_rewritten": rewritten,
            "rows_matched": rows_matched, "rows_written": written}


def _check_choices(when_matched, when_not_matched):
    if when_matched not in WHEN_MATCHED:
        raise DatasetError(f"when_matched={when_matched!r}: use one of {WHEN_MATCHED}")
    if when_not_matched not in WHEN_NOT_MATCHED:
        raise DatasetError(f"when_not_matched={when_not_matched!r}: use one of "
                           f"{WHEN_NOT_MATCHED}")


def _matches(ds, on, keys, matched, read=None):
    """(DataFile, data table, hit mask) of each candidate file holding a source key."""
    if not keys:
        return
    filters = [(c, "in", _distinct(k[i] for k in keys)) for i, c in enumerate(on)]
    for f in ds.files(filters):
        table = ds.read_entry(f.entry, ds.table_schema.names)
        if read is not None:
            read.append(f.path)
        hits = _hits(table, f.partition_values, on, keys, matched)
        if hits.any():
            yield f, table, hits


def _new_rows(keys, matched, when_matched, when_not_matched):
    """Source rows to write: the matched ones when updating, the others when inserting."""
    return [i for k, i in keys.items()
            if (k in matched and when_matched == "update") or
            (k not in matched and when_not_matched == "insert")]


def _source_table(ds, data, on, when_not_matched):
    """(source, missing): the source's columns in the dataset's order and types, and the
    names of the dataset columns it leaves out."""
    names = ds.column_names
    unknown = [c for c in on if c not in names]
    if not on or unknown:
        raise DatasetError(f"merge key {unknown[0] if unknown else on!r} is not a column of the "
                           f"dataset (columns: {names})")
    nested = [f.name for f in ds.schema if f.name in on and f.type.is_nested]
    if nested:
        raise DatasetError(f"merge key {nested[0]!r} is a nested column; keys must be flat")
    table = plain_table(as_table(data))
    given = set(table.column_names)
    extra = [n for n in table.column_names if n not in names]
    if extra:
        raise SchemaError(f"merge source has columns the dataset lacks: {extra} (dataset "
                          f"columns: {names})")
    absent_keys = [c for c in on if c not in given]
    if absent_keys:
        raise SchemaError(f"merge source lacks the key column {absent_keys[0]!r}")
    missing = [n for n in names if n not in given]
    if missing and when_not_matched == "insert":
        required = [f.name for f in ds.table_schema.fields
                    if f.name in missing and not f.nullable] + \
            [c.name for c in ds.partitioning.columns if c.name in missing]
        if required:
            raise SchemaError(f"merge source lacks {required}, which inserted rows cannot "
                              "leave null (not nullable, or a partition column); give them, "
                              "or pass when_not_matched='ignore' to only update")
    fields = [f for f in ds.table_schema.fields if f.name in given]
    data_part = cast_to_fields(table.select([f.name for f in fields]), fields)
    parts = [c for c in ds.partitioning.columns if c.name in given]
    return Table(data_part.columns + [as_partition_type(table, c) for c in parts],
                 list(fields) + [T.Field(c.name, c.type) for c in parts]), missing


def _target_rows(kept, table, partition_values, rows, on):
    """Add the target rows ``rows`` of one file (partition values included) to
    ``kept``: ``{key: [row dict]}``."""
    for row in table.take(rows).to_pylist():
        row.update(partition_values)
        kept.setdefault(tuple(row[c] for c in on), []).append(row)


def _completed(ds, source, rows, on, kept):
    """Full rows for the source rows ``rows``: one per matched target row, taking the
    columns the source lacks from it (``kept``); an inserted row gets nulls there."""
    merged = []
    for row in source.take(np.array(rows)).to_pylist():
        for base in kept.get(tuple(row[c] for c in on), [{}]):
            merged.append({**base, **row})
    fields = list(ds.table_schema.fields)
    parts = [T.Field(c.name, c.type) for c in ds.partitioning.columns]
    columns = [column_from_values([r.get(f.name) for r in merged], f.type)
               for f in fields + parts]
    return Table(cast_to_fields(Table(columns[:len(fields)], fields), fields).columns
                 + columns[len(fields):], fields + parts)


def source_keys(table, on):
    """``{key tuple: row}`` of the source; DatasetError for a repeated or null key."""
    columns = [table.column(c).to_pylist() for c in on]
    out = {}
    for row, key in enumerate(zip(*columns)):
        if any(v is None for v in key):
            col = on[[v is None for v in key].index(True)]
            raise DatasetError(f"merge source row {row}: key column {col!r} is null; keys "
                               "must be set")
        if key in out:
            shown = ", ".join(f"{c}={v!r}" for c, v in zip(on, key))
            raise DatasetError(f"merge source repeats the key ({shown}) in rows {out[key]} "
                               f"and {row}; each key may appear once")
        out[key] = row
    return out


def _distinct(values):
    return list(dict.fromkeys(values))


def _hits(table, partition_values, on, keys, matched):
    """Mask of the file's rows whose key is a source key; adds those keys to ``matched``."""
    n = table.num_rows
    columns = [[partition_values[c]] * n if c in partition_values else
               table.column(c).to_pylist() for c in on]
    mask = np.zeros(n, dtype=bool)
    for i, key in enumerate(zip(*columns)):
        if key in keys:
            mask[i] = True
            matched.add(key)
    return mask


def _stage_rows(change, ds, table, stats_columns, options):
    """Stage ``table`` (all dataset columns) as new files, one per partition."""
    fields = list(ds.table_schema.fields)
    for texts, rows in ds.partitioning.split(table):
        change.stage(ds.partitioning, texts, rows, fields, stats_columns, options,
                     ds.physical_schema.fields)
