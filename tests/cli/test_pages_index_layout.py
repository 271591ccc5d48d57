"""pqinspect pages, index and layout: every corpus file, cross-checks with pyarrow, CRCs.

The corpus is a contract: a file pyarrow reads gives exit 0 unless it is listed
in EXPECTED with the problems found in it; every file pyarrow cannot read is
listed with the exit code of each command. Files whose defect lies inside page
payloads (levels, values) or in the schema's meaning give exit 0 here: these
commands inspect headers, indexes and byte ranges, not values.
"""
import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import rewrite_footer, run

import pqkit
from corpus import entries, path_of
from pqkit.cli.main import main

COMMANDS = ("pages", "index", "layout")
CLEAN = (0, ())

# path -> {command: (exit code, problem kinds)}; commands left out are CLEAN.
EXPECTED = {
    "bad_data/ARROW-GH-41317.parquet": {"pages": (1, ("truncated_chunk",)),
                                        "layout": (1, ("truncated_chunk",))},
    # A bad RLE bit width, a bad first repetition level, truncated levels: inside payloads.
    "bad_data/ARROW-GH-41321.parquet": {},
    "bad_data/ARROW-GH-45185.parquet": {},
    "bad_data/ARROW-GH-47662.parquet": {},
    "bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet": {
        "pages": (1, ("bad_chunk_range", "bad_page")),
        "layout": (1, ("bad_chunk_range", "bad_page"))},
    "bad_data/ARROW-RS-GH-6229-LEVELS.parquet": {"pages": (1, ("value_count",)),
                                                 "layout": (1, ("value_count",))},
    "bad_data/PARQUET-1481.parquet": {c: (2, ()) for c in COMMANDS},
    "data/aes256/encrypt_columns_plaintext_footer.parquet.encrypted": {
        c: (1, ("encrypted",)) for c in COMMANDS},
    "data/encrypt_columns_plaintext_footer.parquet.encrypted": {
        c: (1, ("encrypted",)) for c in COMMANDS},
    # Schema meaning (map keys not required) and a pyarrow conversion limit.
    "data/incorrect_map_schema.parquet": {},
    "data/large_string_map.brotli.parquet": {},
    # Readable by pyarrow, but with real problems.
    "data/datapage_v1-corrupt-checksum.parquet": {"pages": (1, ("crc_mismatch",))},
    "data/rle-dict-uncompressed-corrupt-checksum.parquet": {"pages": (1, ("crc_mismatch",))},
    "data/nation.dict-malformed.parquet": {"pages": (1, ("chunk_overrun",)),
                                           "layout": (1, ("chunk_overrun",))},
}


@pytest.fixture(autouse=True)
def wide_console(monkeypatch):
    """A wide rich console: the human views wrap less, which halves their cost here."""
    monkeypatch.setenv("COLUMNS", "200")


def expected(entry, command):
    if entry["path"] in EXPECTED:
        return EXPECTED[entry["path"]].get(command, CLEAN)
    if entry["encrypted"] and entry["num_rows"] is None:
        return 2, ()                                  # encrypted footer ("PARE")
    assert entry["readable"], f"{entry['path']}: unreadable file missing from EXPECTED"
    return CLEAN


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code in (0, 1), err
    return json.loads(out)


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries())
@pytest.mark.parametrize("command", COMMANDS)
def test_every_corpus_file(capsys, entry, command):
    path = path_of(entry)
    want_code, want_kinds = expected(entry, command)
    code, out, err = run(capsys, command, path, "--json")
    assert code == want_code, err
    assert "Traceback" not in err
    if code == 2:
        assert not out
        assert re.search(r"offset \d+|encrypted|type", err), err
        return
    doc = json.loads(out)
    assert doc["file"] and "problems" in doc
    assert tuple(sorted({p["kind"] for p in doc["problems"]})) == want_kinds
    for p in doc["problems"]:
        assert isinstance(p["offset"], int) and re.search(r"offset \d+", p["message"]), p
        assert p["message"] in err
    code2, human, err2 = run(capsys, command, path)
    assert code2 == code and human.strip() and "Traceback" not in err2


def _walked_sizes(chunk):
    return [(p["offset"], p["header_size"] + p["compressed_size"]) for p in chunk["pages"]
            if p["type"] in ("DATA_PAGE", "DATA_PAGE_V2")]


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(
    lambda e: e["readable"] and e["path"] not in EXPECTED))
