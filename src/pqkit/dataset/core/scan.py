"""Reading the files of a snapshot: where a file is, and its rows as dataset columns.

A *file source* (:class:`FileSource`) says where file entries and their bytes
come from: for PQDS/1 the version files (:mod:`pqkit.dataset.pqds.sources`); for
the formats without versions (:class:`SnapshotSource`: plain Hive directories,
RFC-0008 manifests, Kartothek tables) one snapshot built when the root is
opened. Every source provides the same three things: the latest version number,
a :class:`~pqkit.dataset.core.snapshot.Manifest` per version, and the absolute
path of a file entry, whose size on disk must equal the entry's
(``ManifestCorrupted`` if not).

Reading one file: the columns the file has are read with pqkit (the residual
predicate goes to :meth:`pqkit.ParquetFile.read` as ``filters=``, after bloom
filters rule out row groups for ``==``/``in`` terms); columns the file lacks
(added later by schema evolution) are nulls; narrower types are widened to the
dataset's; partition columns are constant columns of their typed values.
"""
import os

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.nested import nulls
from pqkit.columnar.table import Table
from pqkit.convert import column_from_values
from pqkit.dataset.core.canonical import codec_for
from pqkit.dataset.core.containment import real_root, resolve_inside
from pqkit.dataset.core.deletion_file import read_deletion_file
from pqkit.dataset.core.planning import PQKIT_OPS, term_holds
from pqkit.errors import DatasetIncomplete, ManifestCorrupted, SchemaError
from pqkit.read.file import ParquetFile


class FileSource:
    """Where a :class:`~pqkit.dataset.pqds.reader.Dataset` gets its versions, file entries
    and file bytes.

    Subclasses implement :meth:`latest`, :meth:`load` and :meth:`resolve`; a source
    for a layout without versions (a plain Hive directory, say) has one version,
    0, whose Manifest it builds from a listing. ``open_dataset(root, source=...)``
    opens any source.
    """

    root = None
    # the key keywords of pqkit.ParquetFile (footer_key=, kms_client=, ...) every data
    # file is opened with; set by open_dataset
    file_keys = {}

    def latest(self):
        """The newest version number (DatasetNotFound when there is none)."""
        raise NotImplementedError

    def load(self, version):
        """The full :class:`~pqkit.dataset.core.snapshot.Manifest` of ``version``."""
        raise NotImplementedError

    def resolve(self, entry):
        """(absolute path, size on disk) of a file entry."""
        raise NotImplementedError

    def open_file(self, path):
        """The :class:`pqkit.ParquetFile` of a resolved path."""
        return ParquetFile(path, **self.file_keys)

    def stat(self, entry):
        """(path, size) of an entry as the storage holds it now, for verification (a
        source whose :meth:`resolve` takes the size from the snapshot asks the store)."""
        return self.resolve(entry)

    def open_bytes(self, path):
        """A binary file object of a resolved path (for checksums)."""
        return open(path, "rb")

    # The fsspec file system index_file's paths are read on (None: local paths).
    index_filesystem = None

    def index_file(self, relpath):
        """The path to read an index segment or deletion file the snapshot lists at
        ``relpath`` from; ManifestCorrupted when it would lie outside the root."""
        return resolve_inside(self.root, relpath, f"the indices of {self.root}",
                              "index segment path", reserved=False)

    def deleted_rows(self, entry):
        """The positions (sorted int64) the entry's deletion file deletes, or None when it
        has none (core/deletion_file.py); read once per deletion file and source."""
        record = entry.get("deletions")
        if not record:
            return None
        cache = self.__dict__.setdefault("_deleted_rows", {})
        rows = cache.get(record["path"])
        if rows is None:
            path = self.index_file(record["path"])
            fs = self.index_filesystem
            try:
                data = path if fs is None else fs.cat_file(path)
                rows = read_deletion_file(data, record, int(entry["row_count"]),
                                          f"{self.root}: file {entry['path']}")
            except FileNotFoundError:
                raise DatasetIncomplete(f"deletion file {record['path']} of {entry['path']} "
                                        f"is missing from {self.root}: vacuumed or deleted "
                                        "outside pqkit") from None
            cache[record["path"]] = rows
        return rows

    def load_latest(self, latest=None):
        version = self.latest() if latest is None else latest
        return version, self.load(version)

    def versions(self):
        return [self.latest()]

    def load_head(self, version):
        """The version without its file list when that is cheaper to get, else None."""
        return None

    def entries(self, version, partitioning, dnf):
        """The entries ``dnf`` may select when an index can say so cheaply, else None."""
        return None


