"""Writing Kartothek v4 datasets: create, append, overwrite partitions, delete, index.

:class:`KartothekWriter` changes one table of one dataset in Kartothek's own
format (the layout of :mod:`pqkit.dataset.kartothek.metadata`), on a local
directory or an object store (:mod:`pqkit.dataset.kartothek.store_access`), so the
result opens in :class:`pqkit.dataset.kartothek.KartothekSource` (and in Kartothek).

Every operation runs in the same order, holding the one-writer lock:

1. write the new data files (one per Hive partition of the data, under a fresh
   leaf name, so no existing file is touched) and, on create, ``_common_metadata``;
2. write a new file for each secondary index (value -> labels, see
   :mod:`pqkit.dataset.kartothek.index_files`) under a fresh timestamp;
3. replace the metadata file (JSON, or zstd-compressed msgpack: the format the
   dataset already has) in one atomic step: this is the commit;
4. delete the data files of the partitions the commit dropped and the index
   files it superseded.

So a reader sees the old or the new dataset, never a half write; a crash before
step 3 leaves only unlisted files (which no reader opens), a crash in step 4
only files no metadata lists. A reader that loaded the old metadata just
before step 4 may find a dropped file gone (``DatasetIncomplete``): Kartothek
has no snapshot isolation across a delete either.

Concurrent writers: Kartothek has no conditional commit; pqkit refuses a
second pqkit writer of the same dataset with a lock file created
put-if-absent (:meth:`KartothekStore.writer_lock`). Kartothek's own writers
ignore that lock: never run both on one dataset at once.

Left out (Kartothek does them, this writer does not): datasets of several
tables (only deleting partitions works on them), ``bucket_by`` and
``sort_partitions_by``, several files per write into one partition label,
partition columns of types other than integers, strings, booleans and dates,
null or empty partition values, schema changes on append (the schema must
equal ``_common_metadata``'s), embedded (pre-v4) indices, metadata versions
other than 4, and Kartothek's garbage collection of files left by crashed
writers.
"""
import datetime
import io
import urllib.parse
import uuid as uuidlib

from pqkit import datatypes as T
from pqkit.dataset.core import (
    as_table,
    dump_json,
    new_writer,
    normalize_filters,
    plain_table,
    unescape_path_component,
)
from pqkit.dataset.kartothek.index_files import decode_index, encode_index, index_key
from pqkit.dataset.kartothek.metadata import (
    COMMON_METADATA,
    METADATA_INFIX,
    SUPPORTED_VERSION,
    load_document,
)
from pqkit.dataset.kartothek.store_access import KartothekStore
from pqkit.errors import (
    DatasetExists,
    DatasetNotFound,
    ManifestCorrupted,
    SchemaError,
    UnsupportedFeature,
    require,
)
from pqkit.read.file import ParquetFile

METADATA_FORMATS = {"json": ".json", "msgpack": ".msgpack.zstd"}
_COMPARE = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b,
            "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
            ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
            "in": lambda a, b: a in b, "not in": lambda a, b: a not in b}


def quote(value):
    """Kartothek's path text of a partition value: ``str()`` URL-quoted (all but
    ``A-Za-z0-9_.-~``)."""
    return urllib.parse.quote(str(value), safe="")


def partition_value(text, type_):
    """The typed value of a partition's path text (inverse of :func:`quote`'s ``str()``)."""
    if isinstance(type_, T.BooleanType):
        return text == "True"
    if isinstance(type_, T.IntegerType):
        return int(text)
    if isinstance(type_, T.Date32Type):
        return datetime.date.fromisoformat(text)
    return text


def _partition_type_ok(type_):
    return isinstance(type_, (T.BooleanType, T.IntegerType, T.Date32Type)) or \
        type(type_) is T.StringType


def encode_document(doc, suffix):
    """The bytes of a metadata document: JSON, or msgpack compressed with zstd."""
    if suffix == ".json":
        return dump_json(doc)
    msgpack = require("msgpack", "kartothek", "writing msgpack metadata")
    import zstandard
    return zstandard.ZstdCompressor(write_content_size=True).compress(
        msgpack.packb(doc, use_bin_type=True))


def parquet_bytes(table, fields, options=None):
    sink = io.BytesIO()
    writer = new_writer(sink, fields, dict(options or {}))
    if table is not None:
        writer.write(table)
    writer.close()
    return sink.getvalue()


