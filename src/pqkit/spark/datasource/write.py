"""Writing side of the ``pqkit`` Spark data source: part files on executors, commit on the driver.

``df.write.format("pqkit").mode("append" | "overwrite").save(path)``:

1. the driver's planner process builds a :class:`SourceWriter` (:meth:`PqkitDataSource.writer`):
   options checked, Spark schema mapped to pqkit types
   (:func:`pqkit.spark.conversion.schema.from_spark`), writer options tried on an in-memory
   file, and for a plain target the job's staging directory made
   (``path/_pqkit_staging/<job id>``);
2. each executor task gets Arrow record batches, groups their rows by partition
   directory and appends them to that directory's :class:`pqkit.ParquetWriter`
   (plain target: below the task attempt's own staging directory; PQDS/1 target:
   :func:`pqkit.dataset.stage_file`), and returns the file entries as its commit
   message. A failing task deletes what it wrote;
3. the driver's :meth:`SourceWriter.commit` publishes the files: for a plain
   target as :func:`pqkit.spark.write` does (old contents retired on overwrite,
   files renamed into place, ``_SUCCESS`` last), for a dataset as one version
   whose run id is the job id, so committing the same job twice adds nothing;
   :meth:`SourceWriter.abort` deletes the staging directory (plain) or the staged
   files (dataset): the target is as it was.

A dataset target is a directory holding ``_pqkit`` (or a URL); a missing target is
created as a plain Hive directory.
"""
import io
import os
import uuid

import pyarrow as pa
from pyspark.sql.datasource import DataSourceArrowWriter, WriterCommitMessage

import pqkit.dataset as pds
from pqkit import Table
from pqkit.errors import DatasetNotFound, SchemaError
from pqkit.filesystems import is_url
from pqkit.spark.conversion.variant_bytes import variant_group
from pqkit.spark.datasource.options import SourceOptions
from pqkit.spark.jobs.dataset import StageConfig, Stager
from pqkit.spark.jobs.write_job import commit_part_files, remove_staging
from pqkit.spark.jobs.write_plan import (STAGING_DIR, ColumnPlan, WriteConfig,
                                         check_dataset_columns, column_type, spark_metadata)
from pqkit.spark.jobs.write_task import TaskFiles
from pqkit.write.file import ParquetWriter

__all__ = ["SourceWriter", "FilesMessage"]

_INT_OPTIONS = ("compression_level", "row_group_size", "data_page_size")
_FLAG_OPTIONS = {"write_statistics": "write_statistics", "dictionary": "use_dictionary"}


class FilesMessage(WriterCommitMessage):
    """One task's commit message: the entries of the files it wrote."""

    def __init__(self, rows):
        self.rows = rows


def _writer_options(opts, schema, partition_by):
    out = {}
    if opts.get("compression") is not None:
        out["compression"] = opts.get("compression")
    for name in _INT_OPTIONS:
        if opts.get(name) is not None:
            out[name] = opts.integer(name, None, minimum=0 if name == "compression_level"
                                     else 1)
    for name, arg in _FLAG_OPTIONS.items():
        if opts.get(name) is not None:
            out[arg] = opts.flag(name, True)
    shredding = opts.get("variantshredding")
    if shredding is not None:
        if str(shredding).strip().lower() not in ("auto", "none"):
            raise SchemaError(f"option variantShredding must be auto or none, not "
                              f"{shredding!r}")
        if str(shredding).strip().lower() == "auto":
            out["shredding"] = "auto"
    out["key_value_metadata"] = {"org.apache.spark.sql.parquet.row.metadata":
                                 spark_metadata(schema, partition_by)}
    return out


def _partition_by(opts, schema):
    names = opts.names("partition_by") or []
    for name in names:
        if name not in schema.names:
            raise SchemaError(f"partition column {name!r} is not a column of the DataFrame "
                              f"({schema.names})")
    if len(set(names)) != len(names):
        raise SchemaError(f"partition_by names a column twice: {names}")
    if names and len(names) == len(schema.names):
        raise SchemaError("every column is a partition column: no data would be stored")
    return names


def _column_plans(schema, partition_by):
    data, parts = [], []
    for f in schema.fields:
        pq_type, transport = column_type(f.dataType, f.name)
        plan = ColumnPlan(f.name, pq_type, True, "variant" if transport == "variant" else
                          "value", None)
        (parts if f.name in partition_by else data).append(plan)
    parts.sort(key=lambda c: partition_by.index(c.name))
    return tuple(data), tuple(parts)


