"""Reading with Spark: splits planned on the driver, decoded by pqkit on the executors.

The driver plans splits from the footers (:mod:`pqkit.spark.jobs.plan`: Hive
partitions, filters pruning partitions and row groups), packs them into tasks
and builds a small DataFrame with one row per task. ``mapInPandas`` (or
``mapInArrow`` with ``engine="arrow"``) then runs on the executors: each task
opens its files with :class:`pqkit.ParquetFile`, decodes one row group at a
time (page-index skipping for filtered reads), casts the columns to their Spark
types (:mod:`pqkit.spark.conversion.columns`) and yields batches of at most
``batch_size`` rows.
"""
import functools
import os
import pickle
from dataclasses import dataclass

from pqkit.columnar.nested import nulls
from pqkit.errors import DatasetIncomplete, SchemaError
from pqkit.filesystems import is_url
from pqkit.read.file import ParquetFile
from pqkit.spark.conversion.columns import (arrow_series_supported, constant_column, to_arrow,
                                            to_pandas, to_ready)
from pqkit.spark.conversion.legacy_calendar import leaf_physical_types, rebase_column, rebase_spec
from pqkit.spark.conversion.row_metadata import (declared_types, final_casts, is_variant,
                                                 needs_transport, quote, to_transport,
                                                 transport_type)
from pqkit.spark.conversion.schema import to_spark
from pqkit.spark.conversion.variant_bytes import VARIANT_TYPE, unshred, variant_values
from pqkit.spark.jobs.plan import find_files, make_plan, pack_tasks

__all__ = ["read", "plan", "split_batches", "is_connect", "DEFAULT_BATCH_SIZE"]

DEFAULT_BATCH_SIZE = 65536
_ENGINES = ("pandas", "arrow")


def _is_dataset(source):
    return isinstance(source, (str, os.PathLike)) and not is_url(source) and \
        os.path.isdir(os.path.join(os.fspath(source), "_pqkit"))


def plan(source, columns=None, filters=None, split_by="row_group", partition_types=None,
         timezone="UTC", version=None, storage_options=None):
    """Plan a read without running it (no SparkSession needed).

    Parameters are those of :func:`read`; ``timezone`` is the zone in which partition
    timestamps without an offset are read (``read`` passes the session time zone).

    Returns
    -------
    ReadPlan
        ``.splits`` lists the work left after partition and row-group pruning;
        ``.fields`` and ``.partition_fields`` give the output schema.
    """
    if _is_dataset(source):
        from pqkit.spark.jobs.dataset import dataset_files
        if partition_types:
            raise SchemaError("partition_types does not apply to a dataset: its manifest "
                              "types the partition columns")
        files, names, part_fields, base = dataset_files(source, filters, version)
        return make_plan(files, names, columns, None, split_by, timezone=timezone,
                         partition_fields=part_fields, base_fields=base)
    if version is not None:
        raise SchemaError(f"version={version!r} applies to a PQDS/1 dataset; {source!r} is not "
                          "one")
    files, names = find_files(source, storage_options)
    return make_plan(files, names, columns, filters, split_by, partition_types, timezone)


@dataclass(frozen=True)
class ReadConfig:
    """What the executor function needs besides the splits (pickled into each task)."""
    fields: tuple
    specs: tuple              # column selection for pqkit (dotted paths), or None: all
    partition_fields: tuple
    partition_index: tuple    # positions of the selected partition columns in Split.partition
    batch_size: int
    timezone: str
    large_types: bool
    declared: tuple = None    # per data field: Spark's declared type (JSON value) or None
    spark_types: tuple = None  # per output column: the pyspark type the executors produce

    def __post_init__(self):
        if self.declared is None:
            object.__setattr__(self, "declared", (None,) * len(self.fields))
        if self.spark_types is None:
            object.__setattr__(self, "spark_types", tuple(
                to_spark(f.type) for f in self.fields + self.partition_fields))


