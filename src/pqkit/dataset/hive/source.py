"""Plain Hive-partitioned directories (no ``_pqkit/``), read-only and listing-based.

This is the one place the dataset layer lists directories: a directory written
by Spark, Hive, pyarrow or DuckDB has no version file, so its one version (0)
is what a listing shows when it is opened::

    sales/_SUCCESS                                        (optional marker)
    sales/year=2024/country=DE/part-00000-….snappy.parquet
    sales/year=2024/country=__HIVE_DEFAULT_PARTITION__/part-00001-….parquet
    sales/year=2025/country=a%2Fb/000000_0

Rules (those of ``pyarrow.dataset.dataset(root, partitioning="hive")``):

* every regular file is a data file, except names (of the file or of any
  directory above it, below the root) starting with ``_`` or ``.``;
* a path segment ``name=value`` gives a partition value; ``%XX`` is decoded
  as bytes, then UTF-8; ``__HIVE_DEFAULT_PARTITION__`` is null; segments
  without ``=`` are ignored; every file must have the same partition columns
  in the same order (pyarrow fills a missing one with null, Spark refuses the
  directory; a mix is almost always a stray file, so it is an error here);
* a partition column is ``int64`` when every non-null value is a decimal
  integer in range (pyarrow infers ``int32`` and falls back to string past
  it; Spark uses ``bigint``, as here), else ``string``; when a
  ``_common_metadata`` file names the column (Kartothek writes one per
  table), its type is used instead and every value must parse as it;
* data columns are the union of the files' columns (types may differ only by
  a widening; a column some file lacks is null there); a data column named
  like a partition column is ignored, the directory value wins.

Opening reads every footer once (row counts, bounds for file pruning), as
``count_rows()`` would in pyarrow; reads then prune by partition values and
bounds, and pqkit prunes row groups and pages inside each file. Writing into
such a directory is refused (see :func:`pqkit.dataset.convert` to copy it
into a PQDS/1 dataset).
"""
import os

from pqkit.dataset.core import (
    Partitioning,
    SnapshotSource,
    build_snapshot,
    canonical_text,
    check_inside,
    merge_fields,
    parse_partition_dirs,
    read_facts,
    real_root,
    resolve_inside,
    table_schema,
    typed_partition_column,
    utc_text,
)
from pqkit.errors import (
    DatasetError,
    DatasetIncomplete,
    DatasetNotFound,
    ManifestCorrupted,
    ParquetError,
)
from pqkit.read.file import ParquetFile


def hidden(name):
    """Names plain readers skip: pyarrow's default ignore prefixes ``_`` and ``.``."""
    return name.startswith(("_", "."))


