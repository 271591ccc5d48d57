"""Structured Streaming into a PQDS/1 dataset: ``df.writeStream.format("pqkit")``.

Each micro-batch becomes one dataset version. The executors stage the batch's rows
as part files (:func:`pqkit.dataset.stage_file`, hidden until committed, one file per
partition value and at most ``rows_per_file`` rows); the driver commits all of them
as one version with :func:`pqkit.dataset.commit`, whose run id is ``<stream>:<batch
id>``. Versions record the last run of each stream (``app_txns``), so a micro-batch
that Spark replays after a restart (it committed here, but the query died before
Spark logged the batch as done) is a no-op, and its new staged files are discarded:
every row reaches the dataset exactly once. A micro-batch without rows commits
nothing (the dataset is created by the first batch that has rows).

The stream id defaults to the query id that Spark keeps in the checkpoint
(``<checkpointLocation>/metadata``): stable across restarts from that checkpoint,
new for a new checkpoint, whose batch ids start again at 0. The option
``streamId`` names it instead (e.g. when the checkpoint is not on a local path).

Output modes: append and update add rows; complete replaces the dataset's rows
with each batch (an ``overwrite`` version). Partition columns are given with the
option ``partition_by`` (``writeStream.partitionBy`` does not reach a Python data
source in Spark 4.3); a dataset that exists keeps its partitioning.
"""
import json
import os

from pyspark.sql.datasource import DataSourceStreamArrowWriter, WriterCommitMessage

import pqkit.dataset as pds
from pqkit.columnar.table import Table
from pqkit.errors import DatasetNotFound, SchemaError
from pqkit import datatypes as T
from pqkit.spark.dataset import DEFAULT_ROWS_PER_FILE, _Stager, _StageConfig, discard_staged
from pqkit.spark.schema import from_spark
from pqkit.spark.source_options import SourceOptions
from pqkit.spark.write_plan import ColumnPlan

__all__ = ["DatasetStreamWriter", "StagedFiles"]

class StagedFiles(WriterCommitMessage):
    """What one task staged: the file entries of :func:`pqkit.dataset.stage_file`."""

    def __init__(self, entries):
        self.entries = entries


class DatasetStreamWriter(DataSourceStreamArrowWriter):
    """Writes each micro-batch as one version of the PQDS/1 dataset at ``path``.

    Parameters
    ----------
    options : dict
        The format's options (lower-case keys): ``path``, ``partition_by``,
        ``streamId``, ``rows_per_file``, writer options.
    schema : pyspark.sql.types.StructType
    overwrite : bool
        Complete output mode: each batch replaces the dataset's rows.
    """

    def __init__(self, options, schema, overwrite):
        opts = SourceOptions(options, "stream_write")
        if opts.get("path") is None:
            raise SchemaError("format 'pqkit' needs a dataset root: "
                              "df.writeStream.format('pqkit').start(path)")
        if opts.get("job_id") is not None:
            raise SchemaError("option job_id applies to batch writes; a stream's versions are "
                              "keyed by its query id, or option streamId")
        self.root = os.path.abspath(opts.get("path"))
        self.overwrite = bool(overwrite)
        self.checkpoint = opts.get("checkpointlocation")
        self.stream_id = opts.get("streamid")
        given = opts.names("partition_by")
        self.partition_by = _partition_by(self.root, given, schema)
        columns = {f.name: ColumnPlan(f.name, from_spark(f.dataType, f.name), f.nullable,
                                      "value", None) for f in schema.fields}
        data = tuple(c for n, c in columns.items() if n not in self.partition_by)
        if not data:
            raise SchemaError("every column is a partition column: no data would be stored")
        self.config = _StageConfig(data, tuple(columns[n] for n in self.partition_by),
                                   self.root, "UTC", writer_options(opts),
                                   opts.integer("rows_per_file", DEFAULT_ROWS_PER_FILE))

    # --- executors -----------------------------------------------------------------------
    def write(self, iterator):
        stager = _Stager(self.config)
        try:
            for batch in iterator:
                for key, values, rows in _by_partition(batch, self.config):
                    stager.add(key, values, _table(rows, self.config))
            entries = stager.finish()
        except BaseException:
            stager.abort()
            raise
        return StagedFiles(entries)

    # --- driver ----------------------------------------------------------------------------
    def commit(self, messages, batchId):
        entries = [e for m in messages if m is not None for e in m.entries]
        try:
            run_id = f"{self._stream()}:{int(batchId)}"
        except SchemaError:
            discard_staged(self.config, entries)
            raise
        try:
            current = pds.open(self.root)
        except DatasetNotFound:
            current = None
        if not entries and (current is None or not self.overwrite):
            return             # no rows, no version (a later batch's run id supersedes this)
        mode = "create" if current is None else "overwrite" if self.overwrite else "append"
        if current is not None and current.partition_by != self.partition_by and \
                mode != "overwrite":
            discard_staged(self.config, entries)
            raise SchemaError(f"the dataset at {self.root} is partitioned by "
                              f"{current.partition_by}, the stream by {self.partition_by}")
        fields = [T.field(c.name, c.type, c.nullable) for c in self.config.data]
        pds.commit(self.root, entries, mode=mode, partition_by=self.partition_by,
                   run_id=run_id, schema=fields if mode != "append" else None)

    def abort(self, messages, batchId):
        discard_staged(self.config, [e for m in messages if m is not None for e in m.entries])

    def _stream(self):
        if self.stream_id:
            return f"spark-stream-{self.stream_id}"
        query = _query_id(self.checkpoint)
        if query is None:
            raise SchemaError("a streaming write to format 'pqkit' needs the query id in "
                              "<checkpointLocation>/metadata, or option streamId naming the "
                              "stream (the idempotency key of its versions); checkpoint: "
                              f"{self.checkpoint!r}")
        return f"spark-stream-{query}"


