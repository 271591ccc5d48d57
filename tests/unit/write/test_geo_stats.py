"""Writing GEOMETRY / GEOGRAPHY columns: the logical type, the chunk's geo statistics,
and bad WKB refused."""
import io
import json
import struct

import pytest

import pqkit


def _point(x, y):
    return struct.pack("<BIdd", 1, 1, x, y)


def _write(field, values, **settings):
    buf = io.BytesIO()
    pqkit.write_table({field.name: values}, buf, schema=[field], **settings)
    return buf.getvalue()


def test_geometry_column_gets_its_type_crs_and_box():
    data = _write(pqkit.geo_field("g", crs="srid:4326"), [_point(1, 2), None, _point(-3, 7)])
    f = pqkit.ParquetFile(io.BytesIO(data))
    assert f.schema.column(0).element.logicalType.GEOMETRY.crs == "srid:4326"
    geo = f.metadata.row_group(0).column(0).thrift.meta_data.geospatial_statistics
    assert (geo.bbox.xmin, geo.bbox.xmax, geo.bbox.ymin, geo.bbox.ymax) == (-3, 1, 2, 7)
    assert geo.geospatial_types == [1]
    field = pqkit.read_table(io.BytesIO(data)).schema[0]
    assert json.loads(field.metadata["ARROW:extension:metadata"]) == {"crs": "srid:4326"}


def test_geography_gets_its_algorithm_and_types_without_a_box():
    data = _write(pqkit.geo_field("g", edges="karney"), [_point(179, 0), _point(-179, 0)])
    f = pqkit.ParquetFile(io.BytesIO(data))
    assert f.schema.column(0).element.logicalType.GEOGRAPHY.algorithm == 4   # KARNEY
    geo = f.metadata.row_group(0).column(0).thrift.meta_data.geospatial_statistics
    assert geo.bbox is None and geo.geospatial_types == [1]


def test_all_null_chunk_has_no_known_types():
    data = _write(pqkit.geo_field("g"), [None, None])
    geo = pqkit.ParquetFile(io.BytesIO(data)).metadata.row_group(0).column(0).thrift \
        .meta_data.geospatial_statistics
    assert geo.bbox is None and geo.geospatial_types == []


def test_invalid_wkb_is_refused_even_without_statistics():
    for settings in ({}, {"write_statistics": False}):
        with pytest.raises(pqkit.GeometryError, match="column g, value 1"):
            _write(pqkit.geo_field("g"), [_point(0, 0), b"\x01\x01\x00"], **settings)


def test_a_projjson_crs_needs_its_metadata_entry():
    field = pqkit.geo_field("g", crs="projjson:my_crs")
    with pytest.raises(pqkit.SchemaError, match="my_crs"):
        _write(field, [_point(0, 0)])
    data = _write(field, [_point(0, 0)], key_value_metadata={"my_crs": "{}"})
    assert pqkit.read_metadata(io.BytesIO(data)).metadata[b"my_crs"] == b"{}"
