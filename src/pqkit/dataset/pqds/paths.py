"""Where everything of a PQDS/1 dataset lives under its root (§3.2), and its
committed versions (§3.6).

::

    <root>/
      _pqkit/versions/_00000000000000000007.json  one full snapshot per version
      _pqkit/_latest                              {"version": 7}; a hint only
      _pqkit/_publish.lock                        flock target of the publish step
      _pqkit/tmp/_<txn>-<attempt>.json            staged version files (link sources)
      _pqkit/shadow/<dirs>/_<name>.shadow         unpublished and retired data files
      _pqkit/indices/<column>/_<uuid>.pqindex     inverted index segments
      _pqkit/planning/_<version>.pqplan           planning indices (file_list.py)
      _pqkit/deletions/_<file key>-<txn>.pqdel    deletion files (core/deletion_file.py)
      _pqkit/tags/_<name>.json                    named versions (kept by vacuum)
      _common_metadata  _metadata  _SUCCESS       derived by publish
      year=2024/country=DE/part-00000-<txn>.parquet

Every data file has exactly two possible places: ``root/<path>`` (visible) and
its hidden copy under ``_pqkit/shadow/`` (``p=a/part-….parquet`` is hidden as
``_pqkit/shadow/p=a/_part-….parquet.shadow``). Paths in version files are
relative POSIX paths, so a copied root stays valid.

Two rules keep every engine away from pqkit's own files (docs/DATASET.md):

* nothing under ``_pqkit/`` ends in ``.parquet``: pyarrow.dataset and Spark skip
  ``_``-prefixed directories when they list a root, but recursive globs
  (DuckDB and polars ``root/**/*.parquet``) descend into ``_pqkit/``;
* every file name pqkit writes for itself starts with ``_`` (:data:`HIDDEN`):
  a polars directory scan lists hidden directories too and refuses files of
  mixed extensions, and its ``hidden_file_prefix=["_", "."]`` option looks at
  file names only, not at the directories above them.

Every name above is the only one pqkit reads: no released pqkit wrote any other
(docs/DATASET.md).

**Latest version** (:meth:`RootPaths.latest`). Read the ``_pqkit/_latest`` hint
``h``, check that version ``h`` exists, then check versions ``h+1, h+2, …`` until
one is missing (through the store: stats locally, HEADs on an object store): one
small read and typically two checks, never a listing. Only when the hint is missing
(a crash before the first publish) or stale beyond repair is ``_pqkit/versions/``
listed. Version files never change, so the last few loaded are cached.
"""
import os
import re
import uuid
from collections import OrderedDict

from pqkit.dataset.core import META_DIR, LocalStorage, ObjectStorage, escape_path_component
from pqkit.dataset.core.deletion_file import SUFFIX as DELETION_SUFFIX
from pqkit.dataset.pqds.version_schema import load_manifest, pointer_document
from pqkit.errors import DatasetError, DatasetIncomplete, DatasetNotFound, ManifestCorrupted
from pqkit.filesystems import is_url, url_filesystem

VERSION_DIGITS = 20
DATA_FILE_RE = re.compile(r"part-(\d{5})-([0-9a-f]{32})\.parquet")
TXN_RE = re.compile(r"[0-9a-f]{32}")
# The first character of every file name pqkit writes for itself under a root.
HIDDEN = "_"
# Suffixes that keep pqkit's own Parquet files out of every engine's *.parquet glob.
SHADOW_SUFFIX = ".shadow"
INDEX_SUFFIX = ".pqindex"
PLANNING_SUFFIX = ".pqplan"
_CACHE_SIZE = 8
_cache = OrderedDict()          # loaded version files, by their identity on the store


def hidden_name(name):
    """``name`` as pqkit names a file it keeps for itself: with the ``_`` prefix."""
    return HIDDEN + name


def data_file_name(seq, txn):
    if not TXN_RE.fullmatch(txn or ""):
        raise DatasetError(f"transaction id {txn!r} is not 32 lowercase hex digits")
    if not 0 <= int(seq) <= 99_999:
        raise DatasetError(f"file sequence number {seq} is outside 0..99999")
    return f"part-{int(seq):05d}-{txn}.parquet"


def file_key(seq, txn):
    """The key of a data file, unique forever: ``{txn}-{seq:05d}``."""
    return f"{txn}-{int(seq):05d}"


