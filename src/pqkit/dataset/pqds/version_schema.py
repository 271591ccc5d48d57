"""The schemas of PQDS/1's JSON files, checked once where each is loaded (§3.3).

* a version file (:data:`VERSION`; the planning index carries its *head*, the
  same document without ``files``, and its file entries one by one);
* a tag, the ``_latest`` hint and the ``_SUCCESS`` marker: ``{"version": n, …}``.

:func:`load_manifest` is the one way a version file's bytes become a
:class:`~pqkit.dataset.core.snapshot.Manifest`: parsed (finite numbers only),
checked against :data:`VERSION`, checked for its own consistency (totals,
schema hash), and every file entry's partition checked against the
partitioning. Each path a version names is checked by its text here
(:func:`~pqkit.dataset.core.containment.check_relative_path`): data paths stay out of
``_pqkit/``, index segments live under ``_pqkit/indices/``. Where the file
system would resolve a path is checked when the file is opened.

Per-file bounds (``stats``) are checked for their types here; whether a bound's
text parses as its column's type is checked by planning, which parses it anyway
(``ManifestCorrupted`` naming the file entry there).
"""
from pqkit.dataset.core import (
    META_DIR,
    Invalid,
    Manifest,
    anything,
    boolean,
    both,
    check_format,
    count,
    either,
    integer,
    list_of,
    map_of,
    optional,
    parse_json,
    parse_utc,
    record,
    relative_path_problem,
    rule,
    text,
    validate,
)
from pqkit.errors import ManifestCorrupted, SchemaError

INDEX_PREFIX = f"{META_DIR}/indices/"
DELETIONS_PREFIX = f"{META_DIR}/deletions/"


def _path(*, reserved=True, under=""):
    """A path inside the root (a data path: ``reserved`` names refused), under ``under``."""
    def check(value):
        problem = relative_path_problem(value, reserved=reserved)
        if problem:
            raise Invalid(problem)
        if not value.startswith(under):
            raise Invalid(f"{value!r} does not lie under {under}")
    return check


_STATS = map_of(record(optional={"min": text(), "max": text(), "nulls": count(),
                                 "nans": count(), "min_exact": boolean(),
                                 "max_exact": boolean()},
                       other=anything()))

ENTRY = record(
    required={"key": text(), "path": _path(), "partition": map_of(optional(text())),
              "size": count(), "row_count": count()},
    optional={"row_groups": count(), "codec": optional(text()), "stats": _STATS,
              "sha256": optional(text()), "schema_id": integer(), "added_version": count(),
              "origin": optional(text()),
              "deletions": optional(record(required={
                  "path": _path(reserved=False, under=DELETIONS_PREFIX), "rows": count(),
                  "size": count()}))},
    other=anything())

_SEGMENT = record(required={"path": _path(reserved=False, under=INDEX_PREFIX),
                            "covers": list_of(text())},
                  optional={"value_column": text(), "keys_column": text()},
                  other=anything())
_INDEX = record(required={"column": text(), "segments": list_of(_SEGMENT)},
                optional={"kind": text()}, other=anything())
_FIELD = record(required={"name": text(), "type": anything()},
                optional={"nullable": boolean(), "id": optional(integer())},
                other=anything())


def _field(value):
    # a field that is not an object is TableSchema's to report ("bad schema: ...")
    if type(value) is dict:
        _FIELD(value)


_SCHEMA = record(required={"fields": list_of(_field)},
                 optional={"id": integer(), "sha256": optional(text())}, other=anything())
_PARTITIONING = record(optional={"style": text(), "null_token": text(),
                                 "columns": list_of(record(required={"name": text(),
                                                                     "type": anything()},
                                                           other=anything()))},
                       other=anything())
_OPERATION = record(optional={"type": optional(text()), "txn": optional(text()),
                              "read_version": optional(integer()),
                              "attempt": optional(integer()),
                              "added": list_of(text()), "removed": list_of(text()),
                              "deletions": list_of(text()),
                              "scope": optional(list_of(map_of(optional(text())))),
                              "metrics": map_of(integer())},
                    other=anything())

_INSTANT = both(text(), rule(parse_utc, "not an instant YYYY-MM-DDTHH:MM:SS.ffffffZ"))

