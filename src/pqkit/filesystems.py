"""URLs and file systems: which fsspec file system holds a file (both roads and datasets).

A string with a protocol (``s3://bucket/key``, ``gs://``, ``abfs://``,
``https://``, ``memory://``, ``file://``) names a file on an fsspec file
system; ``storage_options`` are that file system's options, as pandas and
pyarrow take them (``{"endpoint_url": "http://127.0.0.1:9000", "key": ...}``
for s3fs). Any other string is a local path and never goes through fsspec.

fsspec and the protocol's package are optional dependencies
(``pip install pqkit[s3]``, ``[gcs]``, ``[azure]``, ``[http]``).
"""
import io
import os

from pqkit.errors import MissingDependencyError

__all__ = ["file_size", "is_url", "object_size", "open_binary", "resolve", "url_filesystem"]


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


def object_size(fs, path, name=None):
    """The size of the object at ``path`` on ``fs`` (``name``: what messages call it).

    Raises
    ------
    FileNotFoundError
        Neither an object nor a prefix of that name exists.
    IsADirectoryError
        ``path`` is a prefix (a directory of objects) or a bucket, not an object: an
        object store reports those as empty, which would read as a file of 0 bytes.
    """
    name = name or path
    try:
        info = fs.info(path)
    except FileNotFoundError as exc:
        raise FileNotFoundError(f"no object and no prefix named {name}") from exc
    if info.get("type") == "directory":
        raise IsADirectoryError(f"{name} is a prefix (a directory of objects), not a file: "
                                "name one of its objects")
    if info.get("size") is None:
        raise OSError(f"{name}: the server does not report the object's size, which "
                      "reading by ranges needs")
    return int(info["size"])


def open_binary(where, mode="rb", storage_options=None):
    """A binary file object of a local path or a URL; a URL opened for reading is
    seekable (fsspec reads it by ranges) and a missing or directory URL is refused as
    :func:`object_size` says."""
    if not is_url(where):
        if storage_options:
            raise ValueError(f"storage_options apply to URLs only, not to {where!r}")
        return open(where, mode)
    fs, path = url_filesystem(where, storage_options)
    if "r" not in mode:
        return fs.open(path, mode)
    object_size(fs, path, where)
    return _UrlReader(fs.open(path, mode), where)


class _UrlReader(io.BufferedReader):
    """A URL's object opened for reading: buffered (readers of text call readline(limit),
    which fsspec's files lack) and named by the URL (messages say which file)."""

    def __init__(self, raw, url):
        super().__init__(raw)
        self._url = url

    @property
    def name(self):
        return self._url


def file_size(where):
    """The size in bytes of a local file or of the object at a URL."""
    if not is_url(where):
        return os.path.getsize(where)
    fs, path = url_filesystem(where)
    return object_size(fs, path, where)
