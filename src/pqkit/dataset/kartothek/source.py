"""Kartothek v4 datasets, read-only: one table of one dataset as one version (0).

The metadata file (:mod:`pqkit.dataset.kartothek.metadata`) is the source of truth: exactly the
files its partitions list for the chosen table are read, a file in the
table's directory that no partition lists is not, and a listed file that is
missing raises ``DatasetIncomplete`` when the dataset is opened. Opening
reads each listed file's footer once (row counts and bounds for pruning), as
for plain Hive directories.

* **Partition columns** come from the ``col=value`` segments of each file's
  key (URL-quoted), typed by the table's ``_common_metadata``, which Kartothek
  writes with the partition columns included; a column it does not name is
  inferred (int64 when every value is an integer, else string).
* **File keys** are the partition labels, so several tables of one dataset
  share them.
* **Inverted indices**: each entry of ``indices`` becomes an index over every
  listed file, read in place (columns ``<col>`` and ``partition``: the labels
  holding each value), so ``==``/``in`` filters on an indexed column open only
  the partitions the index names. (An index embedded as a map, a pre-v4
  form, is not used: it never prunes.)

Opened as :func:`pqkit.dataset.open_kartothek`, or by :func:`pqkit.dataset.open`
on the store (one dataset), on ``<store>/<uuid>`` or on ``<store>/<uuid>/<table>``.
"""
import os

from pqkit import datatypes as T
from pqkit.dataset.core import (
    Partitioning,
    SnapshotSource,
    build_snapshot,
    canonical_text,
    check_inside,
    check_relative_path,
    merge_fields,
    read_facts,
    real_root,
    resolve_inside,
    table_schema,
    typed_partition_column,
    unescape_path_component,
    utc_text,
)
from pqkit.dataset.kartothek.metadata import (
    COMMON_METADATA,
    INDEX_SUFFIX,
    choose_table,
    choose_uuid,
    read_document,
)
from pqkit.errors import DatasetIncomplete, ManifestCorrupted, ParquetError
from pqkit.read.file import ParquetFile

KEYS_COLUMN = "partition"


class KartothekFile:
    """One listed file of the chosen table: its label, path below the table and partition."""

    __slots__ = ("label", "pairs", "relpath")

    def __init__(self, label, relpath, pairs):
        self.label = label
        self.relpath = relpath
        self.pairs = pairs                    # [(column, decoded value text)]


def listed_files(doc, uuid, table, where):
    """The :class:`KartothekFile` of every partition that has a file of ``table``."""
    prefix = f"{uuid}/{table}/"
    out = []
    for label, part in doc["partitions"].items():
        key = part["files"].get(table)
        if key is None:
            continue
        if not key.startswith(prefix) or not key.endswith(".parquet"):
            raise ManifestCorrupted(f"{where}: partition {label!r}: file {key!r} does not lie "
                                    f"under {prefix} as a .parquet file")
        rel = check_relative_path(key[len(prefix):], where, f"partition {label!r}: file")
        pairs = []
        for segment in rel.split("/")[:-1]:
            name, eq, value = segment.partition("=")
            if not eq:
                raise ManifestCorrupted(f"{where}: file {key!r}: directory {segment!r} is not "
                                        "col=value")
            pairs.append((unescape_path_component(name), unescape_path_component(value)))
        out.append(KartothekFile(label, rel, pairs))
    names = [[n for n, _ in f.pairs] for f in out]
    if any(n != names[0] for n in names):
        raise ManifestCorrupted(f"{where}: the files of table {table!r} do not all have the "
                                "same partition columns")
    return out


def declared_types(path):
    """name -> type of the columns of a ``_common_metadata`` file (schema only)."""
    try:
        with ParquetFile(path, verify_checksums=False) as pf:
            return {f.name: f.type for f in pf.read(row_groups=[]).schema}
    except FileNotFoundError:
        raise DatasetIncomplete(f"{path} is missing: Kartothek keeps each table's schema "
                                "there") from None
    except ParquetError as exc:
        raise ManifestCorrupted(f"{path}: {exc}") from None


def kartothek_value(text, declared):
    """A Kartothek path value (Python's ``str()`` of the value) in Hive's spelling."""
    if isinstance(declared, T.BooleanType) and text in ("True", "False"):
        return text.lower()
    return text


