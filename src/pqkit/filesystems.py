"""URLs and file systems: which fsspec file system holds a file (both roads and datasets).

A string with a protocol (``s3://bucket/key``, ``gs://``, ``abfs://``,
``https://``, ``memory://``, ``file://``) names a file on an fsspec file
system; ``storage_options`` are that file system's options, as pandas and
pyarrow take them (``{"endpoint_url": "http://127.0.0.1:9000", "key": ...}``
for s3fs). Any other string is a local path and never goes through fsspec.

fsspec and the protocol's package are optional dependencies
(``pip install pqkit[s3]``, ``[gcs]``, ``[azure]``, ``[http]``).
"""
import os

__all__ = ["is_url", "resolve", "url_filesystem"]


def is_url(where):
    """Whether ``where`` is a string naming a protocol (``s3://...``)."""
    return isinstance(where, str) and "://" in where[:32]


def url_filesystem(url, storage_options=None):
    """(fsspec file system, path on it) of ``url``.

    Raises
    ------
    ImportError
        fsspec, or the package of the URL's protocol, is not installed; the message
        names the extra to install.
    """
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise ImportError(f"{url} needs fsspec and the package of its protocol: "
                          f"pip install 'pqkit[s3]' (or gcs, azure, http)") from None
    return url_to_fs(url, **(storage_options or {}))


def resolve(where, storage_options=None, filesystem=None):
    """(file system, path) for a path on ``filesystem``, or a URL; None for a local path.

    Raises
    ------
    ValueError
        ``storage_options`` given with a local path (they would be silently ignored).
    """
    if filesystem is not None:
        return filesystem, os.fspath(where)
    if is_url(where):
        return url_filesystem(where, storage_options)
    if storage_options:
        raise ValueError(f"storage_options apply to URLs only, not to {where!r}")
    return None
