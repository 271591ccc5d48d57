"""Reading and writing on several threads: the same Tables and the same bytes as one
thread, the same errors, the setting and its environment variable, the shared pool."""
import io
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pqkit
from pqkit import threads
from pqkit.memory import buffer_cache_stats


@pytest.fixture(scope="module")
def four_threads():
    before = threads.max_threads()
    threads.set_max_threads(4)      # more workers than cores: tasks interleave
    yield
    threads.set_max_threads(before)


def _table(data, n, null_rate, seed):
    rng = np.random.default_rng(seed)
    nulls = rng.random(n) < null_rate
    ints = [None if m else int(v) for m, v in zip(nulls, rng.integers(-2**40, 2**40, n))]
    words = [None if m else f"w{v}" for m, v in zip(nulls, rng.integers(0, data.draw(
        st.sampled_from([3, 1000])), n))]
    lists = [None if m else list(range(int(v))) for m, v in zip(nulls, rng.integers(0, 4, n))]
    return {"i": ints, "s": words, "l": lists, "f": rng.standard_normal(n),
            "st": [{"a": v, "b": str(v)} for v in range(n)]}


@settings(max_examples=15, deadline=None)
@given(data=st.data(), n=st.integers(0, 1500), null_rate=st.sampled_from([0, 0.3, 1]),
       row_group_size=st.sampled_from([1, 7, 500, 10_000]),
       compression=st.sampled_from(["none", "snappy", "zstd"]),
       page_version=st.sampled_from(["1.0", "2.0"]), seed=st.integers(0, 2**16))
def test_threads_give_the_same_bytes_and_tables(four_threads, data, n, null_rate,
                                                row_group_size, compression, page_version,
                                                seed):
    table = _table(data, n, null_rate, seed)
    options = dict(row_group_size=row_group_size, compression=compression,
                   data_page_version=page_version, data_page_size=256,
                   bloom_filter_columns=["s"])
    one, many = io.BytesIO(), io.BytesIO()
    pqkit.write_table(table, one, use_threads=False, **options)
    pqkit.write_table(table, many, **options)
    assert many.getvalue() == one.getvalue()
    serial = pqkit.read_table(one.getvalue(), use_threads=False)
    threaded = pqkit.read_table(one.getvalue())
    assert threaded.equals(serial, check_metadata=True)
    assert threaded.to_pydict() == serial.to_pydict()
    assert threaded.num_rows == n
    cols = ["l", "i"]
    assert pqkit.read_table(one.getvalue(), columns=cols).to_pydict() == \
        pqkit.read_table(one.getvalue(), columns=cols, use_threads=False).to_pydict()


def test_path_source_read_on_threads(tmp_path, four_threads):
    """Workers share one open file: each seek and read must stay together."""
    path = tmp_path / "t.parquet"
    n = 20_000
    data = {f"c{k}": np.arange(k, k + n, dtype=np.int64) for k in range(8)}
    pqkit.write_table(data, path, row_group_size=2_000, compression="none")
    with pqkit.ParquetFile(path) as f:
        for _ in range(3):
            got = f.read()
            assert all(np.array_equal(got.column(f"c{k}").values, data[f"c{k}"])
                       for k in range(8))
        assert f.read_row_group(3, columns=["c5"]).column("c5").to_pylist()[:2] == \
            [5 + 6000, 5 + 6001]


def test_worker_threads_do_the_decoding(four_threads, monkeypatch):
    from pqkit.read.decode.row_group import RowGroupReader
    seen = set()
    decode = RowGroupReader.decode_leaf

    def spy(self, g, node):
        seen.add(threading.current_thread().name)
        return decode(self, g, node)

    monkeypatch.setattr(RowGroupReader, "decode_leaf", spy)
    data = io.BytesIO()
    pqkit.write_table({"a": list(range(100)), "b": list(range(100))}, data, row_group_size=10)
    pqkit.read_table(data.getvalue())
    assert seen and all(name.startswith("pqkit") for name in seen)
    seen.clear()
    pqkit.read_table(data.getvalue(), use_threads=False)
    assert seen == {threading.current_thread().name}


def test_a_corrupt_file_raises_the_single_threaded_error(four_threads):
    buf = io.BytesIO()
    pqkit.write_table({"a": list(range(1000)), "b": [str(i) for i in range(1000)]}, buf,
                      row_group_size=100, compression="none", write_checksums=False)
    data = bytearray(buf.getvalue())
    md = pqkit.read_metadata(bytes(data))
    for g in (2, 7):      # break the values of two row groups' "b" chunks
        meta = md.row_group(g).column(1).thrift.meta_data
        start = meta.dictionary_page_offset or meta.data_page_offset
        data[start:start + meta.total_compressed_size] = b"\xff" * meta.total_compressed_size
    errors = []
    for use_threads in (False, True):
        with pytest.raises(pqkit.ParquetError) as info:
            pqkit.read_table(bytes(data), use_threads=use_threads)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
    first = md.row_group(2).column(1).thrift.meta_data
    assert str(first.dictionary_page_offset or first.data_page_offset) in errors[0][1]


def test_map_ordered_order_errors_and_nesting(four_threads):
    assert threads.map_ordered(lambda x: x * x, range(50)) == [x * x for x in range(50)]

    def fail_on(x):
        if x in (3, 30):
            raise KeyError(x)
        return x
    with pytest.raises(KeyError) as info:
        threads.map_ordered(fail_on, range(40))
    assert info.value.args == (3,)
    # A task that maps again runs its inner items in its own thread: no deadlock
    # even when every worker waits.
    inner = threads.map_ordered(lambda x: threads.map_ordered(lambda y: x + y, range(3)),
                                range(12))
    assert inner == [[x, x + 1, x + 2] for x in range(12)]


def test_buffer_pool_balances_after_threaded_reads(four_threads):
    buf = io.BytesIO()
    n = 200_000
    pqkit.write_table({f"c{k}": np.arange(n, dtype=np.int64) for k in range(6)}, buf,
                      row_group_size=50_000, compression="none")
    before = buffer_cache_stats()["in_use_bytes"]
    for _ in range(4):
        table = pqkit.read_table(buf.getvalue())
        assert table.column("c5").values[-1] == n - 1
        del table
    assert buffer_cache_stats()["in_use_bytes"] == before


def test_setting_is_checked():
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(ValueError, match="thread count"):
            threads.set_max_threads(bad)


def _max_threads_with(env_value):
    env = dict(os.environ, PQKIT_NUM_THREADS=env_value)
    return subprocess.run([sys.executable, "-c", "import pqkit.threads as t; print(t.max_threads())"],
                          env=env, capture_output=True, text=True)


def test_environment_variable():
    assert _max_threads_with("3").stdout.strip() == "3"
    bad = _max_threads_with("many")
    assert bad.returncode != 0 and "PQKIT_NUM_THREADS must be a whole number" in bad.stderr


def test_one_thread_runs_in_the_caller():
    before = threads.max_threads()
    threads.set_max_threads(1)
    try:
        names = threads.map_ordered(lambda _: threading.current_thread().name, range(5))
        assert names == [threading.current_thread().name] * 5
    finally:
        threads.set_max_threads(before)
