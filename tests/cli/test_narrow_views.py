"""Every human view keeps its identifying columns and values at 80 columns (issue 28,
item 5): long column names stay distinct (cut in the middle), diff keeps A and B,
pages and index keep the bounds and the CRC, dataset versions keeps the whole commit
time; --wide shows every column; meta shows typed statistics (timestamps, dates,
decimals, text as the Python API gives them) in text and JSON. Each view is rendered
at 80 and 120 columns (COLUMNS sets rich's width) and the key cells looked for."""
import datetime
import decimal
import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import pqkit
import pqkit.dataset as pds
from cli_run import run
from pqkit.cli import render
from rich.console import Console

WIDTHS = (80, 120)
SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample.parquet"
LONG = "a_fairly_long_column_name_number_"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    base = tmp_path_factory.mktemp("narrow")
    wide = base / "wide40.parquet"
    pq.write_table(pa.table({f"{LONG}{i:02}": [i, i + 1] for i in range(40)}), wide)
    paged = base / "paged.parquet"
    pqkit.write_table({"station_identifier_long_name": [f"station_{i:03}" for i in range(100)],
                       "reading": [i * 0.5 for i in range(100)]}, paged, data_page_size=300)
    typed = base / "typed.parquet"
    pq.write_table(pa.table({
        "ts": pa.array([datetime.datetime(2024, 1, 1, 12), datetime.datetime(2025, 6, 1)],
                       pa.timestamp("us", tz="UTC")),
        "local": pa.array([datetime.datetime(2024, 3, 4, 5, 6, 7, 8000)] * 2,
                          pa.timestamp("ms")),
        "day": pa.array([datetime.date(2024, 1, 1), datetime.date(2025, 2, 3)]),
        "amount": pa.array([decimal.Decimal("1.25"), decimal.Decimal("-3.50")],
                           pa.decimal128(9, 2)),
        "name": ["apple", "pear"]}), typed)
    other = base / "other.parquet"
    pq.write_table(pq.read_table(SAMPLE), other, compression="snappy", row_group_size=5)
    import os
    root = str(base / "sales")
    os.environ["PQKIT_DATASET_FSYNC"] = "0"
    try:
        for i in range(3):
            pds.write(root, {"order_id": [i], "region": ["north"]}, partition_by=["region"],
                      run_id=f"a-rather-long-run-identifier-{i}")
    finally:
        del os.environ["PQKIT_DATASET_FSYNC"]
    return {"wide": wide, "paged": paged, "typed": typed, "other": other, "root": root}


def view(capsys, monkeypatch, width, *argv):
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run(capsys, *argv)
    assert code in (0, 1), err
    assert all(len(line) <= width for line in out.splitlines()), out
    return out


def header_cells(out, first):
    """The header cells of the first table whose header starts with ``first``."""
    line = next(x for x in out.splitlines() if re.match(rf"┃ {re.escape(first)}\s+┃", x))
    return [c.strip() for c in line.strip("┃").split("┃")]


def first_cells(out, header):
    """The first cells of the rows of the table whose header starts with ``header``."""
    lines = out.splitlines()
    start = next(i for i, x in enumerate(lines) if re.match(rf"┃ {re.escape(header)}\s+┃", x))
    cells = []
    for line in lines[start + 2:]:
        if not line.startswith("│"):
            break
        cells.append(line.split("│")[1].strip())
    return cells


@pytest.mark.parametrize("width", WIDTHS)
def test_meta_keeps_long_column_names_distinct(capsys, monkeypatch, files, width):
    out = view(capsys, monkeypatch, width, "meta", files["wide"])
    names = first_cells(out.split("Row group 0: 2 rows")[1], "column")
    assert len(names) == 40 and len(set(names)) == 40, names
    for i, name in enumerate(names):
        full = f"{LONG}{i:02}"
        assert name == full or (name.endswith(f"_{i:02}") and full.startswith(
            name.split("…")[0])), name


def test_cut_in_the_middle_keeps_both_ends():
    table = render.grid(None, ["column", "type"], [(f"{LONG}{i:02}", "INT64") for i in range(3)])
    con = Console(width=32, record=True, highlight=False)
    con.print(table)
    text = con.export_text()
    cells = re.findall(r"│ (\S+)\s+│ INT64", text)
    assert len(set(cells)) == 3
    for i, cell in enumerate(cells):
        # the shared head goes, the differing tail stays with as much context as fits
        assert cell.startswith("…") and len(cell) == 20 and f"{LONG}{i:02}".endswith(cell[1:])