class SnapshotSource(FileSource):
    """A layout without versions: one version, 0, whose Manifest ``_manifest`` the
    subclass builds when opened. ``KIND`` names the layout in error messages."""

    KIND = "dataset"
    _manifest = None
    _real_root = None

    def latest(self):
        return 0

    def load(self, version):
        if int(version) != 0:
            raise DatasetIncomplete(f"{self.root} is a {self.KIND}: its only version is 0")
        return self._manifest

    def resolve(self, entry):
        if self._real_root is None:
            self._real_root = real_root(self.root)
        path = resolve_inside(self.root, entry["path"], f"the {self.KIND} {self.root}",
                              f"file {entry.get('key')!r}", real=self._real_root)
        try:
            return path, os.stat(path).st_size
        except FileNotFoundError:
            raise DatasetIncomplete(f"file {entry['path']} of {self.root} was listed when the "
                                    "dataset was opened but is gone now") from None


def open_entry(source, entry):
    """The resolved path of an entry after checking its size against the manifest."""
    path, size = source.resolve(entry)
    check_size(entry, size)
    return path


def check_size(entry, size):
    """ManifestCorrupted when a file's ``size`` is not the one its entry records."""
    if size != int(entry["size"]):
        raise ManifestCorrupted(f"file {entry['path']} is {size} bytes on disk but the "
                                f"manifest says {entry['size']}")


class FileReader:
    """Reads file entries of one snapshot into tables of dataset columns."""

    def __init__(self, source, schema, partitioning):
        self.source = source
        self.schema = schema
        self.partitioning = partitioning

    def read(self, entry, columns, residual):
        """(table of ``columns`` or None when no column is asked for, number of rows) of the
        rows of ``entry`` satisfying ``residual`` ([] = all)."""
        data_cols = [c for c in columns if c not in self.partitioning.by_name]
        deleted = self.source.deleted_rows(entry)
        path = open_entry(self.source, entry)
        with self.source.open_file(path) as pf:
            present = set(pf.schema.names)
            table, n = self._read_data(pf, data_cols, residual, present, deleted)
        if not columns:
            return None, n
        cols, fields = [], []
        for name in columns:
            part = self.partitioning.by_name.get(name)
            if part is not None:
                cols.append(part.column(entry["partition"].get(name), n))
                fields.append(T.Field(name, part.type))
                continue
            f = self.schema.by_name[name]
            cols.append(self._conform(table, f, n))
            fields.append(T.Field(f.name, f.type, f.nullable))
        return Table(cols, fields), n

    def _read_data(self, pf, data_cols, residual, present, deleted=None):
        """(table of the wanted columns the file has, matching row count); the rows at
        positions ``deleted`` are left out."""
        wanted = [c for c in data_cols if c in present]
        if not residual:
            return _read(pf, wanted, exclude_rows=deleted)
        if _pushable(residual, present):
            groups = self._bloom_groups(pf, residual)
            try:
                return _read(pf, wanted, row_groups=groups, filters=[list(c) for c in residual],
                             exclude_rows=deleted)
            except SchemaError:
                pass            # e.g. an uncomparable value: evaluate row by row below
        table, rows = self._mask_rows(pf, wanted, residual, deleted)
        return table.take(rows).select(wanted), len(rows)

    def _mask_rows(self, pf, wanted, residual, deleted):
        """(table of every row of ``wanted`` and the filter columns, positions of its
        rows matching ``residual`` and not ``deleted``): the filter evaluated row by row."""
        filter_cols = {t[0].split(".")[0] for conj in residual for t in conj}
        needed = [c for c in pf.schema.names if c in wanted or c in filter_cols]
        table, _ = _read(pf, needed)
        mask = row_mask(table, residual, self.schema)
        if deleted is not None:
            mask[deleted] = False
        return table, np.flatnonzero(mask)

    def matching_rows(self, entry, residual):
        """Positions (sorted int64) within the entry's file of its rows matching
        ``residual`` (a non-empty DNF) that its deletion file does not delete already:
        what a delete records. The filter's pages are decoded, nothing else."""
        deleted = self.source.deleted_rows(entry)
        path = open_entry(self.source, entry)
        with self.source.open_file(path) as pf:
            if _pushable(residual, set(pf.schema.names)):
                try:
                    return pf.matching_rows([list(c) for c in residual], exclude_rows=deleted)
                except SchemaError:
                    pass
            return self._mask_rows(pf, [], residual, deleted)[1]

    def _bloom_groups(self, pf, residual):
        """Row groups that bloom filters cannot rule out for any AND group."""
        groups = list(range(pf.num_row_groups))
        probes = []
        for conj in residual:
            terms = []
            for col, op, value in conj:
                if op in ("==", "in") and col in self.schema.by_name:
                    values = value if op == "in" else [value]
                    keys = _bloom_values(self.schema.by_name[col].type, values)
                    if keys is not None:
                        terms.append((col, keys))
            probes.append(terms)
        if not any(probes):
            return groups
        kept = []
        for g in groups:
            for terms in probes:
                if all(_any_present(pf, col, g, keys) for col, keys in terms):
                    kept.append(g)
                    break
        return kept

    def _conform(self, table, field, n):
        if field.name not in table.column_names:
            return nulls(field.type, n)
        col = table.column(field.name)
        if col.type != field.type:
            try:
                col = column_from_values(col, field.type)
            except SchemaError as exc:
                raise SchemaError(f"column {field.name!r}: {exc}") from None
        return col


