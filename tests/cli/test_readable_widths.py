"""The human views read well at 80, 100 and 140 columns: no token of the data (type
names, column paths, short values, headers) is broken across lines, nothing is wider
than the terminal, and the items of issue 18 (verify findings once, --version,
geospatial statistics and index/bloom offsets in meta, head on wide files, no empty
header row in layout --html)."""
import itertools
import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from rich.console import Console

from cli_run import run
from pqkit.cli import render
from pqkit.format import Type
from pqkit.read.fetch.footer import read_metadata

WIDTHS = (80, 100, 140)
SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample.parquet"
WIDE_NESTED = "data/nested_structs.rust.parquet"
GEO = "data/geospatial/geospatial.parquet"
TINY_PAGES = "data/alltypes_tiny_pages.parquet"
CORRUPT_CRC = "data/datapage_v1-corrupt-checksum.parquet"
CELL_EDGE = "│┃"


def vocabulary(path):
    """Column paths, their names and physical type names of a file."""
    md = read_metadata(str(path))
    words = set()
    for node in md.schema.columns:
        words.add(node.dotted_path)
        words.update(node.dotted_path.split("."))
    for rg in md.raw.row_groups:
        for chunk in rg.columns:
            if chunk.meta_data is not None:
                words.add(render.enum_name(Type, chunk.meta_data.type))
    return words


def cell_contents(line):
    """What each table cell of ``line`` holds, as the cell-edge pattern of
    ``broken_tokens`` sees it: the text before the first edge from the line's start, and
    after each edge the text past at most one space; each up to the next edge."""
    parts = re.split("[" + CELL_EDGE + "]", line)
    cells = [parts[0]]
    cells += [p[1:] if p[:1].isspace() else p for p in parts[1:]]
    return cells


def broken_tokens(text, tokens):
    """Tokens some table cell shows only a head of at the end of a line's cell, the
    rest on the next line (rich's fold), e.g. "BYTE_A" then "RRAY".

    A head counts where a cell holds exactly it, trailing spaces aside; the cells of
    every line are indexed once, so each token's heads are dictionary look-ups."""
    lines = text.splitlines()
    where = {}  # a cell's text without trailing spaces -> [(line number, cell text)]
    for i, line in enumerate(lines[:-1]):
        for cell in cell_contents(line):
            key = cell.rstrip()
            if key:
                where.setdefault(key, []).append((i, cell))
    broken = set()
    for token in tokens:
        if len(token) < 4:
            continue
        for k in range(2, len(token) - 1):
            head, tail = token[:k], token[k:]
            if head in tokens:
                continue
            for i, cell in where.get(head.rstrip(), ()):
                if cell.startswith(head) and tail[:2] in lines[i + 1]:
                    broken.add(token)
    return broken


def folded_lines(text, width, tokens):
    """Prose lines (not table rows) that end in the middle of one of ``tokens``: filled to
    the last column, the token's head at the end and its tail starting the next line.
    (A line broken at a space exactly at the last column looks the same, so only known
    tokens count.)"""
    pairs = []
    for line, nxt in itertools.pairwise(text.splitlines()):
        head = re.search(r"(\S+)$", line) if len(line) == width else None
        tail = re.match(r"\S+", nxt)
        if head and tail and head.group(1) + tail.group(0) in tokens:
            pairs.append((line, nxt))
    return pairs


def view(capsys, monkeypatch, width, *argv):
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run(capsys, *argv)
    assert "Traceback" not in err
    return code, out, err


def check_fits(out, width):
    assert out.strip()
    too_wide = [line for line in out.splitlines() if len(line) > width]
    assert not too_wide, too_wide[:3]


def corpus_path(corpus, name):
    """A corpus file by its path under the corpus root (the ``corpus`` fixture skips,
    or in CI fails, when the corpus is missing)."""
    return corpus / name


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", [None, WIDE_NESTED, GEO], ids=["sample", "nested", "geo"])
@pytest.mark.parametrize("command", ["meta", "schema", "pages", "index", "layout", "head",
                                     "verify"])
