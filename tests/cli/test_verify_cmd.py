"""pqinspect verify (and meta over several files): the corpus, bad data, directories and globs.

The corpus is a contract: every file pyarrow reads verifies with exit code 0
unless it is listed in EXPECTED with the errors verify finds in it (each
checked by hand to be a real defect of the file); every bad_data file gives
exit code 1 or 2 with messages naming offsets, never a traceback.
"""
import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import run

import pqkit
from corpus import entries, path_of
from pqkit.cli.file import verify_cmd
from pqkit.cli.main import main
from pqkit.inspect.verify import RULES

# path -> (exit code, rule ids of the errors): readable files with real defects.
EXPECTED = {
    # Written with corrupted CRCs on purpose: two data pages (offsets 4 and 30808).
    "data/datapage_v1-corrupt-checksum.parquet": (1, {"PQ-CRC-001"}),
    # Written with corrupted CRCs on purpose: both dictionary pages.
    "data/rle-dict-uncompressed-corrupt-checksum.parquet": (1, {"PQ-CRC-001"}),
    # parquet-rs 0.3.0 wrote FileMetaData.num_rows = 0 for a row group of 6 rows
    # (pyarrow's metadata.num_rows says 0 too; it reads the rows from the row group).
    "data/repeated_no_annotation.parquet": (1, {"PQ-ROWS-001"}),
}
# Files with a deviation every major reader reads through: exit code 0, these warnings.
# The dictionary pages are located by data_page_offset alone (dictionary_page_offset unset)
# while an OffsetIndex exists; readers fetch the bytes before the first indexed page.
TOLERATED = {
    "data/alltypes_tiny_pages.parquet": {"PQ-INDEX-014"},
    "bad_data/ARROW-GH-43605.parquet": {"PQ-INDEX-014"},
}
# Bloom filter and SizeStatistics rules: no file pyarrow reads breaks one, at any severity
# (2 files have bloom filters; about 150, from parquet-mr, parquet-rs, datafusion and Arrow
# C++, have SizeStatistics). A writer's real bug would be pinned here and in writer_bugs.py.
FILTER_AND_SIZE_RULES = ("PQ-BLOOM-", "PQ-SIZE-")
FILTER_AND_SIZE_EXPECTED = {}
# Files pyarrow cannot read outside bad_data: (exit code, rule ids of all findings required).
UNREADABLE = {
    # Columns encrypted under a plaintext footer: the footer is checked, the pages are not.
    "data/encrypt_columns_plaintext_footer.parquet.encrypted": (0, {"PQ-CHUNK-011"}),
    "data/aes256/encrypt_columns_plaintext_footer.parquet.encrypted": (0, {"PQ-CHUNK-011"}),
    # Presto wrote an optional map key: legal bytes, a schema shape the spec warns against.
    "data/incorrect_map_schema.parquet": (0, {"PQ-TYPE-007"}),
    # A chunk over 2 GiB uncompressed: pyarrow cannot convert it, its bytes are fine.
    "data/large_string_map.brotli.parquet": (0, set()),
}
# --deep decodes a 2 GiB string chunk here; checked without --deep only.
NOT_DEEP = {"data/large_string_map.brotli.parquet"}
FILE_KEYS = {"path", "footer_only", "deep", "usable", "status", "exit_code", "size",
             "created_by", "num_rows", "num_row_groups", "num_columns", "counts", "pages",
             "chunks_walked", "values_checked", "findings"}
FINDING_KEYS = {"rule", "severity", "message", "offset", "row_group", "column", "page_offset"}
TOTAL_KEYS = {"files", "ok", "with_warnings", "with_errors", "unusable", "errors", "warnings",
              "infos", "rows", "bytes", "pages", "data_pages", "dictionary_pages",
              "other_pages", "pages_with_crc", "pages_without_crc", "crc_mismatches",
              "values_checked"}


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert "Traceback" not in err
    doc = json.loads(out)
    assert doc["exit_code"] == code
    return code, doc, err


def errors_of(doc):
    return {f["rule"] for d in doc["files"] for f in d["findings"] if f["severity"] == "error"}


