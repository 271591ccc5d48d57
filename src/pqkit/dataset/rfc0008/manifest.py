"""RFC-0008 single-manifest datasets (DATASET.md §3.13): reading and checking them.

One directory per dataset key, its parts beside one manifest, ``_SUCCESS``
written last::

    <key>/data.parquet                 (one part)  or  <key>/part-00000.parquet, …
    <key>/manifest.json                (or _manifest.json, hidden from Spark/pyarrow)
    <key>/_SUCCESS

    manifest.json = {"dataset_key": "sales/daily",
                     "parts": ["part-00000.parquet", "part-00001.parquet"],
                     "row_count": 100,
                     "schema_hash": "<sha256 hex of the Arrow schema's text>",
                     "compression": "zstd",
                     "created_at_utc": "2025-01-31T12:00:00.000000+00:00",
                     "run_id": "airflow:sales_daily:2025-01-31",      (optional)
                     "metadata": {…},                                  (optional)
                     "part_facts": {"part-00000.parquet":              (optional, pqkit's)
                                    {"size": 1234, "row_count": 50, "sha256": "…",
                                     "stats": {…}}, …}}

These are RFC-0008's fields exactly: ``parts`` is a list of file names and
``schema_hash`` the SHA-256 of the Arrow schema's text form (:mod:`.schema_hash`;
the full digest, or its first 16 hex digits as the RFC's reference
implementation writes). What pqkit knows beyond that per part lives in the
separate optional ``part_facts`` map, which RFC readers ignore. Older pqkit
manifests (parts as objects, the hash of PQDS/1's schema JSON) still read.

Reading checks, in order: ``_SUCCESS`` exists (else ``DatasetIncomplete``),
the manifest parses and has ``parts``, ``row_count`` and ``schema_hash``
(else ``ManifestCorrupted``), and every part: it exists (``DatasetIncomplete``),
its size and footer row count equal the stated facts and its schema hash the
manifest's, and the row counts add up to ``row_count`` (``ManifestCorrupted``).
``sha256`` is checked by ``verify(level="sha256")`` and by repair, which read
every byte. Per-file bounds for planning come from the parts' footers
(:mod:`pqkit.dataset.core.footer_snapshot`), never from the manifest's ``stats``.
"""
import os

from pqkit.dataset.core import (
    Partitioning,
    SnapshotSource,
    anything,
    both,
    build_snapshot,
    check_relative_path,
    count,
    either,
    list_of,
    map_of,
    merge_fields,
    optional,
    read_facts,
    parse_json,
    record,
    resolve_inside,
    rule,
    table_schema,
    text,
    utc_text,
    validate,
)
from pqkit.dataset.rfc0008.schema_hash import file_schema_hash, hash_matches
from pqkit.errors import (
    DatasetIncomplete,
    DatasetNotFound,
    ManifestCorrupted,
    ParquetError,
)

MANIFEST_NAMES = ("manifest.json", "_manifest.json")
SUCCESS = "_SUCCESS"
REQUIRED_KEYS = ("parts", "row_count", "schema_hash")


# --- the manifest's schema, checked once where it is loaded ----------------------------------
# RFC-0008's own fields, with the older pqkit form of a part (an object with its ``path``) and
# pqkit's optional ``part_facts`` map. Optional fields may be absent or null; when present
# they have their type, so nothing that reads a manifest meets a list where it expects a
# string.
def _instant(value):
    if utc_text(value) is None:
        raise ValueError(f"{value!r:.60} is not an ISO-8601 instant")


_FACTS = {"size": count(), "row_count": count(), "sha256": optional(text()),
          "stats": optional(map_of(anything()))}

#: One part's facts in ``part_facts``.
PART_FACTS = record(optional=_FACTS, other=anything())
#: A part: its file name, or (older pqkit manifests) an object with its path and facts.
PART = either("a file name or an object with a path", text(),
              record(required={"path": text()}, optional=_FACTS, other=anything()))

#: A manifest.json.
MANIFEST = record(
    required={"parts": list_of(PART), "row_count": count(), "schema_hash": text()},
    optional={"dataset_key": optional(text()), "compression": optional(text()),
              "created_at_utc": optional(both(text(), rule(_instant, "created_at_utc"))),
              "run_id": optional(text()),
              "metadata": optional(map_of(anything())),
              "part_facts": optional(map_of(PART_FACTS))},
    other=anything())