def partition_keys(doc):
    """The partition columns of a metadata document: ``partition_keys``, else (a document
    that leaves it out) the ``col=`` segments of its first label."""
    stated = doc.get("partition_keys")
    if stated is not None:
        return list(stated)
    for label in doc["partitions"]:
        return [unescape_path_component(seg.split("=", 1)[0])
                for seg in label.split("/")[:-1]]
    return []


class KartothekWriter:
    """Changes to one table of one Kartothek v4 dataset (module doc for the guarantees).

    Parameters
    ----------
    store : path or str
        The store: a directory, or a URL such as ``s3://bucket/prefix``.
    uuid : str
        The dataset.
    table : str, default "table"
        The table written (Kartothek's default table name is ``table``).
    storage_options : dict, optional
        Options of the URL's fsspec file system.
    writer_options : dict, optional
        :class:`pqkit.ParquetWriter` options of the data files (e.g. ``compression``).
    """

    def __init__(self, store, uuid, table="table", *, storage_options=None,
                 writer_options=None):
        if not isinstance(uuid, str) or not uuid or "/" in uuid or uuid in (".", ".."):
            raise SchemaError(f"dataset uuid {uuid!r} must be one plain name")
        if not isinstance(table, str) or not table or "/" in table or table in (".", ".."):
            raise SchemaError(f"table name {table!r} must be one plain name")
        self.store = KartothekStore(store, storage_options)
        self.uuid = uuid
        self.table = table
        self.writer_options = dict(writer_options or {})

    # --- the current state ------------------------------------------------------------------
    def _metadata(self):
        """(document, suffix) of the dataset, or (None, None) when it does not exist."""
        found = load_document(self.store.get, self.uuid, self.store.name)
        return (None, None) if found is None else found[:2]

    def _existing(self):
        doc, suffix = self._metadata()
        if doc is None:
            raise DatasetNotFound(f"{self.store.name} holds no Kartothek dataset "
                                  f"{self.uuid!r}")
        return doc, suffix

    def _schema(self):
        """The table's fields as ``_common_metadata`` states them (partition columns
        included)."""
        key = f"{self.uuid}/{self.table}/{COMMON_METADATA}"
        data = self.store.get(key)
        if data is None:
            raise DatasetNotFound(f"{self.store.name}/{key} is missing: Kartothek keeps the "
                                  "table's schema there")
        with ParquetFile(io.BytesIO(data), verify_checksums=False) as pf:
            return list(pf.read(row_groups=[]).schema)

    def _check_one_table(self, doc):
        others = sorted({t for p in doc["partitions"].values() for t in p["files"]} -
                        {self.table})
        if others:
            raise UnsupportedFeature(f"Kartothek dataset {self.uuid!r} has tables {others} "
                                     f"besides {self.table!r}; pqkit writes single-table "
                                     "datasets only (deleting partitions works on any)")

    # --- operations -------------------------------------------------------------------------
    def create(self, data, *, partition_on=(), secondary_indices=(), metadata_format="json",
               metadata=None):
        """Create the dataset from ``data`` (a table, dict of columns, DataFrame, ...).

        Parameters
        ----------
        partition_on : list of str
            Hive partition columns (``<col>=<value>/`` directories).
        secondary_indices : list of str
            Columns to keep a ``by-dataset-index`` file for.
        metadata_format : {"json", "msgpack"}
        metadata : dict, optional
            The document's user ``metadata``.

        Raises
        ------
        DatasetExists
            The store already holds a dataset of that uuid.
        """
        if metadata_format not in METADATA_FORMATS:
            raise SchemaError(f"metadata_format {metadata_format!r}: use one of "
                              f"{sorted(METADATA_FORMATS)}")
        partition_on = [partition_on] if isinstance(partition_on, str) else list(partition_on)
        table = plain_table(as_table(data))
        fields = list(table.schema)
        self._check_partitioning(fields, partition_on)
        indices = self._checked_indices(fields, partition_on, secondary_indices)
        with self.store.writer_lock(self.uuid):
            if self._metadata()[0] is not None:
                raise DatasetExists(f"{self.store.name} already holds Kartothek dataset "
                                    f"{self.uuid!r}")
            # the table's schema: data columns, then the partition columns (as Kartothek)
            ordered = [f for f in fields if f.name not in partition_on] + \
                [f for n in partition_on for f in fields if f.name == n]
            self.store.replace(f"{self.uuid}/{self.table}/{COMMON_METADATA}",
                               parquet_bytes(None, ordered))
            doc = {"dataset_metadata_version": SUPPORTED_VERSION, "dataset_uuid": self.uuid,
                   "metadata": dict(metadata or {}), "partitions": {},
                   "partition_keys": partition_on, "indices": {}}
            added = self._write_files(table, ordered, partition_on)
            self._commit(doc, METADATA_FORMATS[metadata_format], added, (), indices, added)
        return sorted(added)

    def append(self, data):
        """Add ``data`` as new files: new partitions, and new files in existing ones.

        Returns the labels added. The data's columns and types must equal the table's.
        """
        table = plain_table(as_table(data))
        with self.store.writer_lock(self.uuid):
            doc, suffix = self._existing()
            self._check_one_table(doc)
            fields = self._matching_fields(table)
            added = self._write_files(table, fields, partition_keys(doc))
            self._commit(doc, suffix, added, (), list(doc.get("indices") or {}), added)
        return sorted(added)

    def overwrite_partitions(self, data):
        """Replace every Hive partition the data holds rows for by the data's rows (the
        other partitions stay). Returns (labels added, labels removed)."""
        table = plain_table(as_table(data))
        with self.store.writer_lock(self.uuid):
            doc, suffix = self._existing()
            self._check_one_table(doc)
            keys = partition_keys(doc)
            if not keys:
                raise SchemaError(f"Kartothek dataset {self.uuid!r} is not partitioned: "
                                  "there is no partition to overwrite")
            fields = self._matching_fields(table)
            added = self._write_files(table, fields, keys)
            touched = {self._directory(label) for label in added}
            removed = [label for label in doc["partitions"]
                       if self._directory(label) in touched]
            self._commit(doc, suffix, added, removed, list(doc.get("indices") or {}), added)
        return sorted(added), sorted(removed)

    def delete(self, predicate):
        """Delete the partitions whose partition values match ``predicate``.

        ``predicate`` is a filter in pqkit's form (``[("k", "==", 1)]``, or a list of
        such lists: OR of ANDs) naming partition columns only. Returns the labels removed.

        Raises
        ------
        SchemaError
            The predicate is empty or names a column that is not a partition column
            (never read as "delete everything").
        """
        dnf = normalize_filters(predicate)
        if dnf is None:
            raise SchemaError("delete needs a predicate on partition columns; an empty one "
                              "would delete every partition")
        with self.store.writer_lock(self.uuid):
            doc, suffix = self._existing()
            keys = partition_keys(doc)
            for conj in dnf:
                for name, _, _ in conj:
                    if name not in keys:
                        raise SchemaError(f"delete predicate names {name!r}, which is not a "
                                          f"partition column of Kartothek dataset "
                                          f"{self.uuid!r} (partition columns: {keys})")
            types = {f.name: f.type for f in self._schema()}
            removed = [label for label in doc["partitions"]
                       if self._matches(label, keys, types, dnf)]
            if removed:
                self._commit(doc, suffix, [], removed, list(doc.get("indices") or {}), {})
        return sorted(removed)

    def update_indices(self, columns):
        """Build (or rebuild from the data files) the secondary index of each of
        ``columns``; the dataset's other indices stay."""
        columns = [columns] if isinstance(columns, str) else list(columns)
        with self.store.writer_lock(self.uuid):
            doc, suffix = self._existing()
            self._check_one_table(doc)
            fields = self._schema()
            self._checked_indices(fields, partition_keys(doc), columns)
            rebuilt = {}
            for label, part in doc["partitions"].items():
                key = part["files"][self.table]
                with ParquetFile(io.BytesIO(self._read(key)), verify_checksums=False) as pf:
                    rebuilt[label] = pf.read(columns=columns)
            self._commit(doc, suffix, {}, (), columns, rebuilt, rebuild=set(columns))

    # --- steps ------------------------------------------------------------------------------
    def _read(self, key):
        data = self.store.get(key)
        if data is None:
            raise DatasetNotFound(f"{self.store.name}/{key} is listed but missing")
        return data

    @staticmethod
    def _check_partitioning(fields, partition_on):
        by_name = {f.name: f for f in fields}
        for name in partition_on:
            if name not in by_name:
                raise SchemaError(f"partition column {name!r} is not a column of the data")
            if not _partition_type_ok(by_name[name].type):
                raise SchemaError(f"partition column {name!r} is {by_name[name].type}; pqkit "
                                  "writes Kartothek partitions of integers, strings, "
                                  "booleans and dates")
        if len(set(partition_on)) != len(partition_on) or len(partition_on) == len(fields):
            raise SchemaError("the partition columns must be distinct and leave a data column")

    @staticmethod
    def _checked_indices(fields, partition_on, columns):
        types = {f.name: f.type for f in fields}
        columns = [columns] if isinstance(columns, str) else list(columns)
        for name in columns:
            if name not in types:
                raise SchemaError(f"index column {name!r} is not a column of the table")
            if isinstance(types[name], (T.ListType, T.FixedSizeListType, T.StructType,
                                        T.MapType, T.DictionaryType)):
                raise SchemaError(f"index column {name!r} is {types[name]}: an index maps "
                                  "single values")
            if name in partition_on:
                raise SchemaError(f"index column {name!r} is a partition column (Kartothek "
                                  "derives those indices from the paths)")
        return columns

    def _matching_fields(self, table):
        fields = self._schema()
        want = [(f.name, f.type) for f in fields]
        have = sorted((f.name, f.type) for f in table.schema)
        if sorted(want, key=lambda x: x[0]) != sorted(have, key=lambda x: x[0]):
            raise SchemaError(f"the data's columns {[(n, str(t)) for n, t in have]} differ "
                              f"from table {self.table!r}'s "
                              f"{[(n, str(t)) for n, t in want]}")
        return fields

    def _write_files(self, table, fields, keys):
        """Write one new file per Hive partition of ``table``; label -> its rows."""
        parts = table.select(keys).to_pydict() if keys else {}
        groups = {}
        for row in range(table.num_rows):
            values = tuple(parts[k][row] for k in keys)
            groups.setdefault(values, []).append(row)
        data_fields = [f for f in fields if f.name not in keys]
        added = {}
        for values in groups:
            for name, value in zip(keys, values):
                if value is None or value == "":
                    raise SchemaError(f"partition column {name!r} holds a null or empty "
                                      "value, which Kartothek cannot name in a path")
        for values, rows in groups.items():
            piece = table.take(rows).select([f.name for f in data_fields])
            piece = type(piece)(piece.columns, data_fields)
            label = "/".join([f"{quote(k)}={quote(v)}" for k, v in zip(keys, values)] +
                             [uuidlib.uuid4().hex])
            self.store.put_new(f"{self.uuid}/{self.table}/{label}.parquet",
                               parquet_bytes(piece, data_fields, self.writer_options))
            added[label] = piece
        return added

    @staticmethod
    def _directory(label):
        return label.rsplit("/", 1)[0] if "/" in label else ""

    @staticmethod
    def _matches(label, keys, types, dnf):
        pairs = [seg.partition("=") for seg in label.split("/")[:-1]]
        values = {}
        for name, _, text in pairs:
            name = unescape_path_component(name)
            try:
                values[name] = partition_value(unescape_path_component(text), types.get(name))
            except ValueError as exc:
                raise ManifestCorrupted(f"partition {label!r}: {name}={text} is not a "
                                        f"{types.get(name)}: {exc}") from None
        try:
            return any(all(_COMPARE[op](values[name], value) for name, op, value in conj)
                       for conj in dnf)
        except TypeError as exc:            # e.g. an int column compared with "<" to a str
            raise SchemaError(f"delete predicate {dnf!r} cannot be compared with partition "
                              f"{label!r}: {exc}") from None

    def _commit(self, doc, suffix, added, removed, index_columns, new_rows, rebuild=()):
        """Steps 2-4 of the module doc: indices, the metadata file, then the cleanup."""
        removed = set(removed)
        old_indices = dict(doc.get("indices") or {})
        partitions = {label: part for label, part in doc["partitions"].items()
                      if label not in removed}
        for label in added:
            partitions[label] = {"files": {self.table: f"{self.uuid}/{self.table}/{label}"
                                                       ".parquet"}}
        types = {f.name: f.type for f in self._schema()}
        indices = {}
        for column in index_columns:
            mapping = {}
            old = old_indices.get(column)
            if column not in rebuild and isinstance(old, str):
                mapping = {v: labels - removed
                           for v, labels in decode_index(self._read(old), column, old).items()}
            for label, rows in new_rows.items():
                for value in set(rows.select([column]).to_pydict()[column]):
                    if value is not None:
                        mapping.setdefault(value, set()).add(label)
            key = index_key(self.uuid, column, set(old_indices.values()))
            self.store.put_new(key, encode_index(column, types[column], mapping))
            indices[column] = key
        dropped = [key for label in removed
                   for key in doc["partitions"][label]["files"].values()]
        doc = dict(doc, partitions=partitions, indices={**old_indices, **indices})
        self.store.replace(self.uuid + METADATA_INFIX + suffix, encode_document(doc, suffix))
        for key in dropped:
            self.store.remove(key)
        for column in indices:
            if isinstance(old_indices.get(column), str):
                self.store.remove(old_indices[column])
