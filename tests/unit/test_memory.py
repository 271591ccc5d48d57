"""The buffer pool (pqkit.memory over _native.mempool): size classes, reuse, limits,
zeroing, resizing, threads and fork, and that pqkit's readers allocate through it
without leaking the handler into the caller's context."""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pqkit
import pqkit.memory as memory
from pqkit._native import mempool
from thread_runner import run_in_threads

try:
    from numpy._core.multiarray import get_handler_name
except ImportError:                                  # numpy < 2
    from numpy.core.multiarray import get_handler_name

POOL = "pqkit_pool"


def owner_handler(a):
    """The allocator of the array that owns ``a``'s memory (views report None)."""
    while isinstance(a.base, np.ndarray):
        a = a.base
    return get_handler_name(a)
BIG = 1 << 20            # comfortably pooled


@pytest.fixture
def clean_pool():
    limit = memory.buffer_cache_limit()
    memory.release_buffer_cache()
    yield
    memory.set_buffer_cache_limit(limit)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 1 << 41))
def test_class_capacity_bounds(n):
    cap = mempool.class_capacity(n)
    if mempool.POOL_MIN <= n < (1 << 39):
        assert n <= cap <= n + n // 8 + 1
        if n & (n - 1) == 0:
            assert cap == n
        assert mempool.class_capacity(cap) == cap       # a class's capacity is its own class
    else:
        assert cap == n


def test_handler_only_inside_the_block():
    assert get_handler_name() != POOL
    with memory.pooled_buffers():
        assert get_handler_name() == POOL
        a = np.empty(BIG, np.uint8)
    assert get_handler_name() != POOL
    assert get_handler_name(a) == POOL           # the array keeps its allocator
    b = np.empty(BIG, np.uint8)
    assert get_handler_name(b) != POOL


def test_freed_block_is_reused_and_counted(clean_pool):
    with memory.pooled_buffers():
        a = np.empty(BIG, np.uint8)
        a[:] = 7
        addr = a.ctypes.data
        del a
        stats = memory.buffer_cache_stats()
        assert stats["cached_bytes"] == mempool.class_capacity(BIG)
        b = np.empty(BIG - 1000, np.uint8)        # same size class
        assert b.ctypes.data == addr
        assert memory.buffer_cache_stats()["hits"] == stats["hits"] + 1
        assert memory.buffer_cache_stats()["cached_bytes"] == 0


