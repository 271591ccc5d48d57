"""How pyarrow, DuckDB, polars and pqkit read a (damaged) file: the evidence behind verify's
severities.

:func:`outcomes` reads a file with each reader, whole or through one comparison filter
(which lets each reader skip row groups, and pqkit pages, by statistics and the page
index), and sorts each result into one word, compared against the rows the undamaged
file gives:

* ``"ok"`` -- the reader returns exactly the expected rows;
* ``"wrong"`` -- it returns other rows or values without complaint (a misread);
* ``"error"`` -- it raises (``outcomes(..., detail=True)`` gives the message).
"""
import duckdb
import polars as pl
import pyarrow.parquet as pq
from polars.exceptions import PanicException

import pqkit

READERS = ("pyarrow", "duckdb", "polars", "pqkit")
_SQL = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _sql(value):
    return f"'{value}'" if isinstance(value, str) else repr(value)


def _polars(column, op, value):
    col = pl.col(column)
    return {"==": col == value, "!=": col != value, "<": col < value, "<=": col <= value,
            ">": col > value, ">=": col >= value}[op]


def read_rows(reader, path, where=None):
    """The rows ``reader`` gives for ``path``, all of them or those matching ``where``
    (``(column, op, value)``), as a list of dicts."""
    path = str(path)
    filters = None if where is None else [where]
    if reader == "pyarrow":
        # Whole files through ParquetFile.read: pq.read_table's dataset scanner hangs on
        # some broken files (a chunk bound of the wrong size, PQ-STATS-006).
        table = pq.ParquetFile(path).read() if where is None else \
            pq.read_table(path, filters=filters)
        return table.to_pylist()
    if reader == "duckdb":
        sql = f"select * from read_parquet('{path}')"
        if where is not None:
            sql += f" where {where[0]} {_SQL[where[1]]} {_sql(where[2])}"
        return duckdb.sql(sql).to_arrow_table().to_pylist()
    if reader == "polars":
        frame = pl.scan_parquet(path)
        if where is not None:
            frame = frame.filter(_polars(*where))
        return frame.collect().to_arrow().to_pylist()
    return pqkit.read_table(path, filters=filters).to_pylist()


def outcomes(path, want, where=None, detail=False):
    """``{reader: "ok" | "wrong" | "error"}`` for reading ``path`` against the rows
    ``want``; with ``detail``, an error's entry is ``"error: <type>: <message>"``."""
    result = {}
    for reader in READERS:
        try:
            rows = read_rows(reader, path, where)
        except (Exception, PanicException) as exc:  # noqa: BLE001 -- any failure is the result
            result[reader] = f"error: {type(exc).__name__}: {exc}"[:300] if detail else "error"
            continue
        result[reader] = "ok" if rows == want else "wrong"
    return result


def all_ok():
    return dict.fromkeys(READERS, "ok")