def manifest_path(root):
    """The manifest of the RFC dataset at ``root``, or None when there is none.

    Raises
    ------
    ManifestCorrupted
        Both ``manifest.json`` and ``_manifest.json`` exist (which one is current?).
    """
    found = [os.path.join(root, n) for n in MANIFEST_NAMES
             if os.path.isfile(os.path.join(root, n))]
    if len(found) > 1:
        raise ManifestCorrupted(f"{root} holds both manifest.json and _manifest.json; remove "
                                "the stale one")
    return found[0] if found else None


def read_manifest(path):
    """The manifest document at ``path``, validated for shape (ManifestCorrupted if not)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise DatasetNotFound(f"{path} does not exist") from None
    return parse_manifest(data, path)


def parse_manifest(data, path):
    """The manifest document of the bytes ``data`` read from ``path``, validated for shape
    (ManifestCorrupted if not)."""
    try:
        doc = parse_json(data, path)
    except ValueError as exc:
        raise ManifestCorrupted(str(exc)) from None
    if not isinstance(doc, dict):
        raise ManifestCorrupted(f"{path}: a manifest holds a JSON object")
    missing = [k for k in REQUIRED_KEYS if k not in doc]
    if missing:
        raise ManifestCorrupted(f"{path}: missing {', '.join(missing)}")
    if not isinstance(doc["parts"], list):
        raise ManifestCorrupted(f"{path}: parts is not a list")
    if not _is_count(doc["row_count"]):
        raise ManifestCorrupted(f"{path}: row_count {doc['row_count']!r} is not a count")
    if not isinstance(doc["schema_hash"], str):
        raise ManifestCorrupted(f"{path}: schema_hash {doc['schema_hash']!r} is not a string")
    facts = doc.get("part_facts")
    if facts is not None and not (isinstance(facts, dict) and
                                  all(isinstance(v, dict) for v in facts.values())):
        raise ManifestCorrupted(f"{path}: part_facts is not a map of part -> facts")
    check_shape(doc, path)
    doc["parts"] = [_part(p, i, path, facts or {}) for i, p in enumerate(doc["parts"])]
    paths = [p["path"] for p in doc["parts"]]
    if len(set(paths)) != len(paths):
        raise ManifestCorrupted(f"{path}: a part is listed twice")
    return doc


def check_shape(doc, where):
    """ManifestCorrupted unless ``doc`` has the fields of a manifest with their types
    (:data:`MANIFEST`)."""
    validate(doc, MANIFEST, where)


def _is_count(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _part(part, i, where, facts):
    if isinstance(part, str):
        part = {**facts.get(part, {}), "path": part}
    if not isinstance(part, dict) or not isinstance(part.get("path"), str):
        raise ManifestCorrupted(f"{where}: part {i} is neither a path nor an object with a "
                                "path")
    for key in ("size", "row_count"):
        if key in part and not _is_count(part[key]):
            raise ManifestCorrupted(f"{where}: part {part['path']}: {key} {part[key]!r} is not "
                                    "a count")
    check_relative_path(part["path"], where, f"part {i}")
    if part["path"] in MANIFEST_NAMES or part["path"] == SUCCESS:
        raise ManifestCorrupted(f"{where}: part {i} names {part['path']!r}, not a data file")
    return dict(part)


class PartCheck:
    """The result of checking one part against the manifest: facts or a problem."""

    __slots__ = ("part", "facts", "problem", "error")

    def __init__(self, part, facts=None, problem=None, error=None):
        self.part = part
        self.facts = facts
        self.problem = problem
        self.error = error


def check_part(root, part, schema_hash):
    """Check one part: it exists; size, footer row count and schema hash agree."""
    rel = part["path"]
    try:
        path = resolve_inside(root, rel, f"{root}: manifest", "part")
    except ManifestCorrupted as exc:
        return PartCheck(part, problem=str(exc), error=ManifestCorrupted)
    if not os.path.isfile(path):
        return PartCheck(part, problem=f"part {rel} is missing", error=DatasetIncomplete)
    return check_part_file(part, os.stat(path).st_size, lambda: path, schema_hash)


def check_part_file(part, size, source, schema_hash):
    """Check one existing part of ``size`` bytes against the manifest: size, footer row
    count and schema hash; ``source()`` gives what :class:`pqkit.ParquetFile` opens."""
    rel = part["path"]
    if "size" in part and part["size"] != size:
        return PartCheck(part, problem=f"part {rel} is {size} bytes, the manifest says "
                                       f"{part['size']}", error=ManifestCorrupted)
    try:
        facts = read_facts(source(), size=size)
    except ParquetError as exc:
        return PartCheck(part, problem=f"part {rel} is unreadable: {exc}",
                         error=ManifestCorrupted)
    if "row_count" in part and part["row_count"] != facts.row_count:
        return PartCheck(part, problem=f"part {rel} holds {facts.row_count} rows, the manifest "
                                       f"says {part['row_count']}", error=ManifestCorrupted)
    try:
        actual = file_schema_hash(source())
    except ParquetError as exc:
        return PartCheck(part, problem=f"part {rel}: its schema cannot be read: {exc}",
                         error=ManifestCorrupted)
    if not hash_matches(schema_hash, actual) and schema_sha256(facts.fields) != schema_hash:
        return PartCheck(part, problem=f"part {rel} has schema hash {actual}, the manifest "
                                       f"says {schema_hash}", error=ManifestCorrupted)
    return PartCheck(part, facts=facts)


def schema_sha256(fields):
    """The hash older pqkit versions wrote as ``schema_hash``: PQDS/1's ``schema.sha256``
    of a column list (still accepted on reading)."""
    known = {}
    merge_fields(known, fields, "the part")
    return table_schema(known, set(known)).sha256()


class RfcManifestSource(SnapshotSource):
    """An RFC-style single-manifest dataset as one version (0).

    Parameters
    ----------
    root : path
        The dataset's directory (``<store>/<dataset key>``).
    require_success : bool, default True
        A missing ``_SUCCESS`` raises ``DatasetIncomplete`` (the RFC contract); with
        False it is only recorded in :attr:`problems`.
    strict : bool, default True
        Raise on the first bad part; with False bad parts are left out and described
        in :attr:`problems` (for verify and repair).
    """

    KIND = "single-manifest dataset"

    layout_name = "manifest"

    def __init__(self, root, *, require_success=True, strict=True):
        self.root = os.path.abspath(os.fspath(root))
        self.strict = strict
        self.problems = []
        self.manifest_file = manifest_path(self.root)
        if self.manifest_file is None:
            raise DatasetNotFound(f"{self.root} has no manifest.json")
        self._note_success(os.path.exists(os.path.join(self.root, SUCCESS)), require_success)
        self.document = read_manifest(self.manifest_file)
        self.checks = []
        self._manifest = self._build()

    def _note_success(self, present, required):
        """Raise (or record) a missing ``_SUCCESS``, which is checked before anything else."""
        self.success = present
        if not present:
            message = (f"{self.root} has no _SUCCESS: the write of this dataset did not finish "
                       "(or is still running); 'pqinspect dataset repair' completes or rolls "
                       "back a crashed pqkit write")
            if required:
                raise DatasetIncomplete(message)
            self.problems.append({"key": None, "path": SUCCESS, "problem": message})

    def check(self, part):
        """The :class:`PartCheck` of one part of the manifest."""
        return check_part(self.root, part, self.document["schema_hash"])

    def _fail(self, error, message):
        if self.strict:
            raise error(f"{self.root}: {message}")

    def _build(self):
        doc = self.document
        entries, known, present = [], {}, None
        for part in doc["parts"]:
            check = self.check(part)
            self.checks.append(check)
            if check.problem:
                self._fail(check.error, check.problem)
                self.problems.append({"key": part["path"], "path": part["path"],
                                      "problem": check.problem})
                continue
            facts = check.facts
            merge_fields(known, facts.fields, part["path"])
            cols = {f.name for f in facts.fields}
            present = cols if present is None else present & cols
            entry = facts.entry(part["path"], part["path"])
            if isinstance(part.get("sha256"), str):
                entry["sha256"] = part["sha256"]
            entries.append(entry)
        rows = sum(e["row_count"] for e in entries)
        if len(entries) == len(doc["parts"]) and rows != doc["row_count"]:
            message = (f"manifest row_count is {doc['row_count']} but the parts hold {rows} "
                       "rows")
            self._fail(ManifestCorrupted, message)
            self.problems.append({"key": None, "path": os.path.basename(self.manifest_file),
                                  "problem": message})
        metadata = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
        props = {"layout": "manifest"}
        if isinstance(doc.get("compression"), str):
            props["compression"] = doc["compression"]
        key = doc.get("dataset_key")
        return build_snapshot(entries, table_schema(known, present or set()), Partitioning(),
                        committed_at_utc=utc_text(doc.get("created_at_utc")),
                        operation={"type": "rfc-manifest", "run_id": doc.get("run_id")},
                        where=self.manifest_file, dataset_key=key if isinstance(key, str)
                        else None, properties=props, metadata=metadata)