class KartothekSource(SnapshotSource):
    """One table of a Kartothek v4 dataset as a read-only version 0.

    Parameters
    ----------
    store : path
        The directory holding ``<uuid>.by-dataset-metadata.*``.
    uuid : str, optional
        The dataset; default the only one in ``store``.
    table : str, optional
        The table; default the only one of the dataset.

    Attributes
    ----------
    store, uuid, table, root : str
        ``root`` is ``<store>/<uuid>/<table>``; entry paths are relative to it.
    document : dict
        The metadata as read.
    metadata_file : str
    """

    KIND = "Kartothek dataset"

    layout_name = "kartothek"

    def __init__(self, store, uuid=None, table=None):
        self.store = os.path.abspath(os.fspath(store))
        self.uuid = choose_uuid(self.store, uuid)
        self.problems = []
        self.document, self.metadata_file = read_document(self.store, self.uuid)
        self.dataset_dir = os.path.join(self.store, self.uuid)
        self.table = choose_table(self.document, self.dataset_dir, table, self.metadata_file)
        self.root = os.path.join(self.dataset_dir, self.table)
        # the table's directory itself may be a link out of the store
        check_inside(self.store, self.root, self.metadata_file, f"table {self.table!r}")
        self._real_root = real_root(self.root)
        self.files = listed_files(self.document, self.uuid, self.table, self.metadata_file)
        self._manifest = self._build()

    # --- where the files are: local paths here, overridden for object stores --------------
    def declared(self):
        """name -> type of the columns ``_common_metadata`` declares."""
        return declared_types(self._inside(COMMON_METADATA, "table schema", reserved=False))

    def missing(self):
        """Relative paths of the listed files that do not exist."""
        return [f.relpath for f in self.files
                if not os.path.isfile(self._inside(f.relpath, f"partition {f.label!r}: file"))]

    def facts(self, f):
        """(FileFacts, modification time in seconds) of a listed file."""
        path = self._inside(f.relpath, f"partition {f.label!r}: file")
        return read_facts(path), os.stat(path).st_mtime

    def metadata_mtime(self):
        return os.stat(self.metadata_file).st_mtime

    def index_exists(self, relpath):
        return os.path.isfile(self.index_file(relpath))

    def _inside(self, relpath, what, reserved=True):
        """The local path of ``relpath`` below the table, refused when it leaves it."""
        return resolve_inside(self.root, relpath, self.metadata_file, what,
                              reserved=reserved, real=self._real_root)

    def index_file(self, relpath):
        """An index file's path: Kartothek keeps indices beside the tables, so index
        paths are relative to the dataset's directory, not to the table's."""
        return resolve_inside(self.dataset_dir, relpath, self.metadata_file, "index file")

    def _build(self):
        declared = self.declared()
        stated = self.document.get("partition_keys")
        names = [n for n, _ in self.files[0].pairs] if self.files else list(stated or [])
        if stated is not None and list(stated) != names:
            raise ManifestCorrupted(f"{self.metadata_file}: partition_keys {stated} but the "
                                    f"files of table {self.table!r} are partitioned by {names}")
        partitioning = Partitioning([
            typed_partition_column(name, [kartothek_value(dict(f.pairs)[name], declared.get(name))
                                          for f in self.files], declared.get(name), self.root)
            for name in names])
        missing = self.missing()
        if missing:
            raise DatasetIncomplete(f"{self.metadata_file} lists {len(missing)} file(s) of table "
                                    f"{self.table!r} that are missing, e.g. "
                                    f"{self.uuid}/{self.table}/{missing[0]}")
        known, present, entries, newest = {}, None, [], 0.0
        for f in self.files:
            facts, mtime = self.facts(f)
            merge_fields(known, facts.fields, f.relpath, drop=set(names))
            cols = {x.name for x in facts.fields}
            present = cols if present is None else present & cols
            texts = {c.name: canonical_text(c, kartothek_value(v, c.type))
                     for c, (_, v) in zip(partitioning.columns, f.pairs)}
            entries.append(facts.entry(f.label, f.relpath, texts))
            newest = max(newest, mtime)
        # Columns only _common_metadata knows (no file yet) keep its order and type.
        for name, type_ in declared.items():
            if name not in names and name not in known:
                known[name] = (T.Field(name, type_, True), COMMON_METADATA)
        meta = self.document.get("metadata") or {}
        manifest = build_snapshot(entries, table_schema(known, present or set()), partitioning,
                            committed_at_utc=utc_text(newest or self.metadata_mtime()),
                            operation={"type": "kartothek"}, where=self.metadata_file,
                            dataset_key=self.uuid,
                            properties={"layout": "kartothek", "kartothek.table": self.table},
                            metadata={str(k): v for k, v in meta.items()})
        manifest.data["indices"] = self.index_list([e["key"] for e in entries])
        return manifest

    def index_list(self, labels):
        """PQDS-style ``indices`` for the dataset's external indices (paths relative to the
        dataset's directory, see :meth:`index_file`)."""
        out = []
        for column, ref in (self.document.get("indices") or {}).items():
            if not isinstance(ref, str):
                continue                      # embedded (pre-v4 form): not used
            check_relative_path(ref, self.metadata_file, f"indices.{column}")
            if not ref.startswith(f"{self.uuid}/indices/") or not ref.endswith(INDEX_SUFFIX):
                raise ManifestCorrupted(f"{self.metadata_file}: index of {column!r} is {ref!r}, "
                                        f"not {self.uuid}/indices/…{INDEX_SUFFIX}")
            relpath = ref.split("/", 1)[1]
            if not self.index_exists(relpath):
                raise DatasetIncomplete(f"{self.metadata_file}: index file {ref} of column "
                                        f"{column!r} is missing")
            out.append({"column": column, "kind": "inverted", "segments": [{
                "path": relpath, "covers": sorted(labels),
                "value_column": column, "keys_column": KEYS_COLUMN}]})
        return out


__all__ = ["KartothekSource", "declared_types", "listed_files"]
