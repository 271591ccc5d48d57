"""Reading side of the ``pqkit`` Spark data source: schema, partitions, Arrow batches.

The driver's planner process runs :func:`source_schema` (when the user gives no
schema) and :meth:`SourceReader.partitions`: the source is planned with
:func:`pqkit.spark.plan` (footers read once, Hive partitions, pushed filters
pruning partitions and row groups), its splits packed into Spark partitions of
at most ``maxPartitionBytes`` compressed bytes. Each executor task then decodes
its splits with :func:`pqkit.spark.jobs.read_job.split_batches` (the code behind
``pqkit.spark.read``) and hands Spark Arrow record batches; no pandas on the way.

Types are Spark's own: intervals, variants and char/varchar as the files' Spark
row metadata declares them (as ``spark.read.parquet`` gives them), every field
nullable. A year-month interval cannot cross from a Python data source to the
JVM (Spark's Arrow conversion has no type for it), so such a column is refused
with a message naming it; ``pqkit.spark.read`` reads it.
"""
import functools
import glob
import os

from pyspark.sql import types as S
from pyspark.sql.datasource import InputPartition
from pyspark.sql.pandas.types import to_arrow_schema

from pqkit.errors import ParquetError, SchemaError
from pqkit.read.read_statistics import ReadStatistics
from pqkit.spark.conversion.columns import to_arrow
from pqkit.spark.conversion.row_metadata import final_spark_type
from pqkit.spark.conversion.schema import to_spark
from pqkit.spark.datasource.options import DEFAULT_MAX_PARTITION_BYTES, SourceOptions
from pqkit.spark.datasource.statistics import save_statistics
from pqkit.spark.jobs.plan import pack_tasks
from pqkit.spark.jobs.read_job import (DEFAULT_BATCH_SIZE, ReadConfig, declared_spark_types, plan,
                                       split_batches)

__all__ = ["SourceReader", "source_schema", "SplitsPartition", "short_errors"]

_GLOB_CHARS = set("*?[")


def _expand(source):
    """Local glob patterns expanded (sorted); everything else as given."""
    items = source if isinstance(source, list) else [source]
    out = []
    for item in items:
        if "://" not in item and _GLOB_CHARS & set(item):
            found = sorted(glob.glob(item))
            if not found:
                raise SchemaError(f"{item!r} matches no file")
            out.extend(found)
        else:
            out.append(item)
    if len(out) > 1 and any(os.path.isdir(p) for p in out):
        dirs = [p for p in out if os.path.isdir(p)]
        raise SchemaError(f"{dirs[0]!r} is a directory among several paths; give a directory "
                          "on its own, or its files")
    return out[0] if len(out) == 1 else out


def _version(opts):
    """The dataset version the options ask for (versionAsOf or tag), or None."""
    version, tag = opts.get("versionasof"), opts.get("tag")
    if version is not None and tag is not None:
        raise SchemaError("give versionAsOf or tag, not both")
    if version is not None:
        return opts.integer("versionasof", None, minimum=0)
    if tag is not None:
        import pqkit.dataset as pds
        return pds.open(opts.paths(), tag=tag).version
    return None


def plan_source(opts, columns, filters=None):
    """The :class:`pqkit.spark.ReadPlan` of the options' source."""
    return plan(_expand(opts.paths()), columns=columns, filters=filters,
                split_by=opts.get("splitby", "row_group"),
                timezone=opts.get("timezone", "UTC"), version=_version(opts),
                storage_options=opts.storage_options())


def _spark_types(p):
    """Per output column of plan ``p``, the Spark type the source declares."""
    declared = declared_spark_types(p)
    types = [final_spark_type(f.type, d, f.name) for f, d in zip(p.fields, declared)]
    return declared, types + [to_spark(f.type) for f in p.partition_fields]


