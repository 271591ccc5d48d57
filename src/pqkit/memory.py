"""Reuse of large decoded buffers between reads.

pqkit allocates the numpy buffers of what it decodes and converts through a
pool (:mod:`pqkit._native.mempool`, a numpy NEP 49 allocator): a buffer of
256 KiB or more that is freed goes on a free list and serves the next read of
a similar size instead of fresh memory, which the kernel must fault in and
zero page by page (about half a millisecond per megabyte). Arrow's memory pool
does the same. Only arrays made inside pqkit's readers, writers and
conversions use the pool; other numpy code is untouched.

At most :func:`buffer_cache_limit` bytes of freed buffers are kept (128 MiB by
default, or ``PQKIT_BUFFER_CACHE_MB`` from the environment); ``0`` turns the
cache off.

>>> import pqkit.memory as m
>>> m.set_buffer_cache_limit(64 << 20)
>>> m.buffer_cache_stats()["limit_bytes"]
67108864
"""
import functools
import os
from contextlib import contextmanager

from pqkit._native import mempool

__all__ = ["pooled_buffers", "uses_pool", "set_buffer_cache_limit", "buffer_cache_limit",
           "release_buffer_cache", "buffer_cache_stats"]


@contextmanager
def pooled_buffers():
    """Allocate numpy buffers through pqkit's pool inside the ``with`` block."""
    previous = mempool.install()
    try:
        yield
    finally:
        mempool.restore(previous)


def uses_pool(fn):
    """Decorate a function so the arrays it allocates come from the pool."""
    @functools.wraps(fn)
    def pooled(*args, **kwargs):
        previous = mempool.install()
        try:
            return fn(*args, **kwargs)
        finally:
            mempool.restore(previous)
    return pooled


def set_buffer_cache_limit(nbytes):
    """Keep at most ``nbytes`` of freed buffers for reuse; 0 disables the cache."""
    if nbytes < 0:
        raise ValueError(f"the buffer cache limit must be >= 0, got {nbytes}")
    mempool.set_limit(int(nbytes))


def buffer_cache_limit():
    """The current limit in bytes."""
    return mempool.stats()["limit_bytes"]


def release_buffer_cache():
    """Give every cached buffer back to the system now."""
    mempool.release()


def buffer_cache_stats():
    """``cached_bytes``, ``in_use_bytes`` (pooled buffers alive), ``limit_bytes``,
    ``hits`` and ``misses`` (pooled allocations served from the cache or not)."""
    return mempool.stats()


def _limit_from_environment():
    text = os.environ.get("PQKIT_BUFFER_CACHE_MB")
    if text is None:
        return
    try:
        mb = float(text)
    except ValueError:
        raise ValueError(f"PQKIT_BUFFER_CACHE_MB must be a number of megabytes, "
                         f"got {text!r}") from None
    set_buffer_cache_limit(int(mb * (1 << 20)))


_limit_from_environment()
