"""pqinspect convert: --json summaries, options, exit codes, corpus files against pyarrow,
and bounded memory on a 200,000-row CSV."""
import bz2
import csv
import datetime as dt
import gzip
import io
import json
import lzma
import os
import sys
import tracemalloc

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import run
from pyarrow_json import table_rows

from corpus import entries, path_of
from pqkit import format as fmt
from pqkit.cli.main import main

CSV_TEXT = ("id,name,score,at,day,ok\n"
            '1,"Smith, J",1.5,2024-01-02T03:04:05Z,2024-01-02,true\n'
            '2,"two\nlines",2,2024-01-02 03:04:05.25+02:00,2024-02-29,false\n'
            "3,,,,,\n")


def summary(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    assert err == ""                         # no progress bar when stderr is not a terminal
    return json.loads(out)


def leftovers(directory, keep):
    return sorted(set(os.listdir(directory)) - set(keep))


# --- the basics ----------------------------------------------------------------------------
def test_help_has_an_example(capsys):
    with pytest.raises(SystemExit) as info:
        main(["convert", "--help"])
    out, _ = capsys.readouterr()
    assert info.value.code == 0
    assert "pqinspect convert data.csv data.parquet" in out and "--schema" in out
    assert "timestamp[us, UTC]" in out and "decimal(p,s)" in out


def test_csv_to_parquet_and_back(capsys, tmp_path):
    src = tmp_path / "in.csv"
    src.write_text(CSV_TEXT)
    doc = summary(capsys, "convert", src, tmp_path / "out.parquet")
    assert doc["rows"] == 3 and doc["row_groups"] == 1 and doc["schema_inferred"]
    assert (doc["from"], doc["to"]) == ("csv", "parquet")
    assert doc["input_bytes"] == src.stat().st_size
    assert doc["output_bytes"] == (tmp_path / "out.parquet").stat().st_size
    assert isinstance(doc["seconds"], float) and doc["seconds"] >= 0
    assert [(c["name"], c["type"]) for c in doc["schema"]] == [
        ("id", "int64"), ("name", "string"), ("score", "double"), ("at", "timestamp[us, UTC]"),
        ("day", "date"), ("ok", "bool")]
    table = pq.read_table(tmp_path / "out.parquet")
    assert table.schema.field("at").type == pa.timestamp("us", "UTC")
    assert table.column("at").to_pylist()[1] == dt.datetime(2024, 1, 2, 1, 4, 5, 250000,
                                                             tzinfo=dt.timezone.utc)
    assert table.column("name").to_pylist() == ["Smith, J", "two\nlines", None]
    doc = summary(capsys, "convert", tmp_path / "out.parquet", tmp_path / "back.csv")
    assert doc["rows"] == 3 and doc["row_groups"] == 1 and not doc["schema_inferred"]
    assert (tmp_path / "back.csv").read_text() == (
        "id,name,score,at,day,ok\n"
        '1,"Smith, J",1.5,2024-01-02T03:04:05.000000Z,2024-01-02,true\n'
        '2,"two\nlines",2.0,2024-01-02T01:04:05.250000Z,2024-02-29,false\n'
        "3,,,,,\n")
    assert leftovers(tmp_path, ["in.csv", "out.parquet", "back.csv"]) == []


def test_human_view(capsys, tmp_path):
    (tmp_path / "in.csv").write_text(CSV_TEXT)
    code, out, err = run(capsys, "convert", tmp_path / "in.csv", tmp_path / "o.parquet")
    assert code == 0 and err == ""
    assert "Converted" in out and "Schema (inferred)" in out and "timestamp[us, UTC]" in out


def test_jsonl_nested_round_trip(capsys, tmp_path):
    text = ('{"id":1,"tags":["a","b"],"point":{"x":1.5,"y":null},"at":"2024-01-02"}\n'
            '{"id":2,"tags":[],"point":null,"at":null}\n'
            '{"id":3,"tags":null,"point":{"x":-2.0,"y":7.0},"at":"2024-03-01"}\n')
    (tmp_path / "in.jsonl").write_text(text)
    doc = summary(capsys, "convert", tmp_path / "in.jsonl", tmp_path / "o.parquet")
    assert [c["type"] for c in doc["schema"]] == [
        "int64", "list<string>", "struct<x: double, y: double>", "date"]
    table = pq.read_table(tmp_path / "o.parquet")
    assert table.column("point").to_pylist() == [{"x": 1.5, "y": None}, None,
                                                 {"x": -2.0, "y": 7.0}]
    summary(capsys, "convert", tmp_path / "o.parquet", tmp_path / "back.ndjson")
    assert (tmp_path / "back.ndjson").read_text() == text


def test_row_groups_pages_and_compression(capsys, tmp_path):
    (tmp_path / "in.csv").write_text("n\n" + "".join(f"{i * 7919}\n" for i in range(2500)))
    doc = summary(capsys, "convert", tmp_path / "in.csv", tmp_path / "o.parquet",
                  "--row-group-size", "1000", "--page-size", "1024", "--compression",
                  "snappy", "--batch-size", "300")
    md = pq.read_metadata(tmp_path / "o.parquet")
    assert doc["row_groups"] == md.num_row_groups == 3
    assert [md.row_group(i).num_rows for i in range(3)] == [1000, 1000, 500]
    chunk = md.row_group(0).column(0)
    assert chunk.compression == "SNAPPY"
    assert _data_pages(tmp_path / "o.parquet", chunk) >= 4       # 8000 bytes of 1 KiB pages


def _data_pages(path, chunk):
    """Data pages of a column chunk, counted by walking its page headers."""
    data = path.read_bytes()
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    pos, end, pages = start, start + chunk.total_compressed_size, 0
    while pos < end:
        header, size = fmt.decode(fmt.PageHeader, data, pos)
        pos += size + header.compressed_page_size
        pages += header.type in (fmt.PageType.DATA_PAGE, fmt.PageType.DATA_PAGE_V2)
    return pages


def test_schema_file_delimiter_and_no_header(capsys, tmp_path):
    schema = [{"name": "price", "type": "decimal(7,2)", "nullable": False},
              {"name": "when", "type": "timestamp[ms]"}, {"name": "tags", "type": "list<int8>"}]
    (tmp_path / "s.json").write_text(json.dumps(schema))
    (tmp_path / "in.txt").write_text('1.5;2024-01-02 03:04;[1,2]\n-0.25;;"[]"\n')
    doc = summary(capsys, "convert", tmp_path / "in.txt", tmp_path / "o.parquet", "--from",
                  "csv", "--no-header", "--delimiter", ";", "--schema", tmp_path / "s.json")
    assert doc["schema"] == [dict(schema[0]), dict(schema[1], nullable=True),
                             dict(schema[2], nullable=True)]
    table = pq.read_table(tmp_path / "o.parquet")
    assert str(table.schema.field("price").type) == "decimal128(7, 2)"
    assert not table.schema.field("price").nullable
    assert table.column("tags").to_pylist() == [[1, 2], []]
    summary(capsys, "convert", tmp_path / "o.parquet", tmp_path / "back.tsv")
    assert (tmp_path / "back.tsv").read_text() == (
        "price\twhen\ttags\n1.50\t2024-01-02T03:04:00.000\t[1,2]\n-0.25\t\t[]\n")
    # The --json summary of one run is a schema file for the next.
    (tmp_path / "run.json").write_text(json.dumps(doc))
    again = summary(capsys, "convert", tmp_path / "back.tsv", tmp_path / "o2.parquet",
                    "--schema", tmp_path / "run.json")
    assert again["schema"] == doc["schema"]
    assert pq.read_table(tmp_path / "o2.parquet").equals(table)


@pytest.mark.parametrize("suffix, codec", [(".gz", gzip), (".bz2", bz2), (".xz", lzma)])
def test_compressed_text(capsys, tmp_path, suffix, codec):
    (tmp_path / ("in.csv" + suffix)).write_bytes(codec.compress(CSV_TEXT.encode()))
    summary(capsys, "convert", tmp_path / ("in.csv" + suffix), tmp_path / "o.parquet")
    summary(capsys, "convert", tmp_path / "o.parquet", tmp_path / ("back.jsonl" + suffix))
    lines = codec.decompress((tmp_path / ("back.jsonl" + suffix)).read_bytes()).decode()
    assert [json.loads(line)["name"] for line in lines.splitlines()] == [
        "Smith, J", "two\nlines", None]
    (tmp_path / ("cut.csv" + suffix)).write_bytes(codec.compress(CSV_TEXT.encode())[:-8])
    code, out, err = run(capsys, "convert", tmp_path / ("cut.csv" + suffix),
                         tmp_path / "cut.parquet")
    assert code == 2 and "compressed byte offset" in err and not out
    assert not (tmp_path / "cut.parquet").exists()


def test_parquet_to_parquet(capsys, tmp_path):
    (tmp_path / "in.csv").write_text(CSV_TEXT)
    summary(capsys, "convert", tmp_path / "in.csv", tmp_path / "o.parquet")
    doc = summary(capsys, "convert", tmp_path / "o.parquet", tmp_path / "o2.parquet",
                  "--row-group-size", "2", "--compression", "none")
    assert doc["row_groups"] == 2
    assert pq.read_table(tmp_path / "o2.parquet").equals(pq.read_table(tmp_path / "o.parquet"))


def test_stdin_and_stdout(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(CSV_TEXT.encode())))
    code, out, err = run(capsys, "convert", "-", tmp_path / "o.parquet", "--from", "csv",
                         "--json")
    doc = json.loads(out)
    assert code == 0 and doc["rows"] == 3 and doc["input_bytes"] == len(CSV_TEXT.encode())
    code, out, err = run(capsys, "convert", tmp_path / "o.parquet", "-", "--to", "jsonl",
                         "--json")
    assert code == 0
    assert [json.loads(line)["id"] for line in out.splitlines()] == [1, 2, 3]
    assert json.loads(err)["rows"] == 3              # the summary moves to stderr
    code, out, err = run(capsys, "convert", "-", tmp_path / "x.parquet")
    assert code == 2 and "--from" in err


