"""A snapshot opened at a version, and reading it (§3.8, §3.10).

:class:`Dataset` reads the snapshot of any :class:`~pqkit.dataset.core.scan.FileSource`
(every format is read as a PQDS/1 snapshot): planning by partitions, per-file
bounds and inverted indices, then the files. :func:`open_snapshot` pins a source
to a version (by number, ``as_of`` or tag); :func:`open_pqds` opens a PQDS/1 root,
for the operations of this package, which never read another format.
"""
import bisect
import datetime
import hashlib
from dataclasses import dataclass

from pqkit import datatypes as T
from pqkit.columnar.nested import nulls
from pqkit.columnar.table import Table, concat_tables
from pqkit.dataset.core import (
    ColumnMapping,
    FileReader,
    Planner,
    check_size,
    live_rows,
    normalize_filters,
    parse_utc,
    rename_dnf,
)
from pqkit.dataset.pqds.index_segments import IndexPruner, manifest_indices
from pqkit.dataset.pqds.publishing import publish as run_publish
from pqkit.dataset.pqds.sources import ManifestSource, ObjectManifestSource
from pqkit.errors import (
    ArgumentError,
    DatasetError,
    DatasetIncomplete,
    ManifestCorrupted,
    ParquetError,
)
from pqkit.filesystems import is_url


def _version_number(version):
    """``version`` as an int; ArgumentError for anything that is not a version number."""
    try:
        if isinstance(version, (bool, float)):
            raise ValueError
        return int(version)
    except (TypeError, ValueError):
        raise ArgumentError(f"version must be a version number (an int), got {version!r}; "
                            f"tags go in tag=, instants in as_of=") from None


class DataFile:
    """One data file of a version, as planning returns it.

    Attributes
    ----------
    key, path : str
        The file key and the relative path (as on disk, visible or under shadow).
    partition : dict
        Partition column -> canonical text (None for null).
    partition_values : dict
        Partition column -> typed Python value.
    size, row_count, row_groups : int
    stats : dict
        Per-column bounds (canonical text), ``nulls``, ``nans``.
    filters : list or None
        The residual DNF the file's rows must still satisfy (None: every row
        matches; planning already applied the partition terms and the bounds).
    entry : dict
        The file entry as the version file stores it.
    """

    __slots__ = ("key", "path", "partition", "partition_values", "size", "row_count",
                 "row_groups", "stats", "filters", "entry", "_source", "_location")

    def __init__(self, entry, partition_values, filters, source):
        self.entry = entry
        self.key = entry["key"]
        self.path = entry["path"]
        self.partition = dict(entry.get("partition") or {})
        self.partition_values = partition_values
        self.size = int(entry["size"])
        self.row_count = int(entry["row_count"])
        self.row_groups = int(entry.get("row_groups", 0))
        self.stats = entry.get("stats") or {}
        self.filters = filters or None
        self._source = source
        self._location = None

    @property
    def location(self):
        """Absolute path of the file now (visible, else its shadow copy); resolved on use."""
        if self._location is None:
            self._location = self._source.resolve(self.entry)[0]
        return self._location

    def __repr__(self):
        return f"<pqkit.dataset.DataFile {self.path} rows={self.row_count} size={self.size}>"


@dataclass
class VerifyReport:
    """Result of :meth:`Dataset.verify`: ``ok`` and one problem dict per bad file."""
    version: int
    level: str
    files_checked: int
    problems: list

    @property
    def ok(self):
        return not self.problems

    def to_dict(self):
        return {"version": self.version, "level": self.level,
                "files_checked": self.files_checked, "ok": self.ok, "problems": self.problems}


_LEVELS = ("exists", "size", "footer", "sha256")