def read(spark, source, columns=None, filters=None, split_by="row_group",
         batch_size=DEFAULT_BATCH_SIZE, engine="pandas", partition_types=None, version=None,
         storage_options=None):
    """Read Parquet data into a Spark DataFrame, decoding with pqkit on the executors.

    Parameters
    ----------
    spark : pyspark.sql.SparkSession
    source : path, URL or list of them
        A file, a list of files, a directory (Hive partition directories
        ``name=value`` become typed columns, placed after the data columns) or a
        PQDS/1 dataset root (read at its latest version). A URL (``s3://bucket/t``)
        is listed once on the driver, which reads the footers by ranged requests;
        each executor fetches only the ranges of its own splits.
    columns : list of str, optional
        Data columns (top-level names or dotted paths into structs) and partition
        columns to keep, in this order; default all (partition columns last).
    filters : list, optional
        pyarrow-style DNF, as :func:`pqkit.read_table` takes: ``[("x", ">", 5)]`` or a
        list of such lists. Partition terms prune files, statistics prune row groups,
        and the executors keep exactly the matching rows. Nulls never match.
    split_by : {"row_group", "file"}
        One split per row group or per file; splits are packed into tasks much as
        Spark packs file splits.
    batch_size : int
        Most rows per batch handed to Spark. Memory per task is one decoded row
        group plus one batch.
    engine : {"pandas", "arrow"}
        ``mapInPandas`` (default) or ``mapInArrow`` (faster: no pandas objects;
        needs pyarrow on the executors).
    partition_types : dict of str -> str, optional
        Spark type names for partition columns (``{"day": "string"}``) instead of
        the inferred types (directories only).
    version : int, optional
        For a dataset: read this version instead of the latest.
    storage_options : dict, optional
        fsspec options of a URL source (endpoint, credentials); they travel with each
        split to the executors.

    Returns
    -------
    pyspark.sql.DataFrame
        Lazily evaluated; every field nullable.

    Raises
    ------
    pqkit.SchemaError
        Unknown columns, a type Spark cannot hold, files whose schemas disagree,
        bad filters or partition layout. Errors in the data itself surface when the
        DataFrame is evaluated, as the executor's pqkit error.
    """
    if engine not in _ENGINES:
        raise SchemaError(f"engine must be one of {_ENGINES}, not {engine!r}")
    if not isinstance(batch_size, int) or batch_size <= 0:
        raise SchemaError(f"batch_size must be a positive int, not {batch_size!r}")
    timezone = spark.conf.get("spark.sql.session.timeZone")
    p = plan(source, columns, filters, split_by, partition_types, timezone, version,
             storage_options)
    declared = declared_spark_types(p)
    spark_types = tuple([transport_type(f.type, d) for f, d in zip(p.fields, declared)] +
                        [to_spark(f.type) for f in p.partition_fields])
    schema = _schema(p.names, spark_types)
    if not p.splits:
        empty = _declare(spark.createDataFrame([], schema), p, declared, spark_types)
        return empty if columns is None else \
            empty.selectExpr(*_output_order(columns, p.names))
    task_frame = _task_frame(spark, p.splits)
    specs = None if columns is None else tuple(c for c in columns if c not in p.partition_names)
    config = ReadConfig(
        fields=tuple(p.fields), specs=specs, partition_fields=tuple(p.partition_fields),
        partition_index=tuple(p.partition_names.index(f.name) for f in p.partition_fields),
        batch_size=batch_size, timezone=timezone,
        large_types=spark.conf.get("spark.sql.execution.arrow.useLargeVarTypes",
                                   "false").lower() == "true",
        declared=declared, spark_types=spark_types)
    if engine == "arrow":
        out = task_frame.mapInArrow(functools.partial(_arrow_batches, config=config), schema)
    else:
        out = task_frame.mapInPandas(functools.partial(_pandas_batches, config=config), schema)
    out = _declare(out, p, declared, spark_types)
    return out if columns is None else out.selectExpr(*_output_order(columns, p.names))


