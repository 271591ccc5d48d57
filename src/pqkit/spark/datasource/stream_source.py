"""Structured Streaming from a PQDS/1 dataset: ``spark.readStream.format("pqkit").load(root)``.

The reader lives in a Python process on the driver for the whole query. Its offsets
are positions in the dataset's version log (:mod:`pqkit.spark.datasource.stream_offsets`): each
micro-batch reads the data files that the versions since the previous offset
added, planned like a batch read (footers, row groups, packed into Spark
partitions of at most ``maxPartitionBytes``) and decoded by pqkit on the executors
into Arrow batches. Spark keeps the offsets in the query's checkpoint, so a query
restarted from it reads every appended row exactly once.

Options (besides ``path``):

- ``startingVersion``: where a new query starts. Default: every file of the latest
  version (its snapshot), then the files each later version adds; an integer: the
  files each version from that one on added; ``latest``: only versions committed
  after the query starts.
- ``maxFilesPerTrigger`` / ``maxBytesPerTrigger``: admission control, most files /
  bytes (``64m``, ``1g`` or a number) per micro-batch; a batch always takes at least
  one file. ``Trigger.AvailableNow`` reads what exists at the start, in batches of
  that size, then stops.
- ``skipChangeCommits``: ``true`` skips versions that delete or rewrite rows (they
  fail the query otherwise); compaction and index versions are always skipped.

The stream's schema is the dataset's at the query's (re)start; a version with a
different schema fails the query, which reads the new schema once restarted.
"""
import re

from pyspark.sql.datasource import DataSourceStreamReader
from pyspark.sql.streaming.datasource import (
    ReadAllAvailable,
    ReadMaxBytes,
    ReadMaxFiles,
    SupportsTriggerAvailableNow,
)

from pqkit.errors import DatasetNotFound, SchemaError
from pqkit.spark.datasource.read import SourceReader
from pqkit.spark.datasource.stream_offsets import STARTING_LATEST, Offset, StreamLog, StreamPlanner
from pqkit.spark.jobs.dataset import dataset_fields, dataset_files
from pqkit.spark.jobs.plan import make_plan

__all__ = ["DatasetStreamReader"]

_SIZE = re.compile(r"^\s*(\d+)\s*([kmgt]?)i?b?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _starting(text):
    if text is None:
        return None
    if str(text).strip().lower() == STARTING_LATEST:
        return STARTING_LATEST
    if str(text).strip().isdigit():
        return int(text)
    raise SchemaError(f"option startingVersion must be a version number or 'latest', "
                      f"not {text!r}")


def _bytes(text):
    if text is None:
        return None
    m = _SIZE.match(str(text))
    value = int(m.group(1)) * _UNITS[m.group(2).lower()] if m else 0
    if value <= 0:
        raise SchemaError(f"option maxBytesPerTrigger must be a positive size (a number of "
                          f"bytes, or 64m, 1g), not {text!r}")
    return value


class DatasetStreamReader(SourceReader, DataSourceStreamReader, SupportsTriggerAvailableNow):
    """Offsets, partitions and Arrow batches of a stream over a PQDS/1 dataset.

    A micro-batch is planned and decoded as a batch read is (:class:`SourceReader`),
    over the files its offsets name instead of a whole version.
    """

    def __init__(self, options, schema):
        super().__init__(options, schema)
        if isinstance(self.opts.paths(), list):
            raise SchemaError("a stream of format 'pqkit' reads one PQDS/1 dataset: "
                              "spark.readStream.format('pqkit').load(root)")
        self.root = self.opts.paths()
        self.starting_version = _starting(self.opts.get("startingversion"))
        self.max_files = self.opts.integer("maxfilespertrigger", None)
        self.max_bytes = _bytes(self.opts.get("maxbytespertrigger"))
        self.skip_change_commits = self.opts.flag("skipchangecommits", False)
        self._planner = None
        self._batch = None           # the (version, DataFile) pairs partitions() plans

    @property
    def planner(self):
        """Opened on first use: the copies of the reader that run read() never need it."""
        if self._planner is None:
            log = StreamLog(self.root, self.opts.storage_options())
            try:
                ds = log.open(log.latest())
            except DatasetNotFound:
                raise DatasetNotFound(f"a stream of format 'pqkit' reads a PQDS/1 dataset, whose "
                                      f"versions are its offsets; {self.root} holds none (read "
                                      "plain Parquet directories with spark.read)") from None
            names = [f.name for f in ds.schema]
            missing = [n for n in self.schema.names if n not in names]
            if missing:
                raise SchemaError(f"the stream's schema names column {missing[0]!r}, which the "
                                  f"dataset {self.root} does not have ({names})")
            self._fields = dataset_fields(ds)
            schema = (tuple((f.name, f.type) for f in ds.table_schema.fields),
                      tuple((c.name, c.type) for c in ds.partitioning.columns))
            self._planner = StreamPlanner(log, schema, self.starting_version,
                                          self.skip_change_commits)
        return self._planner

    def initialOffset(self):
        return self.planner.initial().to_json()

    def getDefaultReadLimit(self):
        if self.max_files is not None:
            return ReadMaxFiles(self.max_files)
        if self.max_bytes is not None:
            return ReadMaxBytes(self.max_bytes)
        return ReadAllAvailable()

    def latestOffset(self, start, limit):
        max_files = max_bytes = None
        if not isinstance(limit, ReadAllAvailable):
            # Spark hands back the default limit; the other option applies as well.
            max_files = limit.max_files if isinstance(limit, ReadMaxFiles) else self.max_files
            max_bytes = limit.max_bytes if isinstance(limit, ReadMaxBytes) else self.max_bytes
        return self.planner.latest(Offset.from_json(start), max_files, max_bytes).to_json()

    def prepareForTriggerAvailableNow(self):
        self.planner.ceiling = self.planner.log.latest()

    def partitions(self, start, end):
        self._batch = self.planner.files(Offset.from_json(start), Offset.from_json(end))
        if not self._batch:
            return []
        return SourceReader.partitions(self)

    def _plan(self, columns, filters):
        keys = {}
        for version, f in self._batch:
            keys.setdefault(version, set()).add(f.key)
        files = []
        for version, wanted in sorted(keys.items()):
            files.extend(dataset_files(self.root, None, version, keys=wanted)[0])
        names, part_fields, base = self._fields
        return make_plan(files, names, columns, filters, self.opts.get("splitby", "row_group"),
                         timezone=self.opts.get("timezone", "UTC"),
                         partition_fields=part_fields, base_fields=base)

    def commit(self, end):
        self.planner.log.forget_before(Offset.from_json(end).version)