def test_views_never_break_tokens(request, capsys, monkeypatch, width, name, command):
    path = SAMPLE if name is None else corpus_path(request.getfixturevalue("corpus"), name)
    code, out, _ = view(capsys, monkeypatch, width, command, path)
    assert code in (0, 1)
    check_fits(out, width)
    assert broken_tokens(out, vocabulary(path)) == set()


@pytest.mark.parametrize("width", WIDTHS)
def test_meta_sample_shows_types_whole(capsys, monkeypatch, width):
    _, out, _ = view(capsys, monkeypatch, width, "meta", SAMPLE)
    lines = out.splitlines()
    for path, physical in [("temperature", "DOUBLE"), ("city", "BYTE_ARRAY"),
                           ("price", "FIXED_LEN_BYTE_ARRAY"), ("tags.list.element",
                                                               "BYTE_ARRAY")]:
        # the row-group table shows each chunk on one line: path, type, codec
        assert any(re.search(rf"│ {re.escape(path)}\s+│ {physical}\s+│ ZSTD", line)
                   for line in lines), (path, width)
    # every header of a shown table stays on one line
    assert "┃ column " in out and "┃ type " in out and "┃ codec " in out
    assert not any(re.fullmatch(r"[┃ ]*┃ \w{1,3} ┃.*", line) for line in lines)


def test_meta_shows_page_index_and_bloom_offsets(capsys, monkeypatch):
    _, out, _ = view(capsys, monkeypatch, 140, "meta", SAMPLE)
    md = read_metadata(str(SAMPLE))
    chunk = md.row_group(1).thrift.columns[1]          # city
    want = (f"{chunk.column_index_offset:,} +{chunk.column_index_length:,}",
            f"{chunk.offset_index_offset:,} +{chunk.offset_index_length:,}")
    line = next(x for x in out.splitlines() if "│ city " in x and want[0] in x)
    assert want[1] in line


def test_meta_bloom_filter_offsets(tmp_path, capsys, monkeypatch):
    path = tmp_path / "bloom.parquet"
    pq.write_table(pa.table({"k": [f"key{i}" for i in range(100)]}), str(path),
                   bloom_filter_options={"k": {"ndv": 100}})
    md = read_metadata(str(path))
    m = md.row_group(0).thrift.columns[0].meta_data
    assert m.bloom_filter_offset is not None
    _, out, _ = view(capsys, monkeypatch, 80, "meta", path)
    span = f"{m.bloom_filter_offset:,}" + (
        "" if m.bloom_filter_length is None else f" +{m.bloom_filter_length:,}")
    assert any("│ k " in line and span in line for line in out.splitlines()), out


@pytest.mark.corpus
def test_meta_geospatial_statistics(capsys, monkeypatch, corpus):
    GEO_FILE = corpus_path(corpus, GEO)
    _, doc_text, _ = view(capsys, monkeypatch, 80, "meta", GEO_FILE, "--json")
    doc = json.loads(doc_text)
    geo = [c["geospatial_statistics"] for rg in doc["row_groups"] for c in rg["columns"]
           if c["path"] == "geometry"]
    assert geo and all(g is not None for g in geo)
    first = geo[0]
    assert set(first["bbox"]) == {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin",
                                  "mmax"}
    assert first["geospatial_types"] and all(
        re.fullmatch(r"[a-z]+(_z|_m|_zm)?", t) for t in first["geospatial_types"])
    _, out, _ = view(capsys, monkeypatch, 140, "meta", GEO_FILE)
    assert "geo types" in out and "geo bbox" in out
    box = first["bbox"]
    assert f"x {box['xmin']:g}..{box['xmax']:g}" in out
    assert first["geospatial_types"][0] in out


def test_geo_type_names_follow_duckdb():
    from pqkit.cli.file.meta_cmd import geo_type_name
    assert [geo_type_name(c) for c in (1, 3, 1003, 2006, 3007, 9)] == [
        "point", "polygon", "polygon_z", "multipolygon_m", "geometrycollection_zm",
        "unknown(9)"]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.corpus