def short_errors(method):
    """Run ``method`` so that a ParquetError reaches Spark without pqkit's inner frames:
    Spark prints the Python traceback into its own error text."""
    @functools.wraps(method)
    def run(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except ParquetError as exc:
            raise exc.with_traceback(None) from None
    return run


@short_errors
def source_schema(options):
    """The StructType of a read with these options (no user schema)."""
    opts = SourceOptions(options, "read")
    columns = opts.names("columns")
    p = plan_source(opts, columns)
    _, types = _spark_types(p)
    fields = {n: S.StructField(n, t, True) for n, t in zip(p.names, types)}
    order = p.names if columns is None else _tops(columns)
    return S.StructType([fields[n] for n in order])


def _tops(columns):
    """The top-level names of ``columns`` (dotted paths by their top), in order."""
    tops = []
    for c in columns:
        top = c if "." not in c else c.split(".")[0]
        if top not in tops:
            tops.append(top)
    return tops


def _located(exc, path):
    """``exc`` again, its message naming ``path`` (once), without its traceback."""
    text = str(exc)
    try:
        located = type(exc)(text if path in text else f"{path}: {text}")
    except TypeError:                      # a subclass with other arguments: keep it
        located = exc
    return located.with_traceback(None)


class SplitsPartition(InputPartition):
    """One Spark partition: consecutive splits of the plan (pickled to an executor)."""

    def __init__(self, index, splits, config, order):
        super().__init__(index)
        self.splits = splits
        self.config = config      # the ReadConfig of the whole read
        self.order = order        # planned column index of each output column


class SourceReader:
    """The reader's work, kept apart from pyspark's base class (see source.py)."""

    def __init__(self, options, schema):
        self.opts = SourceOptions(options, "read")
        self.schema = schema
        self.filters = None          # one conjunction of pqkit terms, set by pushFilters

    @staticmethod
    def pushdown_wanted(options):
        return SourceOptions(options, "read").flag("pushdown", True)

    def _columns(self):
        explicit = self.opts.names("columns")
        names = list(self.schema.names)
        if explicit is not None:
            if _tops(explicit) != names:
                raise SchemaError(f"option columns names {explicit}, the schema {names}: give "
                                  "one of them")
            return explicit
        return names

    @short_errors
    def partitions(self):
        p = self._plan(self._columns(), [self.filters] if self.filters else None)
        self._save_plan_statistics(p)
        declared, types = _spark_types(p)
        self._check_schema(p, types)
        order = tuple(p.names.index(n) for n in self.schema.names)
        config = ReadConfig(
            fields=tuple(p.fields), specs=tuple(c for c in self._columns()
                                                if c not in p.partition_names),
            partition_fields=tuple(p.partition_fields),
            partition_index=tuple(p.partition_names.index(f.name) for f in p.partition_fields),
            batch_size=self.opts.integer("batchsize", DEFAULT_BATCH_SIZE),
            timezone=self.opts.get("timezone", "UTC"), large_types=False,
            declared=declared, spark_types=tuple(types))
        tasks = pack_tasks(p.splits, self.opts.integer("minpartitions", os.cpu_count() or 1),
                           self.opts.integer("maxpartitionbytes", DEFAULT_MAX_PARTITION_BYTES))
        return [SplitsPartition(i, tuple(t), config, order) for i, t in enumerate(tasks)]

    def _save_plan_statistics(self, p):
        """The row groups the plan pruned (the tasks count those they read)."""
        directory = self.opts.get("statisticspath")
        if directory is not None:
            pruned = sum(p.row_groups_skipped.values())
            save_statistics(directory, "plan", ReadStatistics(
                row_groups=pruned, row_groups_skipped=dict(p.row_groups_skipped)))

    def _plan(self, columns, filters):
        """The plan partitions() splits (a stream reader plans one micro-batch's files)."""
        return plan_source(self.opts, columns, filters)

    def _check_schema(self, p, types):
        planned = dict(zip(p.names, types))
        for f in self.schema.fields:
            have = planned[f.name]
            if have.simpleString() != f.dataType.simpleString():
                raise SchemaError(f"the schema given says column {f.name!r} is "
                                  f"{f.dataType.simpleString()}, the files hold "
                                  f"{have.simpleString()}")

    def read(self, partition):
        import pyarrow as pa
        schema = to_arrow_schema(self.schema, timezone="UTC")
        directory = self.opts.get("statisticspath")
        statistics = ReadStatistics() if directory is not None else None
        for split in partition.splits:
            try:
                for columns, _ in split_batches(split, partition.config, statistics):
                    ordered = [columns[i] for i in partition.order]
                    arrays = [to_arrow(col, schema.field(i).type, pa)
                              for i, col in enumerate(ordered)]
                    yield pa.RecordBatch.from_arrays(arrays, schema=schema)
            except ParquetError as exc:
                # Spark shows the Python traceback: keep it to this frame, and say which file
                raise _located(exc, split.path) from None
        if statistics is not None:
            save_statistics(directory, f"task-{partition.value}", statistics)