def test_pages_and_index_agree_with_pyarrow(capsys, entry):
    path = path_of(entry)
    pages = run_json(capsys, "pages", path)
    index = run_json(capsys, "index", path)
    theirs = pq.ParquetFile(path).metadata
    assert len(pages["chunks"]) == theirs.num_row_groups * theirs.num_columns
    for chunk, ichunk in zip(pages["chunks"], index["chunks"]):
        ref = theirs.row_group(chunk["row_group"]).column(chunk["column"])
        assert chunk["path"] == ichunk["path"] == ref.path_in_schema
        walked = sum(p["header_size"] + p["compressed_size"] for p in chunk["pages"])
        assert walked == ref.total_compressed_size
        data = [p for p in chunk["pages"] if p["type"] in ("DATA_PAGE", "DATA_PAGE_V2")]
        assert sum(p["num_values"] for p in data) == ref.num_values
        assert (ichunk["offset_index"] is not None) == ref.has_offset_index
        assert (ichunk["column_index"] is not None) == ref.has_column_index
        oi = ichunk["offset_index"]
        if oi is not None:
            # Every PageLocation is a walked data page: offset and header + payload size.
            assert [(p["offset"], p["compressed_page_size"]) for p in oi["pages"]] == \
                _walked_sizes(chunk)
            num_rows = theirs.row_group(chunk["row_group"]).num_rows
            assert sum(p["num_rows"] for p in oi["pages"]) == num_rows
            v2_rows = [p["num_rows"] for p in data if p["type"] == "DATA_PAGE_V2"]
            if len(v2_rows) == len(data):
                assert v2_rows == [p["num_rows"] for p in oi["pages"]]
        ci = ichunk["column_index"]
        if ci is not None and oi is not None:
            assert ci["num_pages"] == oi["num_pages"]
            counts = [p["null_count"] for p in ci["pages"]]
            stats = ref.statistics if ref.is_stats_set else None
            if None not in counts and stats is not None and stats.has_null_count:
                assert sum(counts) == stats.null_count


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: e["path"] not in EXPECTED
                                          and not (e["encrypted"] and e["num_rows"] is None)))
def test_layout_accounts_for_every_byte(capsys, entry):
    path = path_of(entry)
    doc = run_json(capsys, "layout", path)
    size = doc["file"]["size"]
    pos = 0
    for r in doc["ranges"]:
        assert r["start"] == pos and r["end"] == r["start"] + r["length"] and r["length"] >= 0
        pos = r["end"]
    assert pos == size and not doc["overlaps"]
    assert sum(v["bytes"] for v in doc["by_kind"].values()) == size
    assert doc["file"]["accounted_bytes"] + doc["file"]["gap_bytes"] == size
    assert [r["kind"] for r in doc["ranges"][:1]] == ["magic"]
    assert [r["kind"] for r in doc["ranges"][-2:]] == ["footer", "footer_length_magic"]
    theirs = pq.ParquetFile(path).metadata
    for g, rg in enumerate(doc["row_groups"]):
        assert rg["compressed_bytes"] == sum(theirs.row_group(g).column(c).total_compressed_size
                                             for c in range(theirs.num_columns))
    assert {c["path"] for c in doc["columns"]} == {
        theirs.schema.column(i).path for i in range(theirs.num_columns)}


def test_crc_mismatch_from_a_flipped_payload_byte(capsys, tmp_path):
    path = tmp_path / "crc.parquet"
    pq.write_table(pa.table({"a": list(range(2000)), "b": [f"s{i}" for i in range(2000)]}),
                   path, write_page_checksum=True, data_page_size=1024, compression="none")
    good = run_json(capsys, "pages", str(path))
    pages = [p for c in good["chunks"] for p in c["pages"]]
    assert good["summary"]["crc_mismatches"] == 0 and len(pages) > 4
    assert all(p["crc_ok"] is True for p in pages)
    victim = next(p for p in pages if p["type"] == "DATA_PAGE" and p["offset"] > 4)
    data = bytearray(path.read_bytes())
    data[victim["offset"] + victim["header_size"] + 3] ^= 0x40
    bad = tmp_path / "flipped.parquet"
    bad.write_bytes(bytes(data))
    code, out, err = run(capsys, "pages", str(bad), "--json")
    assert code == 1
    doc = json.loads(out)
    flipped = [p for c in doc["chunks"] for p in c["pages"]]
    assert [p["crc_ok"] for p in flipped] == [p["offset"] != victim["offset"] for p in pages]
    assert [(p["kind"], p["offset"]) for p in doc["problems"]] == \
        [("crc_mismatch", victim["offset"])]
    assert f"offset {victim['offset']}" in err
    code, human, _ = run(capsys, "pages", str(bad))
    assert code == 1 and "BAD" in human
    # The layout and the page index do not check CRCs.
    assert run(capsys, "layout", str(bad), "--json")[0] == 0


