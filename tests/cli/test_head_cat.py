"""pqinspect head and cat: rows equal pyarrow's, spelled as documented; streaming; bad data.

Every corpus file pyarrow reads gives exit 0, and its ``--json`` / ``jsonl`` rows equal
pyarrow's ``to_pylist()`` spelled by tests/cli/pyarrow_json.py (written from the
documented conventions, independently of pqkit's converter). The two files with
deliberately wrong page CRCs (pyarrow does not check CRCs) give exit 2 unless
``--no-verify-checksums``.
"""
import csv
import io
import json
import os
from decimal import Decimal as D

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import run
from pyarrow_json import table_rows

import pqkit
from corpus import entries, path_of
from pqkit.cli.main import main

HEAD_ROWS = 7
CORRUPT_CRC = {"data/datapage_v1-corrupt-checksum.parquet",
               "data/rle-dict-uncompressed-corrupt-checksum.parquet"}
# bad_data/ files pqkit cannot decode: the message fragment that names the offset.
BAD_DATA = {
    "bad_data/ARROW-GH-41317.parquet": "column chunk timestamp_us_no_tz at file offset 2923",
    "bad_data/ARROW-GH-41321.parquet": "at offset 1378",
    "bad_data/ARROW-GH-45185.parquet": "data page at offset 4 in column x.list.element",
    "bad_data/ARROW-GH-47662.parquet": "PLAIN values at offset 30",
    "bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet": "data page at offset 4 in column nation_key",
    "bad_data/ARROW-RS-GH-6229-LEVELS.parquet": "data page at offset 19 in column outer",
    "bad_data/PARQUET-1481.parquet": "footer of 154 bytes at offset 289",
}


def jsonl(text):
    return [json.loads(line) for line in text.splitlines()]


def readable_or_decodable(e):
    return e["readable"] and not e["encrypted"]


# --- the corpus ---------------------------------------------------------------------------

@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(readable_or_decodable))
def test_corpus_rows_equal_pyarrow(entry, capsys):
    path = path_of(entry)
    flags = ["--no-verify-checksums"] if entry["path"] in CORRUPT_CRC else []
    code, out, err = run(capsys, "head", path, "-n", HEAD_ROWS, "--json", *flags)
    assert code == 0, err
    head = json.loads(out)
    reference = pq.read_table(path)
    expected = table_rows(reference)
    assert head["num_rows"] == reference.num_rows
    assert [c["name"] for c in head["columns"]] == reference.column_names
    assert head["rows"] == expected[:HEAD_ROWS]

    code, out, err = run(capsys, "cat", path, "--format", "jsonl", *flags)
    assert code == 0, err
    assert jsonl(out) == expected

    code, out, err = run(capsys, "head", path, "-n", 3, *flags)
    assert code == 0, err
    assert out and not err


@pytest.mark.corpus
@pytest.mark.parametrize("path", sorted(CORRUPT_CRC))
def test_corrupt_checksum_stops_with_offset(path, corpus, capsys):
    for command in ("head", "cat"):
        code, out, err = run(capsys, command, corpus / path)
        assert code == 2
        assert "ChecksumError" in err and "at offset 4" in err and "Traceback" not in err


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: e["path"].startswith("bad_data/")))
def test_bad_data(entry, capsys):
    path = path_of(entry)
    if entry["path"] not in BAD_DATA:
        # Damaged only in ways readers tolerate (ARROW-GH-43605): read as pyarrow reads it.
        assert entry["readable"]
        code, out, err = run(capsys, "cat", path, "--format", "jsonl")
        assert code == 0, err
        assert jsonl(out) == table_rows(pq.read_table(path))
        return
    for argv in (("head", path), ("head", path, "--json"), ("cat", path, "--format", "csv"),
                 ("cat", path, "--json")):
        code, out, err = run(capsys, *argv)
        assert code in (1, 2), argv
        assert BAD_DATA[entry["path"]] in err, err
        assert "offset" in err and "Traceback" not in err
    # cat --json still closes its document and says why it stopped.
    code, out, err = run(capsys, "cat", path, "--json")
    if out:
        doc = json.loads(out)
        assert BAD_DATA[entry["path"]] in doc["error"]


# --- files written here: every type, spelled as documented -----------------------------

