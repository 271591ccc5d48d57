"""Writing a Spark DataFrame with pqkit: part files from ``mapInPandas``, committed by the driver.

The job, for ``write(df, "/out", partition_by=["day"])``:

1. The driver maps the Spark schema to pqkit fields
   (:func:`pqkit.spark.conversion.schema.from_spark`) and checks the writer options on an
   in-memory writer, so bad options fail before any task runs.
2. A *transport* projection makes the pandas hand-over exact: nullable numeric
   columns travel as ``coalesce(c, 0)`` plus an ``isnull(c)`` flag (pandas would
   turn null ints into floats and merge null with NaN), and TIMESTAMP columns as
   ``unix_micros(c)`` (pandas would show them as wall-clock times of the session
   zone, ambiguous once a year).
3. Each task (``mapInPandas``, input sorted within the task by the partition
   columns) writes its rows with :class:`pqkit.ParquetWriter` under
   ``/out/_pqkit_staging/<job>/attempt-<task attempt id>/day=.../part-....parquet``
   and returns one row per file: its path, partition values, size, row count
   and per-column bounds. A failing task deletes its own files.
4. The driver collects those rows; if the job failed it deletes the staging
   directory and re-raises, so the target keeps its previous state. Otherwise it
   removes ``_SUCCESS``, retires the old contents (``mode="overwrite"``) into the
   staging directory, renames the new files into place, writes ``_SUCCESS``
   last and deletes the staging directory. Files of task attempts that lost
   (speculation, retries) are never listed, so never moved.

Renames are atomic per file, not per job: a driver that dies during step 4
leaves a view without ``_SUCCESS`` (the contract Spark's own committer has).
``_pqkit_staging`` starts with ``_``, so Spark, pyarrow and DuckDB never read it.
Partition directories follow Spark: ``name=value`` with Hive's escapes, null and
the empty string as ``__HIVE_DEFAULT_PARTITION__``, timestamps as session-zone
wall time ``2024-01-31 12:00:00``.
"""
import contextlib
import datetime
import functools
import json
import os
import shutil
import time
import uuid

from pqkit.errors import SchemaError
from pqkit.filesystems import is_url
from pqkit.spark.jobs.dataset import write_dataset
from pqkit.spark.jobs.read_job import is_connect
from pqkit.spark.jobs.write_plan import (RESULT_SCHEMA, STAGING_DIR, WriteConfig, WriteResult,
                                         check_options, check_partition_by, escape_partition_text,
                                         plan_columns, spark_metadata)
from pqkit.spark.jobs.write_task import write_task
from pqkit.write.file import ParquetWriter

__all__ = ["write", "WriteResult", "escape_partition_text"]

_MODES = ("append", "overwrite")


# --- driver ---------------------------------------------------------------------------------
def write(df, path, partition_by=None, mode="append", *, dataset=None, run_id=None,
          storage_options=None, **writer_options):
    """Write a Spark DataFrame as Parquet files, encoded by pqkit on the executors.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    path : str or os.PathLike
        Target directory on a file system every executor and the driver share, or
        a URL (``s3://bucket/table``): a PQDS/1 dataset on an object store, whose
        files the executors write directly and whose version the driver commits
        with a conditional PUT.
    partition_by : list of str, optional
        Columns that become ``name=value`` directories (in this order) instead of
        being stored in the files.
    mode : {"append", "overwrite"}
        Add files next to the existing ones, or replace the directory's contents.
    dataset : bool, optional
        Write a PQDS/1 dataset (:mod:`pqkit.dataset`): stage files with
        ``stage_file`` on the executors and commit them as one version (created
        when ``path`` holds none). Default: True when ``path`` already is a
        dataset root, else a plain directory.
    run_id : str, optional
        Dataset writes: the idempotency key of the commit (a run already
        committed is a no-op).
    storage_options : dict, optional
        fsspec options of a URL ``path`` (passed to the executors too).
    **writer_options
        Passed to :class:`pqkit.ParquetWriter` (compression, row_group_size,
        data_page_version, use_dictionary, column_encoding, bloom_filter_columns,
        write_statistics, write_page_index, ...).

    Returns
    -------
    WriteResult

    Raises
    ------
    pqkit.SchemaError
        Bad mode, partition column or writer option, or a Spark type pqkit cannot
        store. A failed Spark job re-raises Spark's error after the staged files
        are deleted; the target is then as it was.
    """
    if mode not in _MODES:
        raise SchemaError(f"mode must be one of {_MODES}, not {mode!r}")
    if is_url(path):
        if dataset is False:
            raise SchemaError(f"{path}: a URL target is written as a PQDS/1 dataset (an "
                              "object store has no rename for a plain directory commit)")
        return write_dataset(df, path, partition_by, mode, writer_options, run_id,
                             storage_options=storage_options)
    if not isinstance(path, (str, os.PathLike)):
        raise SchemaError(f"path must be a local directory path, not {path!r}")
    root = os.path.abspath(os.fspath(path))
    is_dataset = os.path.isdir(os.path.join(root, "_pqkit"))
    if dataset is False and is_dataset:
        raise SchemaError(f"{root} is a PQDS/1 dataset; write it with dataset=True (a plain "
                          "write would bypass its manifest)")
    if dataset or is_dataset:
        return write_dataset(df, root, partition_by, mode, writer_options, run_id)
    if run_id is not None:
        raise SchemaError("run_id applies to dataset writes only")
    partition_by = check_partition_by(df, partition_by)
    data, parts, exprs = plan_columns(df.schema, partition_by)
    fields = [c.field for c in data]
    writer_options = dict(writer_options)
    kv = dict(writer_options.pop("key_value_metadata", None) or {})
    kv.setdefault("org.apache.spark.sql.parquet.row.metadata",
                  spark_metadata(df.schema, partition_by))
    writer_options["key_value_metadata"] = kv
    check_options(fields, writer_options)
    job_id = uuid.uuid4().hex
    created_root = not os.path.exists(root)
    staging = os.path.join(root, STAGING_DIR, job_id)
    os.makedirs(staging)
    config = WriteConfig(tuple(data), tuple(parts), staging, job_id,
                          df.sparkSession.conf.get("spark.sql.session.timeZone"),
                          writer_options)
    try:
        rows = _run_tasks(df.selectExpr(*exprs), partition_by, config)
    except BaseException:
        remove_staging(root, staging, created_root)
        raise
    files = commit_part_files(root, staging, rows, mode, fields, writer_options, job_id,
                              bool(parts))
    return WriteResult(root, files, sum(f["rows"] for f in files), job_id)