_HEAD_FIELDS = {
    "format": text(), "format_version": integer(), "version": count(),
    "row_count": count(), "file_count": count(), "committed_at_utc": _INSTANT,
}
_HEAD_OPTIONAL = {
    "reader_features": optional(list_of(text())), "writer_features": optional(list_of(text())),
    "dataset_id": optional(text()),
    "parent_version": optional(integer(-1)),
    "operation": optional(_OPERATION),
    # the last run of each application: a number, or the run's name when it is not one
    "app_txns": optional(map_of(either("a run number or name", integer(), text()))),
    "schema": optional(_SCHEMA), "partitioning": optional(_PARTITIONING),
    "properties": optional(map_of(anything())), "metadata": optional(map_of(anything())),
    "total_bytes": optional(count()), "indices": optional(list_of(_INDEX)),
}

#: A version file.
VERSION = record(required={**_HEAD_FIELDS, "files": list_of(ENTRY)}, optional=_HEAD_OPTIONAL,
                 other=anything())
#: A version file without its ``files`` (as the planning index keeps it).
HEAD = record(required=_HEAD_FIELDS, optional=_HEAD_OPTIONAL, other=anything())
#: A tag, the ``_latest`` hint, the ``_SUCCESS`` marker.
POINTER = record(required={"version": count()}, other=anything())


def load_manifest(raw, where, expected_version=None):
    """The checked :class:`Manifest` of a version file's bytes ``raw`` read from ``where``.

    Raises
    ------
    ManifestCorrupted
        Not JSON (then its ``unparsable`` attribute is true), a field of the wrong type (the message names it), totals or schema
        hash that disagree, a path that could leave the root, a partition that is not
        the partitioning's.
    UnsupportedFeature
        A format version or reader feature this pqkit does not implement.
    """
    try:
        data = parse_json(raw, where)
    except ValueError as exc:
        error = ManifestCorrupted(str(exc))
        error.unparsable = True             # possibly torn (commit.load_readable)
        raise error from None
    return checked_manifest(data, where, expected_version)


def checked_manifest(data, where, expected_version=None, *, head=False):
    """The :class:`Manifest` of parsed version-file JSON ``data`` after the checks of
    :func:`load_manifest`; ``head``: ``data`` lacks ``files`` (a planning index's copy)."""
    if not isinstance(data, dict):
        raise ManifestCorrupted(f"{where}: a version file holds a JSON object")
    check_format(data, where)          # an unsupported version is not a corrupt one
    validate(data, HEAD if head else VERSION, where)
    if head:
        return Manifest(data, where=where, head=True)
    manifest = Manifest.from_data(data, where, expected_version)
    check_partitions(manifest.files, manifest.partitioning, where)
    return manifest


_ENTRIES = record(required={"files": list_of(ENTRY)})


def checked_entries(entries, partitioning, where):
    """``entries`` (file entries read apart from their version file, as the planning index
    keeps them) after the entry schema and :func:`check_partitions`."""
    validate({"files": entries}, _ENTRIES, where)
    check_partitions(entries, partitioning, where)
    return entries


def check_partitions(entries, partitioning, where):
    """ManifestCorrupted unless each entry's ``partition`` names the partition columns
    with canonical texts of their types (each distinct partition checked once)."""
    seen = set()
    for i, entry in enumerate(entries):
        texts = entry["partition"]
        key = tuple(texts.items())
        if key in seen:
            continue
        try:
            partitioning.check_texts(texts, f"files[{i}].partition")
        except SchemaError as exc:
            raise ManifestCorrupted(f"{where}: {exc}") from None
        seen.add(key)


def pointer_document(raw, where):
    """The checked object of a tag, hint or ``_SUCCESS`` marker's bytes ``raw``
    (ManifestCorrupted when it is not ``{"version": n, …}``)."""
    try:
        data = parse_json(raw, where)
    except ValueError as exc:
        raise ManifestCorrupted(str(exc)) from None
    return validate(data, POINTER, where)


__all__ = ["ENTRY", "HEAD", "POINTER", "VERSION", "check_partitions", "checked_entries",
           "checked_manifest", "load_manifest", "pointer_document"]
