"""Writing a Spark DataFrame with pqkit: part files from ``mapInPandas``, committed by the driver.

The job, for ``write(df, "/out", partition_by=["day"])``:

1. The driver maps the Spark schema to pqkit fields (:func:`pqkit.spark_schema.from_spark`)
   and checks the writer options on an in-memory writer, so bad options fail
   before any task runs.
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
import datetime
import io
import json
import os
import shutil
import uuid
from dataclasses import dataclass

import numpy as np

from . import datatypes as T
from .columns import PrimitiveColumn
from .errors import SchemaError
from .spark_schema import from_spark
from .table import Table
from .writer import ParquetWriter

__all__ = ["write", "WriteResult", "escape_partition_text"]

STAGING_DIR = "_pqkit_staging"
HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
_MODES = ("append", "overwrite")
_FLAG = "__pqkit_null_{}"
_RESULT_SCHEMA = "attempt string, path string, partition string, size long, rows long, " \
                 "stats string"
_ESCAPED = frozenset([chr(c) for c in range(0x20)] + list("\"#%'*/:=?\\\x7f{[]^<>|"))


@dataclass
class WriteResult:
    """What :func:`write` committed.

    Attributes
    ----------
    path : str
        The target directory.
    files : list of dict
        One per new file: ``path`` (relative to ``path``), ``partition`` (name ->
        text, None for null), ``size`` (bytes), ``rows``, ``stats`` (column ->
        ``{"min", "max", "nulls"}``, canonical text bounds).
    num_rows : int
    job_id : str
    version : int or None
        The committed dataset version (dataset writes only).
    """
    path: str
    files: list
    num_rows: int
    job_id: str
    version: int = None


def escape_partition_text(text):
    """A partition directory value: ``%XX`` for Hive's escape set plus ``< > |``."""
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


# --- the plan of one write job -----------------------------------------------------------------
@dataclass(frozen=True)
class _Column:
    name: str
    type: object            # pqkit type
    nullable: bool
    transport: str          # "number", "micros" or "value"
    flag: str               # name of the null-flag column, or None


@dataclass(frozen=True)
class _WriteConfig:
    data: tuple             # _Column per data column
    partitions: tuple       # _Column per partition column
    staging: str            # absolute staging directory of the job
    job_id: str
    timezone: str
    writer_options: dict


_NUMBER_TYPES = ("ByteType", "ShortType", "IntegerType", "LongType", "FloatType",
                 "DoubleType")
_PARTITION_TYPES = _NUMBER_TYPES + ("BooleanType", "StringType", "DateType", "TimestampType",
                                    "TimestampNTZType", "DecimalType", "CharType",
                                    "VarcharType")


def _plan_columns(schema, partition_by):
    from pyspark.sql import functions as F
    data, parts, exprs = [], [], []
    for i, f in enumerate(schema.fields):
        kind = type(f.dataType).__name__
        is_part = f.name in partition_by
        if is_part and kind not in _PARTITION_TYPES:
            raise SchemaError(f"partition column {f.name!r} has type "
                              f"{f.dataType.simpleString()}; partition by atomic columns")
        transport = "number" if kind in _NUMBER_TYPES else \
            "micros" if kind == "TimestampType" else "value"
        col = F.col("`" + f.name.replace("`", "``") + "`")
        flag = _FLAG.format(i) if transport != "value" and f.nullable else None
        if transport == "micros":
            col = F.unix_micros(col)
        if flag:
            exprs.append(F.isnull(col).alias(flag))
            col = F.coalesce(col, F.lit(0).cast("long" if transport == "micros"
                                                  else f.dataType))
        exprs.append(col.alias(f.name))
        spec = _Column(f.name, from_spark(f.dataType, f.name), f.nullable, transport, flag)
        (parts if is_part else data).append(spec)
    order = {name: i for i, name in enumerate(partition_by)}
    parts.sort(key=lambda c: order[c.name])
    return data, parts, exprs