@pytest.mark.corpus
@pytest.mark.parametrize("name", ["datapage_v1-uncompressed-checksum.parquet",
                                  "datapage_v1-snappy-compressed-checksum.parquet",
                                  "plain-dict-uncompressed-checksum.parquet",
                                  "rle-dict-snappy-checksum.parquet"])
def test_good_checksums_page_by_page(capsys, corpus, name):
    doc = run_json(capsys, "pages", str(corpus / "data" / name))
    pages = [p for c in doc["chunks"] for p in c["pages"]]
    # (parquet-mr wrote no CRC on the v2 data pages of rle-dict-snappy-checksum.)
    assert [p["crc_ok"] for p in pages] == [None if p["crc"] is None else True for p in pages]
    assert doc["summary"]["pages_with_crc"] >= len(doc["chunks"]) > 0


@pytest.mark.corpus
def test_corrupt_checksums_page_by_page(capsys, corpus):
    doc = run_json(capsys, "pages", str(corpus / "data" / "datapage_v1-corrupt-checksum.parquet"))
    assert [[(p["offset"], p["crc_ok"]) for p in c["pages"]] for c in doc["chunks"]] == [
        [(4, False), (10272, True)], [(20540, True), (30808, False)]]
    doc = run_json(capsys, "pages", str(
        corpus / "data" / "rle-dict-uncompressed-corrupt-checksum.parquet"))
    assert [[(p["type"], p["crc_ok"]) for p in c["pages"]] for c in doc["chunks"]] == [
        [("DICTIONARY_PAGE", False), ("DATA_PAGE_V2", None)]] * 2


