"""Offsets of a Structured Streaming read of a PQDS/1 dataset, planned without Spark.

A dataset is an ordered log of committed versions; the stream reads the data files
that versions add. An offset is a JSON object ``{"version": v, "index": i,
"snapshot": s}`` naming a position in that log:

- ``snapshot`` false: every file added by versions below ``v`` is read, and the first
  ``i`` files that version ``v`` added (in the order its operation lists them);
- ``snapshot`` true: the first ``i`` files of version ``v``'s snapshot (all its live
  files, in manifest order) are read; once all are, the position is ``(v + 1, 0,
  false)``, from where the versions after the snapshot follow;
- ``version`` -1: the query's initial offset, before anything is read. Where the
  stream starts (the latest snapshot, a given version, or the versions committed
  after the start) is decided by the first micro-batch and written into its end
  offset, so a restart before that batch commits replans it identically (Spark
  asks the source for its initial offset again then).

A position inside a version (``index`` > 0) exists only when admission control
(``maxFilesPerTrigger``, ``maxBytesPerTrigger``) cuts a micro-batch there. A batch
never spans the snapshot and the versions after it, so its files follow from its
two offsets alone.

Versions are classified by their operation: ``create``/``append`` add rows (read);
``index`` and ``compact`` change no row (skipped); anything that removes or
rewrites files (``delete``, ``update``, ``overwrite``, ``replace_partitions``,
``restore``) cannot be expressed as appended rows, so the query fails at that
version unless ``skipChangeCommits`` skips such versions whole. A version whose
schema differs from the stream's fails the query too (restart it to read the new
schema).
"""
from dataclasses import dataclass

import pqkit.dataset as pds
from pqkit.errors import DatasetError, DatasetIncomplete, SchemaError

__all__ = ["Offset", "StreamLog", "StreamPlanner", "STARTING_LATEST", "DatasetChanged"]

STARTING_LATEST = "latest"
_READ = ("create", "append")
_NO_ROW_CHANGE = ("index", "compact")


class DatasetChanged(DatasetError):
    """A version the stream reached deletes or rewrites rows (not an append)."""


@dataclass(frozen=True)
class Offset:
    """A position in the version log (see the module doc)."""
    version: int
    index: int = 0
    snapshot: bool = False

    @classmethod
    def from_json(cls, data):
        try:
            return cls(int(data["version"]), int(data.get("index", 0)),
                       bool(data.get("snapshot", False)))
        except (TypeError, KeyError, ValueError):
            raise DatasetError(f"not a pqkit stream offset: {data!r} (was the checkpoint "
                               "written by another source?)") from None

    def to_json(self):
        return {"version": self.version, "index": self.index, "snapshot": self.snapshot}

    @property
    def initial(self):
        return self.version < 0


@dataclass(frozen=True)
class Change:
    """What the stream makes of one version: the files it reads from it (in order)."""
    version: int
    files: tuple          # pqkit.dataset.DataFile
    kind: str             # "read", "skip" or "change"


class StreamLog:
    """The versions of one dataset as the stream sees them; versions never change, so
    each is opened once (and forgotten once the stream is past it)."""

    def __init__(self, root, storage_options=None):
        self.root = root
        self.storage_options = storage_options
        self._changes = {}
        self._snapshots = {}

    def latest(self):
        return pds.latest_version(self.root, storage_options=self.storage_options)

    def open(self, version):
        try:
            return pds.open(self.root, version=version, storage_options=self.storage_options)
        except DatasetIncomplete as exc:
            raise DatasetIncomplete(f"the stream needs version {version} of {self.root}, "
                                    f"which is gone ({exc}); restart the query with option "
                                    "startingVersion set to a retained version") from None

    def change(self, version):
        if version not in self._changes:
            ds = self.open(version)
            op = ds.operation
            kind = op.get("type")
            if kind in _NO_ROW_CHANGE:
                files, what = (), "skip"
            elif kind in _READ and not op.get("removed"):
                by_key = {f.key: f for f in ds.files()}
                files, what = tuple(by_key[k] for k in op.get("added", ())), "read"
            else:
                files, what = (), "change"
            self._changes[version] = (Change(version, files, what), _schema_of(ds))
        return self._changes[version]

    def snapshot(self, version):
        if version not in self._snapshots:
            ds = self.open(version)
            self._snapshots[version] = (tuple(ds.files()), _schema_of(ds))
        return self._snapshots[version]

    def forget_before(self, version):
        """Drop what is cached for versions below ``version`` (the stream is past them)."""
        for cache in (self._changes, self._snapshots):
            for v in [v for v in cache if v < version]:
                del cache[v]