def _pushable(residual, present):
    """Whether pqkit's filtered read evaluates ``residual`` on a file of ``present``
    top-level columns."""
    return all(t[1] in PQKIT_OPS and t[0].split(".")[0] in present
               for conj in residual for t in conj)


def _read(pf, columns, row_groups=None, filters=None, exclude_rows=None):
    """(table of ``columns``, its row count); with no columns the rows are still counted;
    the rows at positions ``exclude_rows`` are left out."""
    if row_groups is not None and not row_groups:
        table = pf.read(columns=columns or pf.schema.names[:1], row_groups=[])
        return table.select(columns), 0
    # only a file with a deletion file passes exclude_rows: others read as they always did
    deletions = {} if exclude_rows is None else {"exclude_rows": exclude_rows}
    if columns:
        table = pf.read(columns=columns, row_groups=row_groups, filters=filters, **deletions)
        return table, table.num_rows
    if filters is None and row_groups is None:
        return Table([], []), pf.num_rows - (0 if exclude_rows is None else len(exclude_rows))
    counted = pf.read(columns=pf.schema.names[:1], row_groups=row_groups, filters=filters,
                      **deletions)
    return Table([], []), counted.num_rows


def _bloom_values(type_, values):
    """Values as the bloom filter hashes them, or None when bloom filters do not apply."""
    codec = codec_for(type_)
    if codec.kind == "int":
        info = np.iinfo(type_.numpy_dtype)
        out = []
        for v in values:
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            if isinstance(v, bool) or not isinstance(v, int):
                return None
            if info.min <= v <= info.max:
                out.append(v)
        return out
    if codec.kind == "string" and all(isinstance(v, str) for v in values):
        return list(values)
    if codec.kind == "binary" and not isinstance(type_, T.UuidType) and \
            all(isinstance(v, (bytes, bytearray)) for v in values):
        return [bytes(v) for v in values]
    if codec.kind == "date" and isinstance(type_, T.Date32Type):
        keys = [codec.value_key(v) for v in values]
        return None if any(k is None for k in keys) else keys
    return None


def _any_present(pf, column, group, values):
    node = pf.schema.column(column)
    md = pf.metadata.row_group(group).thrift.columns[node.column_index].meta_data
    if md is None or md.bloom_filter_offset is None:
        return True
    bloom = pf.bloom_filter(column, group)
    if bloom is None:
        return True
    try:
        return any(bloom.might_contain(v, node.physical_type, node.element.type_length)
                   for v in values)
    except (ValueError, TypeError, OverflowError):
        return True


def row_mask(table, dnf, schema):
    """Exact row mask of ``dnf`` on ``table``; a column the table lacks is all nulls."""
    n = table.num_rows
    result = np.zeros(n, np.bool_)
    cache = {}
    for conj in dnf:
        mask = np.ones(n, np.bool_)
        for col, op, value in conj:
            if col not in cache:
                cache[col] = _values(table, col, n)
            values = cache[col]
            where = f"filter on column {col!r}"
            mask &= np.fromiter((term_holds(v, op, value, where) for v in values), np.bool_, n)
        result |= mask
    return result


def _values(table, path, n):
    parts = path.split(".")
    if parts[0] not in table.column_names:
        return [None] * n
    col = table.column(parts[0])
    for name in parts[1:]:
        col = col.field(name)
    return col.to_pylist()
