"""Facts about Parquet files pqkit did not write, read from their footers (legacy layouts).

A plain Hive directory and an RFC-style single-manifest dataset have no PQDS/1
version file, so their *snapshot* (:class:`~pqkit.dataset.core.snapshot.Manifest`) is built here
from one footer read per file: row count, row groups, codec, the file's fields,
and per-file bounds for planning.

Bounds are only taken where they are certainly right for the field's type, so
pruning stays sound on files from any writer:

* the footer has ``column_orders`` with TYPE_ORDER for the column (files
  without it have no defined order for ``min_value``/``max_value``);
* no known writer bug of :mod:`pqkit.inspect.verify.writer_bugs` touches the column's
  bounds or null counts;
* the physical type is the one :mod:`pqkit.dataset.core.entry_stats` decodes for the field's type
  (decimals stored as INT32/INT64, INT96 and second-unit timestamps, fixed-size
  binary and float16 get none); float columns also need ``nan_count``.

Anything else keeps the file (an unknown bound never prunes); the reader
still prunes row groups and pages inside each file.
"""
import datetime
import os

from pqkit import datatypes as T
from pqkit.dataset.core.entry_stats import codec_name, file_statistics
from pqkit.dataset.core.snapshot import FORMAT, FORMAT_VERSION, Manifest, TableSchema, widens
from pqkit.errors import DatasetError, ParquetError, SchemaError
from pqkit.format import Type
from pqkit.inspect.verify.ordering import orderings
from pqkit.inspect.verify.writer_bugs import WriterTrust
from pqkit.read.file import ParquetFile

_UNTRUSTED = ("min_max", "nan_bounds", "null_count")
_TS_UNITS = {"ms": "MILLIS", "us": "MICROS", "ns": "NANOS"}


class FileFacts:
    """What one footer says about a data file.

    Attributes
    ----------
    fields : list of pqkit.Field
        The file's top-level columns as pqkit reads them.
    size, row_count, row_groups : int
    codec : str
        Compression of the first column chunk, lower case.
    stats : dict
        Per-column bounds in PQDS/1 form (see :mod:`.entry_stats`), trusted columns only.
    """

    __slots__ = ("fields", "size", "row_count", "row_groups", "codec", "stats")

    def __init__(self, fields, size, row_count, row_groups, codec, stats):
        self.fields = fields
        self.size = size
        self.row_count = row_count
        self.row_groups = row_groups
        self.codec = codec
        self.stats = stats

    def entry(self, key, relpath, partition=None):
        """The file entry a snapshot lists for this file."""
        return {"key": key, "path": relpath, "partition": dict(partition or {}),
                "size": self.size, "row_count": self.row_count, "row_groups": self.row_groups,
                "codec": self.codec, "stats": self.stats}


def read_facts(path, stats_limit=32, keys=None, size=None):
    """The :class:`FileFacts` of the Parquet file at ``path`` (one footer read), opened
    with the key keywords ``keys`` of :class:`pqkit.ParquetFile` when it is encrypted.
    ``path`` may be any source :class:`pqkit.ParquetFile` opens (a remote object's
    range source, say) when its ``size`` is given.

    Raises
    ------
    ParquetError
        The file is not a readable Parquet file; the message names the path.
    """
    try:
        if size is None:
            size = os.stat(path).st_size
        with ParquetFile(path, verify_checksums=False, **(keys or {})) as pf:
            md = pf.metadata
            fields = list(pf.read(row_groups=[]).schema)
            row_groups = list(md.raw.row_groups or [])
            stats = trusted_statistics(fields, md, row_groups, stats_limit)
            return FileFacts(fields, size, md.num_rows, len(row_groups),
                             codec_name(row_groups, None), stats)
    except ParquetError as exc:
        raise type(exc)(f"{path}: {exc}") from None


def trusted_statistics(fields, md, row_groups, limit=32):
    """Per-file bounds of the non-repeated leaves (struct members by dotted path)
    whose footer statistics are trustworthy."""
    trust = WriterTrust(md.created_by)
    orders = orderings(md)

    def trusted(path, t):
        try:
            node = md.schema.column(path)
        except (ParquetError, KeyError, IndexError):
            return False
        if not node.is_leaf:
            return False
        ordering = orders[node.column_index]
        if ordering.implicit or ordering.kind is None:
            return False
        if any(trust.bugs_for(node, ordering, kind) for kind in _UNTRUSTED):
            return False
        return _physical_matches(t, node, ordering)

    try:
        return file_statistics(fields, md.schema, row_groups, limit, accept=trusted)
    except (ValueError, TypeError, OverflowError):
        return {}                         # bounds the canonical text cannot hold: none