def test_cut_keeps_the_part_that_differs_between_shared_head_and_tail():
    names = [f"warehouse/sales/region={r}/part-{i:05}-3b66aa01f5c24e0f9d1a.parquet"
             for r in ("north", "south") for i in range(2)]
    table = render.grid(None, ["file", "rows"], [(n, 1) for n in names])
    con = Console(width=36, record=True, highlight=False)
    con.print(table)
    cells = re.findall(r"│ (\S+)\s+│ 1 ", con.export_text())
    assert len(set(cells)) == 4, cells
    for name, cell in zip(names, cells):
        differs = name.split("=")[1][:16]                  # e.g. north/part-00000
        assert cell.startswith("…") and cell.endswith("…") and differs in cell, cell
        assert cell[1:-1] in name


@pytest.mark.parametrize("width", WIDTHS)
def test_diff_keeps_a_and_b(capsys, monkeypatch, files, width):
    out = view(capsys, monkeypatch, width, "diff", SAMPLE, files["other"])
    assert header_cells(out, "path")[:4] == ["path", "field", "A", "B"]
    row = next(x for x in out.splitlines() if "│ num_row_groups " in x)
    assert [c.strip() for c in row.strip("│").split("│")][2:4] == ["2", "3"]


@pytest.mark.parametrize("width", WIDTHS)
def test_pages_keeps_bounds_and_crc(capsys, monkeypatch, files, width):
    out = view(capsys, monkeypatch, width, "pages", files["paged"])
    assert header_cells(out, "#")[:6] == ["#", "offset", "type", "min", "max", "crc"]
    assert re.search(r"│ DATA_PAGE\s+│ station_000\s+│ station_019\s+│ ok\s+│", out), out


@pytest.mark.parametrize("width", WIDTHS)
def test_index_keeps_bounds(capsys, monkeypatch, files, width):
    out = view(capsys, monkeypatch, width, "index", files["paged"])
    assert header_cells(out, "page")[:4] == ["page", "offset", "min", "max"]
    assert re.search(r"│ station_020\s+│ station_039\s+│", out), out


@pytest.mark.parametrize("width", WIDTHS)
def test_dataset_versions_keeps_the_whole_commit_time(capsys, monkeypatch, files, width):
    doc = json.loads(run(capsys, "dataset", "versions", files["root"], "--json")[1])
    out = view(capsys, monkeypatch, width, "dataset", "versions", files["root"])
    for v in doc["versions"]:
        assert re.search(rf"│ {v['version']}( \(latest\))?\s+│ "
                         rf"{re.escape(v['committed_at_utc'])} │", out), out
    # and the time printed is one that --as-of takes
    as_of = doc["versions"][1]["committed_at_utc"]
    info = json.loads(run(capsys, "dataset", "info", files["root"], "--as-of", as_of,
                          "--json")[1])
    assert info["version"] == doc["versions"][1]["version"]


def test_wide_shows_every_column_at_80(capsys, monkeypatch, files):
    narrow = view(capsys, monkeypatch, 80, "pages", files["paged"])
    assert "left out" in narrow
    monkeypatch.setenv("COLUMNS", "80")
    code, wide, _ = run(capsys, "pages", files["paged"], "--wide")
    assert code == 0 and "left out" not in wide
    assert header_cells(wide, "#") == ["#", "offset", "type", "min", "max", "crc",
                                       "compressed", "values", "nulls", "rows", "encoding",
                                       "uncompressed", "header"]
    code, wide, _ = run(capsys, "dataset", "versions", files["root"], "--wide")
    assert code == 0 and "a-rather-long-run-identifier-2" in wide and "left out" not in wide


TYPED = {"ts": ("2024-01-01T12:00:00Z", "2025-06-01T00:00:00Z"),
         "local": ("2024-03-04T05:06:07.008000", "2024-03-04T05:06:07.008000"),
         "day": ("2024-01-01", "2025-02-03"),
         "amount": ("-3.50", "1.25"),
         "name": ("apple", "pear")}


def test_meta_json_statistics_are_typed(capsys, files):
    doc = json.loads(run(capsys, "meta", files["typed"], "--json")[1])
    stats = {c["path"]: c["statistics"] for c in doc["row_groups"][0]["columns"]}
    md = pqkit.ParquetFile(files["typed"]).metadata
    for i, (path, (lo, hi)) in enumerate(TYPED.items()):
        assert (stats[path]["min_value"], stats[path]["max_value"]) == (lo, hi), path
        api = md.row_group(0).column(i).statistics
        assert _spelled(api.min) == lo and _spelled(api.max) == hi


