"""Remote sources: a file on an object store (or any fsspec file system) read by ranges.

A :class:`RangeSource` gives the same ``read``/``read_view`` calls as
:class:`pqkit.read.fetch.source.Source`, but each miss is a ranged request, so it
keeps what it fetched in a cache and lets a reader ask for everything it will
need first (:meth:`RangeSource.prefetch`): the ranges are coalesced
(:mod:`pqkit.read.fetch.coalesce`) and fetched concurrently by a thread pool, and the
decoders then find their bytes in the cache. A typical read of one column of a
remote file is:

1. one metadata request for the size (``HEAD`` on S3; none when the caller
   passes ``size``);
2. one GET of the last 64 KiB (:data:`pqkit.read.options.TAIL_READ`, configurable
   as ``ReadOptions.tail_read``), which usually holds the footer and often the
   page index;
3. GETs of the coalesced chunk ranges, at most ``max_range_size`` bytes each.

:class:`BufferSource` serves a read from ranges the caller fetched itself
(``ParquetFile.read(..., buffers=...)``) and makes no request at all.

fsspec is imported only when a URL or a file system is given; it and the
protocol's package (s3fs, gcsfs, adlfs, aiohttp) are optional
(``pip install pqkit[s3]``).
"""
import bisect
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from pqkit.errors import ArgumentError, CorruptFileError, ParquetError
from pqkit.filesystems import object_size, resolve
from pqkit.read.fetch.coalesce import DEFAULT_POLICY, coalesce
from pqkit.read.fetch.source import Source

__all__ = ["BufferSource", "RangeSource", "open_source"]


def open_source(source, storage_options=None, filesystem=None, policy=DEFAULT_POLICY):
    """A source of the file's bytes: a :class:`RangeSource` for a URL or for a path on an
    fsspec ``filesystem``; a :class:`~pqkit.read.fetch.source.Source` for local paths, buffers
    and file objects; an existing source as is."""
    if isinstance(source, (Source, RangeSource, BufferSource)):
        return source
    if filesystem is not None or isinstance(source, str):
        remote = resolve(source, storage_options, filesystem)
        if remote is not None:
            return RangeSource(remote[0], remote[1], policy=policy, name=str(source))
    elif storage_options:
        raise ValueError("storage_options apply to URLs only, not to "
                         f"{type(source).__name__} sources")
    return Source(source)


class _Cache:
    """Fetched ranges by offset; a request is served when fetched ranges cover it
    (possibly several adjacent ones, when a range was split to stay below the
    maximum request size)."""

    def __init__(self):
        self.starts = []
        self.data = {}
        self.lock = threading.Lock()

    def add(self, offset, data):
        with self.lock:
            if offset not in self.data:
                bisect.insort(self.starts, offset)
            self.data[offset] = data

    def get(self, offset, length):
        """A memoryview of bytes [offset, offset + length) or None when not all cached."""
        with self.lock:
            i = bisect.bisect_right(self.starts, offset) - 1
            if i < 0:
                return None
            start = self.starts[i]
            block = self.data[start]
            if offset + length <= start + len(block):
                return memoryview(block)[offset - start:offset - start + length]
            pieces, pos, end = [], offset, offset + length
            while pos < end:
                if i >= len(self.starts):
                    return None
                start = self.starts[i]
                block = self.data[start]
                if not start <= pos < start + len(block):
                    return None
                take = min(end, start + len(block)) - pos
                pieces.append(memoryview(block)[pos - start:pos - start + take])
                pos += take
                i += 1
            return memoryview(b"".join(pieces))

    def clear(self, keep_from):
        """Drop every range that starts before ``keep_from``."""
        with self.lock:
            keep = [s for s in self.starts if s >= keep_from]
            self.data = {s: self.data[s] for s in keep}
            self.starts = keep