def _physical_matches(t, node, ordering):
    """Whether ``node`` stores type ``t`` the way :mod:`.entry_stats` decodes it."""
    phys = node.physical_type
    if isinstance(t, T.DictionaryType):
        t = t.value_type
    if isinstance(t, T.BooleanType):
        return phys == Type.BOOLEAN
    if isinstance(t, T.IntegerType):
        width_ok = phys == (Type.INT64 if t.bit_width == 64 else Type.INT32)
        return width_ok and t.signed == (ordering.kind == "int")
    if isinstance(t, T.FloatingType):
        return (t.bit_width, phys) in ((32, Type.FLOAT), (64, Type.DOUBLE))
    if isinstance(t, T.DecimalType):
        return phys in (Type.FIXED_LEN_BYTE_ARRAY, Type.BYTE_ARRAY) and ordering.kind == "decimal"
    if isinstance(t, T.StringType):
        return phys == Type.BYTE_ARRAY and ordering.kind == "bytes"
    if isinstance(t, T.Date32Type):
        return phys == Type.INT32
    if isinstance(t, T.TimestampType):
        lt = node.logical_type
        ts = lt.TIMESTAMP if lt is not None else None
        unit = _TS_UNITS.get(t.unit)
        return phys == Type.INT64 and ts is not None and unit is not None and \
            getattr(ts.unit, unit, None) is not None
    return False


def merge_fields(known, fields, where, *, drop=()):
    """The union of two column lists: ``known`` (with its origin) grown by ``fields``.

    Parameters
    ----------
    known : dict
        name -> (Field, where it was first seen); updated in place, insertion order kept.
    fields : list of Field
    where : str
        The file ``fields`` come from (for messages).
    drop : collection of str
        Names to leave out (partition columns: their directory value wins).

    A type may differ between files only by a widening (§3.9: int32 -> int64,
    float -> double, a larger decimal precision); a column missing from some
    file reads as null there, so the caller makes such columns nullable.
    """
    for f in fields:
        if f.name in drop:
            continue
        if isinstance(f.type, T.DictionaryType):
            f = T.Field(f.name, f.type.value_type, f.nullable, f.metadata)
        old = known.get(f.name)
        if old is None:
            known[f.name] = (f, where)
            continue
        prev, origin = old
        if prev.type == f.type:
            if f.nullable and not prev.nullable:
                known[f.name] = (T.Field(f.name, prev.type, True, prev.metadata), origin)
            continue
        if widens(prev.type, f.type):
            known[f.name] = (T.Field(f.name, f.type, True, prev.metadata), origin)
        elif not widens(f.type, prev.type):
            raise SchemaError(f"column {f.name!r} is {prev.type} in {origin} but {f.type} in "
                              f"{where}; the files of one dataset may differ only by a "
                              "widening (int32->int64, float->double, decimal precision)")


def table_schema(known, present_everywhere):
    """A TableSchema of merged fields; columns not in every file become nullable."""
    fields = []
    for name, (f, _) in known.items():
        if name not in present_everywhere and not f.nullable:
            f = T.Field(f.name, f.type, True, f.metadata)
        fields.append(f)
    try:
        schema = TableSchema(fields)
        schema.fields_json()
    except SchemaError as exc:
        raise DatasetError(f"the files' schema cannot be described: {exc}") from None
    return schema


def utc_text(value):
    """``YYYY-MM-DDTHH:MM:SS.ffffffZ`` of an ISO-8601 instant or POSIX seconds; None if neither."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        moment = datetime.datetime.fromtimestamp(value, datetime.timezone.utc)
    elif isinstance(value, str):
        try:
            moment = datetime.datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=datetime.timezone.utc)
    else:
        return None
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def build_snapshot(entries, schema, partitioning, *, committed_at_utc, operation, where,
             dataset_key=None, properties=None, metadata=None):
    """The one-version :class:`~.snapshot.Manifest` of a format without versions (version 0)."""
    data = {
        "format": FORMAT, "format_version": FORMAT_VERSION,
        "reader_features": [], "writer_features": [],
        "dataset_id": None, "dataset_key": dataset_key, "version": 0, "parent_version": None,
        "committed_at_utc": committed_at_utc,
        "operation": {**operation, "added": [e["key"] for e in entries], "removed": []},
        "app_txns": {},
        "schema": schema.to_json(), "partitioning": partitioning.to_json(),
        "properties": dict(properties or {}), "metadata": dict(metadata or {}),
        "row_count": sum(e["row_count"] for e in entries), "file_count": len(entries),
        "total_bytes": sum(e["size"] for e in entries),
        "files": entries, "indices": [],
    }
    return Manifest(data, where=where)
