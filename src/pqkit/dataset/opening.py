"""The front door's ``open``: which format a root holds, then its snapshot (§3.8).

``open(root)`` of a PQDS/1 root costs one hint read, about two stats and one JSON
read; no directory is listed. The returned :class:`~pqkit.dataset.pqds.reader.Dataset`
is pinned to its version: later commits do not change what it reads, and files
retired by later versions are still found in ``_pqkit/shadow``.
"""
from pqkit.dataset.detect import open_source
from pqkit.dataset.pqds import ObjectManifestSource, open_snapshot
from pqkit.filesystems import is_url


def open_dataset(root, version=None, as_of=None, tag=None, *, publish=False, source=None,
                 layout="auto", require_success=None, storage_options=None, footer_key=None,
                 column_keys=None, key_retriever=None, aad_prefix=None, kms_client=None):
    """Open a dataset at its latest version, or at ``version``, ``as_of`` or ``tag``.

    Besides PQDS/1, this reads (read-only) plain Hive-partitioned directories and
    RFC-style single-manifest datasets as one version, 0 (see :mod:`pqkit.dataset.detect`).

    Parameters
    ----------
    root : path or URL
        A URL (``s3://bucket/table``) opens a published PQDS/1 dataset on an object
        store for reading, with no listing (:mod:`pqkit.dataset.pqds.sources`).
    version : int, optional
        Open exactly this version.
    as_of : datetime.datetime or ISO-8601 str, optional
        The newest retained version committed at or before this instant (naive
        datetimes are taken as UTC).
    tag : str, optional
        A version named by :func:`pqkit.dataset.tag`.
    publish : bool, default False
        Finish a crashed publish first (read-only readers never publish).
    source : FileSource, optional
        Where versions and files come from; default chosen by ``layout``.
    layout : {"auto", "pqds", "hive", "manifest"}, default "auto"
        ``auto``: PQDS/1 when ``root/_pqkit`` holds a version, else the RFC layout when a
        ``manifest.json`` (or ``_manifest.json``) exists, else a plain Hive directory
        when ``root`` holds visible files (listed once, every footer read once).
    require_success : bool, optional
        Raise DatasetIncomplete when ``root/_SUCCESS`` is missing. Default: only for
        the RFC layout, whose contract requires it (and which also checks every part's
        existence, size, row count and schema hash on open).
    storage_options : dict, optional
        fsspec options of a URL ``root``.
    footer_key, column_keys, key_retriever, aad_prefix, kms_client : optional
        The keys of encrypted data files, as :class:`pqkit.ParquetFile` takes them;
        every data file is read with them (a plain Hive directory's footers already
        when it is opened).

    Raises
    ------
    DatasetNotFound
        No version exists under ``root``.
    DatasetIncomplete
        The requested version was never committed or has been vacuumed; or
        ``_SUCCESS`` is required and missing; or a file of a legacy layout is missing.
    ManifestCorrupted, UnsupportedFeature
        The version file is unreadable or needs features this pqkit lacks.
    """
    if source is None and is_url(root):
        source = ObjectManifestSource(root, storage_options)
    keys = {name: value for name, value in (
        ("footer_key", footer_key), ("column_keys", column_keys),
        ("key_retriever", key_retriever), ("aad_prefix", aad_prefix),
        ("kms_client", kms_client)) if value is not None}
    if source is None:
        source = open_source(root, layout, require_success, file_keys=keys)
    if keys:
        source.file_keys = keys
    return open_snapshot(source, version, as_of, tag, publish=publish)
