"""pqkit.inspect.verify: each rule fires on a file broken the way it describes, and only there.

Chunks, pages, CRCs, statistics, the page index, values (deep) and the footer;
see test_writer_bugs.py for types, writer bugs, orders and paths.
"""
import decimal
import math
import struct

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from verify_files import (
    N,
    assert_clean,
    chunk_meta,
    edit_index,
    edit_stats,
    findings,
    pages,
    patch,
    rewrite_footer,
    rules,
    write_base,
)

import pqkit
from pqkit import format as fmt
from pqkit.format import BoundaryOrder, PageType
from pqkit.inspect.verify import verify_file


@pytest.fixture
def base(tmp_path):
    return write_base(tmp_path / "base.parquet")


# -- clean files ------------------------------------------------------------------------
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


# -- bytes of pages and chunks ------------------------------------------------------------
def test_flipped_page_byte_breaks_only_that_pages_crc(base, tmp_path):
    victim = pages(base, 0, 0)[2]
    bad = patch(base, tmp_path / "flip.parquet", victim.payload_offset + 5,
                bytes([victim.payload[5] ^ 0x10]))
    report = verify_file(bad)
    crc = findings(report, "PQ-CRC-001")
    assert [(f.page_offset, f.column, f.row_group) for f in crc] == [(victim.offset, "x", 0)]
    assert f"offset {victim.offset}" in crc[0].message and report.exit_code == 1
    assert report.counters["crc_mismatches"] == 1


@pytest.mark.parametrize("delta", [7, -5])
def test_wrong_total_compressed_size(base, tmp_path, delta):
    def edit(raw, _):
        chunk_meta(raw, 0, 1).total_compressed_size += delta

    report = verify_file(rewrite_footer(base, tmp_path / "size.parquet", edit))
    (f,) = findings(report, "PQ-CHUNK-003")
    assert f.column == "f" and "total_compressed_size" in f.message
    # bytes after the last page are read through by every reader; a page cut short is not
    assert f.severity == ("warning" if delta > 0 else "error")


def test_parquet_816_writer_gets_a_warning_for_a_short_chunk(base, tmp_path):
    def edit(raw, _):
        chunk_meta(raw, 0, 1).total_compressed_size -= 5
        raw.created_by = "parquet-mr version 1.2.8 (build abc)"

    report = verify_file(rewrite_footer(base, tmp_path / "816.parquet", edit))
    assert findings(report, "PQ-CHUNK-003")[0].severity == "warning"
    assert "PARQUET-816" in findings(report, "PQ-CHUNK-003")[0].message
    assert findings(report, "PQ-WRITER-007") and report.exit_code == 0


def test_chunk_outside_the_data_and_values_that_do_not_add_up(base, tmp_path):
    def edit(raw, _):
        chunk_meta(raw, 0, 2).data_page_offset = 10**9
        chunk_meta(raw, 0, 2).dictionary_page_offset = None
        chunk_meta(raw, 0, 0).num_values += 1
        raw.row_groups[0].num_rows += 1
        raw.num_rows += 1

    report = verify_file(rewrite_footer(base, tmp_path / "range.parquet", edit))
    assert {"PQ-CHUNK-002", "PQ-CHUNK-005"} <= rules(report)
    assert "offset 1000000000" in findings(report, "PQ-CHUNK-002")[0].message


def test_dictionary_page_left_out_of_the_chunk(base, tmp_path):
    dictionary, first = pages(base, 0, 2)[:2]
    assert dictionary.type == PageType.DICTIONARY_PAGE

    def edit(raw, _):
        cmd = chunk_meta(raw, 0, 2)
        cmd.dictionary_page_offset = None
        cmd.total_compressed_size -= first.offset - dictionary.offset

    report = verify_file(rewrite_footer(base, tmp_path / "nodict.parquet", edit))
    assert "PQ-DICT-003" in rules(report)
    assert findings(report, "PQ-DICT-003")[0].page_offset == first.offset


# -- statistics -----------------------------------------------------------------------------
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


