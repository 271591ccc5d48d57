"""pqkit.inspect.verify.deep_rules: --deep decodes every value and finds those outside their
statistics, wrong null counts, corrupt dictionary values and undecodable pages."""
import struct

from verify_files import (
    N,
    edit_index,
    edit_stats,
    findings,
    pages,
    patch,
    rewrite_footer,
    rules,
    write_base,
)

from pqkit import format as fmt
from pqkit.format import PageType
from pqkit.inspect.verify import verify_file


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
