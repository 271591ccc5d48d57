"""VARIANT and GEOMETRY/GEOGRAPHY: field metadata <-> logical types."""
import pytest

import pqkit
from pqkit import datatypes as T
from pqkit import format as fmt
from pqkit.schema.annotations import (
    field_metadata,
    geo_field,
    geo_params,
    logical_type,
    variant_field,
)


def test_variant_field_gives_the_variant_annotation():
    lt = logical_type(variant_field("v"))
    assert lt.VARIANT.specification_version == 1


def test_geometry_and_geography_round_trip_through_the_schema_element():
    for field in (geo_field("g"), geo_field("g", crs="srid:4326"),
                  geo_field("g", crs="OGC:CRS84", edges="vincenty")):
        element = fmt.SchemaElement(name="g", type=fmt.Type.BYTE_ARRAY,
                                    logicalType=logical_type(field))
        back = T.field("g", T.binary(), metadata=field_metadata(element))
        assert geo_params(back) == geo_params(field)


def test_geography_without_an_algorithm_reads_as_spherical():
    element = fmt.SchemaElement(name="g", logicalType=fmt.LogicalType(
        GEOGRAPHY=fmt.GeographyType()))
    assert geo_params(T.field("g", T.binary(), metadata=field_metadata(element))) == \
        (None, "spherical")


def test_plain_fields_have_no_annotation():
    assert logical_type(T.field("a", T.int32())) is None
    assert field_metadata(fmt.SchemaElement(name="a")) is None


@pytest.mark.parametrize("field", [
    T.field("v", T.int32(), metadata={"ARROW:extension:name": "arrow.parquet.variant"}),
    T.field("g", T.int32(), metadata={"ARROW:extension:name": "geoarrow.wkb"}),
    T.field("g", T.binary(), metadata={"ARROW:extension:name": "geoarrow.wkb",
                                       "ARROW:extension:metadata": "{not json"}),
    T.field("g", T.binary(), metadata={"ARROW:extension:name": "geoarrow.wkb",
                                       "ARROW:extension:metadata": '{"edges": "curly"}'}),
])
def test_a_marked_field_that_cannot_hold_its_type_is_a_schema_error(field):
    with pytest.raises(pqkit.SchemaError):
        logical_type(field)