class Dataset:
    """One version of a PQDS/1 dataset. Use :func:`pqkit.dataset.open`.

    Attributes
    ----------
    version : int
    schema : list of pqkit.Field
        Data columns, then partition columns.
    partition_by : list of str
    row_count, file_count : int
    manifest : Manifest
    """

    def __init__(self, source, manifest):
        self.source = source
        self.head = manifest                   # may lack the file list (planning index)
        self._manifest = manifest if manifest.files is not None else None
        self.version = manifest.version
        self.partitioning = manifest.partitioning
        self.table_schema = manifest.schema
        # Files, per-file statistics and the planner see physical column names
        # (core/column_mapping.py); the API sees the version's names.
        self.column_mapping = ColumnMapping.of(manifest.data, manifest.where)
        self.physical_names = self.column_mapping.names(manifest.schema)
        self.physical_schema = self.column_mapping.physical_schema(manifest.schema)
        self._reader = FileReader(source, self.physical_schema, manifest.partitioning)

    @property
    def manifest(self):
        """The full version file (loaded on first use when opened through the planning index)."""
        if self._manifest is None:
            self._manifest = self.source.load(self.version)
        return self._manifest

    def __repr__(self):
        return (f"<pqkit.dataset.Dataset {self.root} version={self.version} "
                f"files={self.file_count} rows={self.row_count}>")

    # --- facts from the manifest alone ---------------------------------------------------
    @property
    def root(self):
        return self.source.root

    @property
    def schema(self):
        return [T.Field(f.name, f.type, f.nullable, f.metadata) for f in self.table_schema.fields] \
            + [T.Field(c.name, c.type) for c in self.partitioning.columns]

    @property
    def column_names(self):
        return [f.name for f in self.schema]

    @property
    def partition_by(self):
        return self.partitioning.names

    @property
    def row_count(self):
        return self.head.row_count

    @property
    def file_count(self):
        return self.head.file_count

    @property
    def committed_at_utc(self):
        return self.head.committed_at_utc

    @property
    def operation(self):
        op = self.head.operation
        return dict(op if "added" in op else self.manifest.operation)

    @property
    def properties(self):
        return self.head.properties

    def versions(self):
        """Every retained version: dicts of version, committed_at_utc, operation, run_id,
        row_count, file_count (lists ``_pqkit/versions``; reads each version file)."""
        out = []
        for v in self.source.versions():
            try:
                m = self.source.load(v)
            except (DatasetIncomplete, ManifestCorrupted):
                continue
            op = m.operation
            out.append({"version": v, "committed_at_utc": m.committed_at_utc,
                        "operation": op.get("type"), "run_id": op.get("run_id"),
                        "row_count": m.row_count, "file_count": m.file_count})
        return out

    # --- planning ------------------------------------------------------------------------
    @property
    def indices(self):
        """The inverted indices of this version (§3.4): dicts of ``column``, ``kind`` and
        ``segments`` (each a ``path`` and the file keys it ``covers``)."""
        return manifest_indices(self.head)

    def _plan(self, filters):
        """(entry, residual DNF in physical names) of each file that may hold a match."""
        dnf = normalize_filters(filters)
        # checks the names
        planner = Planner(self.table_schema, self.partitioning, dnf, self.head.where)
        if self.column_mapping.enabled:
            planner = Planner(self.physical_schema, self.partitioning,
                              rename_dnf(dnf, self.physical_names), self.head.where)
        pruner = IndexPruner(self.source.index_file, self.indices, dnf,
                             self.source.index_filesystem)
        entries = None
        if self._manifest is None:
            entries = self.source.entries(self.version, self.partitioning, dnf)
        for entry in entries if entries is not None else self.manifest.files:
            residual = planner.residual(entry)
            if residual is not None and pruner.keeps(entry["key"]):
                yield entry, residual

    def plan(self, filters):
        """(file entry, residual DNF in this version's column names) of each file that may
        hold a row matching ``filters`` (the residual is [] when every row matches)."""
        back = {p: n for n, p in self.physical_names.items()}
        for entry, residual in self._plan(filters):
            yield entry, rename_dnf(residual, back) if self.column_mapping.enabled else residual

    def files(self, filters=None):
        """The data files that may hold rows matching ``filters`` (from the manifest only).

        Parameters
        ----------
        filters : DNF list, optional
            See :mod:`pqkit.dataset.core.planning`; partition terms are exact, data terms use
            per-file bounds.

        Returns
        -------
        list of DataFile
        """
        out = []
        for entry, residual in self._plan(filters):
            part = entry.get("partition") or {}
            values = {c.name: c.value(part.get(c.name)) for c in self.partitioning.columns}
            out.append(DataFile(entry, values, residual, self.source))
        return out

    def _columns(self, columns):
        names = self.column_names
        if columns is None:
            return names
        if isinstance(columns, str):
            raise ArgumentError(f"columns must be a list of names, not a string: {columns!r}")
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise DatasetError(f"no column {unknown[0]!r} in the dataset; columns are {names}")
        return list(columns)

    def read(self, columns=None, filters=None):
        """Read the rows matching ``filters`` into one :class:`pqkit.Table`.

        Partition columns come back with their types (after the data columns by
        default). Files are pruned by partition values and per-file bounds; inside
        each file pqkit prunes row groups (statistics, bloom filters) and pages
        (page index) before evaluating the filter exactly.
        """
        columns = self._columns(columns)
        tables = []
        for entry, residual in self._plan(filters):
            table = self.read_entry(entry, columns, residual)
            if table is not None and table.num_rows:
                tables.append(table)
        if not tables:
            return self._empty(columns)
        return concat_tables(tables) if len(tables) > 1 else tables[0]

    def read_entry(self, entry, columns, residual=()):
        """The rows of one file entry satisfying ``residual`` (a DNF in physical names, as
        planning gives it), as a Table of ``columns`` (named as in this version)."""
        physical = [self.physical_names.get(c, c) for c in columns]
        table, _ = self._reader.read(entry, physical, list(residual))
        if table is None or physical == list(columns):
            return table
        return table.rename_columns(list(columns))

    def matching_rows(self, entry, residual):
        """Positions within one file entry's data file of its rows satisfying ``residual``
        (a non-empty DNF in this version's names) that no deletion file deletes yet."""
        physical = rename_dnf(list(residual), self.physical_names) \
            if self.column_mapping.enabled else list(residual)
        return self._reader.matching_rows(entry, physical)

    def to_pandas(self, columns=None, filters=None):
        return self.read(columns, filters).to_pandas()

    def _empty(self, columns):
        by_name = {f.name: f for f in self.schema}
        fields = [by_name[c] for c in columns]
        return Table([nulls(f.type, 0) for f in fields],
                     [T.Field(f.name, f.type, f.nullable) for f in fields])

    def count(self, filters=None):
        """Number of rows matching ``filters``.

        With no filter, or partition terms only, this is a sum over the manifest's
        ``row_count``s: no data file is opened.
        """
        if normalize_filters(filters) is None:
            return self.row_count
        total = 0
        for entry, residual in self._plan(filters):
            if not residual:
                total += live_rows(entry)
            else:
                total += self._reader.read(entry, [], residual)[1]
        return total

    # --- verification --------------------------------------------------------------------
    def verify(self, level="size"):
        """Check every file of this version (an explicit O(files) pass).

        Parameters
        ----------
        level : {"exists", "size", "footer", "sha256"}
            Each level includes the ones before it: the file resolves (and its deletion
            file, if any, reads and agrees with the entry); its size equals
            the manifest's; its footer parses and holds the manifest's row count; its
            sha256 equals the one recorded at write time.

        Returns
        -------
        VerifyReport
        """
        if level not in _LEVELS:
            raise DatasetError(f"verify level {level!r}: use one of {', '.join(_LEVELS)}")
        depth = _LEVELS.index(level)
        problems = []
        for entry in self.manifest.files:
            problem = self._check_file(entry, depth)
            if problem:
                problems.append({"key": entry["key"], "path": entry["path"], "problem": problem})
        return VerifyReport(self.version, level, len(self.manifest.files), problems)

    def _check_file(self, entry, depth):
        try:
            path, size = self.source.stat(entry)
            if entry.get("deletions"):
                self.source.deleted_rows(entry)      # present, and agrees with the entry
            if depth >= 1:
                check_size(entry, size)
            if depth >= 2:
                with self.source.open_file(path) as pf:
                    rows = pf.metadata.num_rows
                if rows != int(entry["row_count"]):
                    return f"footer holds {rows} rows, the manifest says {entry['row_count']}"
            if depth >= 3 and entry.get("sha256"):
                h = hashlib.sha256()
                with self.source.open_bytes(path) as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        h.update(block)
                if h.hexdigest() != entry["sha256"]:
                    return "sha256 differs from the one recorded at write time"
        except ParquetError as exc:
            return str(exc)
        return None


