"""Where everything of a PQDS/1 dataset lives under its root (§3.2).

::

    <root>/
      _pqkit/versions/00000000000000000007.json   one full snapshot per version
      _pqkit/_latest                              {"version": 7}; a hint only
      _pqkit/tmp/<txn>-<attempt>.json             staged version files (link sources)
      _pqkit/shadow/<relative data path>.shadow   unpublished and retired data files
      _pqkit/indices/<column>/<uuid>.pqindex      inverted index segments
      _pqkit/tags/<name>.json                     named versions (kept by vacuum)
      _pqkit/publish.lock                         flock target of the publish step
      _common_metadata  _metadata  _SUCCESS       derived by publish
      year=2024/country=DE/part-00000-<txn>.parquet

Every data file has exactly two possible places: ``root/<path>`` (visible) and
``root/_pqkit/shadow/<path>.shadow`` (hidden). Paths in version files are
relative POSIX paths, so a copied root stays valid.

Nothing under ``_pqkit/`` ends in ``.parquet``: pyarrow.dataset and Spark skip
``_``-prefixed directories when they list a root, but recursive globs do not
(DuckDB and polars ``root/**/*.parquet`` descend into ``_pqkit/``), so hidden
data files carry the ``.shadow`` suffix and index segments their own. Datasets
written before that kept shadow copies under their plain path; those are still
found (:meth:`Layout.shadow_copies`) and moved to the new name when published.
"""
import os
import re
import uuid

from pqkit.dataset.storage import LocalStorage
from pqkit.errors import DatasetError

META_DIR = "_pqkit"
VERSION_DIGITS = 20
DATA_FILE_RE = re.compile(r"part-(\d{5})-([0-9a-f]{32})\.parquet")
TXN_RE = re.compile(r"[0-9a-f]{32}")
# Suffixes that keep pqkit's own Parquet files out of every engine's *.parquet glob.
SHADOW_SUFFIX = ".shadow"
INDEX_SUFFIX = ".pqindex"


def new_txn():
    """A fresh transaction id (uuid4 hex): part of every data file name it writes."""
    return uuid.uuid4().hex


def data_file_name(seq, txn):
    if not TXN_RE.fullmatch(txn or ""):
        raise DatasetError(f"transaction id {txn!r} is not 32 lowercase hex digits")
    if not 0 <= int(seq) <= 99_999:
        raise DatasetError(f"file sequence number {seq} is outside 0..99999")
    return f"part-{int(seq):05d}-{txn}.parquet"


def file_key(seq, txn):
    """The key of a data file, unique forever: ``{txn}-{seq:05d}``."""
    return f"{txn}-{int(seq):05d}"


def check_relative_path(path, where):
    """A version file's data path must stay inside the root and avoid reserved names."""
    parts = path.split("/")
    if not path or path.startswith("/") or "\\" in path or \
            any(p in ("", ".", "..") for p in parts):
        raise DatasetError(f"{where}: data path {path!r} is not a relative POSIX path "
                           "inside the dataset root")
    if parts[0] == META_DIR or any(p.startswith(("_metadata", "_common_metadata"))
                                   for p in parts):
        raise DatasetError(f"{where}: data path {path!r} uses a reserved name")
    return path


class Layout:
    """Paths of one dataset root, and the store they are on (``storage``: a local
    :class:`~pqkit.dataset.storage.LocalStorage` unless one is given)."""

    def __init__(self, root, storage=None):
        self.storage = storage if storage is not None else LocalStorage()
        self.root = os.fspath(root) if self.storage.remote else os.path.abspath(os.fspath(root))
        self.meta = os.path.join(self.root, META_DIR)
        self.versions_dir = os.path.join(self.meta, "versions")
        self.tmp_dir = os.path.join(self.meta, "tmp")
        self.shadow_dir = os.path.join(self.meta, "shadow")
        self.tags_dir = os.path.join(self.meta, "tags")
        self.indices_dir = os.path.join(self.meta, "indices")
        self.latest_hint = os.path.join(self.meta, "_latest")
        self.publish_lock = os.path.join(self.meta, "publish.lock")
        self.success = os.path.join(self.root, "_SUCCESS")
        self.common_metadata = os.path.join(self.root, "_common_metadata")
        self.summary_metadata = os.path.join(self.root, "_metadata")

    def version_path(self, version):
        return os.path.join(self.versions_dir, version_file_name(version))

    def version_relpath(self, version):
        return f"{META_DIR}/versions/{version_file_name(version)}"

    def tmp_path(self, txn, attempt):
        return os.path.join(self.tmp_dir, f"{txn}-{attempt}.json")

    def visible(self, relpath):
        return os.path.join(self.root, *relpath.split("/"))

    def shadow(self, relpath):
        """Where the hidden copy of data file ``relpath`` is written."""
        return os.path.join(self.shadow_dir, *relpath.split("/")) + SHADOW_SUFFIX

    def shadow_copies(self, relpath):
        """Both places a hidden copy may be: the current name, then the pre-suffix one."""
        legacy = os.path.join(self.shadow_dir, *relpath.split("/"))
        return (self.shadow(relpath), legacy)

    def find_shadow(self, relpath):
        """The existing hidden copy of ``relpath``, or None."""
        return next((p for p in self.shadow_copies(relpath) if os.path.exists(p)), None)

    def shadow_relpath(self, path):
        """The data path a file under ``shadow/`` is the hidden copy of."""
        rel = os.path.relpath(path, self.shadow_dir).replace(os.sep, "/")
        return rel.removesuffix(SHADOW_SUFFIX)

    def tag_path(self, name):
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}", name or ""):
            raise DatasetError(f"tag name {name!r}: use letters, digits, '.', '_' and '-'")
        return os.path.join(self.tags_dir, f"{name}.json")


def version_file_name(version):
    return f"{int(version):0{VERSION_DIGITS}d}.json"


def parse_version_file_name(name):
    """The version number of a version file name, or None for other names."""
    if len(name) == VERSION_DIGITS + 5 and name.endswith(".json") and name[:-5].isdigit():
        return int(name[:-5])
    return None