def test_progress_bar_only_on_a_terminal(capsys, monkeypatch, tmp_path):
    (tmp_path / "in.csv").write_text(CSV_TEXT)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    calls = []
    from pqkit.cli.rows import convert_cmd
    real = convert_cmd._Bar.__call__
    monkeypatch.setattr(convert_cmd._Bar, "__call__",
                        lambda self, done, total: calls.append((done, total)) or
                        real(self, done, total))
    code, out, _ = run(capsys, "convert", tmp_path / "in.csv", tmp_path / "o.parquet", "--json")
    assert code == 0 and json.loads(out)["rows"] == 3
    assert calls and calls[-1][1] == len(CSV_TEXT.encode())


# --- unusable input: exit 2, the line named, no output left behind --------------------------------
@pytest.mark.parametrize("name, text, extra, message", [
    ("a.csv", "a,b\n1,2\n3,x\n", ["--infer-rows", "1"],
     "line 3, byte offset 8, column 'b': value 'x' does not fit int64"),
    ("a.csv", "a,b\n1,2\n3\n", [], "line 3, byte offset 8: 1 fields, expected 2"),
    ("a.csv", 'a\n"open\n', [], "line 2, byte offset 2: malformed CSV"),
    ("a.jsonl", '{"a": 1}\n{"a": }\n', [], "line 2, byte offset 15: invalid JSON"),
    ("a.jsonl", '{"a": 1}\n{"b": 1}\n', ["--infer-rows", "1"], "line 2"),
    ("a.csv", "a\n1\n", ["--schema", "missing.json"], "No such file"),
    ("a.csv", "a\n1\n", ["--compression", "lzma9"], "unknown compression"),
    ("a.xml", "<a/>", [], "cannot tell the input format"),
])
def test_unusable_input(capsys, tmp_path, name, text, extra, message):
    (tmp_path / name).write_text(text)
    code, out, err = run(capsys, "convert", tmp_path / name, tmp_path / "o.parquet", *extra)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err
    assert leftovers(tmp_path, [name]) == []            # no partial or temporary file