def test_head_on_wide_nested_file(capsys, monkeypatch, width, corpus):
    nested = corpus_path(corpus, WIDE_NESTED)
    _, out, _ = view(capsys, monkeypatch, width, "head", nested)
    check_fits(out, width)
    names = [n.dotted_path.split(".")[0] for n in read_metadata(str(nested)).schema.columns]
    lines = out.splitlines()
    # no vertical headers: no header or cell line of one- or two-character columns
    assert not any(re.search(r"[┃│] \S{1,2} [┃│] \S{1,2} [┃│]", line) for line in lines)
    if "row 0" in out:              # per-row layout: every column name on its own line
        for name in dict.fromkeys(names):
            assert any(re.match(rf"│ {re.escape(name)}\s+│", line) for line in lines), name
    else:                           # side by side, the rest counted in the caption
        assert "left out" in out


def test_head_wide_horizontal_names_what_is_left_out(capsys, monkeypatch, tmp_path):
    path = tmp_path / "wide.parquet"
    pq.write_table(pa.table({f"column_{i:02}": [i, i + 1] for i in range(20)}), str(path))
    _, out, _ = view(capsys, monkeypatch, 140, "head", path)
    header = next(line for line in out.splitlines() if line.startswith("┃"))
    shown = re.findall(r"column_\d\d", header)
    assert shown == [f"column_{i:02}" for i in range(len(shown))] and 5 < len(shown) < 20
    assert f"{20 - len(shown)} more columns left out: column_{len(shown):02}" in \
        " ".join(out.split())


@pytest.mark.corpus
def test_verify_prints_each_finding_once(capsys, monkeypatch, corpus):
    bad = corpus_path(corpus, CORRUPT_CRC)
    code, out, err = view(capsys, monkeypatch, 100, "verify", bad)
    assert code == 1
    assert out.count("PQ-CRC-001") == 2          # two corrupt pages, one table row each
    assert "PQ-CRC-001" not in err.replace("first PQ-CRC-001", "")
    assert len(err.splitlines()) == 1 and err.startswith(f"pqinspect verify: {bad}: 2 errors")


def test_version(capsys):
    import pqkit
    with pytest.raises(SystemExit) as stop:
        run(capsys, "--version")
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"pqinspect (pqkit) {pqkit.__version__}\n"


def test_layout_html_has_no_empty_header_row(capsys, tmp_path):
    out_path = tmp_path / "layout.html"
    code, _, _ = run(capsys, "layout", SAMPLE, "--html", out_path)
    text = out_path.read_text() if out_path.exists() else capsys.readouterr().out
    assert "<th></th>" not in text
    summary = text.split("<table>", 1)[1].split("</table>", 1)[0]
    assert summary.lstrip().startswith("<tr><td") and "<th" not in summary


@pytest.mark.parametrize("width", WIDTHS)
def test_grid_at_fixed_width(width):
    """A Grid rendered by a recording Console of a fixed width keeps short tokens whole,
    cuts long values with an ellipsis and wraps prose between words."""
    long_value = "x" * 300
    table = render.grid("T", ["column", "type", "sample", "message"], [
        ("a.very.long.nested.leaf", "FIXED_LEN_BYTE_ARRAY", long_value,
         "the page header at offset 1234 claims more bytes than the chunk has left")])
    con = Console(width=width, record=True, highlight=False)
    con.print(table)
    text = con.export_text()
    check_fits(text, width)
    assert "a.very.long.nested.leaf" in text and "FIXED_LEN_BYTE_ARRAY" in text
    assert broken_tokens(text, {"a.very.long.nested.leaf", "FIXED_LEN_BYTE_ARRAY", "offset",
                                "claims", "header"}) == set()
    assert long_value not in text and ("…" in text or "left out" in text)


