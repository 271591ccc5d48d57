"""The GeoParquet ``geo`` entry written beside GEOMETRY / GEOGRAPHY columns."""
import io
import json
import struct

import pqkit


def _point(x, y, z=None):
    if z is None:
        return struct.pack("<BIdd", 1, 1, x, y)
    return struct.pack("<BIddd", 1, 1001, x, y, z)


def _geo(fields, columns, **settings):
    buf = io.BytesIO()
    pqkit.write_table(columns, buf, schema=fields, **settings)
    raw = pqkit.read_metadata(io.BytesIO(buf.getvalue())).metadata.get(b"geo")
    return None if raw is None else json.loads(raw)


def test_geometry_columns_are_described_with_types_and_box():
    geo = _geo([pqkit.geo_field("a"), pqkit.geo_field("b", crs="srid:4326")],
               {"a": [_point(1, 2), _point(5, -1, 3)], "b": [_point(0, 0), None]},
               row_group_size=1)
    assert geo["version"] == "1.1.0" and geo["primary_column"] == "a"
    assert geo["columns"]["a"] == {"encoding": "WKB", "geometry_types": ["Point", "Point Z"],
                                   "bbox": [1, -1, 5, 2]}
    assert geo["columns"]["b"]["crs"] == {"id": {"authority": "EPSG", "code": 4326}}


def test_projjson_crs_is_embedded_and_spherical_edges_named():
    projjson = {"type": "GeographicCRS", "name": "x"}
    geo = _geo([pqkit.geo_field("g", crs="projjson:c", edges="spherical")],
               {"g": [_point(170, 1), _point(-170, 2)]},
               key_value_metadata={"c": json.dumps(projjson)})
    entry = geo["columns"]["g"]
    assert entry["crs"] == projjson and entry["edges"] == "spherical"
    assert "bbox" not in entry              # it crosses the antimeridian


def test_no_geometry_no_entry_and_ellipsoidal_edges_left_out():
    assert _geo([pqkit.datatypes.field("i", pqkit.datatypes.int64())], {"i": [1]}) is None
    assert _geo([pqkit.geo_field("g", edges="vincenty")], {"g": [_point(0, 0)]}) is None


def test_a_given_geo_entry_is_kept():
    geo = _geo([pqkit.geo_field("g")], {"g": [_point(0, 0)]},
               key_value_metadata={"geo": json.dumps({"mine": True})})
    assert geo == {"mine": True}
