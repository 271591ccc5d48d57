"""The options of the ``pqkit`` Spark data source, checked and parsed.

Spark hands a Python data source its options as a case-insensitive map of strings
(``.option(k, v)``; ``load(path)`` arrives as ``path``, ``load([p1, p2])`` as ``paths``,
a JSON list). Every option is named here; an unknown one is an error that lists the
valid ones, so a misspelt option is never ignored.
"""
import json

from pqkit.errors import SchemaError

__all__ = ["READ_OPTIONS", "WRITE_OPTIONS", "STREAM_READ_OPTIONS", "STREAM_WRITE_OPTIONS",
           "SourceOptions", "DEFAULT_MAX_PARTITION_BYTES"]

DEFAULT_MAX_PARTITION_BYTES = 128 << 20

# option (lower case, as Spark passes it) -> what it means, for the error text and docs
READ_OPTIONS = {
    "path": "a file, directory, glob, URL or PQDS/1 dataset root (load(path))",
    "paths": "several of those (load([...]))",
    "columns": "comma-separated columns to read (dotted paths into structs allowed)",
    "versionasof": "a PQDS/1 dataset version to read",
    "tag": "a PQDS/1 dataset tag to read",
    "maxpartitionbytes": "most compressed bytes per Spark partition (default 128 MiB)",
    "minpartitions": "spread the scan over at least this many partitions when the data "
                     "allows (default: the driver's CPU count)",
    "batchsize": "most rows per Arrow batch handed to Spark (default 65536)",
    "splitby": "row_group (default) or file",
    "timezone": "zone of partition timestamps without offset and of legacy rebasing "
                "(default UTC)",
    "pushdown": "true (default) or false: offer Spark's filters to pqkit",
    "storage_options": "JSON object of fsspec options for URL paths",
    "statisticspath": "a directory where the planner and each task save their "
                      "pqkit.ReadStatistics (pqkit.spark.collect_statistics adds them up)",
}
# Streaming reads of a PQDS/1 dataset (pqkit.spark.datasource.stream_source); Spark asks a
# source for its schema with the same options, so a batch read accepts (and ignores) them too.
STREAM_READ_OPTIONS = {
    "startingversion": "streaming: the first version read (a number, or latest); default "
                       "every file of the latest version, then the versions after it",
    "maxfilespertrigger": "streaming: most data files per micro-batch",
    "maxbytespertrigger": "streaming: most bytes per micro-batch (a number, or 64m, 1g)",
    "skipchangecommits": "streaming: true skips versions that delete or rewrite rows "
                         "(default false: they fail the query)",
}
WRITE_OPTIONS = {
    "path": "the target directory or PQDS/1 dataset root",
    "partition_by": "comma-separated partition columns",
    "compression": "codec of the part files (default snappy)",
    "compression_level": "codec level",
    "row_group_size": "most rows per row group",
    "data_page_size": "target bytes per data page",
    "write_statistics": "true (default) or false",
    "dictionary": "true (default) or false: dictionary encoding",
    "variantshredding": "auto (VARIANT columns shredded by a schema inferred from each "
                        "file's first row group, so files may differ) or none (default)",
    "job_id": "idempotency key: a PQDS/1 target commits one version per job id",
    "storage_options": "JSON object of fsspec options for a URL target",
}
# Streaming writes (pqkit.spark.datasource.stream_sink) take the write options and these.
STREAM_WRITE_OPTIONS = {
    "checkpointlocation": "Spark's checkpoint directory (its query id names the stream)",
    "streamid": "the stream's idempotency key in the dataset's versions (default: the "
                "query id in the checkpoint)",
}
_KNOWN = {"read": {**READ_OPTIONS, **STREAM_READ_OPTIONS}, "write": WRITE_OPTIONS,
          "stream_write": {**WRITE_OPTIONS, **STREAM_WRITE_OPTIONS}}
_STORAGE_PREFIX = "storage."   # storage.endpoint_url=... is one storage option


def _check_known(options, known, kind):
    unknown = sorted(k for k in options if k not in known and not k.startswith(_STORAGE_PREFIX))
    if unknown:
        raise SchemaError(f"unknown {kind} option{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(map(repr, unknown))} for format 'pqkit'; valid options "
                          f"are {', '.join(sorted(known))} and storage.<fsspec option>")


class SourceOptions:
    """Typed view of the options of one read or write."""

    def __init__(self, options, kind):
        self.raw = {str(k).lower(): v for k, v in dict(options or {}).items()}
        _check_known(self.raw, _KNOWN[kind], kind.replace("_", " "))

    def get(self, name, default=None):
        return self.raw.get(name, default)

    def paths(self):
        """The source: one path (str) or a list of them."""
        if "paths" in self.raw:
            try:
                paths = json.loads(self.raw["paths"])
            except ValueError:
                raise SchemaError(f"option paths must be a JSON list, not "
                                  f"{self.raw['paths']!r}") from None
            if isinstance(paths, list) and paths:
                if "path" in self.raw:
                    paths = [self.raw["path"]] + paths
                return paths[0] if len(paths) == 1 else paths
        if "path" in self.raw:
            return self.raw["path"]
        raise SchemaError("format 'pqkit' needs a path: spark.read.format('pqkit').load(path)")

    def integer(self, name, default, minimum=1):
        text = self.raw.get(name)
        if text is None:
            return default
        try:
            value = int(str(text).strip())
        except ValueError:
            value = None
        if value is None or value < minimum:
            raise SchemaError(f"option {name} must be an integer >= {minimum}, not {text!r}")
        return value

    def flag(self, name, default):
        text = self.raw.get(name)
        if text is None:
            return default
        value = str(text).strip().lower()
        if value not in ("true", "false"):
            raise SchemaError(f"option {name} must be true or false, not {text!r}")
        return value == "true"

    def names(self, name):
        """A comma-separated list option, or None when absent."""
        text = self.raw.get(name)
        if text is None:
            return None
        names = [n.strip() for n in str(text).split(",") if n.strip()]
        if not names:
            raise SchemaError(f"option {name} names no column")
        return names

    def storage_options(self):
        """fsspec options: the ``storage_options`` JSON object plus ``storage.<key>``."""
        out = {}
        text = self.raw.get("storage_options")
        if text is not None:
            try:
                out = json.loads(text)
            except ValueError:
                out = None
            if not isinstance(out, dict):
                raise SchemaError(f"option storage_options must be a JSON object, not {text!r}")
        for k, v in self.raw.items():
            if k.startswith(_STORAGE_PREFIX):
                out[k[len(_STORAGE_PREFIX):]] = v
        return out or None
