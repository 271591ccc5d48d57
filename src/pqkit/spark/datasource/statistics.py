"""The read counters of a ``pqkit`` format scan, gathered from the processes that did the work.

Spark's Python Data Source API (pyspark 4.3) has no custom metrics, and a scan is
counted in Python processes Spark starts: the planner (row groups pruned by
partition values and statistics) and one per task (row groups read, pages
skipped by the page index, bytes read). With the read option ``statisticsPath``
each of them saves its :class:`pqkit.ReadStatistics` there as one JSON file; a
directory that the driver and every executor can write (local, or a shared file
system). :func:`collect_statistics` adds them up::

    df = spark.read.format("pqkit").option("statisticsPath", "/tmp/scan-1").load(path)
    df.where("id = 77").collect()
    s = pqkit.spark.collect_statistics("/tmp/scan-1")
    s.row_groups, s.row_groups_skipped, s.pages_skipped, s.bytes_read

Every planning and every task attempt writes its own file, so a directory used by
two queries, or by a query whose tasks Spark retried, totals all of them: give
each query a directory of its own.
"""
import json
import os
import uuid

from pqkit.errors import SchemaError
from pqkit.read.read_statistics import ReadStatistics

__all__ = ["save_statistics", "collect_statistics"]

_SUFFIX = ".json"


def save_statistics(directory, kind, statistics):
    """Write ``statistics`` into ``directory`` as ``<kind>-<unique>.json``; the file
    appears whole (renamed into place) so a reader never sees half of it."""
    os.makedirs(directory, exist_ok=True)
    name = f"{kind}-{uuid.uuid4().hex}"
    temporary = os.path.join(directory, f".{name}.tmp")
    with open(temporary, "w") as f:
        json.dump(statistics.as_dict(), f)
    os.replace(temporary, os.path.join(directory, name + _SUFFIX))


def collect_statistics(directory):
    """The :class:`pqkit.ReadStatistics` of every file :func:`save_statistics` wrote into
    ``directory``, added up."""
    if not os.path.isdir(directory):
        raise SchemaError(f"{directory!r} holds no read statistics: not a directory (give "
                          "the read the option statisticsPath)")
    total = ReadStatistics()
    for name in sorted(os.listdir(directory)):
        if name.endswith(_SUFFIX) and not name.startswith("."):
            with open(os.path.join(directory, name)) as f:
                total.merge(json.load(f))
    return total
