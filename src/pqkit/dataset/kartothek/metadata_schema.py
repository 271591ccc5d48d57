"""The schema of a Kartothek v4 metadata document, checked once where it is loaded.

The document's shape is described in :mod:`pqkit.dataset.kartothek.metadata`. Besides
the types, a table name must be one plain directory name: it becomes a
directory under ``<store>/<uuid>/``, so ``..`` or a ``/`` in it would move the
table's root out of the dataset.
"""
from pqkit.dataset.core import (
    anything,
    either,
    list_of,
    map_of,
    optional,
    record,
    relative_path_problem,
    rule,
    text,
)


def check_table_name(name):
    """ValueError unless ``name`` is one directory name that stays inside the dataset."""
    problem = relative_path_problem(name)
    if problem:
        raise ValueError(problem)
    if "/" in name:
        raise ValueError(f"table name {name!r} holds a '/'")


#: A partition: the key of its file for each table.
PARTITION = record(required={"files": map_of(text(), rule(check_table_name, "a table name"))},
                   other=anything())

#: A metadata document (JSON, or msgpack).
DOCUMENT = record(
    required={"dataset_metadata_version": anything(), "dataset_uuid": text(),
              "partitions": map_of(PARTITION)},
    optional={"partition_keys": optional(list_of(text())),
              "indices": optional(map_of(either("the key of an index file, or an embedded "
                                                "index", text(), map_of(anything())))),
              "metadata": optional(map_of(anything()))},
    other=anything())

__all__ = ["DOCUMENT", "PARTITION", "check_table_name"]