def check_schema(doc):
    assert doc["command"] == "verify" and doc["schema_version"] == verify_cmd.SCHEMA_VERSION
    assert set(doc["totals"]) == TOTAL_KEYS
    for f in doc["files"]:
        assert set(f) == FILE_KEYS
        for x in f["findings"]:
            assert set(x) == FINDING_KEYS and x["rule"] in RULES
            assert re.search(r"offset \d+", x["message"]), x["message"]


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: e["readable"]))
def test_every_readable_corpus_file(capsys, entry):
    path = path_of(entry)
    want_code, want_errors = EXPECTED.get(entry["path"], (0, set()))
    code, doc, err = run_json(capsys, "verify", path)
    check_schema(doc)
    assert (code, errors_of(doc)) == (want_code, want_errors), err
    warnings = {f["rule"] for f in doc["files"][0]["findings"] if f["severity"] == "warning"}
    assert TOLERATED.get(entry["path"], set()) <= warnings
    for line in err.splitlines():
        assert re.search(r"offset \d+", line), line
    (report,) = doc["files"]
    assert report["num_rows"] == entry["num_rows"] or entry["path"] in EXPECTED
    assert report["pages"]["pages"] == (report["pages"]["pages_with_crc"] +
                                        report["pages"]["pages_without_crc"])
    deep_code, deep, _ = run_json(capsys, "verify", path, "--deep")
    assert (deep_code, errors_of(deep)) == (want_code, want_errors)
    assert deep["files"][0]["values_checked"] >= 0
    assert {f["rule"] for f in deep["files"][0]["findings"] if f["rule"].startswith(
        FILTER_AND_SIZE_RULES)} == FILTER_AND_SIZE_EXPECTED.get(entry["path"], set())
    human_code, human, _ = run(capsys, "verify", path)
    assert human_code == code and path in human.replace("\n", "")
    assert ("ERRORS" if code else ("WARNINGS" if report["counts"]["warning"] else "OK")) \
        in human


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: e["path"].startswith("bad_data/") and
                                          e["path"] not in TOLERATED))
@pytest.mark.parametrize("deep", [False, True])
def test_bad_data_files_fail_with_offsets(capsys, entry, deep):
    path = path_of(entry)
    argv = ["verify", path] + (["--deep"] if deep else [])
    code, doc, err = run_json(capsys, *argv)
    check_schema(doc)
    assert code in (1, 2), entry["path"]
    assert err.strip() and all(re.search(r"offset \d+", line) for line in err.splitlines())
    errors = [f for f in doc["files"][0]["findings"] if f["severity"] == "error"]
    assert errors and all(isinstance(f["offset"], int) for f in errors)
    human_code, human, human_err = run(capsys, *argv)
    assert human_code == code and "Traceback" not in human_err and human.strip()


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: not e["readable"] and
                                          not e["path"].startswith("bad_data/")))
def test_other_unreadable_corpus_files(capsys, entry):
    path = path_of(entry)
    if entry["encrypted"] and entry["num_rows"] is None:
        want_code, want_rules = 2, {"PQ-FILE-004"}      # the footer itself is encrypted
    else:
        want_code, want_rules = UNREADABLE[entry["path"]]
    code, doc, err = run_json(capsys, "verify", path)
    rules = {f["rule"] for f in doc["files"][0]["findings"]}
    assert code == want_code and want_rules <= rules, err
    if code == 2:
        assert "offset" in err
    if entry["path"] not in NOT_DEEP:
        assert run_json(capsys, "verify", path, "--deep")[0] == want_code


