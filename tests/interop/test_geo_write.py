"""GEOMETRY / GEOGRAPHY files of the corpus read by pqkit and written back.

Each file is written back row group by row group, so every chunk of the copy holds
the values of one chunk of the original: the copy keeps the logical type (CRS and edge
algorithm included), the values, and the geo statistics pyarrow reports for the
original (GEOGRAPHY boxes to float noise, with one checked exception: see
_same_geography_box). pyarrow and DuckDB
read the copy's WKB unchanged.
"""
import glob
import os
import struct

import pytest
from corpus import ROOT

import pqkit

pytestmark = [pytest.mark.corpus, pytest.mark.interop]


def _geo_files():
    if ROOT is None:
        return []
    return sorted(glob.glob(os.path.join(ROOT, "data", "geospatial", "*.parquet")))


def _copy(path, tmp_path):
    """``path`` written back by pqkit with the same row groups (the first written, the
    others appended)."""
    out = str(tmp_path / os.path.basename(path))
    with pqkit.ParquetFile(path) as f:
        groups = [f.read_row_group(i) for i in range(f.metadata.num_row_groups)]
    pqkit.write_table(groups[0], out)
    for g in groups[1:]:
        pqkit.append(out, g)
    return out


def _winds_around_a_pole(wkb):
    """Whether any ring of a WKB polygon (little-endian XY, as the corpus stores them)
    goes once around a pole: its longitude steps, each taken the short way, sum to
    a full turn."""
    assert wkb[0] == 1 and struct.unpack_from("<I", wkb, 1)[0] == 3
    pos, rings = 9, struct.unpack_from("<I", wkb, 5)[0]
    for _ in range(rings):
        n = struct.unpack_from("<I", wkb, pos)[0]
        lon = [struct.unpack_from("<d", wkb, pos + 4 + 16 * k)[0] for k in range(n)]
        pos += 4 + 16 * n
        turn = sum((b - a + 180.0) % 360.0 - 180.0 for a, b in zip(lon, lon[1:]))
        if abs(turn) > 180.0:
            return True
    return False


def _same_geography_box(want, got, values):
    """Spherical boxes: equal to float noise (the original's writer went through unit
    vectors). One exception, checked: where the original's box reaches a pole and
    spans every longitude although no ring of the chunk winds around a pole
    (geography-polygons, row group 28: small rings across the antimeridian, none
    holding a pole), that box is a loose bound and ours must lie inside it."""
    if want is None:                # that writer left the statistics out
        return
    assert got.geospatial_types == want.geospatial_types
    w, g = want.to_dict(), got.to_dict()
    keys = ("xmin", "xmax", "ymin", "ymax")
    if all(abs(w[k] - g[k]) < 1e-9 for k in keys):
        return
    assert (w["xmin"], w["xmax"]) == (-180.0, 180.0) and 90.0 in (w["ymax"], -w["ymin"])
    assert not any(_winds_around_a_pole(v) for v in values if v is not None)
    assert g["ymax"] < 90.0 and g["ymin"] > -90.0
    assert w["ymin"] <= g["ymin"] + 1e-9 and g["ymax"] <= w["ymax"] + 1e-9


def _geo_column(pf):
    schema = pf.schema_arrow
    return next(i for i, name in enumerate(schema.names) if name in ("geometry", "geography"))


@pytest.mark.parametrize("path", _geo_files(), ids=os.path.basename)
def test_geo_file_written_back_keeps_type_values_and_statistics(corpus, tmp_path, path):
    pq = pytest.importorskip("pyarrow.parquet")
    out = _copy(path, tmp_path)
    original, copy = pq.ParquetFile(path), pq.ParquetFile(out)
    i = _geo_column(original)
    assert str(copy.schema.column(i).logical_type) == str(original.schema.column(i).logical_type)
    assert copy.metadata.num_row_groups == original.metadata.num_row_groups
    assert pqkit.read_table(out).to_pylist() == pqkit.read_table(path).to_pylist()
    assert copy.read().column(i).to_pylist() == original.read().column(i).to_pylist()
    geography = "Geography" in str(original.schema.column(i).logical_type)
    for rg in range(original.metadata.num_row_groups):
        want = original.metadata.row_group(rg).column(i).geo_statistics
        got = copy.metadata.row_group(rg).column(i).geo_statistics
        if geography:
            values = original.read_row_group(rg, columns=[original.schema_arrow.names[i]])
            _same_geography_box(want, got, values.column(0).to_pylist())
        else:
            assert (got.to_dict() if got else None) == (want.to_dict() if want else None)
    for key in (original.metadata.metadata or {}):
        if key != b"ARROW:schema":      # a projjson crs's entry is carried along
            assert copy.metadata.metadata[key] == original.metadata.metadata[key]


@pytest.mark.parametrize("path", _geo_files(), ids=os.path.basename)
def test_duckdb_reads_the_same_wkb(corpus, tmp_path, path):
    duckdb = pytest.importorskip("duckdb")
    table = pqkit.read_table(path)
    name = next(n for n in table.column_names if n in ("geometry", "geography"))
    out = str(tmp_path / "copy.parquet")
    pqkit.write_table(table, out)
    query = "SELECT typeof({0}), {0}::BLOB FROM '{1}'"
    rows = duckdb.sql(query.format(name, out)).fetchall()
    assert rows == duckdb.sql(query.format(name, path)).fetchall()   # type and crs too
    assert {r[0].split("(")[0] for r in rows} <= {"GEOMETRY", "GEOGRAPHY", "BLOB"}
    assert [r[1] for r in rows] == table.column(name).to_pylist()
