"""PQDS/1 datasets (:mod:`pqkit.dataset`) on Spark.

Reading: the driver opens the dataset at a version and asks its manifest for
the files that may match the filters (partition values and per-file bounds;
no directory listing). Those files, with their typed partition values and
residual filters, go through the same planning as a directory
(:mod:`pqkit.spark.jobs.plan`: row-group pruning by the footers' statistics). The
output schema is the version's schema, widened by what the files hold.

Writing: each ``mapInPandas`` task stages its rows with
:func:`pqkit.dataset.stage_file`, one file per partition value and at most
``rows_per_file`` rows (memory: those rows), under the dataset's hidden
``_pqkit/shadow`` directory (on an object store: at the file's final key, as
there is no rename), and returns the file entries. The driver commits
all entries as one version with :func:`pqkit.dataset.pqds.commit`. A failed job
commits nothing, so readers of the dataset and plain readers of the visible
tree see no new data; a failing task removes its own staged files, and files of
tasks that finished before the failure stay hidden until ``vacuum``.
"""
import functools
import json
import uuid

import pqkit.dataset as pds
from pqkit import datatypes as T
from pqkit.columnar.table import concat_tables
from pqkit.dataset.detect import refuse_foreign_root
from pqkit.errors import DatasetNotFound, SchemaError, UnsupportedFeature
from pqkit.spark.conversion.schema import ready_type
from pqkit.spark.jobs.plan import SourceFile
from pqkit.spark.jobs.write_plan import (WriteResult, check_dataset_columns, check_partition_by,
                                         plan_columns)
from pqkit.spark.jobs.write_task import partitioned_tables

__all__ = ["dataset_files", "dataset_fields", "write_dataset", "discard_staged"]

DEFAULT_ROWS_PER_FILE = 1 << 20


def dataset_files(root, filters, version=None, keys=None):
    """(files, partition names, partition fields, data fields) of a dataset version, the
    files already pruned by the manifest and carrying their residual filters; with
    ``keys``, only the files of those keys."""
    ds = pds.open(root, version=version)
    names, part_fields, base = dataset_fields(ds)
    layout = pds.Layout(root)
    files = []
    for f in ds.files(filters):
        if keys is not None and f.key not in keys:
            continue
        values = tuple(f.partition_values.get(n) for n in names)
        texts = tuple(f.partition.get(n) for n in names)
        alternates = tuple(p for p in (layout.visible(f.path), layout.shadow(f.path))
                           if p != f.location)
        files.append(SourceFile(f.location, texts, values, residual=f.filters or None,
                                alternates=alternates, deleted=ds.source.deleted_rows(f.entry)))
    return files, names, part_fields, base


def dataset_fields(ds):
    """(partition names, partition fields, data fields) of an open dataset version, typed
    as the executors hand them to Spark.

    Raises
    ------
    UnsupportedFeature
        The version renamed or dropped columns (``column_mapping``): the executors read
        the files by column name, which would give renamed columns as nulls.
    """
    if ds.column_mapping.enabled:
        raise UnsupportedFeature(f"{ds.root} version {ds.version} renamed or dropped "
                                 "columns (column_mapping); the Spark data source does not "
                                 "read such versions yet: read them with pqkit.dataset.open")
    columns = ds.partitioning.columns
    part_fields = [T.field(c.name, ready_type(c.type, c.name)) for c in columns]
    base = [T.field(f.name, ready_type(f.type, f.name)) for f in ds.table_schema.fields]
    return [c.name for c in columns], part_fields, base


