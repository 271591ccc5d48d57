"""pqkit.inspect.verify.stats_rules: chunk and page statistics that are illegal, inexact or
outside their chunk, and the sort orders they are compared in."""
import math
import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from verify_files import N, assert_clean, chunk_meta, edit_stats, findings, rewrite_footer, rules

from pqkit import format as fmt
from pqkit.inspect.verify import verify_file


@pytest.mark.parametrize("column, fields, rule", [
    (0, {"min_value": struct.pack("<q", 10), "max_value": struct.pack("<q", 5),
         "min": struct.pack("<q", 10), "max": struct.pack("<q", 5)}, "PQ-STATS-001"),
    (2, {"min_value": b"v9", "max_value": b"v0"}, "PQ-STATS-001"),
    (1, {"max_value": struct.pack("<d", math.nan), "max": struct.pack("<d", math.nan)},
     "PQ-STATS-002"),
    (1, {"min_value": struct.pack("<d", 0.0), "min": struct.pack("<d", 0.0)}, "PQ-STATS-003"),
    (1, {"max_value": struct.pack("<d", -0.0), "min_value": struct.pack("<d", -1.0),
         "max": struct.pack("<d", -0.0), "min": struct.pack("<d", -1.0)}, "PQ-STATS-003"),
    (0, {"min_value": b"\x01\x02\x03"}, "PQ-STATS-006"),
    (0, {"null_count": N + 1}, "PQ-STATS-005"),
    (1, {"nan_count": N + 1}, "PQ-STATS-010"),
])
def test_illegal_chunk_statistics(base, tmp_path, column, fields, rule):
    report = verify_file(rewrite_footer(base, tmp_path / "st.parquet",
                                        edit_stats(column, **fields)))
    hits = findings(report, rule)
    # readers allow for a zero's sign, ignore NaN bounds and impossible counts (issue 18
    # evidence)
    severity = "error" if rule in ("PQ-STATS-001", "PQ-STATS-006") else "warning"
    assert hits and hits[0].severity == severity
    assert report.exit_code == 1 or severity == "warning"
    assert hits[0].column == ["x", "f", "s"][column] and "offset" in hits[0].message


def test_exactness_flag_on_an_integer_bound(base, tmp_path):
    report = verify_file(rewrite_footer(base, tmp_path / "ex.parquet",
                                        edit_stats(0, is_max_value_exact=False)))
    assert findings(report, "PQ-STATS-004")[0].severity == "warning"


def test_total_order_has_no_zero_or_nan_rule(base, tmp_path):
    def edit(raw, at):
        edit_stats(1, min_value=struct.pack("<d", 0.0))(raw, at)
        raw.column_orders[1] = fmt.ColumnOrder(IEEE_754_TOTAL_ORDER=fmt.IEEE754TotalOrder())

    report = verify_file(rewrite_footer(base, tmp_path / "total.parquet", edit))
    assert "PQ-STATS-003" not in rules(report)

    def wrong(raw, at):
        raw.column_orders[0] = fmt.ColumnOrder(IEEE_754_TOTAL_ORDER=fmt.IEEE754TotalOrder())

    report = verify_file(rewrite_footer(base, tmp_path / "wrong.parquet", wrong))
    assert findings(report, "PQ-ORDER-002")[0].column == "x"


def test_unsigned_and_decimal_orders(tmp_path):
    path = str(tmp_path / "orders.parquet")
    pq.write_table(pa.table({"u": pa.array([5, 3_000_000_000], pa.uint32()),
                             "d": pa.array([-1, 1], pa.int64()).cast(pa.decimal128(30, 0))}),
                   path)
    assert_clean(verify_file(path, deep=True))     # -1 < 1 although ff.. > 00.. bytewise

    def swap(raw, _):
        for c in (0, 1):
            st = chunk_meta(raw, 0, c).statistics
            st.min_value, st.max_value = st.max_value, st.min_value

    report = verify_file(rewrite_footer(path, tmp_path / "swapped.parquet", swap))
    assert [f.column for f in findings(report, "PQ-STATS-001")] == ["u", "d"]
    assert "unsigned order" in findings(report, "PQ-STATS-001")[0].message


def test_page_statistics_outside_the_chunk(base, tmp_path):
    def edit(raw, _):
        st = chunk_meta(raw, 0, 0).statistics
        st.max_value = st.max = struct.pack("<q", 100)

    report = verify_file(rewrite_footer(base, tmp_path / "pages.parquet", edit))
    hits = findings(report, "PQ-STATS-009")
    assert hits and all(f.page_offset is not None for f in hits)
    assert "above the chunk's max 100" in hits[0].message