def test_corrupt_checksum_pages_are_named(capsys, corpus):
    code, doc, err = run_json(capsys, "verify",
                              str(corpus / "data" / "datapage_v1-corrupt-checksum.parquet"))
    crc = [f for f in doc["files"][0]["findings"] if f["rule"] == "PQ-CRC-001"]
    assert [(f["column"], f["page_offset"]) for f in crc] == [("a", 4), ("b", 30808)]
    assert doc["files"][0]["pages"]["crc_mismatches"] == 2
    assert err == (f"pqinspect verify: {doc['files'][0]['path']}: 2 errors, 6 warnings; "
                   "first PQ-CRC-001 at offset 4\n")
    human_code, human, human_err = run(capsys, "verify", doc["files"][0]["path"])
    assert human_code == code == 1 and human_err == err
    # each finding once, on stdout: its message (wrapped between words) appears once
    words = " ".join(line.strip("│ ") for line in human.splitlines())
    assert human.count("PQ-CRC-001") == 2 and "page at offset 30808" in " ".join(words.split())


def _write(path, n=500):
    pq.write_table(pa.table({"id": list(range(n)), "name": [f"n{i % 7}" for i in range(n)]}),
                   str(path), compression="none", use_dictionary=False,
                   write_page_checksum=True)
    return str(path)


def _flip_first_page_byte(path):
    md = pqkit.read_metadata(path)
    cmd = md.row_group(0).thrift.columns[0].meta_data
    data = bytearray(open(path, "rb").read())
    data[cmd.data_page_offset + cmd.total_compressed_size - 10] ^= 0x01   # in the values
    open(path, "wb").write(bytes(data))


@pytest.fixture
def dataset(tmp_path):
    """A Hive-style directory with data files, summary files and entries to skip."""
    root = tmp_path / "ds"
    (root / "a=1").mkdir(parents=True)
    (root / "a=2").mkdir()
    good = _write(root / "a=1" / "part-0.parquet")
    bad = _write(root / "a=2" / "part-1.parquet")
    _flip_first_page_byte(bad)
    for skipped in ("_pqkit/shadow/a=1/part-9.parquet", ".tmp/part-8.parquet",
                    "a=1/.part-0.parquet.crc", "_temporary.parquet"):
        (root / skipped).parent.mkdir(parents=True, exist_ok=True)
        (root / skipped).write_bytes(b"not parquet")
    (root / "_SUCCESS").write_bytes(b"")
    meta = pq.read_metadata(good)
    schema = meta.schema.to_arrow_schema()
    pq.write_metadata(schema, root / "_common_metadata")
    meta.set_file_path("a=1/part-0.parquet")
    pq.write_metadata(schema, root / "_metadata", metadata_collector=[meta])
    return root, good, bad


def test_verify_a_directory(capsys, dataset):
    root, good, bad = dataset
    code, doc, err = run_json(capsys, "verify", str(root))
    check_schema(doc)
    got = [(f["path"][len(str(root)) + 1:], f["footer_only"], f["status"]) for f in doc["files"]]
    assert got == [("_common_metadata", True, "ok"), ("_metadata", True, "ok"),
                   ("a=1/part-0.parquet", False, "ok"), ("a=2/part-1.parquet", False, "errors")]
    assert code == 1 and "PQ-CRC-001" in err and "part-1.parquet" in err
    t = doc["totals"]
    assert (t["files"], t["ok"], t["with_errors"], t["unusable"], t["crc_mismatches"]) == \
        (4, 3, 1, 0, 1)
    assert t["rows"] == 1500 and t["pages"] == sum(f["pages"]["pages"] for f in doc["files"])
    summary = [f for f in doc["files"] if f["footer_only"]]
    assert all(f["chunks_walked"] == 0 and f["pages"]["pages"] == 0 for f in summary)
    code, human, _ = run(capsys, "verify", str(root))
    assert code == 1 and "Summary" in human and "total: 4 files" in human


def test_verify_globs_and_missing_paths(capsys, dataset, tmp_path):
    root, good, bad = dataset
    code, doc, _ = run_json(capsys, "verify", str(root / "a=*" / "*.parquet"), "--deep")
    assert [f["path"] for f in doc["files"]] == [good, bad] and code == 1
    assert doc["totals"]["values_checked"] == 2 * 1000
    code, doc, err = run_json(capsys, "verify", good, str(tmp_path / "missing.parquet"),
                              str(tmp_path / "*.orc"))
    assert code == 2 and [f["status"] for f in doc["files"]] == ["ok", "unusable", "unusable"]
    assert "no such file" in err and "matches no Parquet file" in err
    (tmp_path / "empty").mkdir()
    assert run(capsys, "verify", str(tmp_path / "empty"))[0] == 2