# --- writing ---------------------------------------------------------------------------------
def write_dataset(df, root, partition_by, mode, writer_options, run_id=None,
                  rows_per_file=DEFAULT_ROWS_PER_FILE, storage_options=None):
    """Write ``df`` into the PQDS/1 dataset at ``root`` (created if absent) as one version.
    A URL ``root`` is on an object store: executors write their files there directly
    and the driver's commit is the conditional PUT of the version file."""
    refuse_foreign_root(root)        # on the driver, before any task starts
    layout = pds.Layout.at(root, storage_options)
    layout.storage.check_writable(layout.root)
    try:
        current = pds.open(root, storage_options=storage_options)
    except DatasetNotFound:
        current = None
    if partition_by is None and current is not None:
        partition_by = current.partition_by
    partition_by = check_partition_by(df, partition_by)
    if current is not None and partition_by != current.partition_by and mode != "overwrite":
        raise SchemaError(f"the dataset at {root} is partitioned by {current.partition_by}, "
                          f"not {partition_by}")
    data, parts, exprs = plan_columns(df.schema, partition_by)
    check_dataset_columns(data, root)
    config = StageConfig(tuple(data), tuple(parts), root,
                          df.sparkSession.conf.get("spark.sql.session.timeZone"),
                          dict(writer_options), int(rows_per_file), storage_options)
    frame = df.selectExpr(*exprs)
    if partition_by:
        frame = frame.sortWithinPartitions(*partition_by)
    rows = frame.mapInPandas(functools.partial(stage_task, config=config),
                             "entry string").collect()
    entries = [json.loads(r.entry) for r in rows]
    commit_mode = "create" if current is None else mode
    fields = [c.field for c in data]
    schema = fields if commit_mode in ("create", "overwrite") else None
    version = pds.commit(root, entries, mode=commit_mode,
                         partition_by=partition_by or (None if current else []),
                         run_id=run_id, schema=schema, storage_options=storage_options)
    files = [{"path": e["path"], "partition": e.get("partition") or {}, "size": e["size"],
              "rows": e["row_count"], "stats": e.get("stats") or {}} for e in entries]
    return WriteResult(root, files, sum(f["rows"] for f in files), uuid.uuid4().hex, version)


class StageConfig:
    """Pickled into each task: the transport columns and where to stage."""

    def __init__(self, data, partitions, root, timezone, writer_options, rows_per_file,
                 storage_options=None):
        self.storage_options = storage_options
        self.data = data
        self.partitions = partitions
        self.root = root
        self.timezone = timezone
        self.writer_options = writer_options
        self.rows_per_file = rows_per_file


class Stager:
    """The files one task stages: pending tables per partition, flushed by stage_file."""

    def __init__(self, config):
        self.config = config
        self.txn = uuid.uuid4().hex
        self.seq = 0
        self.pending = {}         # partition texts -> (values dict, [tables], rows)
        self.entries = []

    def add(self, key, values, table):
        if key not in self.pending:
            for other in list(self.pending):
                self.flush(other)
            self.pending[key] = (values, [], 0)
        vals, tables, rows = self.pending[key]
        tables.append(table)
        rows += table.num_rows
        self.pending[key] = (vals, tables, rows)
        if rows >= self.config.rows_per_file:
            self.flush(key)

    def flush(self, key):
        values, tables, _ = self.pending.pop(key)
        table = tables[0] if len(tables) == 1 else concat_tables(tables)
        types = {c.name: c.type for c in self.config.partitions}
        entry = pds.stage_file(self.config.root, table, values, txn=self.txn, seq=self.seq,
                               partition_types=types or None, empty_string_as_null=True,
                               storage_options=self.config.storage_options,
                               **self.config.writer_options)
        self.seq += 1
        self.entries.append(entry)

    def finish(self):
        for key in list(self.pending):
            self.flush(key)
        return self.entries

    def abort(self):
        discard_staged(self.config, self.entries)


def discard_staged(config, entries):
    """Remove the staged files of ``entries`` (never committed) from ``config.root``."""
    layout = pds.Layout.at(config.root, config.storage_options)
    for entry in entries:
        for path in layout.storage.staged_copies(layout, entry["path"]):
            try:
                layout.storage.remove(path)
            except OSError:
                pass


def stage_task(frames, config):
    """mapInPandas function: transport frames in, one JSON file entry per staged file out."""
    import pandas as pd

    stager = Stager(config)
    try:
        for key, rows, frame, table in partitioned_tables(frames, config):
            # The typed values of a partition, from its first row.
            first = frame.iloc[rows[:1]] if rows is not None else None
            values = {c.name: partition_objects(first, c, config.timezone)[0]
                      for c in config.partitions}
            stager.add(key, values, table)
        entries = stager.finish()
    except BaseException:
        stager.abort()
        raise
    yield pd.DataFrame({"entry": [json.dumps(e) for e in entries]}, dtype=object)


def partition_objects(frame, c, timezone):
    """Python values of partition column ``c`` for every row (None for null)."""
    import datetime
    values = frame[c.name]
    null = values.isna().to_numpy() if c.flag is None else frame[c.flag].to_numpy(dtype=bool)
    if c.transport == "micros":
        epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
        out = [epoch + datetime.timedelta(microseconds=int(v)) for v in values.to_numpy()]
    elif c.transport == "number":
        out = values.to_numpy().tolist()
    elif c.type == T.timestamp("us"):
        out = [v.to_pydatetime() if hasattr(v, "to_pydatetime") else v for v in values]
    else:
        out = list(values.to_numpy(dtype=object))
    return [None if n or (isinstance(v, str) and v == "") else v for n, v in zip(null, out)]