# --- opening ---------------------------------------------------------------------------------
def open_snapshot(source, version=None, as_of=None, tag=None, *, publish=False):
    """The :class:`Dataset` of ``source`` at its latest version, or at ``version``,
    ``as_of`` or ``tag`` (see :func:`pqkit.dataset.open`, which picks the source)."""
    if sum(x is not None for x in (version, as_of, tag)) > 1:
        raise DatasetError("give at most one of version, as_of and tag")
    if (publish or tag is not None) and \
            not isinstance(source, (ManifestSource, ObjectManifestSource)):
        raise DatasetError("publish and tags exist only for PQDS/1 datasets")
    if publish:
        run_publish(source.paths)
    if version is not None:
        source.latest()                       # DatasetNotFound for an empty root
        version = _version_number(version)
        return Dataset(source, source.load_head(version) or source.load(version))
    if tag is not None:
        return Dataset(source, source.load(_read_tag(source.paths, tag, source.root)))
    if as_of is not None:
        return Dataset(source, _as_of(source, as_of))
    latest = source.latest()
    head = source.load_head(latest)
    if head is not None:
        return Dataset(source, head)
    _, manifest = source.load_latest(latest)
    return Dataset(source, manifest)


def open_pqds(root, version=None, *, storage_options=None):
    """The :class:`Dataset` of the PQDS/1 dataset at ``root`` (a path, or a URL read
    with ``storage_options``), at its latest version or at ``version``."""
    source = ObjectManifestSource(root, storage_options) if is_url(root) \
        else ManifestSource(root)
    return open_snapshot(source, version)


