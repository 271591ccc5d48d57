"""The threads pqkit's readers and writers decode and encode column chunks on.

``read_table`` and ``write_table`` hand independent column chunks to one shared
pool of worker threads; the kernels release the GIL in their inner loops and the
codecs release it while they (de)compress, so chunks proceed on several cores.
The pool has :func:`max_threads` workers: the number of CPUs this process may
run on, ``PQKIT_NUM_THREADS`` from the environment, or what
:func:`set_max_threads` last set. ``use_threads=False`` on a call, or a limit of
1, does the work in the calling thread.

>>> import pqkit.threads as th
>>> th.set_max_threads(2)
>>> th.max_threads()
2
"""
import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

from pqkit.memory import pooled_buffers

__all__ = ["max_threads", "set_max_threads", "map_ordered"]

_lock = threading.Lock()
_pool = None
_limit = None
_local = threading.local()      # .worker: this thread belongs to the pool


def _cpus():
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:      # not on Linux
        return os.cpu_count() or 1


def max_threads():
    """The number of worker threads reads and writes use."""
    return _limit


def set_max_threads(n):
    """Use at most ``n`` worker threads (1: everything in the calling thread)."""
    global _limit, _pool
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"the thread count must be an int >= 1, got {n!r}")
    with _lock:
        old, _pool, _limit = _pool, None, n
    if old is not None:
        old.shutdown(wait=False)        # running tasks finish; new ones go to a new pool


def _executor():
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_limit, thread_name_prefix="pqkit")
        return _pool


def _run(fn, item):
    _local.worker = True
    # numpy's allocator is chosen per context: workers allocate from pqkit's pool too.
    with pooled_buffers():
        return fn(item)


def map_ordered(fn, items, use_threads=True):
    """``[fn(x) for x in items]``, computed on the worker threads.

    Results come in the order of ``items``. When any call raises, the calls not
    yet started are cancelled, the running ones are waited for, and the
    exception of the first failing item (in order) is raised: the same one a
    loop in the calling thread would raise. A call made from a worker thread
    runs its items in that thread, so nested use cannot deadlock the pool.
    """
    items = list(items)
    if not use_threads or _limit == 1 or len(items) < 2 or getattr(_local, "worker", False):
        return [fn(x) for x in items]
    pool = _executor()
    futures = [pool.submit(_run, fn, x) for x in items]
    results = []
    try:
        for f in futures:
            results.append(f.result())
    except BaseException:
        for f in futures:
            f.cancel()
        wait(futures)
        raise
    return results


def _limit_from_environment():
    text = os.environ.get("PQKIT_NUM_THREADS")
    if text is None or not text.strip():
        return _cpus()
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise ValueError(f"PQKIT_NUM_THREADS must be a whole number >= 1, got {text!r}")
    return n


def _after_fork_child():
    # A forked child has none of the parent's threads: it starts its own pool.
    global _pool, _lock
    _pool, _lock = None, threading.Lock()


_limit = _limit_from_environment()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_child)
