"""pqkit.inspect.verify (runner.py): files written by pqkit and pyarrow verify clean, every
page checked. Each rule firing on a file broken the way it describes, and only there, is
tested in the file of the rules' module (test_chunk_rules.py, test_stats_rules.py,
test_index_rules.py, test_deep_rules.py, test_footer_rules.py); types, writer bugs,
orders and paths in test_writer_bugs.py."""
import decimal
import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from verify_files import N, assert_clean, rules, write_base

from pqkit.inspect.verify import verify_file


@pytest.mark.parametrize("options", [{}, {"data_page_version": "2.0"},
                                     {"use_dictionary": False, "compression": "zstd"}])
def test_pqkit_files_are_clean_with_every_page_checked(tmp_path, options):
    path = write_base(tmp_path / "ok.parquet", **options)
    for deep in (False, True):
        report = verify_file(path, deep=deep)
        assert_clean(report)
        assert rules(report, "info") == {"PQ-CRC-002"}
        c = report.counters
        assert c["pages"] == c["pages_with_crc"] > 6 and c["crc_mismatches"] == 0
    assert report.counters["values_checked"] == 3 * N - N // 10


def test_pyarrow_file_of_many_types_is_clean(tmp_path):
    n = 2000
    table = pa.table({
        "u32": pa.array([(i * 2654435761) % 2**32 for i in range(n)], pa.uint32()),
        "dec": pa.array([decimal.Decimal(i - 1000).scaleb(-2) for i in range(n)],
                        pa.decimal128(18, 2)),
        "big": pa.array([str((i - 1000) * 10**20) for i in range(n)]).cast(pa.decimal128(38, 0)),
        "h": pa.array(np.linspace(-3, 3, n).astype(np.float16)),
        "d": pa.array([math.nan if i % 9 == 0 else -0.0 if i % 5 == 0 else i / 7
                       for i in range(n)]),
        "l": pa.array([None if i % 11 == 0 else list(range(i % 4)) for i in range(n)]),
        "st": pa.array([{"a": i, "b": None if i % 3 else str(i)} for i in range(n)]),
        "b": pa.array([i % 3 == 0 for i in range(n)]),
    })
    path = str(tmp_path / "types.parquet")
    pq.write_table(table, path, write_page_index=True, data_page_size=1500,
                   write_page_checksum=True, row_group_size=900, data_page_version="2.0",
                   write_batch_size=100)
    report = verify_file(path, deep=True)
    assert_clean(report)
    assert report.counters["values_checked"] > 8 * n
