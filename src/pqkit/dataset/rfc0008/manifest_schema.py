"""The schema of an RFC-0008 ``manifest.json``, checked once where it is loaded.

RFC-0008's own fields, with the older pqkit form of a part (an object with its
``path``) and pqkit's optional ``part_facts`` map (see
:mod:`pqkit.dataset.rfc0008.manifest`). Optional fields may be absent or null;
when present they have their type, so nothing that reads a manifest meets a
list where it expects a string.
"""
from pqkit.dataset.core import (
    anything,
    both,
    count,
    either,
    list_of,
    map_of,
    optional,
    record,
    rule,
    text,
    utc_text,
)


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

__all__ = ["MANIFEST", "PART", "PART_FACTS"]
