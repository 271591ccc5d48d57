"""The executor side of :func:`pqkit.spark.write`: one ``mapInPandas`` task.

The task's rows arrive as pandas frames in the transport form of
:mod:`pqkit.spark.jobs.write_plan`, sorted by the partition columns. Each frame becomes a
pqkit Table; its rows are grouped by partition directory and appended to that
directory's open :class:`pqkit.ParquetWriter` (memory: one row group per open
writer). Because the input is sorted, a new directory closes the previous
file. The task writes below its own attempt directory, so a retried or
speculative attempt never touches another's files, and on any error it deletes
what it wrote before re-raising. The result is one metadata row per file.
"""
import json
import os
import shutil

from pqkit.spark.jobs.file_bounds import file_bounds
from pqkit.spark.jobs.frames import frame_to_table, partition_dir, partition_texts
from pqkit.write.file import ParquetWriter

__all__ = ["write_task"]

_RESULT_COLUMNS = ["attempt", "path", "partition", "size", "rows", "stats"]


class TaskFiles:
    """The part files of one task attempt. With ``one_open`` (input sorted by partition) a
    new partition closes the previous file; else every partition's file stays open until
    :meth:`finish` (memory: one row group per partition seen)."""

    def __init__(self, attempt, partition_id, config, one_open=True):
        self.one_open = one_open
        self.attempt = attempt
        self.base = os.path.join(config.staging, attempt)
        self.partition_id = partition_id
        self.config = config
        self.open = {}            # partition texts -> (ParquetWriter, relative path)
        self.rows = []
        self.seq = 0

    def write(self, key, table):
        if key not in self.open:
            for other in list(self.open) if self.one_open else ():
                self._close(other)
            self.open[key] = self._new(key)
        self.open[key][0].write(table)

    def _new(self, key):
        name = f"part-{self.partition_id:05d}-{self.seq:03d}-{self.config.job_id}.parquet"
        self.seq += 1
        rel = name if not key else f"{partition_dir(self.config.partitions, key)}/{name}"
        full = os.path.join(self.base, rel)
        if not os.path.isdir(self.config.staging):
            # The driver gave up on the job and removed its staging directory: stop
            # rather than recreate it.
            raise RuntimeError(f"staging directory {self.config.staging} is gone: the job "
                               "was aborted")
        os.makedirs(os.path.dirname(full), exist_ok=True)
        return ParquetWriter(full, _fields(self.config), **self.config.writer_options), rel

    def _close(self, key):
        writer, rel = self.open.pop(key)
        writer.close()
        stats = file_bounds(writer.schema, writer.row_groups)
        partition = {c.name: t for c, t in zip(self.config.partitions, key)}
        self.rows.append({
            "attempt": self.attempt, "path": rel, "partition": json.dumps(partition),
            "size": os.path.getsize(os.path.join(self.base, rel)), "rows": writer.num_rows,
            "stats": json.dumps(stats)})

    def finish(self):
        for key in list(self.open):
            self._close(key)
        return self.rows

    def abort(self):
        for writer, _ in self.open.values():
            try:
                writer.sink.close()
            except OSError:
                pass
        self.open.clear()
        shutil.rmtree(self.base, ignore_errors=True)


def _fields(config):
    return [c.field for c in config.data]


def _groups(keys):
    """{key: row positions} in first-seen order."""
    groups = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    return groups


def partitioned_tables(frames, config):
    """Split transport frames by partition: yields (key, rows, frame, table) for each
    partition of each non-empty frame -- ``key`` the partition value texts, ``rows``
    the frame positions (None without partition columns), ``table`` those rows."""
    for frame in frames:
        if len(frame) == 0:
            continue
        table = frame_to_table(frame, config)
        if not config.partitions:
            yield (), None, frame, table
            continue
        texts = [partition_texts(frame, c, config.timezone) for c in config.partitions]
        for key, rows in _groups(list(zip(*texts))).items():
            yield key, rows, frame, (table if len(rows) == table.num_rows else
                                     table.take(rows))


def write_task(frames, config):
    """mapInPandas function: transport frames in, one metadata row per written file out."""
    import pandas as pd
    from pyspark import TaskContext
    ctx = TaskContext.get()
    files = TaskFiles(f"attempt-{ctx.taskAttemptId()}", ctx.partitionId(), config)
    try:
        for key, _, _, table in partitioned_tables(frames, config):
            files.write(key, table)
        rows = files.finish()
    except BaseException:
        files.abort()
        raise
    yield pd.DataFrame(rows, columns=_RESULT_COLUMNS)
