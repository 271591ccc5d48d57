"""Where a writer's bytes go: a local file, or a file on an fsspec file system.

A remote file (``s3://...``) is written through the file system's buffered
writer, which uploads in parts and makes the object appear only on close; a
writer that fails calls :func:`discard` instead, so no partial object is left
(s3fs aborts the multipart upload).
"""
from pqkit.filesystems import resolve

__all__ = ["discard", "open_sink"]


def open_sink(where, storage_options=None, filesystem=None):
    """A binary file object opened for writing ``where`` (a path or a URL)."""
    remote = resolve(where, storage_options, filesystem)
    if remote is None:
        return open(where, "wb")
    fs, path = remote
    return fs.open(path, "wb")


def discard(sink):
    """Close ``sink`` without publishing what was written, where its file system can."""
    abort = getattr(sink, "discard", None)
    if abort is None:
        sink.close()
        return
    abort()
    # fsspec's buffered writers upload what they hold on close(); marking the file closed
    # after discard() keeps the object from appearing.
    sink.closed = True