class RootPaths:
    """Paths of one dataset root, and the store they are on (``storage``: a local
    :class:`~pqkit.dataset.core.storage.LocalStorage` unless one is given)."""

    def __init__(self, root, storage=None):
        self.storage = storage if storage is not None else LocalStorage()
        self.root = os.fspath(root) if self.storage.remote else os.path.abspath(os.fspath(root))
        self.meta = os.path.join(self.root, META_DIR)
        self.versions_dir = os.path.join(self.meta, "versions")
        self.tmp_dir = os.path.join(self.meta, "tmp")
        self.shadow_dir = os.path.join(self.meta, "shadow")
        self.tags_dir = os.path.join(self.meta, "tags")
        self.indices_dir = os.path.join(self.meta, "indices")
        self.planning_dir = os.path.join(self.meta, "planning")
        self.deletions_dir = os.path.join(self.meta, "deletions")
        self.latest_hint = os.path.join(self.meta, "_latest")
        self.publish_lock = os.path.join(self.meta, hidden_name("publish.lock"))
        self.success = os.path.join(self.root, "_SUCCESS")
        self.common_metadata = os.path.join(self.root, "_common_metadata")
        self.summary_metadata = os.path.join(self.root, "_metadata")

    @classmethod
    def at(cls, root, storage_options=None):
        """The paths of ``root``: a path, or a URL (``s3://bucket/table``) on an object store."""
        if is_url(root):
            fs, path = url_filesystem(root, storage_options)
            return cls(path.rstrip("/"), ObjectStorage(fs))
        return cls(root)

    def staged(self, relpath):
        """Where a new data file ``relpath`` is written before its commit."""
        return self.storage.staged_path(self, relpath)

    def version_path(self, version):
        """Where version ``version`` is committed."""
        return os.path.join(self.versions_dir, version_file_name(version))

    def relpath(self, path):
        """``path`` below the root as a relative POSIX path."""
        return os.path.relpath(path, self.root).replace(os.sep, "/")

    def tmp_path(self, txn, attempt):
        return os.path.join(self.tmp_dir, hidden_name(f"{txn}-{attempt}.json"))

    def visible(self, relpath):
        return os.path.join(self.root, *relpath.split("/"))

    def shadow(self, relpath):
        """Where the hidden copy of data file ``relpath`` is written."""
        *dirs, name = relpath.split("/")
        return os.path.join(self.shadow_dir, *dirs, hidden_name(name) + SHADOW_SUFFIX)

    def find_shadow(self, relpath):
        """The hidden copy of ``relpath`` if it exists, else None."""
        path = self.shadow(relpath)
        return path if self.storage.exists(path) else None

    def shadow_relpath(self, path):
        """The data path a file under ``shadow/`` is the hidden copy of (a file not
        named like a hidden copy stands for its own path below ``shadow/``)."""
        rel = os.path.relpath(path, self.shadow_dir).replace(os.sep, "/")
        head, _, name = rel.rpartition("/")
        if name.startswith(HIDDEN) and name.endswith(SHADOW_SUFFIX) and \
                len(name) > len(HIDDEN) + len(SHADOW_SUFFIX):
            return (f"{head}/" if head else "") + name[len(HIDDEN):-len(SHADOW_SUFFIX)]
        return rel

    def new_segment_path(self, column):
        """The relative path of a new index segment of ``column``:
        ``_pqkit/indices/<column>/_<uuid>.pqindex``."""
        return (f"{META_DIR}/indices/{escape_path_component(column)}/"
                f"{hidden_name(uuid.uuid4().hex)}{INDEX_SUFFIX}")

    def new_deletion_path(self, key, txn):
        """The relative path of the deletion file transaction ``txn`` writes for data file
        ``key``: ``_pqkit/deletions/_<key>-<txn>.pqdel`` (unique: one per file and txn)."""
        return f"{META_DIR}/deletions/{hidden_name(f'{key}-{txn}')}{DELETION_SUFFIX}"

    def planning_path(self, version):
        """Where the planning index of ``version`` is written (file_list.py)."""
        return os.path.join(self.planning_dir,
                            hidden_name(f"{int(version):0{VERSION_DIGITS}d}{PLANNING_SUFFIX}"))

    def planning_indices(self):
        """{version: path} of the planning indices present (a listing of
        ``_pqkit/planning``)."""
        try:
            names = self.storage.listdir(self.planning_dir)
        except FileNotFoundError:
            return {}
        found = {}
        for name in names:
            stem = name.removeprefix(HIDDEN).removesuffix(PLANNING_SUFFIX)
            if name == f"{HIDDEN}{stem}{PLANNING_SUFFIX}" and stem.isdigit():
                found[int(stem)] = os.path.join(self.planning_dir, name)
        return found

    # --- the committed versions -----------------------------------------------------------
    def read_pointer(self, path):
        """The checked ``{"version": n, …}`` object of the tag, hint or marker at ``path``
        (OSError when it is missing, ManifestCorrupted when it is not such an object)."""
        return pointer_document(self.storage.read(path), path)

    def hint(self):
        """The version in ``_pqkit/_latest``, or None when it is missing or unreadable."""
        try:
            return self.read_pointer(self.latest_hint)["version"]
        except (OSError, ManifestCorrupted):
            return None

    def _probe(self, version):
        """The newest version after ``version`` (which exists) that follows it without a
        gap."""
        while self.storage.exists(self.version_path(version + 1)):
            version += 1
        return version

    def versions(self):
        """Every version number present in ``_pqkit/versions`` (a listing)."""
        try:
            names = self.storage.listdir(self.versions_dir)
        except FileNotFoundError:
            names = []
        return sorted({v for v in map(parse_version_file_name, names) if v is not None})

    def latest(self, start=None):
        """The newest committed version number; DatasetNotFound when there is none.

        ``start`` is a version known to exist (a writer's base); otherwise the hint is
        used.
        """
        if start is not None and start >= 0:
            return self._probe(start)
        hint = self.hint()
        if hint is not None and self.storage.exists(self.version_path(hint)):
            return self._probe(hint)
        # Without a usable hint, counting up from 0 could stop at a gap that vacuum left
        # (a tagged version 0 kept, later ones removed), so list the versions instead.
        found = self.versions()
        if not found:
            raise DatasetNotFound(f"{self.root} holds no PQDS/1 dataset (no version files "
                                  f"in {self.versions_dir})")
        return self._probe(found[-1])

    def load(self, version):
        """The validated Manifest of ``version`` (cached: version files never change)."""
        path = self.version_path(version)
        try:
            key = self.storage.identity(path)
            hit = _cache.get(key)
            if hit is not None:
                _cache.move_to_end(key)
                return hit
            raw = self.storage.read(path)
        except FileNotFoundError:
            raise DatasetIncomplete(f"version {version} of {self.root} does not exist (never "
                                    "committed, or removed by vacuum)") from None
        manifest = load_manifest(raw, path, expected_version=version)
        _cache[key] = manifest
        if len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
        return manifest

    def load_latest(self, *, for_writing=False):
        """(version, Manifest) of the newest readable version.

        A torn newest version file (possible only where hard links are unsupported)
        reads as "commit in progress": readers use the version before it, writers stop
        with ManifestCorrupted until ``repair`` removes it. A complete document with bad
        fields is no torn write: it raises ManifestCorrupted for readers too.
        """
        return self.load_readable(self.latest(), for_writing=for_writing)

    def load_readable(self, latest, *, for_writing=False):
        """(version, Manifest) of ``latest``, or of the version before a torn ``latest``."""
        try:
            return latest, self.load(latest)
        except ManifestCorrupted as exc:
            if for_writing or latest == 0 or not getattr(exc, "unparsable", False):
                raise
            return latest - 1, self.load(latest - 1)

    def tag_path(self, name):
        """Where tag ``name`` is kept."""
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}", name or ""):
            raise DatasetError(f"tag name {name!r}: use letters, digits, '.', '_' and '-'")
        return os.path.join(self.tags_dir, hidden_name(f"{name}.json"))


def version_file_name(version):
    """``_00000000000000000007.json``."""
    return hidden_name(f"{int(version):0{VERSION_DIGITS}d}.json")


def parse_version_file_name(name):
    """The version number of a version file name, or None for other names."""
    stem = name.removeprefix(HIDDEN).removesuffix(".json")
    if name == f"{HIDDEN}{stem}.json" and len(stem) == VERSION_DIGITS and stem.isdigit():
        return int(stem)
    return None