BAD_CRC = {"data/datapage_v1-corrupt-checksum.parquet",
           "data/rle-dict-uncompressed-corrupt-checksum.parquet"}


@pytest.mark.parametrize("name", sorted(BAD_CRC))
def test_corrupt_parquet_input_leaves_no_output(capsys, tmp_path, corpus, name):
    code, out, err = run(capsys, "convert", corpus / name, tmp_path / "o.jsonl")
    assert code == 2 and "ChecksumError" in err and "offset" in err
    assert os.listdir(tmp_path) == []


# --- corpus files: our text equals pyarrow's rows rendered the same way ---------------------------
def _csv_cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, dict)):
        return json.dumps(v, ensure_ascii=False, separators=(",", ":"))
    return str(v)


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: e["readable"] and e["path"] not in BAD_CRC))
def test_corpus_parquet_to_jsonl_and_csv(capsys, tmp_path, entry):
    table = pq.read_table(path_of(entry))
    want = table_rows(table)
    doc = summary(capsys, "convert", path_of(entry), tmp_path / "o.jsonl")
    assert doc["rows"] == table.num_rows == len(want)
    assert doc["row_groups"] == pq.read_metadata(path_of(entry)).num_row_groups
    lines = (tmp_path / "o.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in lines] == want
    code, human, err = run(capsys, "convert", path_of(entry), tmp_path / "o.csv")
    assert code == 0 and f"{table.num_rows:,}" in human and "Traceback" not in err
    with open(tmp_path / "o.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == table.column_names
    assert rows[1:] == [[_csv_cell(r[name]) for name in table.column_names] for r in want]


# --- bounded memory ---------------------------------------------------------------------------
@pytest.mark.slow
def test_bounded_memory_on_200k_rows(capsys, tmp_path):
    rows = 200_000
    src = tmp_path / "big.csv"
    with open(src, "w") as f:
        f.write("id,name,score,at\n")
        f.writelines(f'{i},"customer {i * 7919 % 1000003}, street {i % 1000}",{i * 0.25},'
                     f"2024-01-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00\n"
                     for i in range(rows))
    size = src.stat().st_size
    tracemalloc.start()
    try:
        code, out, err = run(capsys, "convert", src, tmp_path / "big.parquet",
                             "--row-group-size", "2000", "--batch-size", "1000",
                             "--infer-rows", "500", "--json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 0, err
    doc = json.loads(out)
    md = pq.read_metadata(tmp_path / "big.parquet")
    assert doc["rows"] == md.num_rows == rows
    assert doc["row_groups"] == md.num_row_groups == rows // 2000
    assert size > 12_000_000 and peak < size / 4, (peak, size)
    last, i = pq.ParquetFile(tmp_path / "big.parquet").read_row_group(99).to_pylist()[-1], rows - 1
    assert last == {"id": i, "name": f"customer {i * 7919 % 1000003}, street {i % 1000}",
                    "score": i * 0.25, "at": dt.datetime(2024, 1, 1 + i % 28, i % 24, i % 60)}


# --- bad_data/: exit 2 naming the offset, no traceback, nothing left behind ----------------------
BAD_DATA_OFFSETS = {
    "bad_data/ARROW-GH-41317.parquet": "chunk at offset 2923",
    "bad_data/ARROW-GH-41321.parquet": "offset 1378",
    "bad_data/ARROW-GH-45185.parquet": "offset 4",
    "bad_data/ARROW-GH-47662.parquet": "offset 30",
    "bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet": "offset 4",
    "bad_data/ARROW-RS-GH-6229-LEVELS.parquet": "offset 19",
    "bad_data/PARQUET-1481.parquet": "offset 289",
}


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: e["path"].startswith("bad_data/")))
def test_bad_data_files(capsys, tmp_path, entry):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out, err = run(capsys, "convert", path_of(entry), out_dir / "o.jsonl")
    assert "Traceback" not in err
    if entry["path"] not in BAD_DATA_OFFSETS:          # decodable: what pyarrow returns
        assert code == 0, err
        want = table_rows(pq.read_table(path_of(entry)))
        assert [json.loads(x) for x in (out_dir / "o.jsonl").read_text().splitlines()] == want
        return
    assert code == 2 and BAD_DATA_OFFSETS[entry["path"]] in err, err
    assert os.listdir(out_dir) == []