def test_zeros_are_zero_on_a_dirty_reused_block(clean_pool):
    with memory.pooled_buffers():
        a = np.empty(BIG // 8, np.int64)
        a[:] = -1
        del a
        z = np.zeros(BIG // 8, np.int64)
        assert memory.buffer_cache_stats()["hits"] >= 1
        assert not z.any()


def test_limit_bounds_the_cache_and_zero_disables_it(clean_pool):
    memory.set_buffer_cache_limit(3 * BIG)
    with memory.pooled_buffers():
        arrays = [np.empty(BIG, np.uint8) for _ in range(6)]
        del arrays
        assert memory.buffer_cache_stats()["cached_bytes"] == 3 * BIG
        memory.set_buffer_cache_limit(BIG)
        assert memory.buffer_cache_stats()["cached_bytes"] == BIG
        memory.set_buffer_cache_limit(0)
        assert memory.buffer_cache_stats()["cached_bytes"] == 0
        a = np.empty(BIG, np.uint8)
        del a
        assert memory.buffer_cache_stats()["cached_bytes"] == 0
    with pytest.raises(ValueError):
        memory.set_buffer_cache_limit(-1)


def test_a_full_cache_gives_up_the_blocks_freed_longest_ago(clean_pool):
    """A workload that moves to new sizes gets them cached: the newly freed block
    stays and the oldest cached ones (of other sizes) make room for it."""
    memory.set_buffer_cache_limit(3 * BIG)
    with memory.pooled_buffers():
        first = [np.empty(BIG, np.uint8) for _ in range(3)]
        del first                                   # the cache is full of 1 MiB blocks
        other = np.empty(2 * BIG, np.uint8)         # another class: a miss
        stats = memory.buffer_cache_stats()
        del other
        after = memory.buffer_cache_stats()
        assert after["cached_bytes"] <= 3 * BIG
        again = np.empty(2 * BIG, np.uint8)         # now served from the cache
        assert memory.buffer_cache_stats()["hits"] == after["hits"] + 1
        one = np.empty(BIG, np.uint8)               # the newest 1 MiB block survived
        assert memory.buffer_cache_stats()["hits"] == after["hits"] + 2
        assert stats["misses"] + 0 == after["misses"]
        del again, one
        assert memory.buffer_cache_stats()["cached_bytes"] == 3 * BIG
        memory.release_buffer_cache()
        assert memory.buffer_cache_stats()["cached_bytes"] == 0


def test_in_use_bytes_follow_live_arrays(clean_pool):
    before = memory.buffer_cache_stats()["in_use_bytes"]
    with memory.pooled_buffers():
        a = np.empty(3 * BIG, np.uint8)
    assert memory.buffer_cache_stats()["in_use_bytes"] == before + 3 * BIG
    del a
    assert memory.buffer_cache_stats()["in_use_bytes"] == before


@pytest.mark.parametrize("start,new", [
    (BIG, BIG - 5000),          # small shrink: the block stays
    (BIG, BIG // 4),            # big shrink: moved to a smaller block
    (BIG, 4 * BIG),             # growth
    (1000, 3 * BIG),            # small block grows into a pooled one
    (3 * BIG, 1000),            # pooled block shrinks to a small one
    (1000, 3000),               # small stays small
])
def test_resize_keeps_the_prefix(clean_pool, start, new):
    with memory.pooled_buffers():
        a = np.arange(start, dtype=np.uint8)
        expect = a[:min(start, new)].copy()
        a.resize(new, refcheck=False)
        assert np.array_equal(a[:min(start, new)], expect)
        a[-1] = 5                                    # the whole new size is writable
        if new < start:
            assert len(a) == new


def test_small_and_empty_arrays(clean_pool):
    with memory.pooled_buffers():
        for n in [0, 1, 15, 16, 17, 1023, mempool.POOL_MIN - 1, mempool.POOL_MIN]:
            a = np.full(n, 3, np.uint8)
            assert a.sum() == 3 * n
            assert np.zeros(n, np.uint8).sum() == 0


def test_threads_allocate_and_free_concurrently(clean_pool):
    def work(seed):
        rng = np.random.default_rng(seed)
        with memory.pooled_buffers():
            for _ in range(200):
                n = int(rng.integers(1, 4 * BIG))
                a = np.full(n, seed % 256, np.uint8)
                assert a[0] == a[-1] == seed % 256

    assert run_in_threads(work) == []
    stats = memory.buffer_cache_stats()
    assert stats["cached_bytes"] <= stats["limit_bytes"]


def _fork_child_using_the_pool(fill):
    """Fork a child that allocates, checks and frees a pooled block, then exits with
    status 0 when all went well; returns its pid."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            with memory.pooled_buffers():
                b = np.full(2 * BIG, fill, np.uint8)
                code = 0 if b.sum() == 2 * BIG * fill else 1
                del b
        finally:
            os._exit(code)
    return pid


@pytest.mark.skipif(not hasattr(os, "fork"),
                    reason="no fork() on this platform, so no child process to protect")
def test_child_process_can_use_the_pool(clean_pool):
    with memory.pooled_buffers():
        keep = np.ones(BIG, np.uint8)
    pid = _fork_child_using_the_pool(9)
    _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 0
    assert keep.sum() == BIG


def _wait_or_kill(pid, seconds=30.0):
    """The child's exit status, or None after killing it when it hangs."""
    import signal
    import time
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.WEXITSTATUS(status)
        time.sleep(0.01)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


@pytest.mark.skipif(not hasattr(os, "fork"),
                    reason="no fork() on this platform, so no child process to protect")
def test_fork_while_other_threads_hold_and_churn_pooled_buffers(clean_pool):
    # The child of fork() first clears the other threads' states, freeing the arrays
    # in their thread-locals into the pool, and a churning thread may hold the pool's
    # lock at the instant of fork: either used to hang the child forever.
    import threading
    local = threading.local()
    stop = threading.Event()
    holding = threading.Barrier(3)

    def hold():
        with memory.pooled_buffers():
            local.block = np.ones(BIG, np.uint8)
        holding.wait()
        stop.wait()

    def churn():
        holding.wait()
        with memory.pooled_buffers():
            while not stop.is_set():
                np.empty(BIG + 1, np.uint8)

    threads = [threading.Thread(target=hold), threading.Thread(target=churn)]
    for t in threads:
        t.start()
    holding.wait()
    try:
        codes = []
        for _ in range(20):
            codes.append(_wait_or_kill(_fork_child_using_the_pool(3)))
            if codes[-1] != 0:
                break
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert codes == [0] * 20, codes


def test_readers_allocate_from_the_pool_and_restore_the_handler(tmp_path):
    path = tmp_path / "x.parquet"
    n = 300_000
    pqkit.write_table({"x": np.arange(n, dtype=np.int64),
                       "f": np.linspace(0, 1, n)}, path)
    table = pqkit.read_table(path)
    assert get_handler_name() != POOL
    assert owner_handler(table.column("x").values) == POOL
    df = table.to_pandas()
    assert get_handler_name() != POOL
    assert df["x"].to_numpy()[-1] == n - 1
    f = pqkit.ParquetFile(path)
    for batch in f.iter_batches(batch_size=1000):
        assert get_handler_name() != POOL           # not leaked across the yield
        assert batch.num_rows == 1000
        break
    assert owner_handler(f.read_row_group(0).column("f").values) == POOL


def test_environment_sets_the_limit():
    import subprocess
    import sys
    code = ("import pqkit.memory as m; print(m.buffer_cache_limit())")
    env = dict(os.environ, PQKIT_BUFFER_CACHE_MB="3")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout
    assert int(out) == 3 << 20
    env["PQKIT_BUFFER_CACHE_MB"] = "lots"
    bad = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert bad.returncode != 0 and "PQKIT_BUFFER_CACHE_MB" in bad.stderr