def is_connect(spark):
    """Whether ``spark`` is a Spark Connect session (no SparkContext, no RDDs)."""
    return type(spark).__module__.startswith("pyspark.sql.connect")


def _parallelism(spark):
    if not is_connect(spark):
        return spark.sparkContext.defaultParallelism
    # A Connect client cannot see the cluster's cores: the configured parallelism, else
    # the shuffle partition count
    text = spark.conf.get("spark.default.parallelism", None) or \
        spark.conf.get("spark.sql.shuffle.partitions", "200")
    return max(1, int(text))


def _task_frame(spark, splits):
    """A DataFrame of (task, pickled splits) rows, one task per partition."""
    tasks = pack_tasks(splits, _parallelism(spark))
    rows = [(i, pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL))
            for i, task in enumerate(tasks)]
    if is_connect(spark):
        # No RDDs on Connect: a local relation, split by ranges of distinct task numbers
        return spark.createDataFrame(rows, "task int, splits binary") \
            .repartitionByRange(len(rows), "task")
    sc = spark.sparkContext
    return spark.createDataFrame(sc.parallelize(rows, len(rows)), "task int, splits binary")


def declared_spark_types(p):
    """Per data field, the type Spark's row metadata declares for it where that needs more
    than the Parquet schema says (intervals, variants), else None; the first file that
    declares a column decides."""
    found = {}
    for src in p.files:
        for name, d in declared_types(src.metadata.key_value_metadata).items():
            found.setdefault(name, d)
    return tuple(found.get(f.name) if needs_transport(found.get(f.name)) else None
                 for f in p.fields)


def _schema(names, spark_types):
    from pyspark.sql import types as S
    return S.StructType([S.StructField(n, t, True) for n, t in zip(names, spark_types)])


def _declare(frame, p, declared, spark_types):
    """``frame`` with the interval columns cast to the types Spark declared."""
    if not any(d is not None for d in declared):
        return frame
    n = len(p.fields)
    casts = final_casts(p.names[:n], declared, spark_types[:n])
    return frame.selectExpr(*casts, *[quote(f.name) for f in p.partition_fields])


def _output_order(columns, names):
    """Output columns in the order ``columns`` names them (dotted paths by their top)."""
    order = []
    for c in columns:
        top = c if c in names else c.split(".")[0]
        if top not in order:
            order.append(top)
    return ["`" + name.replace("`", "``") + "`" for name in order]


# --- executor side ------------------------------------------------------------------------
def _arrow_schema(config):
    """The Arrow schema pyspark gives the output (the types it asks pyarrow for)."""
    from pyspark.sql.pandas.types import to_arrow_schema
    names = [f.name for f in config.fields + config.partition_fields]
    return to_arrow_schema(_schema(names, config.spark_types), timezone=config.timezone,
                           prefers_large_types=config.large_types)


def _pandas_batches(frames, config):
    """mapInPandas function: task rows in, pandas DataFrames of Spark-ready data out.

    Where pyspark takes Arrow-backed Series (:func:`arrow_series_supported`), strings,
    binary, decimals and dates are handed over as Arrow arrays instead of objects."""
    import pandas as pd
    names = [f.name for f in config.fields + config.partition_fields]
    pa, types = None, [None] * len(names)
    declared = config.declared + (None,) * len(config.partition_fields)
    if arrow_series_supported():
        import pyarrow as pa
        types = _arrow_schema(config).types
    for frame in frames:
        for payload in frame["splits"]:
            for split in pickle.loads(payload):
                for columns, n in split_batches(split, config):
                    series = {name: _series(col, pd, t, pa, d)
                              for name, col, t, d in zip(names, columns, types, declared)}
                    yield pd.DataFrame(series, index=pd.RangeIndex(n))


def _series(col, pd, arrow_type, pa, declared):
    if is_variant(declared):
        from pyspark.sql.types import VariantVal
        values = [None if v is None else VariantVal(v[0], v[1]) for v in variant_values(col)]
        return pd.Series(values, dtype=object)
    return to_pandas(col, pd, arrow_type, pa)