# -- page index -----------------------------------------------------------------------------
def test_wrong_boundary_order(base, tmp_path):
    md = pqkit.read_metadata(base)
    ci, _ = pqkit.read.page_index.read_page_index(base, 0, "x", md)
    assert ci.boundary_order == BoundaryOrder.ASCENDING and len(ci.null_pages) > 2

    def descending(ci):
        ci.boundary_order = BoundaryOrder.DESCENDING

    report = verify_file(edit_index(base, tmp_path / "desc.parquet", 0, "column_index",
                                    descending))
    (f,) = findings(report, "PQ-INDEX-008")
    assert f.column == "x" and "DESCENDING" in f.message and f.page_offset is not None


def test_offset_index_that_does_not_match_the_pages(base, tmp_path):
    def shifted(oi):
        oi.page_locations[-1].compressed_page_size -= 1

    report = verify_file(edit_index(base, tmp_path / "oi.parquet", 0, "offset_index", shifted))
    assert "PQ-INDEX-002" in rules(report)

    def rows(oi):
        oi.page_locations[2].first_row_index = oi.page_locations[1].first_row_index

    report = verify_file(edit_index(base, tmp_path / "rows.parquet", 0, "offset_index", rows))
    assert "PQ-INDEX-003" in rules(report) and "not after page 1" in \
        findings(report, "PQ-INDEX-003")[0].message


def test_null_pages_that_contradict_null_counts(base, tmp_path):
    def flip(ci):
        ci.null_pages[0] = True

    report = verify_file(edit_index(base, tmp_path / "np.parquet", 2, "column_index", flip))
    assert "PQ-INDEX-006" in rules(report) and "PQ-INDEX-007" in rules(report, "warning")


# -- values (--deep) ------------------------------------------------------------------------
def _patch_header(src, dst, page, change):
    header = page.header
    change(header)
    raw = fmt.encode(header)
    assert len(raw) == page.header_size       # fixed-width fields keep the header's size
    return patch(src, dst, page.offset, raw)


def test_deep_finds_a_value_outside_its_page_statistics(base, tmp_path):
    page = pages(base, 0, 0)[1]
    st = page.header.data_page_header.statistics
    top = struct.unpack("<q", st.max_value)[0]

    def lower(h):
        h.data_page_header.statistics.max_value = struct.pack("<q", top - 3)
        h.data_page_header.statistics.max = struct.pack("<q", top - 3)

    bad = _patch_header(base, tmp_path / "pagemax.parquet", page, lower)
    assert verify_file(bad).exit_code == 0
    report = verify_file(bad, deep=True)
    (f,) = findings(report, "PQ-DEEP-002")
    assert f.page_offset == page.offset and f"max bound {top - 3}, but the values reach {top}" \
        in f.message


def test_deep_finds_values_outside_chunk_statistics_and_column_index(base, tmp_path):
    bad = rewrite_footer(base, tmp_path / "chunkmax.parquet",
                         edit_stats(0, max_value=struct.pack("<q", N - 2),
                                     max=struct.pack("<q", N - 2)))
    report = verify_file(bad, deep=True)
    assert "PQ-DEEP-003" in rules(report)

    def narrow(ci):
        ci.min_values[0] = struct.pack("<q", 1)

    report = verify_file(edit_index(base, tmp_path / "cimin.parquet", 0, "column_index",
                                    narrow), deep=True)
    assert [f.rule for f in findings(report, "PQ-DEEP-004")] == ["PQ-DEEP-004"]


def test_deep_finds_a_wrong_null_count(tmp_path):
    path = write_base(tmp_path / "v2.parquet", data_page_version="2.0")
    page = pages(path, 0, 2)[1]
    nulls = page.header.data_page_header_v2.num_nulls
    assert 0 < nulls < 60

    def more(h):
        h.data_page_header_v2.num_nulls = nulls + 1

    bad = _patch_header(path, tmp_path / "nulls.parquet", page, more)
    assert verify_file(bad).exit_code == 0
    report = verify_file(bad, deep=True)
    (f,) = findings(report, "PQ-DEEP-005")
    assert f.page_offset == page.offset and f"holds {nulls} nulls" in f.message


