#!/usr/bin/env python3
"""Regenerate fixtures/sample.parquet, the small file the README's examples use.

It is written with pyarrow (a test-only dependency) so that the sample also
shows what another implementation produces: two row groups, dictionary and
plain pages, nulls, a list and a struct column, statistics and a page index.
"""
import datetime
import decimal
import os

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sample_table():
    n = 12
    return pa.table({
        "id": pa.array(range(n), pa.int64()),
        "city": pa.array(["Paris", "Lyon", None, "Nice"] * 3, pa.string()),
        "temperature": pa.array([12.5, -3.0, float("nan"), 0.0] * 3, pa.float64()),
        "day": pa.array([datetime.date(2026, 1, 1 + i) for i in range(n)], pa.date32()),
        "price": pa.array([decimal.Decimal(f"{i}.{i:02d}") for i in range(n)],
                          pa.decimal128(9, 2)),
        "tags": pa.array([["a", "b"], [], None, ["c"]] * 3, pa.list_(pa.string())),
        "point": pa.array([{"x": i, "y": -i} for i in range(n)],
                          pa.struct([("x", pa.int32()), ("y", pa.int32())])),
    })


def main():
    path = os.path.join(ROOT, "fixtures", "sample.parquet")
    pq.write_table(sample_table(), path, row_group_size=6, compression="zstd",
                   write_page_index=True, write_page_checksum=True,
                   use_dictionary=["city"], store_schema=True)
    print(path)


if __name__ == "__main__":
    main()