def list_data_files(root):
    """Sorted relative POSIX paths of the visible files under ``root`` (a listing)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not hidden(d))
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        for name in filenames:
            if not hidden(name) and os.path.isfile(os.path.join(dirpath, name)):
                out.append(name if rel == "." else f"{rel}/{name}")
    return sorted(out)


class HiveSource(SnapshotSource):
    """The files of a plain Hive directory as one version (0), from a listing.

    Parameters
    ----------
    root : path
    require_success : bool, default False
        Refuse (``DatasetIncomplete``) a directory without a ``_SUCCESS`` marker
        (empty, Spark's, Hadoop's JSON: only its existence counts).
    strict : bool, default True
        Raise on the first unreadable file or inconsistent directory; with False
        such files are left out and described in :attr:`problems` (for verify).
    stats_columns : int, default 32
        Per-file bounds for at most this many flat columns.
    file_keys : dict, optional
        Key keywords of :class:`pqkit.ParquetFile` for encrypted files (their footers
        are read here, when the directory is listed).
    """

    KIND = "plain Hive directory"

    layout_name = "hive"

    def __init__(self, root, *, require_success=False, strict=True, stats_columns=32,
                 file_keys=None):
        self.root = os.path.abspath(os.fspath(root))
        self.file_keys = dict(file_keys or {})
        self.strict = strict
        self.problems = []
        self.stats_columns = stats_columns
        if not os.path.isdir(self.root):
            raise DatasetNotFound(f"{self.root} is not a directory")
        self.success = os.path.exists(os.path.join(self.root, "_SUCCESS"))
        if require_success and not self.success:
            raise DatasetIncomplete(f"{self.root} has no _SUCCESS marker: the job writing it "
                                    "has not finished (or failed)")
        self._manifest = self._build()

    # --- building the snapshot ------------------------------------------------------------
    def _problem(self, relpath, message, exc_class=DatasetError):
        if self.strict:
            raise exc_class(f"{self.root}: {relpath}: {message}")
        self.problems.append({"key": relpath, "path": relpath, "problem": message})

    def _build(self):
        paths = list_data_files(self.root)
        if not paths and not self.success:
            raise DatasetNotFound(f"{self.root} holds no dataset: no _pqkit/ directory, no "
                                  "manifest and no visible data files")
        parts, names = self._partitions(paths)
        declared = self._declared_types()
        partitioning = Partitioning([self._column(name, [parts[p][i] for p in parts],
                                                  declared.get(name))
                                     for i, name in enumerate(names)])
        known, present, entries, newest = {}, None, [], 0.0
        base = real_root(self.root)
        for rel in parts:
            try:
                path = resolve_inside(self.root, rel, f"the listing of {self.root}", "file",
                                      reserved=False, real=base)
                facts = read_facts(path, self.stats_columns, self.file_keys)
                merge_fields(known, facts.fields, rel, drop=set(names))
            except ParquetError as exc:
                self._problem(rel, str(exc).replace(self.root + os.sep, ""), type(exc))
                continue
            cols = {f.name for f in facts.fields}
            present = cols if present is None else present & cols
            texts = {c.name: canonical_text(c, v)
                     for c, v in zip(partitioning.columns, parts[rel])}
            entries.append(facts.entry(rel, rel, texts))
            newest = max(newest, os.stat(os.path.join(self.root, *rel.split("/"))).st_mtime)
        schema = table_schema(known, present or set())
        return build_snapshot(entries, schema, partitioning,
                        committed_at_utc=utc_text(newest or os.stat(self.root).st_mtime),
                        operation={"type": "hive-listing"}, where=f"listing of {self.root}",
                        properties={"layout": "hive"})

    def _partitions(self, paths):
        """({path: [value text or None per column]}, column names); inconsistent paths left out."""
        names, first, out = None, None, {}
        for rel in paths:
            segments = parse_partition_dirs(rel)
            these = [n for n, _ in segments]
            if len(set(these)) != len(these):
                self._problem(rel, f"repeats a partition column ({these})")
                continue
            if names is None:
                names, first = these, rel
            elif these != names:
                self._problem(rel, f"has partition columns {these} but {first} has {names}; "
                                   "every file of a Hive directory needs the same ones")
                continue
            out[rel] = [v for _, v in segments]
        return out, names or []

    def _declared_types(self):
        """name -> type of the columns of ``_common_metadata`` (empty when there is none)."""
        path = os.path.join(self.root, "_common_metadata")
        if not os.path.isfile(path):
            return {}
        try:
            check_inside(self.root, path, f"the listing of {self.root}", "_common_metadata")
        except ManifestCorrupted as exc:
            self._problem("_common_metadata", str(exc), ManifestCorrupted)
            return {}
        try:
            with ParquetFile(path, verify_checksums=False) as pf:
                return {f.name: f.type for f in pf.read(row_groups=[]).schema}
        except ParquetError as exc:
            # Only a hint for typing partitions: never fatal, but verify reports it.
            self.problems.append({"key": None, "path": "_common_metadata",
                                  "problem": f"unreadable, partition types are inferred "
                                             f"instead: {exc}"})
            return {}

    def _column(self, name, values, declared):
        return typed_partition_column(name, values, declared, self.root)