def typed_table():
    n = 6
    ts = np.array([0, 1_700_000_000_123_456, -86_400_000_000, 253402300799_000_000,
                   1, 42], np.int64)
    return pa.table({
        "i8": pa.array([1, -128, 127, None, 0, 5], pa.int8()),
        "u16": pa.array([0, 65535, None, 1, 2, 3], pa.uint16()),
        "u64": pa.array([0, 2**64 - 1, 2**63, None, 7, 9], pa.uint64()),
        "f32": pa.array([1.5, float("nan"), float("inf"), float("-inf"), None, -0.0],
                        pa.float32()),
        "f64": pa.array([0.1, 1e300, None, float("nan"), -2.5, 3.0]),
        "s": pa.array(["a", "", None, "Ünïcode ✓", "x" * 50, "tab\tnew\nline"]),
        "b": pa.array([b"\x00\xff", b"", None, b"abc", b"\x80", b"z"], pa.binary()),
        "fsb": pa.array([b"abcd", b"\x00\x00\x00\x00", None, b"wxyz", b"1234", b"5678"],
                        pa.binary(4)),
        "d9": pa.array([None, D("1.50"), D("-0.01"), D("1234567.89"), D("0.00"),
                        D("-9999999.99")], pa.decimal128(9, 2)),
        "d38": pa.array([D("12345678901234567890.123456789")] * n, pa.decimal128(38, 9)),
        "date": pa.array([0, 19782, -1, None, 2932896, -719162], pa.date32()),
        "t_ms": pa.array([0, 45_000_123, None, 86_399_999, 1, 2], pa.time32("ms")),
        "t_us": pa.array([0, 45_000_123_456, None, 1, 2, 3], pa.time64("us")),
        "t_ns": pa.array([0, 45_000_123_456_789, None, 1, 2, 3], pa.time64("ns")),
        "ts_us": pa.array(ts, pa.timestamp("us")),
        "ts_ms_utc": pa.array(ts // 1000, pa.timestamp("ms", tz="UTC")),
        "ts_ns_utc": pa.array([0, 1_700_000_000_123_456_789, None, -1, 5, 6],
                              pa.timestamp("ns", tz="UTC")),
        "ts_ms_ny": pa.array(ts // 1000, pa.timestamp("ms", tz="America/New_York")),
        "ts_us_off": pa.array(ts, pa.timestamp("us", tz="+05:30")),
        "dur": pa.array([0, -1, 90061_000_001, None, 5, 6], pa.duration("us")),
        "lst": pa.array([[1, 2], [], None, [None], [3], [4, 5, 6]], pa.list_(pa.int32())),
        "nested": pa.array([[[1], [2, 3]], [], None, [None, []], [[4]], [[5]]],
                           pa.list_(pa.list_(pa.int64()))),
        "st": pa.array([{"x": 1, "y": "a"}, None, {"x": None, "y": None}, {"x": 2, "y": "b"},
                        {"x": 3, "y": "c"}, {"x": 4, "y": "d"}],
                       pa.struct([("x", pa.int32()), ("y", pa.string())])),
        "mp": pa.array([[("k", 1), ("j", None)], [], None, [("z", 3)], [("a", 4)],
                        [("b", 5)]], pa.map_(pa.string(), pa.int32())),
        "dict": pa.array(["red", "blue", None, "red", "red", "green"]).dictionary_encode(),
        "large": pa.array(["L1", None, "L3", "L4", "L5", "L6"], pa.large_string()),
    })


@pytest.fixture(scope="module")
def typed_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("rows") / "typed.parquet"
    pq.write_table(typed_table(), path, row_group_size=4)
    return path


def test_typed_rows_equal_pyarrow(typed_file, capsys):
    expected = table_rows(pq.read_table(typed_file))
    code, out, err = run(capsys, "cat", typed_file, "--format", "jsonl")
    assert code == 0, err
    assert jsonl(out) == expected
    code, out, err = run(capsys, "head", typed_file, "-n", 100, "--json", "--binary", "hex")
    assert code == 0, err
    assert json.loads(out)["rows"] == table_rows(pq.read_table(typed_file), binary="hex")
    code, out, err = run(capsys, "cat", typed_file, "--json", "--timestamps", "local")
    assert code == 0, err
    assert json.loads(out)["rows"] == table_rows(pq.read_table(typed_file), timestamps="local")


def test_documented_spellings(typed_file, capsys):
    code, out, err = run(capsys, "cat", typed_file, "--format", "jsonl")
    rows = jsonl(out)
    first, second = rows[0], rows[1]
    assert first["f32"] == 1.5 and second["f32"] == "NaN" and rows[2]["f32"] == "Infinity"
    assert rows[3]["f32"] == "-Infinity" and rows[4]["f32"] is None
    assert second["u64"] == 2**64 - 1                   # exact, not a float
    assert first["b"] == "AP8=" and first["fsb"] == "YWJjZA=="
    assert second["d9"] == "1.50" and rows[2]["d9"] == "-0.01"
    assert first["d38"] == "12345678901234567890.123456789"
    assert second["date"] == "2024-02-29" and rows[4]["date"] == "9999-12-31"
    assert second["t_ms"] == "12:30:00.123" and second["t_ns"] == "12:30:00.123456789"
    assert second["ts_us"] == "2023-11-14T22:13:20.123456"
    assert second["ts_ms_utc"] == "2023-11-14T22:13:20.123Z"
    # A timestamp with a time zone is its UTC instant, whatever the zone (as convert writes).
    assert second["ts_ms_ny"] == "2023-11-14T22:13:20.123Z"
    assert rows[3]["ts_us_off"] == "9999-12-31T23:59:59.000000Z"
    assert second["ts_us_off"] == "2023-11-14T22:13:20.123456Z"
    assert rows[2]["dur"] == "P1DT1H1M1.000001S" and second["dur"] == "-P0DT0H0M0.000001S"
    assert first["mp"] == [["k", 1], ["j", None]] and rows[2]["mp"] is None
    assert first["st"] == {"x": 1, "y": "a"} and second["st"] is None
    assert first["nested"] == [[1], [2, 3]] and first["dict"] == "red"
    code, out, err = run(capsys, "cat", typed_file, "--format", "jsonl", "--timestamps", "local")
    local = jsonl(out)
    assert local[1]["ts_ms_ny"] == "2023-11-14T17:13:20.123-05:00"
    assert local[3]["ts_us_off"] == "10000-01-01T05:29:59.000000+05:30"   # past datetime's range
    assert local[1]["ts_us_off"] == "2023-11-15T03:43:20.123456+05:30"
    assert local[3]["ts_ms_ny"] == "9999-12-31T18:59:59.000-05:00"
    assert local[1]["ts_ms_utc"] == second["ts_ms_utc"] and local[1]["ts_us"] == second["ts_us"]


def test_csv_and_json_document_match_jsonl(typed_file, capsys):
    code, out, _ = run(capsys, "cat", typed_file, "--format", "jsonl")
    rows = jsonl(out)
    code, out, err = run(capsys, "cat", typed_file, "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["rows"] == rows and "error" not in doc
    assert [c["name"] for c in doc["columns"]] == list(rows[0])
    code, out, err = run(capsys, "cat", typed_file, "--format", "csv")
    assert code == 0, err
    table = list(csv.reader(io.StringIO(out)))
    assert table[0] == list(rows[0])
    for row, line in zip(rows, table[1:]):
        for name, cell in zip(table[0], line):
            value = row[name]
            if value is None:
                assert cell == ""
            elif isinstance(value, str):
                assert cell == value
            else:
                assert json.loads(cell) == value
    assert len(table) == len(rows) + 1


def test_cat_text_equals_convert_text(typed_file, tmp_path, capsys):
    """cat and convert share one renderer: their CSV and JSON Lines are the same bytes."""
    for form, suffix in (("csv", "csv"), ("jsonl", "jsonl")):
        code, out, err = run(capsys, "cat", typed_file, "--format", form)
        assert code == 0, err
        target = tmp_path / f"typed.{suffix}"
        code, _, err = run(capsys, "convert", typed_file, target)
        assert code == 0, err
        assert out == target.read_text(encoding="utf-8"), form


def test_csv_quotes_carriage_returns(tmp_path, capsys):
    path = tmp_path / "text.parquet"
    values = ["a\rb", 'say "hi"', "", None, "x,y", "line\nbreak", "\r"]
    pq.write_table(pa.table({"s": values, "n": list(range(len(values)))}), path)
    code, out, err = run(capsys, "cat", path, "--format", "csv")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert rows == [["s", "n"]] + [["" if v is None else v, str(i)]
                                   for i, v in enumerate(values)]


def test_zoned_timestamps_local_and_utc(tmp_path, capsys):
    """Local mean time has an offset with seconds; a value the zone database cannot place
    (local time past year 9999) falls back to its UTC instant. Parquet has no seconds
    unit: the file stores milliseconds, and pqkit reads them as pyarrow does."""
    path = tmp_path / "paris.parquet"
    seconds = [-2_500_000_000, 0, 253402300799, None, 1_700_000_000]
    table = pa.table({"t": pa.array(seconds, pa.timestamp("s", tz="Europe/Paris"))})
    pq.write_table(table, path)
    code, out, err = run(capsys, "cat", path, "--format", "jsonl")
    assert code == 0, err
    assert [r["t"] for r in jsonl(out)] == [
        "1890-10-11T19:33:20.000Z", "1970-01-01T00:00:00.000Z", "9999-12-31T23:59:59.000Z",
        None, "2023-11-14T22:13:20.000Z"]
    code, out, err = run(capsys, "head", path, "--json", "--timestamps", "local")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [r["t"] for r in rows] == [
        "1890-10-11T19:42:41.000+00:09:21", "1970-01-01T01:00:00.000+01:00",
        "9999-12-31T23:59:59.000Z", None, "2023-11-14T23:13:20.000+01:00"]
    # pyarrow cannot make a datetime of the 9999 row in Paris: compare the others.
    theirs = pq.read_table(path)
    assert str(theirs.schema.field("t").type) == "timestamp[ms, tz=Europe/Paris]"
    assert rows[:2] + rows[3:] == table_rows(theirs.take([0, 1, 3, 4]), timestamps="local")


def test_invalid_utf8_is_shown_replaced(tmp_path, capsys):
    path = tmp_path / "bad_utf8.parquet"
    strings = pa.array([b"ok", b"\xffbad", None], pa.binary()).view(pa.string())
    pq.write_table(pa.table({"s": strings}), path)
    code, out, err = run(capsys, "cat", path, "--format", "jsonl")
    assert code == 0, err
    assert [r["s"] for r in jsonl(out)] == ["ok", "\ufffdbad", None]
    code, out, err = run(capsys, "convert", path, tmp_path / "out.jsonl")
    # a conversion refuses the row as every read does (issue 31: text is valid UTF-8)
    assert code == 2 and "InvalidStringError: column s" in err and "row 1" in err


def test_table_format_streams_every_row(typed_file, capsys):
    code, out, err = run(capsys, "cat", typed_file)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 2 + pq.read_metadata(typed_file).num_rows    # header, rule, rows
    assert lines[0].split()[:2] == ["i8", "u16"]


def test_column_selection_and_row_counts(typed_file, capsys):
    code, out, err = run(capsys, "head", typed_file, "-n", 5, "--columns", "i8,st.y", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert [c["name"] for c in doc["columns"]] == ["i8", "st"]
    assert [r["st"] for r in doc["rows"][:2]] == [{"y": "a"}, None]
    assert len(doc["rows"]) == 5                       # spans the two row groups (4 + 2 rows)
    code, out, _ = run(capsys, "head", typed_file, "-n", 0, "--json")
    assert json.loads(out)["rows"] == []
    code, out, _ = run(capsys, "head", typed_file, "-n", 1000, "--json")
    assert len(json.loads(out)["rows"]) == 6
    code, out, err = run(capsys, "head", typed_file, "--columns", "nope")
    assert code == 2 and "nope" in err


def test_cat_reads_one_row_group_at_a_time(tmp_path, monkeypatch, capsys):
    path = tmp_path / "groups.parquet"
    pqkit.write_table({"x": list(range(1000))}, path, row_group_size=100)
    calls = []
    original = pqkit.ParquetFile.iter_batches

    def one_group_only(self, batch_size=65536, columns=None, row_groups=None):
        assert row_groups is not None and len(row_groups) == 1
        calls.append(row_groups[0])
        return original(self, batch_size, columns, row_groups)

    original_read = pqkit.ParquetFile.read

    def schema_only_read(self, columns=None, row_groups=None, filters=None):
        assert row_groups == [], "cat read whole row groups outside iter_batches"
        return original_read(self, columns, row_groups, filters)

    monkeypatch.setattr(pqkit.ParquetFile, "iter_batches", one_group_only)
    monkeypatch.setattr(pqkit.ParquetFile, "read", schema_only_read)
    code, out, err = run(capsys, "cat", path, "--format", "jsonl")
    assert code == 0, err
    assert calls == list(range(10))
    assert [r["x"] for r in jsonl(out)] == list(range(1000))


def test_failure_after_some_rows(tmp_path, capsys):
    """A bad page in the second row group: the first group's rows are out, then exit 2."""
    path = tmp_path / "bad_second_group.parquet"
    pqkit.write_table({"x": list(range(20))}, path, row_group_size=10, compression="none")
    md = pqkit.read_metadata(path)
    chunk = md.row_group(1).thrift.columns[0].meta_data
    data = bytearray(path.read_bytes())
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    data[start + chunk.total_compressed_size - 1] ^= 0xFF      # the last page's last byte
    path.write_bytes(bytes(data))
    code, out, err = run(capsys, "cat", path, "--json")
    assert code == 2
    doc = json.loads(out)
    assert [r["x"] for r in doc["rows"]] == list(range(10))
    assert "row group 1" in doc["error"] and "ChecksumError" in doc["error"]
    assert f"at file offset {start}" in err
    code, out, err = run(capsys, "cat", path, "--format", "jsonl", "--no-verify-checksums")
    assert code == 0 and len(jsonl(out)) == 20


def test_unusable_input(tmp_path, capsys):
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"PAR1" + os.urandom(64))
    for command in ("head", "cat"):
        code, out, err = run(capsys, command, junk)
        assert code == 2 and "offset" in err and not out
        code, out, err = run(capsys, command, tmp_path / "missing.parquet")
        assert code == 2 and "missing.parquet" in err


@pytest.mark.parametrize("command", ["head", "cat"])
def test_help_has_examples(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert f"pqinspect {command} data.parquet" in capsys.readouterr().out