def in_terminal(width, *argv):
    """stdout of ``pqinspect *argv`` run in a pseudo-terminal ``width`` columns wide
    (rich measures the terminal itself; colours and styles stripped)."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import sys
    import tempfile
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    # stderr goes to a file, not a pipe: however much it says, the child never blocks
    with tempfile.TemporaryFile() as err_file:
        proc = subprocess.Popen([sys.executable, "-m", "pqkit.cli.main", *map(str, argv)],
                                stdout=slave, stderr=err_file, env=env)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:             # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        os.close(master)
        code = proc.wait(timeout=60)
        err_file.seek(0)
        err = err_file.read().decode("utf-8", "replace")
    assert code in (0, 1), err
    text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


TERMINAL_WIDTHS = (80, 100, 160)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Small pqkit- and pyarrow-written inputs for every command, built once: the sample,
    a rewrite of it with other row groups and a bloom filter, a CSV, a file whose footer
    was cut off, a PQDS/1 dataset with a merge source, and a Kartothek store."""
    import importlib.util
    import os

    import pqkit.dataset as pds
    base = tmp_path_factory.mktemp("widths")
    table = pq.read_table(SAMPLE)
    other = base / "other.parquet"
    pq.write_table(table, other, compression="snappy", row_group_size=5,
                   bloom_filter_options={"city": {"ndv": 20}})
    csv = base / "weather.csv"
    csv.write_text("station_name,temperature,observed_on\n" + "".join(
        f"station_{i},{i * 1.5},2026-01-{i + 1:02}\n" for i in range(20)))
    data = SAMPLE.read_bytes()
    footer_len = int.from_bytes(data[-8:-4], "little")
    truncated = base / "crashed.parquet"
    truncated.write_bytes(data[:len(data) - footer_len - 9])
    root = str(base / "sales")
    os.environ["PQKIT_DATASET_FSYNC"] = "0"
    try:
        for i in range(3):
            pds.write(root, {"order_id": [2 * i, 2 * i + 1], "region": ["north", "south"],
                             "amount": [i, -i]}, partition_by=["region"])
    finally:
        del os.environ["PQKIT_DATASET_FSYNC"]
    changes = base / "changes.parquet"
    pq.write_table(pa.table({"order_id": [1, 9], "region": ["south", "north"],
                             "amount": [100, 900]}), changes)
    spec = importlib.util.spec_from_file_location(
        "kartothek_build", Path(__file__).resolve().parents[1] / "dataset" / "kartothek_build.py")
    kartothek = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kartothek)
    store = base / "store"
    kartothek.build(str(store))
    ds_file = next(Path(root).rglob("*.parquet"))
    return {"other": other, "csv": csv, "truncated": truncated, "root": root,
            "changes": changes, "store": store, "ds_file": ds_file}


def copy_tree(root, tmp_path):
    import shutil
    return shutil.copytree(root, tmp_path / Path(root).name)


def copy_of(path, tmp_path):
    target = tmp_path / Path(path).name
    target.write_bytes(Path(path).read_bytes())
    return target