def _query_id(checkpoint):
    """The query id Spark writes into the checkpoint's ``metadata`` file, or None."""
    if not checkpoint:
        return None
    path = checkpoint[len("file:"):] if checkpoint.startswith("file:") else checkpoint
    try:
        with open(os.path.join(path, "metadata")) as f:
            return json.loads(f.readline())["id"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def writer_options(opts):
    """The :class:`pqkit.ParquetWriter` keywords that write options (SourceOptions) set."""
    out = {}
    if opts.get("compression") is not None:
        out["compression"] = opts.get("compression")
    for name in ("compression_level", "row_group_size", "data_page_size"):
        if opts.get(name) is not None:
            out[name] = opts.integer(name, None)
    for name, keyword in (("write_statistics", "write_statistics"),
                          ("dictionary", "use_dictionary")):
        if opts.get(name) is not None:
            out[keyword] = opts.flag(name, True)
    return out


def _partition_by(root, names, schema):
    """The partition columns: as given, else those of the dataset at ``root`` (if any)."""
    if names is None:
        try:
            names = pds.open(root).partition_by
        except DatasetNotFound:
            names = []
    for n in names:
        if n not in schema.names:
            raise SchemaError(f"partition column {n!r} is not a column of the stream "
                              f"({schema.names})")
    if len(set(names)) != len(names):
        raise SchemaError(f"partition_by names a column twice: {names}")
    return names


def _by_partition(batch, config):
    """(key, values, rows) per partition of an Arrow batch: ``key`` the hashable values,
    ``values`` the partition dict :func:`pqkit.dataset.stage_file` takes."""
    if batch.num_rows == 0:
        return
    if not config.partitions:
        yield (), {}, batch
        return
    names = [c.name for c in config.partitions]
    columns = [batch.column(n).to_pylist() for n in names]
    groups = {}
    for i, key in enumerate(zip(*columns)):
        groups.setdefault(key, []).append(i)
    for key, rows in groups.items():
        values = {n: (None if v == "" else v) for n, v in zip(names, key)}
        yield key, values, batch if len(rows) == batch.num_rows else batch.take(rows)


def _table(rows, config):
    names = [c.name for c in config.data]
    return Table.from_arrow(rows.select(names))
