"""Issue 18: pqinspect advise measures each chunk under other encodings and codecs; on the
io_bench files (smaller versions) its projected size is within 5% of the file that
``--apply`` writes with its suggestion, and that file holds the same values."""
import json
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import rewrite_footer, run

from pqkit.inspect.verify import verify_file

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "bench"))
import io_bench

ROWS = 60_000
SAMPLE = 40_000           # below ROWS: the measures are scaled from a sample
CASES = ["int64", "float64", "strings_low", "strings_high", "int64_nulls", "list_int64",
         "struct"]
CODECS = ["none", "snappy", "zstd", "lz4"]


@pytest.fixture(scope="module")
def bench_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("advise")
    rng = np.random.default_rng(18)
    out = {}
    for case in CASES:
        path = root / f"{case}.parquet"
        pq.write_table(pa.table({case: io_bench.make_column(case, ROWS, rng)}), path,
                       compression="snappy")
        out[case] = path
    return out


@pytest.mark.parametrize("case", CASES)
def test_projection_within_5_percent_of_the_applied_file(bench_files, capsys, tmp_path, case):
    src, dest = bench_files[case], tmp_path / "advised.parquet"
    argv = ["advise", src, "--sample-rows", SAMPLE, "--apply", dest, "--json"]
    for codec in CODECS:
        argv += ["--codec", codec]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    doc = json.loads(out)
    actual = dest.stat().st_size
    assert doc["applied_bytes"] == actual
    assert abs(doc["projected_bytes"] - actual) <= 0.05 * actual, (doc["projected_bytes"],
                                                                   actual)
    assert pq.read_table(dest).equals(pq.read_table(src))
    assert verify_file(str(dest), deep=True).exit_code == 0
    for chunk in doc["chunks"]:
        assert chunk["sampled_rows"] == SAMPLE and chunk["rows"] == ROWS
        tried = {(t["encoding"], t["codec"]) for t in chunk["trials"]}
        assert {c for _, c in tried} == set(CODECS)
        assert all(t["bytes"] > 0 and t["decode_seconds"] >= 0 for t in chunk["trials"])
    # the suggestion is the smallest measured candidate of each column
    for col in doc["columns"]:
        (chunk,) = [c for c in doc["chunks"] if c["column"] == col["column"]]
        assert col["projected_bytes"] == min(t["bytes"] for t in chunk["trials"])
    written = pq.ParquetFile(dest).metadata.row_group(0)
    for i, col in enumerate(doc["columns"]):
        meta = written.column(i)
        assert meta.compression.lower() == ("uncompressed" if col["codec"] == "none"
                                            else col["codec"])
        want = "RLE_DICTIONARY" if col["encoding"] == "dictionary" else col["encoding"]
        assert want in meta.encodings


def test_candidates_follow_the_physical_type(bench_files, capsys):
    code, out, _ = run(capsys, "advise", bench_files["float64"], "--codec", "zstd", "--json")
    assert code == 0
    (chunk,) = json.loads(out)["chunks"]
    assert {t["encoding"] for t in chunk["trials"]} == {"PLAIN", "BYTE_STREAM_SPLIT",
                                                        "dictionary"}
    code, out, _ = run(capsys, "advise", bench_files["strings_low"], "--codec", "zstd",
                       "--json")
    assert code == 0
    (chunk,) = json.loads(out)["chunks"]
    assert {t["encoding"] for t in chunk["trials"]} == {
        "PLAIN", "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "dictionary"}


def test_human_view(bench_files, capsys):
    code, out, _ = run(capsys, "advise", bench_files["int64_nulls"], "--codec", "zstd")
    assert code == 0
    assert "projected" in out and "suggestion per column" in out and "DELTA_BINARY" in out
    code, _, err = run(capsys, "advise", bench_files["int64"], "--sample-rows", "0")
    assert code == 2 and "--sample-rows must be positive" in err


def test_encoding_and_codec_values_outside_the_enums(capsys, tmp_path):
    """An encoding number the format does not define in a chunk's metadata (once a
    ValueError from the Encoding enum) is shown as UNKNOWN(n)."""
    path = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"x": list(range(100))}), path)

    def odd(raw):
        raw.row_groups[0].columns[0].meta_data.encodings = [0, 99]

    odd_path = rewrite_footer(str(path), tmp_path / "odd.parquet", odd)
    code, out, err = run(capsys, "advise", odd_path, "--codec", "zstd", "--json")
    assert code == 0, err
    (chunk,) = json.loads(out)["chunks"]
    assert chunk["encodings"] == ["PLAIN", "UNKNOWN(99)"] and chunk["codec"] == "snappy"
