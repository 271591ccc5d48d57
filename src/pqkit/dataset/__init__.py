"""pqkit.dataset: versioned, Hive-partitioned Parquet datasets (PQDS/1).

The root of a dataset is a plain Hive-partitioned Parquet directory that
Spark, pyarrow, DuckDB and Hive read without any plugin; beside the data,
``_pqkit/versions/`` holds one JSON snapshot per version (``_<n:020>.json``: every
file pqkit keeps for itself has a ``_``-prefixed name, pqds/paths.py), committed with an
atomic link-if-absent, so writers need no lock or service, readers are
pinned to a version, and planning needs no directory listing::

    import pqkit.dataset as pds

    v = pds.write("sales", {"year": [2024, 2025], "amount": [1.5, 2.0]},
                  partition_by=["year"])                    # -> 0
    ds = pds.open("sales")                                  # latest version
    ds.read(filters=[("year", "==", 2025)]).to_pydict()     # {'amount': [2.0], 'year': [2025]}
    ds.count()                                              # 2, from the manifest
    pds.open("sales", version=0)                            # time travel

Distributed writers stage files with :func:`stage_file` (e.g. on Spark
executors) and commit them as one version with :func:`commit`. :func:`merge`
upserts or deletes by key (copy-on-write); :func:`rename_column` and :func:`drop_column`
change the schema without rewriting a file (field ids, ``column_mapping``). Maintenance: :func:`delete`,
:func:`compact`, :func:`restore`, :func:`tag`, :func:`vacuum`, :func:`repair`,
:func:`publish`. Inverted indices (:mod:`.pqds.index_segments`): :func:`build_index`
indexes a column, appends index their own files in the same commit, ``==``/``in``
filters on it prune files, :func:`optimize_index` merges the segments. Versions of
1000 files or more also get a derived planning index (:mod:`.pqds.file_list`), so
that a partition query reads a page of it instead of parsing the whole JSON file
list. The design is ``docs/DATASET.md`` (PQDS/1).

Other layouts (:mod:`.detect`): :func:`open` also reads plain Hive
directories written by Spark, Hive or pyarrow (typed partitions, pruning;
``require_success=True`` demands their ``_SUCCESS``) and RFC-style
single-manifest datasets (``manifest.json`` + ``_SUCCESS``, every part checked),
both read-only; ``write(root, data, layout="manifest")`` writes the latter,
:func:`convert` copies either into a new PQDS/1 dataset, :func:`verify` and
:func:`repair` work on all three.

Packages, one per format (docs/ARCHITECTURE.md): ``pqds`` (PQDS/1), ``hive``,
``rfc0008`` (RFC-style single-manifest datasets and RFC-0008's store API) and
``kartothek`` (Kartothek v4: read, written by :class:`KartothekWriter`, and imported as
PQDS/1), on ``core``
(what they share); beneath this package's ``detect`` (which format a root holds) and
``front`` (open, write, commit, repair, convert, verify on every format).
"""
from pqkit.dataset.core import (
    HIVE_NULL,
    FileSource,
    escape_path_component,
    parse_partition_dirs,
    unescape_path_component,
)
from pqkit.dataset.front import (
    commit,
    convert,
    detect_layout,
    open_dataset,
    pqds_only,
    publish_state,
    repair,
    verify,
    write,
)
from pqkit.dataset.kartothek import KartothekWriter, import_kartothek, open_kartothek
from pqkit.dataset.pqds import (
    MODES,
    DataFile,
    Dataset,
    ManifestSource,
    RootPaths,
    VerifyReport,
    build_index as _build_index,
    compact as _compact,
    compact_plan as _compact_plan,
    delete as _delete,
    drop_column as _drop_column,
    merge as _merge,
    merge_plan as _merge_plan,
    optimize_index as _optimize_index,
    publish as _publish,
    rename_column as _rename_column,
    restore as _restore,
    stage_file as _stage_file,
    tag as _tag,
    untag as _untag,
    vacuum as _vacuum,
)
from pqkit.dataset.rfc0008 import (
    DatasetManifest,
    ParquetDatasetStore,
    dataset_exists,
    delete_dataset,
)
from pqkit.errors import (
    AlreadyExists,
    CommitConflict,
    DatasetError,
    DatasetExists,
    DatasetIncomplete,
    DatasetNotFound,
    ManifestCorrupted,
    UnsupportedFeature,
)

open = open_dataset
# The public name of RootPaths: "layout" names which format a root holds everywhere else.
Layout = RootPaths
# Operations that write PQDS/1 state refuse plain Hive and RFC roots (see detect.py).
compact = pqds_only(_compact)
delete = pqds_only(_delete)
restore = pqds_only(_restore)
tag = pqds_only(_tag)
untag = pqds_only(_untag)
stage_file = pqds_only(_stage_file)
vacuum = pqds_only(_vacuum)
build_index = pqds_only(_build_index)
optimize_index = pqds_only(_optimize_index)
merge = pqds_only(_merge)
merge_plan = pqds_only(_merge_plan)
compact_plan = pqds_only(_compact_plan)
rename_column = pqds_only(_rename_column)
drop_column = pqds_only(_drop_column)


@pqds_only
def publish(root, storage_options=None):
    """Make the visible Hive tree and ``_SUCCESS`` match the latest version; returns it."""
    return _publish(RootPaths.at(root, storage_options))


def latest_version(root, storage_options=None):
    """The newest committed version number of the dataset at ``root`` (a path or URL)."""
    return RootPaths.at(root, storage_options).latest()


__all__ = [
    "write", "stage_file", "commit", "open", "open_dataset", "Dataset", "DataFile",
    "VerifyReport", "repair", "vacuum", "publish", "delete", "compact", "restore", "tag",
    "untag", "merge", "merge_plan", "compact_plan", "rename_column", "drop_column", "build_index", "optimize_index", "latest_version", "FileSource",
    "ManifestSource", "MODES", "HIVE_NULL",
    "escape_path_component", "unescape_path_component", "parse_partition_dirs",
    "DatasetError", "DatasetNotFound", "DatasetExists", "DatasetIncomplete",
    "ManifestCorrupted", "UnsupportedFeature", "CommitConflict",
    "convert", "verify", "detect_layout", "publish_state", "open_kartothek", "import_kartothek",
    "KartothekWriter",
    "ParquetDatasetStore", "DatasetManifest", "dataset_exists", "delete_dataset", "AlreadyExists",
]