def _as_of(source, as_of):
    if isinstance(as_of, str):
        try:
            as_of = datetime.datetime.fromisoformat(as_of.replace("Z", "+00:00"))
        except ValueError:
            raise DatasetError(f"as_of {as_of!r} is not an ISO-8601 instant") from None
    if not isinstance(as_of, datetime.datetime):
        raise DatasetError(f"as_of must be a datetime or ISO-8601 string, not {as_of!r}")
    if as_of.tzinfo is None:
        as_of = as_of.replace(tzinfo=datetime.timezone.utc)
    versions = source.versions()
    times = _LazyTimes(source, versions)
    i = bisect.bisect_right(times, as_of)
    if i == 0:
        raise DatasetIncomplete(f"no retained version of {source.root} was committed at or "
                                f"before {as_of.isoformat()}")
    return source.load(versions[i - 1])


def _read_tag(paths, name, root):
    """The version tag ``name`` pins."""
    try:
        return paths.read_pointer(paths.tag_path(name))["version"]
    except FileNotFoundError:
        raise DatasetError(f"no tag {name!r} in {root}") from None


class _LazyTimes:
    """Commit times of the retained versions, loaded as the binary search touches them."""

    def __init__(self, source, versions):
        self.source = source
        self.versions = versions

    def __len__(self):
        return len(self.versions)

    def __getitem__(self, i):
        manifest = self.source.load(self.versions[i])
        if manifest.committed_at_utc is None:
            raise DatasetError(f"version {self.versions[i]} of {self.source.root} records no "
                               "commit time, so as_of cannot place it")
        return parse_utc(manifest.committed_at_utc)
