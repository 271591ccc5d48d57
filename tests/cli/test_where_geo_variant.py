"""The text filter's spellings of the spatial term and of variant paths:
``intersects(g, xmin, ymin, xmax, ymax)`` and ``v:$.a.b`` (bare or quoted), parsed into
the DNF terms the readers take, refused when malformed, and run by ``explain`` and
``cat --where`` on files pqkit wrote."""
import json
import struct

import pytest
from cli_run import run

import pqkit
from pqkit import datatypes as T
from pqkit.errors import SchemaError
from pqkit.read.prune.filter_text import parse_filter
from pqkit.variant import variant_column


@pytest.mark.parametrize("text, want", [
    ("intersects(g, -1, -2.5, 3, 4e1)", [[("g", "intersects", (-1, -2.5, 3, 40.0))]]),
    ("intersects(`geo m`, 0, 0, 1, 1) or x = 1",
     [[("geo m", "intersects", (0, 0, 1, 1))], [("x", "==", 1)]]),
    ("intersects = 2 and intersects.a < 1", [[("intersects", "==", 2),
                                               ("intersects.a", "<", 1)]]),
    ("v:$.a.b > 3", [[("v:$.a.b", ">", 3)]]),
    ('"v:$.a.b" > 3', [[("v:$.a.b", ">", 3)]]),
    ("`v:$.a b` = 'x' and 2 <= v:$", [[("v:$.a b", "==", "x"), ("v:$", ">=", 2)]]),
    ("v:$.n not in (1, 2)", [[("v:$.n", "not in", [1, 2])]]),
])
def test_parse_spatial_and_variant_terms(text, want):
    assert parse_filter(text) == want


@pytest.mark.parametrize("text, message", [
    ("intersects(g, 1, 2, 3)", "expected ',' and ymax at character 21"),
    ("intersects(g, 1, 2, 3, x)", "expected ymax \\(a number\\) at character 23"),
    ("intersects(g, 1, 2, 3, 4", "expected '\\)' after ymax"),
    ("intersects(1, 2, 3, 4, 5)", "expected a column name at character 11"),
    ("x = 1 and v:$a > 1", "'v:\\$a' at character 10 is not a variant path"),
    ("v:$.a.1 > 1", "'v:\\$.a.1' at character 0 is not a variant path"),
])
def test_parse_errors_of_the_new_terms(text, message):
    with pytest.raises(SchemaError, match=message):
        parse_filter(text)


def _point(x, y):
    return struct.pack("<BIdd", 1, 1, x, y)


def test_explain_skips_row_groups_by_their_boxes(capsys, tmp_path):
    path = tmp_path / "g.parquet"
    pqkit.write_table({"i": list(range(40)), "g": [_point(i, i) for i in range(40)]},
                      str(path), schema=[T.field("i", T.int64()), pqkit.geo_field("g")],
                      row_group_size=10)
    code, out, err = run(capsys, "explain", path, "--where", "intersects(g, 12, 12, 14, 14)",
                         "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["filter"] == [[["g", "intersects", [12, 12, 14, 14]]]]
    assert [rg["skipped"] for rg in doc["row_groups"]] == [True, False, True, True]
    code, out, err = run(capsys, "cat", path, "--where", "intersects(g, 12, 12, 14, 14)",
                         "--json")
    assert code == 0, err
    assert [r["i"] for r in json.loads(out)["rows"]] == [12, 13, 14]


def test_variant_paths_prune_and_filter_from_the_command_line(capsys, tmp_path):
    path = tmp_path / "v.parquet"
    values = [{"a": i} for i in range(40)]
    pqkit.write_table({"i": list(range(40)), "v": variant_column(values)}, str(path),
                      shredding={"v": T.struct([("a", T.int64())])}, row_group_size=10)
    code, out, err = run(capsys, "explain", path, "--where", "v:$.a >= 35", "--json")
    assert code == 0, err
    assert [rg["skipped"] for rg in json.loads(out)["row_groups"]] == [True] * 3 + [False]
    code, out, err = run(capsys, "cat", path, "--where", 'v:$.a >= 38 or "v:$.a" < 1', "--json")
    assert code == 0, err
    assert [r["i"] for r in json.loads(out)["rows"]] == [0, 38, 39]