def test_deep_finds_a_corrupt_dictionary_value(tmp_path):
    path = write_base(tmp_path / "nocrc.parquet", write_checksums=False)
    dictionary = pages(path, 0, 0)[0]
    assert dictionary.type == PageType.DICTIONARY_PAGE
    bad = patch(path, tmp_path / "dict.parquet", dictionary.payload_offset, b"\xff" * 8)
    assert verify_file(bad).exit_code == 0
    report = verify_file(bad, deep=True)
    assert {"PQ-DEEP-003", "PQ-DEEP-004"} <= rules(report)
    assert "PQ-DEEP-002" in rules(report, "warning")       # no reader uses page statistics
    assert "min bound 0, but the values reach -1" in findings(report, "PQ-DEEP-003")[0].message


def test_deep_reports_undecodable_pages(tmp_path):
    path = write_base(tmp_path / "nocrc.parquet", write_checksums=False,
                      use_dictionary=False)
    page = pages(path, 0, 2)[0]
    assert page.type == PageType.DATA_PAGE
    # The definition levels' 4-byte length prefix now claims far more bytes than exist.
    bad = patch(path, tmp_path / "levels.parquet", page.payload_offset, b"\xff" * 4)
    assert verify_file(bad).exit_code == 0
    report = verify_file(bad, deep=True)
    (f,) = findings(report, "PQ-DEEP-001")
    assert f.column == "s" and "does not decode" in f.message and report.exit_code == 1


# -- footer and file ------------------------------------------------------------------------
@pytest.mark.parametrize("cut, rule", [(1, "PQ-FILE-003"), (9, "PQ-FILE-003"),
                                       (None, "PQ-FILE-001")])
def test_truncated_file_is_unusable(base, tmp_path, cut, rule):
    data = open(base, "rb").read()
    bad = tmp_path / "cut.parquet"
    bad.write_bytes(data[:-cut] if cut else data[:10])
    report = verify_file(str(bad))
    assert report.exit_code == 2 and not report.usable and rule in rules(report)
    assert "offset" in report.findings[0].message


def test_footer_length_and_footer_bytes(base, tmp_path):
    data = open(base, "rb").read()
    md = pqkit.read_metadata(base)
    long = patch(base, tmp_path / "len.parquet", len(data) - 8,
                 (len(data) + 10).to_bytes(4, "little"))
    assert "PQ-FOOTER-001" in rules(verify_file(long))
    garbage = patch(base, tmp_path / "garbage.parquet", md.footer_offset, b"\x0f" * 40)
    report = verify_file(garbage)
    assert report.exit_code == 2 and "PQ-FOOTER-002" in rules(report)
    encrypted = patch(base, tmp_path / "pare.parquet", len(data) - 4, b"PARE")
    assert verify_file(encrypted).exit_code == 2
    head = patch(base, tmp_path / "head.parquet", 0, b"PAR2")
    report = verify_file(head)
    assert report.exit_code == 1 and "PQ-FILE-002" in rules(report)


def test_footer_rules(base, tmp_path):
    def edit(raw, _):
        raw.num_rows += 5
        chunk_meta(raw, 0, 0).path_in_schema = ["y"]
        chunk_meta(raw, 0, 1).type = fmt.Type.FLOAT
        raw.version = 7

    report = verify_file(rewrite_footer(base, tmp_path / "footer.parquet", edit))
    assert {"PQ-ROWS-001", "PQ-FOOTER-009"} <= rules(report)
    assert {"PQ-FOOTER-006", "PQ-FOOTER-008"} <= rules(report, "warning")


def test_a_page_over_the_read_limit_is_not_checked_not_an_error(base, monkeypatch):
    """A dictionary or page that decompresses beyond ReadOptions' cap may be legal (the
    corpus' 1 GiB map dictionary): --deep reports it unchecked (info), not corrupt."""
    from functools import partial

    from pqkit.inspect.verify import decoded
    small = pqkit.ReadOptions(max_page_size=64, max_dictionary_size=64)
    monkeypatch.setattr(decoded, "ColumnChunkReader",
                        partial(decoded.ColumnChunkReader, options=small))
    report = verify_file(base, deep=True)
    skipped = findings(report, "PQ-DEEP-009")
    assert {f.column for f in skipped} == {"x", "f", "s"}
    assert {f.severity for f in skipped} == {"info"} and report.exit_code == 0
    assert "exceed ReadOptions.max_" in skipped[0].message
    assert not findings(report, "PQ-DEEP-001")