def _arrow_batches(batches, config):
    """mapInArrow function: task rows in, Arrow record batches out."""
    import pyarrow as pa
    schema = _arrow_schema(config)
    for batch in batches:
        for payload in batch.column("splits").to_pylist():
            for split in pickle.loads(payload):
                for columns, n in split_batches(split, config):
                    arrays = [to_arrow(col, schema.field(i).type, pa)
                              for i, col in enumerate(columns)]
                    yield pa.RecordBatch.from_arrays(arrays, schema=schema)


def split_batches(split, config, statistics=None):
    """Decode one split: yield (Spark-ready columns in output order, row count) per batch.
    ``statistics`` (a :class:`pqkit.ReadStatistics`) counts what the reads did."""
    with _open_split(split) as pf:
        tops = set(pf.schema.names)
        if config.specs is None:
            wanted = [f.name for f in config.fields if f.name in tops]
        else:
            wanted = [s for s in config.specs if s.split(".")[0] in tops]
        counted = wanted or _filter_tops(split.filters)
        spec = rebase_spec(pf.metadata.key_value_metadata, config.timezone)
        physical = {f.name: leaf_physical_types(pf.schema, f.name) for f in config.fields} \
            if spec.any else None
        # a dataset file's deletion file: its positions are left out of every read
        deleted = {} if split.deleted is None else {"exclude_rows": split.deleted}
        for g in split.row_groups:
            if split.filters:
                table = pf.read(columns=counted, row_groups=[g], filters=split.filters,
                                statistics=statistics, **deleted)
            elif wanted or deleted:
                # read() plans the group's chunks first: one coalesced request remotely
                table = pf.read(columns=wanted or pf.schema.names[:1], row_groups=[g],
                                statistics=statistics, **deleted)
                if not wanted:
                    table = table.select([])
            else:
                table = None
                if statistics is not None:         # rows counted from the footer alone
                    statistics.add(row_groups=1,
                                   rows_returned=pf.metadata.row_group(g).num_rows)
            n = table.num_rows if table is not None else pf.metadata.row_group(g).num_rows
            present = set(table.column_names) if wanted else set()
            for start in range(0, n, config.batch_size):
                stop = min(n, start + config.batch_size)
                yield _batch_columns(table, present, split, config, start, stop, spec,
                                     physical), stop - start


def _open_split(split):
    for path in (split.path,) + tuple(split.alternates):
        try:
            return ParquetFile(path, coerce_int96_timestamp_unit="us",
                               storage_options=split.storage_options)
        except FileNotFoundError:
            continue
    if split.alternates:                  # a dataset file: it may have moved back meanwhile
        try:
            return ParquetFile(split.path, coerce_int96_timestamp_unit="us")
        except FileNotFoundError:
            pass
        raise DatasetIncomplete(f"data file {split.path} is gone (also not at "
                                f"{', '.join(split.alternates)}): vacuumed or deleted outside "
                                "pqkit while the job ran")
    raise SchemaError(f"data file {split.path} disappeared after planning")


def _filter_tops(dnf):
    if not dnf:
        return []
    return sorted({term[0][0] if isinstance(term[0], tuple) else str(term[0]).split(".")[0]
                   for conj in dnf for term in conj})


def _batch_columns(table, present, split, config, start, stop, spec, physical):
    n = stop - start
    out = []
    for f, declared in zip(config.fields, config.declared):
        if f.name in present:
            col = table.column(f.name).slice(start, stop)
            if is_variant(declared) and f.type == VARIANT_TYPE:
                col = unshred(col, f.name)          # as the planner typed it
            col = to_ready(col, f.type, f.name)
            if physical is not None and not is_variant(declared):
                col = rebase_column(col, spec, physical[f.name], f.name)
        else:
            col = nulls(f.type, n)
        out.append(to_transport(col, declared, f.name))
    for f, i in zip(config.partition_fields, config.partition_index):
        out.append(constant_column(split.partition[i], f.type, n))
    return out