class SourceWriter(DataSourceArrowWriter):
    """Made on the driver, pickled to every task; commit/abort run on the driver."""

    def __init__(self, options, schema, overwrite):
        opts = SourceOptions(options, "write")
        if opts.get("path") is None:
            raise SchemaError("format 'pqkit' needs a target: df.write.format('pqkit')"
                              ".save(path)")
        self.mode = "overwrite" if overwrite else "append"
        self.storage_options = opts.storage_options()
        self.partition_by = _partition_by(opts, schema)
        self.data, self.parts = _column_plans(schema, self.partition_by)
        self.writer_options = _writer_options(opts, schema, self.partition_by)
        fields = [c.field for c in self.data]
        try:
            ParquetWriter(io.BytesIO(), fields, **self.writer_options).close()
        except TypeError as exc:
            raise SchemaError(f"bad writer option: {exc}") from None
        self.job_id = opts.get("job_id") or uuid.uuid4().hex
        self.timezone = "UTC"
        path = opts.get("path")
        self.is_dataset = is_url(path) or os.path.isdir(os.path.join(path, "_pqkit"))
        self.root = path if is_url(path) else os.path.abspath(path)
        if self.is_dataset:
            check_dataset_columns(self.data, self.root)
            self._prepare_dataset()
        else:
            self.created_root = not os.path.exists(self.root)
            self.staging = os.path.join(self.root, STAGING_DIR, uuid.uuid4().hex)
            os.makedirs(self.staging)

    def _prepare_dataset(self):
        try:
            current = pds.open(self.root, storage_options=self.storage_options)
        except DatasetNotFound:
            current = None
        self.commit_mode = "create" if current is None else self.mode
        if current is not None and self.commit_mode != "overwrite" and \
                self.partition_by != current.partition_by:
            raise SchemaError(f"the dataset at {self.root} is partitioned by "
                              f"{current.partition_by}, not {self.partition_by}")

    # --- executors ------------------------------------------------------------------------
    def write(self, iterator):
        from pyspark import TaskContext
        ctx = TaskContext.get()
        if self.is_dataset:
            sink = _DatasetSink(self)
        else:
            config = WriteConfig(self.data, self.parts, self.staging, self.job_id,
                                 self.timezone, self.writer_options)
            sink = TaskFiles(f"attempt-{ctx.taskAttemptId()}", ctx.partitionId(), config,
                              one_open=False)
        try:
            for batch in iterator:
                for key, values, table in _partitioned(batch, self.data, self.parts):
                    sink.add(key, values, table) if self.is_dataset else sink.write(key, table)
            return FilesMessage(sink.finish())
        except BaseException:
            sink.abort()
            raise

    # --- driver ---------------------------------------------------------------------------
    def commit(self, messages):
        rows = [r for m in messages if m is not None for r in m.rows]
        if self.is_dataset:
            fields = [c.field for c in self.data]
            schema = fields if self.commit_mode in ("create", "overwrite") else None
            pds.commit(self.root, rows, mode=self.commit_mode,
                       partition_by=self.partition_by or (None if self.commit_mode != "create"
                                                          else []),
                       run_id=self.job_id, schema=schema,
                       storage_options=self.storage_options)
            return
        fields = [c.field for c in self.data]
        commit_part_files(self.root, self.staging, rows, self.mode, fields, self.writer_options,
                self.job_id, bool(self.parts))

    def abort(self, messages):
        if self.is_dataset:
            stager = _DatasetSink(self)
            stager.entries = [r for m in messages if m is not None for r in m.rows]
            stager.abort()
            return
        remove_staging(self.root, self.staging, self.created_root)


class _DatasetSink(Stager):
    """The files one task stages into a PQDS/1 dataset."""

    def __init__(self, writer):
        super().__init__(StageConfig(writer.data, writer.parts, writer.root, writer.timezone,
                                      dict(writer.writer_options), 1 << 20,
                                      writer.storage_options))
        self.config.writer_options.pop("key_value_metadata", None)


def _text(value):
    """A partition value as Spark names its directory (None: null or empty)."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if hasattr(value, "isoformat") and hasattr(value, "hour"):
        text = value.replace(tzinfo=None).isoformat(sep=" ")
        return text.rstrip("0").rstrip(".") if "." in text else text
    if hasattr(value, "isoformat"):
        return value.isoformat()
    if hasattr(value, "as_tuple"):
        return format(value, "f")
    return str(value)


def _partitioned(batch, data, parts):
    """(directory texts, typed values, pqkit Table of the data columns) per partition of an
    Arrow batch; one group when there are no partition columns."""
    if batch.num_rows == 0:
        return
    names = [c.name for c in data]
    if not parts:
        yield (), {}, _table(batch.select(names), data)
        return
    values = [batch.column(c.name).to_pylist() for c in parts]
    groups = {}
    for i, row in enumerate(zip(*values)):
        key = tuple(_text(v) for v in row)
        groups.setdefault(key, (row, []))[1].append(i)
    for key, (row, rows) in groups.items():
        sub = batch if len(rows) == batch.num_rows else batch.take(pa.array(rows))
        typed = {c.name: (None if v == "" else v) for c, v in zip(parts, row)}
        yield key, typed, _table(sub.select(names), data)


def _stored(t):
    """Arrow type ``t`` as the writer's fields hold it: every zone-tagged timestamp tagged
    UTC (the same instants), times of day in microseconds (Spark's TIME has at most 6
    digits of fraction, it sends nanoseconds)."""
    if pa.types.is_timestamp(t) and t.tz is not None:
        return pa.timestamp(t.unit, tz="UTC")
    if pa.types.is_time64(t):
        return pa.time64("us")
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(_stored(f.type)) for f in t])
    if pa.types.is_map(t):
        return pa.map_(t.key_field.with_type(_stored(t.key_type)),
                       t.item_field.with_type(_stored(t.item_type)))
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        make = pa.list_ if pa.types.is_list(t) else pa.large_list
        return make(t.value_field.with_type(_stored(t.value_type)))
    return t


def _table(batch, data):
    """A pqkit Table of an Arrow batch, typed as the writer's fields: Spark tags
    timestamps with the session zone, pqkit stores them as UTC instants; a VARIANT's
    ``struct<value, metadata>`` becomes the variant group."""
    schema = pa.schema([f.with_type(_stored(f.type)) for f in batch.schema])
    if schema != batch.schema:
        batch = batch.cast(schema)
    table = Table.from_arrow(batch)
    if not any(c.transport == "variant" for c in data):
        return table
    columns = [variant_group(col, c.name) if c.transport == "variant" else col
               for c, col in zip(data, table.columns)]
    return Table(columns, [c.field for c in data], table.metadata)