def _run_tasks(df, partition_by, config):
    if partition_by:
        df = df.sortWithinPartitions(*partition_by)
    out = df.mapInPandas(functools.partial(write_task, config=config), RESULT_SCHEMA)
    if is_connect(df.sparkSession):
        return _run_tagged(out, config.job_id)
    with _job_group(df.sparkSession.sparkContext, config.job_id) as sc:
        try:
            return [r.asDict() for r in out.collect()]
        except BaseException:
            # A failed job does not wait for its other tasks: stop them before the
            # caller deletes the staging directory, or they write into it afterwards.
            _stop_job_group(sc, config.job_id)
            raise


def _run_tagged(out, job_id):
    """Spark Connect has no job groups: tag the job, and interrupt the tag on failure
    (tasks that were running stop at their next file: the staging directory is gone)."""
    spark = out.sparkSession
    tag = f"pqkit-write-{job_id}"
    spark.addTag(tag)
    try:
        return [r.asDict() for r in out.collect()]
    except BaseException:
        spark.interruptTag(tag)
        raise
    finally:
        spark.removeTag(tag)


_GROUP_PROPERTIES = ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel")


@contextlib.contextmanager
def _job_group(sc, group):
    """Run the jobs started inside in Spark job group ``group`` (restoring the previous)."""
    previous = [sc.getLocalProperty(k) for k in _GROUP_PROPERTIES]
    sc.setJobGroup(group, "pqkit.spark.write", interruptOnCancel=True)
    try:
        yield sc
    finally:
        for key, value in zip(_GROUP_PROPERTIES, previous):
            sc.setLocalProperty(key, value)


def _stop_job_group(sc, group, timeout=60.0):
    """Cancel the group's jobs and wait until none of their tasks is still running."""
    sc.cancelJobGroup(group)
    tracker = sc.statusTracker()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        running = 0
        for job in tracker.getJobIdsForGroup(group):
            info = tracker.getJobInfo(job)
            for stage in (info.stageIds if info is not None else ()):
                stage_info = tracker.getStageInfo(stage)
                running += stage_info.numActiveTasks if stage_info is not None else 0
        if not running:
            return
        time.sleep(0.05)


def remove_staging(root, staging, created_root):
    """Drop a job's staging directory, its parent when no other job stages there, and the
    root when the job created it."""
    shutil.rmtree(staging, ignore_errors=True)
    parent = os.path.dirname(staging)
    try:
        os.rmdir(parent)                  # only when no other job is staging
    except OSError:
        pass
    if created_root:
        try:
            os.rmdir(root)
        except OSError:
            pass


def commit_part_files(root, staging, rows, mode, fields, writer_options, job_id, partitioned):
    """Move a job's staged part files into ``root`` (retiring the old contents on overwrite)
    and write ``_SUCCESS`` last; the files written, as dicts."""
    success = os.path.join(root, "_SUCCESS")
    if os.path.exists(success):
        os.remove(success)
    if mode == "overwrite":
        retired = os.path.join(staging, "retired")
        os.makedirs(retired)
        for name in os.listdir(root):
            if name != STAGING_DIR:
                os.rename(os.path.join(root, name), os.path.join(retired, name))
    files = []
    for r in sorted(rows, key=lambda r: r["path"]):
        final = os.path.join(root, r["path"])
        os.makedirs(os.path.dirname(final), exist_ok=True)
        os.rename(os.path.join(staging, r["attempt"], r["path"]), final)
        files.append({"path": r["path"], "partition": json.loads(r["partition"]),
                      "size": r["size"], "rows": r["rows"], "stats": json.loads(r["stats"])})
    if not files and not partitioned and not _has_data(root):
        files.append(_empty_file(root, fields, writer_options, job_id))
    _write_success(success, job_id, files)
    remove_staging(root, staging, False)
    return files


def _has_data(root):
    return any(not (n.startswith("_") or n.startswith(".")) for n in os.listdir(root))


def _empty_file(root, fields, writer_options, job_id):
    """A file with the schema and no rows, so that readers of an empty result know the
    columns (Spark writes one too)."""
    name = f"part-00000-000-{job_id}.parquet"
    ParquetWriter(os.path.join(root, name), fields, **writer_options).close()
    return {"path": name, "partition": {}, "size": os.path.getsize(os.path.join(root, name)),
            "rows": 0, "stats": {}}


def _write_success(path, job_id, files):
    marker = {"writer": "pqkit.spark", "job_id": job_id,
              "committed_at_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(),
              "files": len(files), "rows": sum(f["rows"] for f in files)}
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(marker, f)
    os.replace(tmp, path)


