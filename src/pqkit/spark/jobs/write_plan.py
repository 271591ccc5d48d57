"""The plan of a Spark write job, made on the driver and shipped to every task.

:func:`plan_columns` maps each Spark column to a :class:`ColumnPlan`: its pqkit
type and how it travels to pandas (``number``: coalesced to 0 with a null
flag column; ``micros``: a TIMESTAMP as ``unix_micros``; ``variant``: a top-level
VARIANT, as pyspark's ``VariantVal``s or Arrow's ``struct<value, metadata>``, stored
as a Parquet VARIANT; ``value``: as pyspark hands it over). A :class:`WriteConfig` holds those plans with the job's
staging directory, session time zone and writer options; :class:`WriteResult`
is what the driver returns once the files are committed.
"""
import io
from dataclasses import dataclass

from pqkit import datatypes as T
from pqkit.errors import SchemaError
from pqkit.schema.annotations import variant_field
from pqkit.spark.conversion.schema import from_spark
from pqkit.variant.column import UNSHREDDED
from pqkit.write.file import ParquetWriter

STAGING_DIR = "_pqkit_staging"


HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"


_FLAG = "__pqkit_null_{}"


RESULT_SCHEMA = "attempt string, path string, partition string, size long, rows long, " \
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
class ColumnPlan:
    name: str
    type: object            # pqkit type
    nullable: bool
    transport: str          # "number", "micros", "variant" or "value"
    flag: str               # name of the null-flag column, or None

    @property
    def field(self):
        """The pqkit field the files store (a VARIANT-marked one for a variant)."""
        if self.transport == "variant":
            return variant_field(self.name, self.type, self.nullable)
        return T.field(self.name, self.type, self.nullable)


def column_type(dt, name):
    """(pqkit type, transport) of a top-level column of Spark type ``dt``; a VARIANT is
    stored unshredded unless the writer's ``shredding`` option says otherwise."""
    kind = type(dt).__name__
    if kind == "VariantType":
        return UNSHREDDED, "variant"
    transport = "number" if kind in _NUMBER_TYPES else \
        "micros" if kind == "TimestampType" else "value"
    return from_spark(dt, name), transport


@dataclass(frozen=True)
class WriteConfig:
    data: tuple             # ColumnPlan per data column
    partitions: tuple       # ColumnPlan per partition column
    staging: str            # absolute staging directory of the job
    job_id: str
    timezone: str
    writer_options: dict


_NUMBER_TYPES = ("ByteType", "ShortType", "IntegerType", "LongType", "FloatType",
                 "DoubleType")


_PARTITION_TYPES = _NUMBER_TYPES + ("BooleanType", "StringType", "DateType", "TimestampType",
                                    "TimestampNTZType", "DecimalType", "CharType",
                                    "VarcharType")


def plan_columns(schema, partition_by):
    """(data ColumnPlans, partition ColumnPlans, SQL select expressions of the transport
    projection); SQL text works on classic and Spark Connect DataFrames alike."""
    from pqkit.spark.conversion.row_metadata import quote
    data, parts, exprs = [], [], []
    for i, f in enumerate(schema.fields):
        kind = type(f.dataType).__name__
        is_part = f.name in partition_by
        if is_part and kind not in _PARTITION_TYPES:
            raise SchemaError(f"partition column {f.name!r} has type "
                              f"{f.dataType.simpleString()}; partition by atomic columns")
        pq_type, transport = column_type(f.dataType, f.name)
        col = quote(f.name)
        flag = _FLAG.format(i) if transport in ("number", "micros") and f.nullable else None
        if transport == "micros":
            col = f"unix_micros({col})"
        if flag:
            exprs.append(f"isnull({col}) as {quote(flag)}")
            zero = "long" if transport == "micros" else f.dataType.simpleString()
            col = f"coalesce({col}, cast(0 as {zero}))"
        exprs.append(f"{col} as {quote(f.name)}")
        spec = ColumnPlan(f.name, pq_type, f.nullable, transport, flag)
        (parts if is_part else data).append(spec)
    order = {name: i for i, name in enumerate(partition_by)}
    parts.sort(key=lambda c: order[c.name])
    return data, parts, exprs


def check_dataset_columns(data, root):
    """Refuse VARIANT columns for a PQDS/1 target: a dataset's schema records types without
    the VARIANT annotation, so the dataset would read back as plain structs."""
    for c in data:
        if c.transport == "variant":
            raise SchemaError(f"column {c.name!r} is a VARIANT, which a PQDS/1 dataset's "
                              f"schema ({root}) does not record yet; write it to a plain "
                              f"directory, or store to_json({c.name}) as a string")


def check_options(fields, writer_options):
    try:
        ParquetWriter(io.BytesIO(), fields, **writer_options).close()
    except TypeError as exc:
        raise SchemaError(f"bad writer option: {exc}") from None


def spark_metadata(schema, partition_by):
    from pyspark.sql.types import StructType
    data = StructType([f for f in schema.fields if f.name not in partition_by])
    return data.json()


def check_partition_by(df, partition_by):
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