@pytest.fixture(scope="module")
def indexed(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "indexed.parquet"
    table = pa.table({"id": pa.array(range(3000), pa.int32()),
                      "name": [None if i % 5 == 0 else f"n{i % 97}" for i in range(3000)],
                      "day": pa.array([i // 100 for i in range(3000)], pa.date32())})
    pq.write_table(table, path, row_group_size=1500, write_page_index=True,
                   data_page_size=700, write_batch_size=100, write_page_checksum=True,
                   bloom_filter_options={"name": {"ndv": 100, "fpp": 0.05}},
                   compression="zstd")
    return str(path)


def test_index_decodes_bounds_per_type(capsys, indexed):
    doc = run_json(capsys, "index", indexed, "--column", "day", "--row-group", "1")
    (chunk,) = doc["chunks"]
    ci, oi = chunk["column_index"], chunk["offset_index"]
    assert ci["boundary_order"] == "ASCENDING" and ci["num_pages"] == oi["num_pages"] > 1
    first = ci["pages"][0]
    assert first["min"] == "1970-01-16" and first["min_raw"] == "0f000000"
    assert oi["pages"][0]["first_row_index"] == 0
    assert sum(p["num_rows"] for p in oi["pages"]) == 1500
    doc = run_json(capsys, "index", indexed, "--column", "name")
    for chunk in doc["chunks"]:
        pages = chunk["column_index"]["pages"]
        assert all(isinstance(p["min"], str) and p["null_count"] > 0 for p in pages)


def test_pages_raw_headers_and_statistics(capsys, indexed):
    doc = run_json(capsys, "pages", indexed, "--column", "id", "--raw")
    dictionary, page = doc["chunks"][0]["pages"][:2]
    assert dictionary["header"]["dictionary_page_header"]["num_values"] == 1500
    assert page["header"]["type"] == 0 and page["header"]["crc"] is not None
    assert page["header"]["data_page_header"]["num_values"] == page["num_values"]
    assert page["encoding"] == "RLE_DICTIONARY" and page["crc_ok"] is True
    code, human, _ = run(capsys, "pages", indexed, "--raw", "--limit", "2")
    assert code == 0 and "header:" in human and "more pages" in human


def test_v2_pages_statistics_agree_with_the_column_index(capsys, tmp_path):
    """pqkit's writer puts statistics in v2 page headers and the same bounds in the index."""
    path = str(tmp_path / "v2.parquet")
    pqkit.write_table({"x": list(range(5000)),
                       "s": [None if i % 3 == 0 else str(i) for i in range(5000)]},
                      path, data_page_version="2.0", data_page_size=2000, use_dictionary=False,
                      row_group_size=2500)
    pages = run_json(capsys, "pages", path)
    index = run_json(capsys, "index", path)
    for chunk, ichunk in zip(pages["chunks"], index["chunks"]):
        data = chunk["pages"]
        assert len(data) > 2 and {p["type"] for p in data} == {"DATA_PAGE_V2"}
        ci, oi = ichunk["column_index"], ichunk["offset_index"]
        assert [p["num_rows"] for p in data] == [p["num_rows"] for p in oi["pages"]]
        assert [p["num_nulls"] for p in data] == [p["null_count"] for p in ci["pages"]]
        assert [(p["statistics"]["min_value"], p["statistics"]["max_value"]) for p in data] == \
            [(p["min"], p["max"]) for p in ci["pages"]]
        assert all(p["crc_ok"] for p in data)
    assert pages["chunks"][0]["pages"][0]["statistics"]["min_value"] == 0


def test_layout_of_a_file_with_bloom_filters(capsys, indexed):
    doc = run_json(capsys, "layout", indexed)
    kinds = doc["by_kind"]
    for kind in ("bloom_filter_header", "bloom_filter_bitset", "column_index", "offset_index",
                 "dictionary_page"):
        assert kinds[kind]["ranges"] >= 2, kind
    assert not doc["gaps"] and not doc["overlaps"]
    name = next(c for c in doc["columns"] if c["path"] == "name")
    assert name["bloom_filter"] > 0 and name["compression_ratio"] > 1
    md = pqkit.read_metadata(indexed)
    blooms = [r for r in doc["ranges"] if r["kind"].startswith("bloom_filter")]
    offsets = [md.row_group(g).thrift.columns[1].meta_data.bloom_filter_offset for g in range(2)]
    assert [r["start"] for r in blooms if r["kind"] == "bloom_filter_header"] == offsets


def test_layout_html_is_self_contained(capsys, tmp_path):
    path = str(tmp_path / "odd.parquet")
    pq.write_table(pa.table({"a<b>&[red]": list(range(50))}), path, write_page_index=True)
    out = tmp_path / "layout.html"
    code, json_out, err = run(capsys, "layout", path, "--json", "--html", str(out))
    assert code == 0 and json.loads(json_out)["file"]["size"] > 0 and "wrote" in err
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "a&lt;b&gt;&amp;[red]" in page and "a<b>" not in page
    for external in ("http:", "https:", "<script", "<link", "src=", "url("):
        assert external not in page
    assert 'class="bar"' in page and "column_index" in page
    code, human, _ = run(capsys, "layout", path)
    assert code == 0 and "a<b>&[red]" in human


def test_overlapping_and_bad_index_ranges(capsys, indexed, tmp_path):
    def overlap(raw):
        a, b = raw.row_groups[0].columns[:2]
        b.column_index_offset = a.column_index_offset + 1

    path = rewrite_footer(indexed, tmp_path / "overlap.parquet", overlap)
    code, out, err = run(capsys, "layout", path, "--json")
    doc = json.loads(out)
    assert code == 1 and len(doc["overlaps"]) >= 1
    assert "overlap" in {p["kind"] for p in doc["problems"]}
    assert "belong to both column_index" in err
    code, out, err = run(capsys, "index", path, "--json")
    assert code == 1 and "ColumnIndex of column name, row group 0" in err

    def beyond(raw):
        raw.row_groups[1].columns[0].offset_index_offset = 10**7

    path = rewrite_footer(indexed, tmp_path / "beyond.parquet", beyond)
    code, out, err = run(capsys, "index", path, "--json")
    doc = json.loads(out)
    assert code == 1 and [(p["kind"], p["offset"]) for p in doc["problems"]] == \
        [("bad_offset_index", 10**7)]
    assert "OffsetIndex of column id, row group 1 at offset 10000000" in err
    assert run(capsys, "layout", path)[0] == 1


def test_selection_and_bad_arguments(capsys, indexed):
    doc = run_json(capsys, "pages", indexed, "--row-group", "1", "--column", "name")
    assert [(c["row_group"], c["path"]) for c in doc["chunks"]] == [(1, "name")]
    for command in ("pages", "index"):
        assert run(capsys, command, indexed, "--row-group", "9")[0] == 2
        assert run(capsys, command, indexed, "--column", "nope")[0] == 2
    for command in COMMANDS:
        code, _, err = run(capsys, command, "/nonexistent.parquet")
        assert code == 2 and "No such file" in err


def test_help_has_examples(capsys):
    for command in COMMANDS:
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out, _ = capsys.readouterr()
        assert "example" in out.lower()


def test_index_of_a_row_group_without_num_rows(capsys, indexed, tmp_path):
    """A row group lacking num_rows (once a TypeError from page_row_ranges) is a
    problem of each chunk's offset index."""
    def no_rows(raw):
        raw.row_groups[1].num_rows = None

    path = rewrite_footer(indexed, tmp_path / "no_rows.parquet", no_rows)
    code, out, err = run(capsys, "index", path, "--json")
    doc = json.loads(out)
    assert code == 1 and "Traceback" not in err
    kinds = {(p["kind"], p["row_group"]) for c in doc["chunks"] for p in c["problems"]}
    assert kinds == {("bad_row_ranges", 1)}
    assert "row group 1: the row group's num_rows is None" in err
