"""Byte sources: the one place that turns a path, a buffer or a file object into reads.

Every reader in pqkit asks a :class:`Source` for byte ranges, so only the
selected column chunks (and the footer) are ever read from disk.
"""
import io
import os
import threading

import numpy as np

from pqkit.errors import ArgumentError, CorruptFileError

SCRATCH_KEEP = 64 << 20
_local = threading.local()


def _scratch(length):
    buf = getattr(_local, "buf", None)
    if buf is None or len(buf) < length:
        buf = np.empty(max(length, 1 << 16), np.uint8)
        if length <= SCRATCH_KEEP:
            _local.buf = buf
    return memoryview(buf)[:length]


class Source:
    """Random access to the bytes of one file.

    Parameters
    ----------
    source : str, os.PathLike, bytes, bytearray, memoryview or binary file object
        A path is opened (and closed by :meth:`close`); a file object must be
        seekable and is left open.
    """
    ranged = False      # each read is a cheap local call, not a request

    def __init__(self, source):
        self._owned = False
        self._lock = threading.Lock()   # a seek and its read are one step for threads
        self._buffer = None
        self._file = None
        self.name = None
        if isinstance(source, (str, os.PathLike)):
            self.name = os.fspath(source)
            self._file = open(self.name, "rb")
            self._owned = True
        elif isinstance(source, (bytes, bytearray, memoryview)):
            # Keep an immutable copy: decoded metadata may point into it.
            self._buffer = bytes(source)
        elif hasattr(source, "read") and hasattr(source, "seek"):
            self._file = source
            self.name = getattr(source, "name", None)
        else:
            raise ArgumentError(f"cannot read Parquet from {type(source).__name__}: give a path, "
                                f"a URL, bytes or a binary file object")
        if self._file is not None:
            self._file.seek(0, io.SEEK_END)
            self.size = self._file.tell()
        else:
            self.size = len(self._buffer)

    def read(self, offset, length):
        """Return exactly `length` bytes at `offset` (immutable bytes)."""
        self._check_open()
        if offset < 0 or length < 0 or offset + length > self.size:
            raise CorruptFileError(
                f"byte range [{offset}, {offset + length}) lies outside the file "
                f"of {self.size} bytes")
        if self._buffer is not None:
            return self._buffer[offset:offset + length]
        with self._lock:
            self._file.seek(offset)
            data = self._file.read(length)
        if len(data) != length:
            raise CorruptFileError(f"short read at offset {offset}: {len(data)} of {length} bytes")
        return bytes(data)

    def read_view(self, offset, length):
        """Like :meth:`read`, but a view into a buffer this Source reuses.

        The view is valid until the next ``read_view`` call in the same thread:
        for decoders that copy out what they keep (column chunks), this saves
        allocating and faulting in fresh memory for every chunk. Buffers up to
        :data:`SCRATCH_KEEP` bytes are kept per thread for the next call.
        """
        self._check_open()
        if offset < 0 or length < 0 or offset + length > self.size:
            raise CorruptFileError(
                f"byte range [{offset}, {offset + length}) lies outside the file "
                f"of {self.size} bytes")
        if self._buffer is not None:
            return memoryview(self._buffer)[offset:offset + length]
        view = _scratch(length)
        with self._lock:
            self._file.seek(offset)
            got = self._file.readinto(view)
        if got != length:
            raise CorruptFileError(f"short read at offset {offset}: {got} of {length} bytes")
        return view

    def read_many(self, ranges):
        """The bytes of several (offset, length) ranges, in order."""
        return [self.read(offset, length) for offset, length in ranges]

    def prefetch(self, ranges):
        """Nothing to do: local reads are cheap one by one (a remote source fetches
        ``ranges`` ahead, coalesced)."""

    def forget(self, keep_from):
        """Nothing to drop: a local source keeps no ranges."""

    def _check_open(self):
        # A stream or batch iterator may outlive the ParquetFile's `with` block.
        if self._owned and self._file is None:
            raise ValueError(f"read from {self.name}, which was closed")

    def close(self):
        if self._owned and self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"Source({self.name or '<buffer>'!s}, {self.size} bytes)"