def test_meta_single_file_is_unchanged(capsys, dataset):
    root, good, _ = dataset
    code, out, _ = run(capsys, "meta", good, "--json")
    doc = json.loads(out)
    assert code == 0 and set(doc) == {"command", "schema_version", "file", "row_groups"}
    assert doc["file"]["path"] == good
    code, out, _ = run(capsys, "meta", good, "--row-group", "0", "--column", "name", "--json")
    assert [c["path"] for c in json.loads(out)["row_groups"][0]["columns"]] == ["name"]


def test_meta_summarizes_directories_and_globs(capsys, dataset, tmp_path):
    root, good, bad = dataset
    code, out, err = run(capsys, "meta", str(root), "--json")
    doc = json.loads(out)
    assert code == 0 and not err
    rows = {r["path"][len(str(root)) + 1:]: r for r in doc["files"]}
    assert list(rows) == ["_common_metadata", "_metadata", "a=1/part-0.parquet",
                          "a=2/part-1.parquet"]
    assert rows["_common_metadata"]["footer_only"] and rows["_common_metadata"]["num_rows"] == 0
    assert rows["a=1/part-0.parquet"]["num_rows"] == 500
    assert rows["a=1/part-0.parquet"]["schema_id"] == rows["a=2/part-1.parquet"]["schema_id"]
    t = doc["totals"]
    assert (t["files"], t["readable"], t["num_rows"]) == (4, 4, 1500)
    code, out, _ = run(capsys, "meta", str(root / "a=*" / "*.parquet"), "--json")
    assert [r["path"] for r in json.loads(out)["files"]] == [good, bad]
    code, human, _ = run(capsys, "meta", good, bad)
    assert code == 0 and "total: 2 files" in human
    code, out, err = run(capsys, "meta", good, str(tmp_path / "nope.parquet"), "--json")
    assert code == 2 and json.loads(out)["totals"]["unreadable"] == 1 and "nope.parquet" in err
    assert run(capsys, "meta", str(root), "--column", "id")[0] == 2


def test_help_rules_and_arguments(capsys):
    with pytest.raises(SystemExit):
        main(["verify", "--help"])
    out, _ = capsys.readouterr()
    assert "example" in out.lower() and "--deep" in out and "pqinspect verify" in out
    code, out, _ = run(capsys, "verify", "--list-rules", "--json")
    listed = {r["rule"]: r for r in json.loads(out)["rules"]}
    assert code == 0 and set(listed) == set(RULES)
    assert listed["PQ-STATS-001"]["severity"] == "error"
    code, human, _ = run(capsys, "verify", "--list-rules")
    assert code == 0 and "PQ-WRITER-001" in human
    code, _, err = run(capsys, "verify")
    assert code == 2 and "FILE" in err


def test_json_schema_is_documented(capsys, tmp_path):
    path = _write(tmp_path / "doc.parquet")
    _, doc, _ = run_json(capsys, "verify", path)
    documented = verify_cmd.__doc__
    for key in set(doc) | FILE_KEYS | FINDING_KEYS | TOTAL_KEYS:
        assert f'"{key}"' in documented, key


def test_pyarrow_written_table_with_all_options(capsys, tmp_path):
    path = str(tmp_path / "pa.parquet")
    table = pa.table({"k": pa.array(range(4000), pa.int32()),
                      "v": [None if i % 3 else f"s{i}" for i in range(4000)]})
    pq.write_table(table, path, write_page_index=True, write_page_checksum=True,
                   data_page_size=800, data_page_version="2.0", row_group_size=1500)
    code, doc, _ = run_json(capsys, "verify", path, "--deep")
    f = doc["files"][0]
    assert code == 0 and f["counts"]["error"] == 0 and f["values_checked"] == 4000 + 1334
    assert f["pages"]["pages_with_crc"] == f["pages"]["pages"] > 10
