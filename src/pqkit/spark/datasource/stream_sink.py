"""Structured Streaming into a PQDS/1 dataset: ``df.writeStream.format("pqkit")``.

Each micro-batch becomes one dataset version. The executors stage the batch's rows
as part files as the format's batch writer does (:mod:`pqkit.spark.datasource.write`:
:func:`pqkit.dataset.stage_file`, hidden until committed, one file per partition
value); the driver commits all of them
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
from pqkit.errors import DatasetNotFound, SchemaError
from pqkit.filesystems import is_url
from pqkit.spark.datasource.options import SourceOptions
from pqkit.spark.datasource.write import (_column_plans, _DatasetSink, _partition_by, _partitioned,
                                          _writer_options)
from pqkit.spark.jobs.dataset import discard_staged
from pqkit.spark.jobs.write_plan import check_dataset_columns

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
        The format's options: ``path``, ``partition_by``, ``streamId``, the write
        options (compression, ...), ``storage_options`` for a URL root.
    schema : pyspark.sql.types.StructType
    overwrite : bool
        Complete output mode: each batch replaces the dataset's rows.
    """

    def __init__(self, options, schema, overwrite):
        opts = SourceOptions(options, "stream_write")
        path = opts.get("path")
        if path is None:
            raise SchemaError("format 'pqkit' needs a dataset root: "
                              "df.writeStream.format('pqkit').start(path)")
        if opts.get("job_id") is not None:
            raise SchemaError("option job_id applies to batch writes; a stream's versions are "
                              "keyed by its query id, or option streamId")
        self.root = path if is_url(path) else os.path.abspath(path)
        self.storage_options = opts.storage_options()
        self.overwrite = bool(overwrite)
        self.checkpoint = opts.get("checkpointlocation")
        self.stream_id = opts.get("streamid")
        self.partition_by = _partition_by(opts, schema) if opts.get("partition_by") \
            is not None else self._current_partitioning()
        self.data, self.parts = _column_plans(schema, self.partition_by)
        check_dataset_columns(self.data, self.root)
        self.writer_options = _writer_options(opts, schema, self.partition_by)
        self.timezone = "UTC"

    def _current_partitioning(self):
        try:
            return pds.open(self.root, storage_options=self.storage_options).partition_by
        except DatasetNotFound:
            return []

    # --- executors -----------------------------------------------------------------------
    def write(self, iterator):
        sink = _DatasetSink(self)
        try:
            for batch in iterator:
                for key, values, table in _partitioned(batch, self.data, self.parts):
                    sink.add(key, values, table)
            return StagedFiles(sink.finish())
        except BaseException:
            sink.abort()
            raise

    # --- driver ----------------------------------------------------------------------------
    def commit(self, messages, batchId):
        entries = [e for m in messages if m is not None for e in m.entries]
        try:
            run_id = f"{self._stream()}:{int(batchId)}"
            current = self._current()
        except SchemaError:
            self.abort(messages, batchId)
            raise
        if not entries and (current is None or not self.overwrite):
            return             # no rows, no version (a later batch's run id supersedes this)
        mode = "create" if current is None else "overwrite" if self.overwrite else "append"
        fields = [c.field for c in self.data]
        pds.commit(self.root, entries, mode=mode, partition_by=self.partition_by,
                   run_id=run_id, schema=fields if mode != "append" else None,
                   storage_options=self.storage_options)

    def abort(self, messages, batchId):
        sink = _DatasetSink(self)
        discard_staged(sink.config, [e for m in messages if m is not None for e in m.entries])

    def _current(self):
        """The dataset now (None: not created yet), checked against the stream."""
        try:
            current = pds.open(self.root, storage_options=self.storage_options)
        except DatasetNotFound:
            return None
        if current.partition_by != self.partition_by and not self.overwrite:
            raise SchemaError(f"the dataset at {self.root} is partitioned by "
                              f"{current.partition_by}, the stream by {self.partition_by}")
        return current

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
