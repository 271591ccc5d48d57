"""pqkit.inspect.verify.chunk_rules: the bytes of pages and chunks (CRCs, sizes, offsets,
dictionary pages), each rule on a file broken the way it describes, and on chunks built
page by page."""
import struct

import pytest
from verify_files import (
    assert_clean,
    chunk_meta,
    dictionary_page,
    findings,
    hand_built,
    indices_page,
    pages,
    patch,
    plain_page,
    rewrite_footer,
    rules,
)

import pqkit
from pqkit import format as fmt
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


# -- chunks built page by page ------------------------------------------------------------
def test_hand_built_chunk_is_clean(tmp_path):
    path = hand_built(tmp_path / "ok.parquet", [dictionary_page([7, 9]), indices_page(4)])
    assert_clean(verify_file(path, deep=True))
    assert pqkit.read_table(path).to_pydict() == {"a": [7, 7, 7, 7]}


@pytest.mark.parametrize("page_list, expected", [
    ([indices_page(4), dictionary_page([7]), indices_page(2)], {"PQ-DICT-001",
                                                                    "PQ-DICT-003"}),
    ([dictionary_page([7]), dictionary_page([9]), indices_page(2)], {"PQ-DICT-002"}),
    ([dictionary_page([7], fmt.Encoding.RLE), indices_page(2)], {"PQ-DICT-004"}),
])
def test_dictionary_page_rules(tmp_path, page_list, expected):
    report = verify_file(hand_built(tmp_path / "dict.parquet", page_list))
    assert rules(report) == expected
    for f in report.findings:
        assert f.rule not in expected or f.page_offset is not None


def test_plain_page_too_small_for_its_values(tmp_path):
    path = hand_built(tmp_path / "short.parquet", [plain_page(3, struct.pack("<2i", 1, 2))])
    report = verify_file(path)
    (f,) = findings(report, "PQ-PAGE-005")
    assert f.page_offset == 4 and "3 INT32 values, which need 12 bytes, in 8 bytes" in f.message
    assert "PQ-DEEP-001" in rules(verify_file(path, deep=True))


def test_first_page_starting_inside_a_row(tmp_path):
    path = str(tmp_path / "lists.parquet")
    pqkit.write_table({"l": [[i] for i in range(100)]}, path, compression="none",
                      write_checksums=False, write_page_index=False, use_dictionary=False)
    assert_clean(verify_file(path))
    page = pages(path)[0]
    body = bytes(page.payload)
    header, shift, pos = 0, 0, 4             # after the v1 levels' 4-byte length prefix
    while True:                              # the run's ULEB128 header
        byte = body[pos]
        header |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if not byte & 0x80:
            break
    assert header == 100 << 1 and body[pos] == 0      # one RLE run of 100 zero levels
    bad = patch(path, tmp_path / "inside.parquet", page.payload_offset + pos, b"\x01")
    (f,) = findings(verify_file(bad), "PQ-PAGE-006")
    assert f.page_offset == page.offset and "repetition level 1" in f.message


def test_empty_data_page(tmp_path):
    path = hand_built(tmp_path / "empty.parquet",
                       [dictionary_page([7]), indices_page(0), indices_page(3)])
    report = verify_file(path, deep=True)
    assert report.exit_code == 0 and findings(report, "PQ-PAGE-001")[0].severity == "warning"