# each command with a human view: id -> (inputs, per-run tmp dir) -> (argv, file whose
# column paths and type names must never be broken)
COMMANDS = {
    "schema": lambda i, t: (("schema", SAMPLE), SAMPLE),
    "meta": lambda i, t: (("meta", SAMPLE), SAMPLE),
    "pages": lambda i, t: (("pages", SAMPLE), SAMPLE),
    "index": lambda i, t: (("index", SAMPLE), SAMPLE),
    "layout": lambda i, t: (("layout", i["other"]), SAMPLE),
    "head": lambda i, t: (("head", SAMPLE), SAMPLE),
    "cat": lambda i, t: (("cat", i["other"]), SAMPLE),
    "verify": lambda i, t: (("verify", i["other"]), SAMPLE),
    "dictionary": lambda i, t: (("dictionary", SAMPLE, "--column", "city"), SAMPLE),
    "bloom": lambda i, t: (("bloom", i["other"], "--column", "city", "Paris", "Atlantis"),
                           SAMPLE),
    "diff": lambda i, t: (("diff", SAMPLE, i["other"]), SAMPLE),
    "convert": lambda i, t: (("convert", i["csv"], t / "weather.parquet"), None),
    "dataset-info": lambda i, t: (("dataset", "info", i["root"]), i["ds_file"]),
    "dataset-versions": lambda i, t: (("dataset", "versions", i["root"]), i["ds_file"]),
    "dataset-files": lambda i, t: (("dataset", "files", i["root"]), i["ds_file"]),
    "dataset-verify": lambda i, t: (("dataset", "verify", i["root"]), i["ds_file"]),
    "dataset-repair": lambda i, t: (("dataset", "repair", i["root"]), i["ds_file"]),
    "dataset-vacuum": lambda i, t: (("dataset", "vacuum", i["root"], "--dry-run",
                                     "--retention", "0s"), i["ds_file"]),
    "dataset-compact": lambda i, t: (("dataset", "compact", i["root"], "--dry-run"),
                                     i["ds_file"]),
    "dataset-restore": lambda i, t: (("dataset", "restore", i["root"], "0", "--dry-run"),
                                     i["ds_file"]),
    "dataset-tag": lambda i, t: (("dataset", "tag", copy_tree(i["root"], t), "first_release",
                                  "--version", "0"), i["ds_file"]),
    "dataset-publish": lambda i, t: (("dataset", "publish", i["root"], "--dry-run"),
                                     i["ds_file"]),
    "dataset-index": lambda i, t: (("dataset", "index", "build", i["root"], "order_id",
                                    "--dry-run"), i["ds_file"]),
    "dataset-merge": lambda i, t: (("dataset", "merge", i["root"], "--from", i["changes"],
                                    "--on", "order_id", "--dry-run"), i["ds_file"]),
    "dataset-import-kartothek": lambda i, t: (("dataset", "import-kartothek", i["store"], "--table", "core",
                                               "--dry-run"), None),
    "concat": lambda i, t: (("concat", SAMPLE, SAMPLE, "-o", t / "both.parquet"), SAMPLE),
    "append": lambda i, t: (("append", copy_of(SAMPLE, t), SAMPLE), SAMPLE),
    "edit": lambda i, t: (("edit", SAMPLE, "--set", "owner=weather_team", "-o",
                           t / "edited.parquet"), SAMPLE),
    "recover": lambda i, t: (("recover", i["truncated"], "--schema-from", SAMPLE, "-o",
                              t / "recovered.parquet"), SAMPLE),
    "take": lambda i, t: (("take", SAMPLE, "0", "7", "11"), SAMPLE),
    "explain": lambda i, t: (("explain", i["other"], "--where",
                              "temperature > 20 and city in ('Oslo', 'Paris')"), SAMPLE),
    "advise": lambda i, t: (("advise", SAMPLE, "--codec", "zstd", "--codec", "snappy"),
                            SAMPLE),
}


@pytest.mark.parametrize("width", TERMINAL_WIDTHS)
@pytest.mark.parametrize("command", list(COMMANDS))
def test_real_terminal_widths(inputs, tmp_path, width, command):
    argv, words_of = COMMANDS[command](inputs, tmp_path)
    out = in_terminal(width, *argv)
    check_fits(out, width)
    words = vocabulary(words_of) if words_of is not None else set()
    words |= set(re.findall(r"[A-Za-z_][\w.]{3,}", " ".join(out.split())))
    assert broken_tokens(out, words) == set()
    assert folded_lines(out, width, words) == []
    if command == "meta":
        assert "FIXED_LEN_BYTE_ARRAY" in out and "temperature" in out
        # the width is the terminal's: at 160 every column of meta's tables fits
        assert ("left out" in out) == (width == 80)


@pytest.mark.corpus
@pytest.mark.parametrize("width", TERMINAL_WIDTHS)
@pytest.mark.parametrize("argv", [("head", WIDE_NESTED), ("meta", GEO),
                                  ("verify", CORRUPT_CRC),
                                  ("explain", TINY_PAGES, "--where",
                                   "id > 7000 and string_col in ('1', '2') or tinyint_col = 9"),
                                  ("take", WIDE_NESTED, "0", "0"),
                                  ("take", TINY_PAGES, "7299", "0:3")],
                         ids=["head-nested", "meta-geo", "verify-crc", "explain-tiny-pages",
                              "take-nested", "take-tiny-pages"])
def test_real_terminal_widths_on_corpus(corpus, width, argv):
    path = corpus_path(corpus, argv[1])
    out = in_terminal(width, argv[0], path, *argv[2:])
    check_fits(out, width)
    words = vocabulary(path) | set(re.findall(r"[A-Za-z_][\w.]{3,}", " ".join(out.split())))
    assert broken_tokens(out, words) == set()
    assert folded_lines(out, width, words) == []
