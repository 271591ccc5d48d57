"""Shredding schemas <-> the typed_value types written and read."""
import pytest

import pqkit
from pqkit import datatypes as T
from pqkit.variant.shredding_schema import physical_type, schema_of, variant_type


def test_objects_and_arrays_become_required_groups_of_value_and_typed_value():
    spec = T.struct([("a", T.int64()), ("tags", T.list_(T.string()))])
    group = T.struct([("value", T.binary()), ("typed_value", T.int64())])
    typed = physical_type(spec)
    assert typed.fields[0] == T.field("a", group, nullable=False)
    element = typed.fields[1].type.fields[1].type.value_field
    assert element.name == "element" and not element.nullable


def test_schema_of_reads_back_what_variant_type_writes():
    spec = T.struct([("a", T.int64()), ("b", T.struct([("c", T.list_(T.date32()))]))])
    assert schema_of(variant_type(spec)) == spec
    assert schema_of(variant_type(None)) is None


@pytest.mark.parametrize("spec", [T.uint32(), T.float16(), T.time32("ms"), T.struct([]),
                                  T.map_(T.string(), T.int8()), "int64"])
def test_types_outside_the_spec_are_refused(spec):
    with pytest.raises(pqkit.SchemaError):
        physical_type(spec)


def test_a_field_group_without_typed_value_cannot_be_reshredded():
    group = T.struct([("metadata", T.binary()), ("value", T.binary()),
                      ("typed_value", T.struct([T.field("a", T.struct([("value", T.binary())]),
                                                        nullable=False)]))])
    with pytest.raises(pqkit.SchemaError, match="without typed_value"):
        schema_of(group)
