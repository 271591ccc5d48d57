"""pqkit.inspect.verify.chunk_rules: the bytes of pages and chunks (CRCs, sizes, offsets,
dictionary pages), each rule on a file broken the way it describes."""
import pytest
from verify_files import chunk_meta, findings, pages, patch, rewrite_footer, rules

from pqkit.format import PageType
from pqkit.inspect.verify import verify_file


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
