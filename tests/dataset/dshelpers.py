"""Helpers shared by the dataset tests: row comparison, pyarrow reads, forked writers."""
import math
import os
import signal

import pyarrow as pa
import pyarrow.dataset as pa_ds

import pqkit.dataset as pds
from pqkit.dataset import fsops


def _norm(v):
    if isinstance(v, float) and math.isnan(v):
        return ("nan",)
    if isinstance(v, float) and v == 0:
        return 0.0
    return v


def row_set(table_or_dict, columns=None):
    """Sorted list of row tuples (order-free comparison; NaN equals NaN)."""
    d = table_or_dict if isinstance(table_or_dict, dict) else table_or_dict.to_pydict()
    cols = columns or sorted(d)
    n = len(d[cols[0]]) if cols else 0
    rows = [tuple(_norm(d[c][i]) for c in cols) for i in range(n)]
    return sorted(rows, key=repr)


def arrow_partitioning(ds):
    """pyarrow hive partitioning typed like the dataset's partition columns."""
    fields = []
    for f in ds.schema:
        if f.name in ds.partition_by:
            fields.append(pa.field(f.name, _arrow_type(f.type)))
    return pa_ds.partitioning(pa.schema(fields), flavor="hive")


def _arrow_type(t):
    from pqkit import datatypes as T
    if isinstance(t, T.IntegerType):
        return getattr(pa, str(t))()
    if isinstance(t, T.FloatingType):
        return pa.float32() if t.bit_width == 32 else pa.float64()
    if isinstance(t, T.StringType):
        return pa.string()
    if isinstance(t, T.BooleanType):
        return pa.bool_()
    if isinstance(t, T.Date32Type):
        return pa.date32()
    return pa.string()              # pyarrow cannot type decimal partitions: compare the text


def pyarrow_rows(root, columns=None):
    """Rows a plain ``pyarrow.dataset`` read of the root returns (typed partitions)."""
    ds = pds.open(root)
    dataset = pa_ds.dataset(root, partitioning=arrow_partitioning(ds), format="parquet")
    if not dataset.files:
        # With no data file left pyarrow knows only the partition columns: no rows.
        return []
    return row_set(dataset.to_table().to_pydict(), columns)


def pyarrow_rows_untyped(root, columns=None):
    """Rows of ``pyarrow.dataset.dataset(root, partitioning="hive")`` (inferred types)."""
    table = pa_ds.dataset(root, partitioning="hive", format="parquet").to_table()
    return row_set(table.to_pydict(), columns)


def run_forked(fn, crash_at=None):
    """Run ``fn()`` in a forked child; returns (killed by SIGKILL, exit code)."""
    pid = os.fork()
    if pid == 0:                                   # child
        code = 0
        try:
            if crash_at:
                os.environ[fsops.CRASH_ENV] = crash_at
            fsops._crash_counts.clear()
            fn()
        except BaseException:                      # noqa: BLE001 - report through the code
            import traceback
            traceback.print_exc()
            code = 3
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    return killed, (os.WEXITSTATUS(status) if os.WIFEXITED(status) else None)


def count_opened(monkeypatch):
    """A list that collects the path of every data file a dataset read opens."""
    from pqkit.dataset import scan
    opened = []
    real = scan.ParquetFile

    def counted(path, *a, **k):
        opened.append(path)
        return real(path, *a, **k)
    monkeypatch.setattr(scan, "ParquetFile", counted)
    return opened
