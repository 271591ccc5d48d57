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

from pqkit.errors import MissingDependencyError

__all__ = ["is_url", "resolve", "url_filesystem"]


def is_url(where):
    """Whether ``where`` is a string naming a protocol (``s3://...``)."""
    return isinstance(where, str) and "://" in where[:32]


def url_filesystem(url, storage_options=None):
    """(fsspec file system, path on it) of ``url``.

    Raises
    ------
    pqkit.MissingDependencyError
        fsspec, or the package of the URL's protocol, is not installed; the message
        names the extra to install.
    """
    extra = _EXTRA_OF_PROTOCOL.get(url.split("://", 1)[0].lower())
    hint = f"pip install 'pqkit[{extra}]'" if extra else \
        "pip install fsspec and the fsspec package of its protocol"
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise MissingDependencyError(f"{url} needs fsspec: {hint}") from None
    try:
        return url_to_fs(url, **(storage_options or {}))
    except ImportError as exc:
        raise MissingDependencyError(f"{url}: {exc}; {hint}") from None


# The extra of pyproject.toml that installs the fsspec implementation of a protocol.
_EXTRA_OF_PROTOCOL = {"s3": "s3", "s3a": "s3", "gs": "gcs", "gcs": "gcs", "abfs": "azure",
                      "abfss": "azure", "az": "azure", "adl": "azure", "http": "http",
                      "https": "http"}


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
