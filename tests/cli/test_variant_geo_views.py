"""pqinspect on the new logical types: a VARIANT column's shredding layout in
``schema`` and a GEOGRAPHY box across the antimeridian in ``meta``, in JSON and in
80-column human views."""
import json
import struct

from cli_run import run
from test_readable_widths import broken_tokens, check_fits, view, vocabulary

import pqkit
from pqkit import datatypes as T
from pqkit.variant import variant_column

VALUES = [{"a": 1, "b": ["x", "y"], "c d": 2.5}, {"a": "not an int"}, None, {"b": []}]
SHREDDING = T.struct([("a", T.int64()), ("b", T.list_(T.string())), ("c d", T.float64())])


def _variants(tmp_path, shredding):
    path = tmp_path / "v.parquet"
    pqkit.write_table({"i": list(range(len(VALUES))), "v": variant_column(VALUES)}, str(path),
                      shredding=shredding)
    return path


def test_schema_lists_each_shredded_leaf_by_its_variant_path(capsys, monkeypatch, tmp_path):
    path = _variants(tmp_path, {"v": SHREDDING})
    code, out, _ = run(capsys, "schema", path, "--json")
    assert code == 0
    assert json.loads(out)["variant_shredding"] == {"v": [
        {"path": "$.a", "type": "INT64 (INT(64,signed))", "fallback": True},
        {"path": "$.b[*]", "type": "BYTE_ARRAY (STRING)", "fallback": True},
        {"path": "$['c d']", "type": "DOUBLE", "fallback": True}]}
    _, human, _ = view(capsys, monkeypatch, 80, "schema", path)
    check_fits(human, 80)
    assert broken_tokens(human, vocabulary(path)) == set()
    assert "Variant shredding of v" in human
    rows = [line.split("│")[1:4] for line in human.splitlines() if line.startswith("│ $")]
    assert [[c.strip() for c in r] for r in rows] == [
        ["$.a", "INT64 (INT(64,signed))", "yes"], ["$.b[*]", "BYTE_ARRAY (STRING)", "yes"],
        ["$['c d']", "DOUBLE", "yes"]]


def test_schema_of_an_unshredded_variant_has_no_layout(capsys, tmp_path):
    path = _variants(tmp_path, None)
    code, out, _ = run(capsys, "schema", path, "--json")
    assert code == 0 and json.loads(out)["variant_shredding"] == {}
    code, human, _ = run(capsys, "schema", path)
    assert code == 0 and "Variant shredding" not in human


def _point(x, y):
    return struct.pack("<BIdd", 1, 1, x, y)


def test_meta_marks_a_longitude_range_across_the_antimeridian(capsys, monkeypatch, tmp_path):
    for edges, name in (("spherical", "wraps"), (None, "plain")):
        field = pqkit.geo_field("g", **({"edges": edges} if edges else {}))
        pqkit.write_table({"g": [_point(179, 1), _point(-179, 2)]}, str(tmp_path / name),
                          schema=[field])
    _, out, _ = view(capsys, monkeypatch, 80, "meta", tmp_path / "wraps")
    check_fits(out, 80)
    assert "x 179..-179 (across ±180), y 1..2" in out
    code, doc, _ = run(capsys, "meta", tmp_path / "wraps", "--json")
    box = json.loads(doc)["row_groups"][0]["columns"][0]["geospatial_statistics"]["bbox"]
    assert (box["xmin"], box["xmax"]) == (179, -179)
    _, out, _ = view(capsys, monkeypatch, 80, "meta", tmp_path / "plain")
    assert "x -179..179, y 1..2" in out and "across" not in out