class RangeSource:
    """Random access to one remote object through ranged reads.

    Parameters
    ----------
    fs : fsspec.AbstractFileSystem or any object with ``cat_file(path, start, end)``
        and ``info(path)``
    path : str
        The object's path on ``fs``.
    size : int, optional
        The object's size when known (saves the metadata request).
    policy : pqkit.read.fetch.coalesce.CoalescePolicy
        Hole size, maximum request size and concurrency of :meth:`prefetch`.
    name : str, optional
        What messages call the file (default ``path``).

    Attributes
    ----------
    requests : list of (int, int)
        Every ranged request made, as (offset, length), in order.
    """
    ranged = True

    def __init__(self, fs, path, *, size=None, policy=DEFAULT_POLICY, name=None):
        self.fs = fs
        self.path = path
        self.name = name or path
        self.policy = policy
        self.requests = []
        self._cache = _Cache()
        self._closed = False
        self.size = object_size(fs, path, self.name) if size is None else int(size)

    # --- fetching -----------------------------------------------------------------------
    def _fetch(self, offset, length):
        self.requests.append((offset, length))
        data = self.fs.cat_file(self.path, start=offset, end=offset + length)
        if len(data) != length:
            raise CorruptFileError(f"{self.name}: short read at offset {offset}: "
                                   f"{len(data)} of {length} bytes")
        self._cache.add(offset, bytes(data))

    def prefetch(self, ranges, policy=None):
        """Fetch the (offset, length) ``ranges`` not yet cached: coalesced by ``policy``
        (default the source's), concurrently."""
        policy = policy or self.policy
        self._check_open()
        missing = [(o, n) for o, n in ranges if n > 0 and self._cache.get(o, n) is None]
        for o, n in missing:
            self._check_range(o, n)
        todo = coalesce(missing, policy)
        if len(todo) <= 1:
            for o, n in todo:
                self._fetch(o, n)
            return
        workers = min(len(todo), policy.max_concurrency)
        with ThreadPoolExecutor(workers, thread_name_prefix="pqkit-fetch") as pool:
            for fut in [pool.submit(self._fetch, o, n) for o, n in todo]:
                fut.result()

    def forget(self, keep_from):
        """Drop the cached ranges that start before ``keep_from`` (a reader keeps the
        footer's tail, which often holds the page index, for later reads)."""
        self._cache.clear(keep_from)

    # --- the Source interface -----------------------------------------------------------
    def read_view(self, offset, length):
        """A view of ``length`` bytes at ``offset``, fetched unless cached."""
        self._check_open()
        self._check_range(offset, length)
        view = self._cache.get(offset, length)
        if view is None:
            self._fetch(offset, length)
            view = self._cache.get(offset, length)
        return view

    def read(self, offset, length):
        """``length`` bytes at ``offset`` (immutable bytes)."""
        return bytes(self.read_view(offset, length))

    def read_many(self, ranges):
        """The bytes of several ranges (pages a page index chose), fetched concurrently;
        only touching ranges are merged, since the point of choosing pages is to skip
        the bytes between them."""
        self.prefetch(ranges, replace(self.policy, hole_size=0))
        return [self.read(o, n) for o, n in ranges]

    def _check_range(self, offset, length):
        if offset < 0 or length < 0 or offset + length > self.size:
            raise CorruptFileError(
                f"byte range [{offset}, {offset + length}) lies outside the file "
                f"{self.name} of {self.size} bytes")

    def _check_open(self):
        if self._closed:
            raise ValueError(f"read from {self.name}, which was closed")

    def close(self):
        self._closed = True
        self._cache.clear(self.size + 1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"RangeSource({self.name}, {self.size} bytes, {len(self.requests)} requests)"


class BufferSource:
    """The bytes of a file as ranges its caller fetched: no request is ever made.

    Parameters
    ----------
    size : int
        The file's size.
    buffers : mapping {offset: bytes} or iterable of (offset, bytes)
        Fetched ranges, e.g. those :meth:`pqkit.ParquetFile.plan` named.
    name : str, optional
        What messages call the file.
    """
    ranged = True

    def __init__(self, size, buffers, name=None):
        self.size = size
        self.name = name
        self._cache = _Cache()
        items = buffers.items() if hasattr(buffers, "items") else buffers
        try:
            for offset, data in items:
                if isinstance(offset, tuple):      # {(offset, length): bytes}, as plan() keys
                    offset = offset[0]
                self._cache.add(int(offset), bytes(data))
        except (TypeError, ValueError) as exc:
            raise ArgumentError(
                f"buffers must be {{offset: bytes}}, {{(offset, length): bytes}} or (offset, "
                f"bytes) pairs, as ParquetFile.plan() names the ranges: {exc}") from None

    def read_view(self, offset, length):
        view = self._cache.get(offset, length)
        if view is None:
            raise ParquetError(
                f"the read needs bytes [{offset}, {offset + length}) of "
                f"{self.name or 'the file'}, which are not among the buffers given; "
                f"fetch the ranges ParquetFile.plan() returns for the same arguments")
        return view

    def read(self, offset, length):
        return bytes(self.read_view(offset, length))

    def read_many(self, ranges):
        return [self.read(o, n) for o, n in ranges]

    def prefetch(self, ranges):
        """Nothing to fetch: a missing range fails when it is read."""

    def forget(self, keep_from):
        """Nothing to drop: the buffers belong to the caller."""

    def close(self):
        pass