def _check_options(fields, writer_options):
    try:
        ParquetWriter(io.BytesIO(), fields, **writer_options).close()
    except TypeError as exc:
        raise SchemaError(f"bad writer option: {exc}") from None


def _spark_metadata(schema, partition_by):
    from pyspark.sql.types import StructType
    data = StructType([f for f in schema.fields if f.name not in partition_by])
    return data.json()


# --- driver ---------------------------------------------------------------------------------
def write(df, path, partition_by=None, mode="append", *, dataset=None, run_id=None,
          **writer_options):
    """Write a Spark DataFrame as Parquet files, encoded by pqkit on the executors.

    Parameters
    ----------
    df : pyspark.sql.DataFrame
    path : str or os.PathLike
        Target directory on a file system every executor and the driver share.
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
    if not isinstance(path, (str, os.PathLike)):
        raise SchemaError(f"path must be a local directory path, not {path!r}")
    root = os.path.abspath(os.fspath(path))
    is_dataset = os.path.isdir(os.path.join(root, "_pqkit"))
    if dataset is False and is_dataset:
        raise SchemaError(f"{root} is a PQDS/1 dataset; write it with dataset=True (a plain "
                          "write would bypass its manifest)")
    if dataset or is_dataset:
        from .spark_dataset import write_dataset
        return write_dataset(df, root, partition_by, mode, writer_options, run_id)
    if run_id is not None:
        raise SchemaError("run_id applies to dataset writes only")
    partition_by = _check_partition_by(df, partition_by)
    data, parts, exprs = _plan_columns(df.schema, partition_by)
    fields = [T.field(c.name, c.type, c.nullable) for c in data]
    writer_options = dict(writer_options)
    kv = dict(writer_options.pop("key_value_metadata", None) or {})
    kv.setdefault("org.apache.spark.sql.parquet.row.metadata",
                  _spark_metadata(df.schema, partition_by))
    writer_options["key_value_metadata"] = kv
    _check_options(fields, writer_options)
    job_id = uuid.uuid4().hex
    created_root = not os.path.exists(root)
    staging = os.path.join(root, STAGING_DIR, job_id)
    os.makedirs(staging)
    config = _WriteConfig(tuple(data), tuple(parts), staging, job_id,
                          df.sparkSession.conf.get("spark.sql.session.timeZone"),
                          writer_options)
    try:
        rows = _run_tasks(df.select(*exprs), partition_by, config)
    except BaseException:
        _remove_staging(root, staging, created_root)
        raise
    files = _commit(root, staging, rows, mode, fields, writer_options, job_id, bool(parts))
    return WriteResult(root, files, sum(f["rows"] for f in files), job_id)


def _check_partition_by(df, partition_by):
    if partition_by is None:
        return []
    if isinstance(partition_by, str):
        partition_by = [partition_by]
    partition_by = list(partition_by)
    names = df.columns
    for name in partition_by:
        if name not in names:
            raise SchemaError(f"partition column {name!r} is not a column of the DataFrame "
                              f"({names})")
    if len(set(partition_by)) != len(partition_by):
        raise SchemaError(f"partition_by names a column twice: {partition_by}")
    if len(partition_by) == len(names):
        raise SchemaError("every column is a partition column: no data would be stored")
    return partition_by


def _run_tasks(df, partition_by, config):
    import functools
    from .spark_write_task import write_task
    if partition_by:
        df = df.sortWithinPartitions(*partition_by)
    out = df.mapInPandas(functools.partial(write_task, config=config), _RESULT_SCHEMA)
    return [r.asDict() for r in out.collect()]


def _remove_staging(root, staging, created_root):
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


def _commit(root, staging, rows, mode, fields, writer_options, job_id, partitioned):
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
    _remove_staging(root, staging, False)
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


# --- executor helpers shared with spark_write_task ------------------------------------------------
def frame_to_table(frame, config):
    """The data columns of a transport frame as a pqkit Table."""
    from .convert import column_from_values
    cols = []
    for c in config.data:
        if c.transport == "value":
            values = frame[c.name]
            if _has_nested_instant(c.type) and config.timezone != "UTC":
                values = values.map(lambda v, t=c.type: _localize(v, t, config.timezone))
            col = column_from_values(values, c.type)
        else:
            col = _transported(frame, c)
        cols.append(col)
    return Table(cols, [T.field(c.name, c.type, c.nullable) for c in config.data])


def _transported(frame, c):
    values = frame[c.name].to_numpy()
    validity = None if c.flag is None else ~frame[c.flag].to_numpy(dtype=bool)
    if validity is not None and validity.all():
        validity = None
    return PrimitiveColumn(c.type, values.astype(c.type.numpy_dtype, copy=False), validity)


def _has_nested_instant(t):
    if isinstance(t, T.TimestampType):
        return False                      # top level: travels as micros
    stack = list(t.fields)
    while stack:
        f = stack.pop()
        if isinstance(f.type, T.TimestampType) and f.type.tz is not None:
            return True
        stack.extend(f.type.fields)
    return False


def _localize(value, t, timezone):
    """Nested session-zone wall times (how pyspark hands them over) -> aware datetimes."""
    from zoneinfo import ZoneInfo
    if value is None:
        return None
    if isinstance(t, T.TimestampType):
        if t.tz is not None and isinstance(value, datetime.datetime) and value.tzinfo is None:
            return value.replace(tzinfo=ZoneInfo(timezone))
        return value
    if isinstance(t, T.ListType):
        return [_localize(v, t.value_type, timezone) for v in value]
    if isinstance(t, T.MapType):
        return {k: _localize(v, t.item_type, timezone) for k, v in value.items()}
    if isinstance(t, T.StructType) and isinstance(value, dict):
        return {f.name: _localize(value.get(f.name), f.type, timezone) for f in t.fields}
    return value


def partition_texts(frame, c, timezone):
    """Directory texts of partition column ``c`` for every row (None for null)."""
    values = frame[c.name]
    null = values.isna().to_numpy() if c.flag is None else frame[c.flag].to_numpy(dtype=bool)
    raw = values.to_numpy()
    if c.transport == "micros":
        texts = _micros_texts(raw, timezone)
    elif c.type == T.timestamp("us"):
        texts = [str(v).replace("T", " ") for v in values.astype("datetime64[us]")]
        texts = [_trim_fraction(t) for t in texts]
    elif isinstance(c.type, T.BooleanType):
        texts = ["true" if v else "false" for v in raw]
    elif isinstance(c.type, T.FloatingType):
        texts = [repr(float(v)) for v in raw]
    elif isinstance(c.type, T.DecimalType):
        texts = [None if v is None else format(v, "f") for v in raw]
    elif isinstance(c.type, T.Date32Type):
        texts = [None if v is None else v.isoformat() for v in raw]
    elif isinstance(c.type, T.IntegerType):
        texts = [str(int(v)) for v in raw]
    else:
        texts = [None if v is None else str(v) for v in raw]
    return [None if n or t is None or t == "" else t for n, t in zip(null, texts)]


def _micros_texts(micros, timezone):
    from zoneinfo import ZoneInfo
    zone = ZoneInfo(timezone)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    out = []
    for v in np.asarray(micros, np.int64).tolist():
        local = (epoch + datetime.timedelta(microseconds=v)).astimezone(zone)
        out.append(_trim_fraction(local.replace(tzinfo=None).isoformat(sep=" ")))
    return out


def _trim_fraction(text):
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def partition_dir(parts, texts):
    """``name=value/...`` for the partition columns and their texts."""
    return "/".join(f"{escape_partition_text(c.name)}="
                    f"{HIVE_NULL if t is None else escape_partition_text(t)}"
                    for c, t in zip(parts, texts))