def _spelled(value):
    """The Python API's typed bound spelled as the JSON view spells it."""
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.isoformat().replace("+00:00", "Z")
    return str(value) if isinstance(value, decimal.Decimal) else (
        value.isoformat() if hasattr(value, "isoformat") else value)


@pytest.mark.parametrize("width", WIDTHS)
def test_meta_text_statistics_are_typed(capsys, monkeypatch, files, width):
    out = view(capsys, monkeypatch, width, "meta", files["typed"])
    stats = out.split("statistics", 1)[1]
    for path, (lo, hi) in TYPED.items():
        assert re.search(rf"│ {path}\s+│ {re.escape(lo)}\s+│ {re.escape(hi)}\s+│", stats), path


# every command's identifying cells at 80 and 120 columns
KEY_CELLS = {
    "schema": (lambda f: ["schema", SAMPLE], ["temperature", "tags", "point", "DOUBLE"]),
    "meta": (lambda f: ["meta", SAMPLE], ["temperature", "tags.list.element", "point.y",
                                          "BYTE_ARRAY", "ZSTD"]),
    "pages": (lambda f: ["pages", f["paged"]], ["station_000", "station_099", "min", "max",
                                                "crc"]),
    "index": (lambda f: ["index", f["paged"]], ["station_000", "station_099", "min", "max"]),
    "layout": (lambda f: ["layout", f["other"]], ["column chunk", "temperature", "footer"]),
    "head": (lambda f: ["head", SAMPLE], ["temperature", "city"]),
    "verify": (lambda f: ["verify", SAMPLE, f["other"]], ["PQ-CRC-002", "sample.parquet",
                                                           "other.parquet"]),
    "dictionary": (lambda f: ["dictionary", SAMPLE, "--column", "city"], ["entries"]),
    "diff": (lambda f: ["diff", SAMPLE, f["other"]], ["num_row_groups", "┃ A ", "┃ B "]),
    "take": (lambda f: ["take", SAMPLE, "0", "7"], ["temperature", "city"]),
    "explain": (lambda f: ["explain", f["other"], "--where", "temperature > 20"],
                ["decision", "skip"]),
    "advise": (lambda f: ["advise", SAMPLE, "--codec", "zstd"], ["tags.list.element",
                                                                 "suggested", "point.x"]),
    "dataset-versions": (lambda f: ["dataset", "versions", f["root"]], ["2 (latest)",
                                                                      "committed (UTC)"]),
    "dataset-files": (lambda f: ["dataset", "files", f["root"]], ["region=north"]),
    "dataset-info": (lambda f: ["dataset", "info", f["root"]], ["order_id", "region",
                                                               "a-rather-long-run-identifier-2"]),
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("command", list(KEY_CELLS))
def test_key_cells_at_80_and_120(capsys, monkeypatch, files, command, width):
    argv, cells = KEY_CELLS[command]
    out = view(capsys, monkeypatch, width, *argv(files))
    missing = [c for c in cells if c not in out]
    assert not missing, (missing, out)


@pytest.mark.parametrize("width", WIDTHS)
def test_dataset_files_paths_stay_distinct(capsys, monkeypatch, files, width):
    out = view(capsys, monkeypatch, width, "dataset", "files", files["root"])
    paths = first_cells(out, "path")
    assert len(paths) == 3 and len(set(paths)) == 3
    assert all(p.startswith("region=north/") and p.endswith(".parquet") for p in paths)


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """A directory of files whose names differ only in the middle."""
    root = tmp_path_factory.mktemp("parts") / "a_long_table_directory_name"
    for region in ("north", "south"):
        for i in range(2):
            path = root / f"region={region}" / f"part-{i:05}-3b66aa01f5c24e0f9d1a.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            pq.write_table(pa.table({"x": [i]}), path)
    return root


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("command", ["meta", "verify"])
def test_file_summaries_name_files_under_their_common_root(capsys, monkeypatch, parts,
                                                           command, width):
    out = view(capsys, monkeypatch, width, command, parts)
    assert f"under {parts}/" in " ".join(out.split())
    names = [n for n in first_cells(out, "file") if not n.startswith("total")]
    assert len(names) == 4 and len(set(names)) == 4, names
    for name in names:
        assert re.match(r"region=(north|south)/part-0000[01]", name), name