def _schema_of(ds):
    """(data fields, partition columns) of a dataset version, as compared between versions."""
    return (tuple((f.name, f.type) for f in ds.table_schema.fields),
            tuple((c.name, c.type) for c in ds.partitioning.columns))


def describe_schema(schema):
    fields, parts = schema
    text = ", ".join(f"{n} {t}" for n, t in fields)
    return text + (f" (partitioned by {', '.join(n for n, _ in parts)})" if parts else "")


class StreamPlanner:
    """Offsets and the files between two offsets, for one query's options.

    Parameters
    ----------
    log : StreamLog
    schema : tuple
        The stream's schema, as ``_schema_of`` gives it: every version read must have
        the same columns and types (a version may lack trailing columns added later).
    starting_version : int, "latest" or None
        None: the latest version's snapshot, then every later version.
    skip_change_commits : bool
    """

    def __init__(self, log, schema, starting_version=None, skip_change_commits=False):
        self.log = log
        self.schema = schema
        self.starting_version = starting_version
        self.skip_change_commits = skip_change_commits
        self.ceiling = None          # Trigger.AvailableNow: the last version to read

    # --- offsets ---------------------------------------------------------------------------
    def initial(self):
        if isinstance(self.starting_version, int):
            return Offset(self.starting_version)
        return Offset(-1, 0, self.starting_version is None)

    def latest(self, start, max_files=None, max_bytes=None):
        """The end offset of the next micro-batch from ``start``: every pending file, or as
        many as the limits admit (always at least one)."""
        top = self.log.latest() if self.ceiling is None else self.ceiling
        if start.initial:
            if not start.snapshot:                       # startingVersion=latest
                return Offset(top + 1)
            start = Offset(top, 0, True)
        end, files, size = start, 0, 0
        try:
            for position, f in self._pending(start, top):
                if files and ((max_files is not None and files + 1 > max_files) or
                              (max_bytes is not None and size + f.size > max_bytes)):
                    return end
                end, files, size = position, files + 1, size + f.size
        except (DatasetChanged, SchemaError):
            if files:
                return end           # deliver what comes before; the next batch fails
            raise
        if start.snapshot:
            return Offset(start.version + 1)
        return Offset(top + 1) if top + 1 > start.version else start

    def files(self, start, end):
        """The (version, DataFile) pairs a micro-batch from ``start`` to ``end`` reads."""
        if start.initial:
            if not start.snapshot:
                return []
            start = Offset(end.version if end.snapshot else end.version - 1, 0, True)
        top = end.version if end.index else end.version - 1
        out = []
        for position, f in self._pending(start, top):
            if (position.version, position.index) > (end.version, end.index):
                break
            out.append((f.version, f.file))
        return out

    def _pending(self, start, top):
        """(position after the file, _Pending) for each file from ``start`` on, up to
        version ``top``; a snapshot start yields its snapshot only."""
        if start.snapshot:
            files, schema = self.log.snapshot(start.version)
            self._check_schema(start.version, schema)
            for i in range(start.index, len(files)):
                after = Offset(start.version, i + 1, True) if i + 1 < len(files) else \
                    Offset(start.version + 1)
                yield after, _Pending(start.version, files[i])
            return
        for v in range(start.version, top + 1):
            change, schema = self.log.change(v)
            if change.kind == "change":
                if not self.skip_change_commits:
                    raise DatasetChanged(
                        f"version {v} of the dataset {self.log.root} removes or rewrites data "
                        f"files (operation {self.log.open(v).operation.get('type')!r}), which "
                        "a stream of appended rows cannot express; set option "
                        "skipChangeCommits=true to skip such versions")
                continue
            if change.kind == "read":
                self._check_schema(v, schema)
            first = start.index if v == start.version else 0
            n = len(change.files)
            for i in range(first, n):
                after = Offset(v, i + 1) if i + 1 < n else Offset(v + 1)
                yield after, _Pending(v, change.files[i])

    def _check_schema(self, version, schema):
        fields, parts = schema
        ref_fields, ref_parts = self.schema
        if parts == ref_parts and fields == ref_fields[:len(fields)]:
            return
        raise SchemaError(
            f"the schema of the dataset {self.log.root} changed at version {version}: the "
            f"stream reads {describe_schema(self.schema)}, version {version} has "
            f"{describe_schema(schema)}; restart the query to read the new schema (option "
            "startingVersion skips the versions before the change)")


@dataclass(frozen=True)
class _Pending:
    version: int
    file: object

    @property
    def size(self):
        return self.file.size
