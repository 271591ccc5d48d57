"""`pqinspect layout --html` opened in headless Chromium.

The page must render on its own (no network, no scripts): Chromium loads it from
a file URL with networking disabled, we read back the DOM it built and a
screenshot, and look for the byte map's colours in the pixels. Skipped only
where Chromium is not installed.
"""
import shutil
import struct
import subprocess
import zlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pqkit.cli.file.layout_cmd import _COLORS
from pqkit.cli.main import main

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))
                 if p), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]


def _chromium(tmp_path, *args):
    profile = tmp_path / "profile"
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return done.stdout.decode("utf-8", errors="replace")


def _png_pixels(data):
    """RGB(A) pixels of an 8-bit, non-interlaced PNG: (width, height, channels, rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0
    channels = 3 if color == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b, c = prev[i], prev[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa_, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa_ <= pb and pa_ <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def _colours(width, channels, rows):
    seen = set()
    for row in rows:
        for x in range(0, width * channels, channels):
            seen.add(row[x:x + 3])
    return seen


def test_layout_html_renders_in_headless_chromium(tmp_path, capsys):
    path = tmp_path / "data.parquet"
    table = pa.table({"id": list(range(20_000)), "name": [f"n{i % 97}" for i in range(20_000)]})
    pq.write_table(table, path, row_group_size=5_000, write_page_index=True,
                   bloom_filter_options={"name": {"ndv": 100}})
    page = tmp_path / "layout.html"
    assert main(["layout", str(path), "--html", str(page)]) == 0
    capsys.readouterr()

    dom = _chromium(tmp_path, "--dump-dom", page.as_uri())
    assert f"Layout of {path}" in dom
    assert dom.count('class="bar"') == 1 and "Byte map" in dom and "column_index" in dom

    shot = tmp_path / "shot.png"
    _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,900", page.as_uri())
    width, height, channels, rows = _png_pixels(shot.read_bytes())
    assert (width, height) == (1200, 900)
    seen = _colours(width, channels, rows)
    for kind in ("column chunk", "column_index", "offset_index", "footer"):
        rgb = bytes.fromhex(_COLORS[kind][1:])
        assert rgb in seen, f"the byte map shows no {kind} colour {_COLORS[kind]}"
    # and the check discriminates: this file has no gaps, so the gap colour is absent
    assert bytes.fromhex(_COLORS["gap"][1:]) not in seen
