"""The writers matrix: pqkit reads what fastparquet, polars, DuckDB and pyarrow write.

The files are generated at test time by the installed writers under each of
their options (see ``writers_matrix``), read by pqkit, and compared with
pyarrow's ``read_table(...).to_pydict()`` of the same file.
"""
import os

import pyarrow.parquet as pq
import pytest

import pqkit
import pqkit.dataset
from arrow_bridge import same_values
from writers_matrix import all_cases

pytestmark = pytest.mark.interop

CASES = all_cases()


def assert_same(got, theirs):
    assert list(got) == list(theirs)
    for name in theirs:
        same_values(got[name], theirs[name], name)


def _pyarrow_values(path):
    return pq.read_table(path).to_pydict()


def _concat(tables):
    out = {}
    for t in tables:
        for name, values in t.to_pydict().items():
            out.setdefault(name, []).extend(values)
    return out


def _part_files(root):
    return sorted(os.path.join(d, f) for d, _, files in os.walk(root) for f in files
                  if f.endswith(".parquet"))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_pqkit_reads_what_the_writer_wrote(case, tmp_path):
    path = case.write(str(tmp_path))
    files = _part_files(path) if os.path.isdir(path) else [path]
    assert files
    for f in files:
        if case.refused:
            with pytest.raises(Exception):
                pq.read_table(f)
            with pytest.raises(pqkit.ParquetError):
                pqkit.read_table(f)
            continue
        theirs = (case.reference or _pyarrow_values)(f)
        assert_same(pqkit.read_table(f).to_pydict(), theirs)
        if case.batches:
            batches = list(pqkit.ParquetFile(f).iter_batches(batch_size=37))
            assert len(batches) >= 2
            assert_same(_concat(batches), theirs)
        if case.filters:
            ours = pqkit.read_table(f, filters=case.filters).to_pydict()
            assert_same(ours, pq.read_table(f, filters=case.filters).to_pydict())
    if os.path.isdir(path):
        # The partitioned directory as a whole, partition columns included.
        ours = pqkit.dataset.open(path).read().to_pydict()
        assert_same(_sorted_by_i(ours), _sorted_by_i(pq.read_table(path).to_pydict()))


def _sorted_by_i(columns):
    order = sorted(range(len(columns["i"])), key=columns["i"].__getitem__)
    return {name: [values[k] for k in order] for name, values in columns.items()}


def test_the_matrix_covers_every_writer():
    counts = {}
    for c in CASES:
        counts[c.writer] = counts.get(c.writer, 0) + 1
    assert set(counts) == {"fastparquet", "polars", "duckdb", "pyarrow"}
    assert min(counts.values()) >= 10
