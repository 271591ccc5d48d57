"""The human views read well at 80, 100 and 140 columns: no token of the data (type
names, column paths, short values, headers) is broken across lines, nothing is wider
than the terminal, and the items of issue 18 (verify findings once, --version,
geospatial statistics and index/bloom offsets in meta, head on wide files, no empty
header row in layout --html)."""
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
from pqkit.read.footer import read_metadata

WIDTHS = (80, 100, 140)
SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample.parquet"
CORPUS = Path("/work/shared/parquet-testing/data")
WIDE_NESTED = CORPUS / "nested_structs.rust.parquet"
GEO = CORPUS / "geospatial" / "geospatial.parquet"
TINY_PAGES = CORPUS / "alltypes_tiny_pages.parquet"
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


def broken_tokens(text, tokens):
    """Tokens some table cell shows only a head of at the end of a line's cell, the
    rest on the next line (rich's fold), e.g. "BYTE_A" then "RRAY"."""
    broken = set()
    lines = text.splitlines()
    for token in tokens:
        if len(token) < 4:
            continue
        for k in range(2, len(token) - 1):
            head, tail = token[:k], token[k:]
            if head in tokens:
                continue
            pattern = re.compile(r"(^|[" + CELL_EDGE + r"]\s?)" + re.escape(head) +
                                 r"\s*([" + CELL_EDGE + r"]|$)")
            for i, line in enumerate(lines[:-1]):
                if pattern.search(line) and tail[:2] in lines[i + 1]:
                    broken.add(token)
    return broken


def view(capsys, monkeypatch, width, *argv):
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run(capsys, *argv)
    assert "Traceback" not in err
    return code, out, err


def check_fits(out, width):
    assert out.strip()
    too_wide = [line for line in out.splitlines() if len(line) > width]
    assert not too_wide, too_wide[:3]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("path", [SAMPLE, WIDE_NESTED, GEO], ids=["sample", "nested", "geo"])
@pytest.mark.parametrize("command", ["meta", "schema", "pages", "index", "layout", "head",
                                     "verify"])
def test_views_never_break_tokens(capsys, monkeypatch, width, path, command):
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


def test_meta_geospatial_statistics(capsys, monkeypatch):
    _, doc_text, _ = view(capsys, monkeypatch, 80, "meta", GEO, "--json")
    doc = json.loads(doc_text)
    geo = [c["geospatial_statistics"] for rg in doc["row_groups"] for c in rg["columns"]
           if c["path"] == "geometry"]
    assert geo and all(g is not None for g in geo)
    first = geo[0]
    assert set(first["bbox"]) == {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax", "mmin",
                                  "mmax"}
    assert first["geospatial_types"] and all(
        re.fullmatch(r"[a-z]+(_z|_m|_zm)?", t) for t in first["geospatial_types"])
    _, out, _ = view(capsys, monkeypatch, 140, "meta", GEO)
    assert "geo types" in out and "geo bbox" in out
    box = first["bbox"]
    assert f"x {box['xmin']:g}..{box['xmax']:g}" in out
    assert first["geospatial_types"][0] in out


def test_geo_type_names_follow_duckdb():
    from pqkit.cli.meta_cmd import geo_type_name
    assert [geo_type_name(c) for c in (1, 3, 1003, 2006, 3007, 9)] == [
        "point", "polygon", "polygon_z", "multipolygon_m", "geometrycollection_zm",
        "unknown(9)"]


@pytest.mark.parametrize("width", WIDTHS)
def test_head_on_wide_nested_file(capsys, monkeypatch, width):
    _, out, _ = view(capsys, monkeypatch, width, "head", WIDE_NESTED)
    check_fits(out, width)
    names = [n.dotted_path.split(".")[0] for n in read_metadata(str(WIDE_NESTED)).schema.columns]
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


def test_verify_prints_each_finding_once(capsys, monkeypatch):
    bad = CORPUS / "datapage_v1-corrupt-checksum.parquet"
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
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, width, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env["TERM"] = "xterm-256color"
    proc = subprocess.Popen([sys.executable, "-m", "pqkit.cli.main", *map(str, argv)],
                            stdout=slave, stderr=subprocess.DEVNULL, env=env)
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
    assert proc.wait(timeout=60) in (0, 1)
    text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


@pytest.mark.parametrize("width", (80, 100, 160))
@pytest.mark.parametrize("argv", [("meta", SAMPLE), ("head", WIDE_NESTED), ("meta", GEO),
                                  ("verify", CORPUS / "datapage_v1-corrupt-checksum.parquet"),
                                  ("explain", TINY_PAGES, "--where",
                                   "id > 7000 and string_col in ('1', '2') or tinyint_col = 9"),
                                  ("take", WIDE_NESTED, "0", "0"),
                                  ("take", TINY_PAGES, "7299", "0:3"),
                                  ("advise", SAMPLE, "--codec", "zstd", "--codec", "snappy")],
                         ids=["meta-sample", "head-nested", "meta-geo", "verify", "explain",
                              "take-nested", "take", "advise"])
def test_real_terminal_widths(width, argv):
    out = in_terminal(width, *argv)
    check_fits(out, width)
    assert broken_tokens(out, vocabulary(argv[1])) == set()
    if argv == ("meta", SAMPLE):
        assert "FIXED_LEN_BYTE_ARRAY" in out and "temperature" in out
        # the width is the terminal's: at 160 every column of meta's tables fits
        assert ("left out" in out) == (width == 80)
