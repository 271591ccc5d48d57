"""Shredding schemas: which part of a variant is stored in typed columns.

A shredding schema is the pqkit type of the ``typed_value`` a writer shreds a
variant into, written the way a user thinks of the value::

    T.int64()                                 every value that is an int8..int64
    T.struct([("a", T.string()), ...])        objects, with fields a, ... each shredded
    T.list_(T.float64())                      arrays of doubles

Allowed leaf types are those of the spec's table: bool, int8/16/32/64, float32,
float64, decimal (precision <= 38), date32, time64[us], timestamp[us|ns] with a
time zone (the Variant ``timestamp`` types) or without (``timestamp_ntz``),
binary, string and uuid. :func:`physical_type` gives the Parquet-shaped type
written for ``typed_value`` (an object field or array element becomes a required
group of ``value`` and ``typed_value``), :func:`schema_of` reads a schema back
from a shredded group as read, and :func:`variant_type` is the whole variant
group's type.
"""
from pqkit import datatypes as T
from pqkit.errors import SchemaError

__all__ = ["check_leaf", "physical_type", "schema_of", "variant_type"]

_BINARY = T.binary()


def check_leaf(t, where):
    """Raise SchemaError unless ``t`` is a leaf type the shredding spec allows."""
    ok = (isinstance(t, (T.BooleanType, T.Date32Type, T.UuidType)) or
          (isinstance(t, T.IntegerType) and t.signed) or
          (isinstance(t, T.FloatingType) and t.bit_width in (32, 64)) or
          (isinstance(t, T.DecimalType) and t.precision <= 38) or
          (isinstance(t, T.Time64Type) and t.unit == "us") or
          (isinstance(t, T.TimestampType) and t.unit in ("us", "ns")) or
          isinstance(t, T.StringType))
    if not ok:
        raise SchemaError(f"{where}: {t} is not a type the Variant shredding spec allows "
                          f"(bool, signed ints, float32/64, decimal up to 38 digits, date32, "
                          f"time64[us], timestamp[us|ns], string, binary, uuid, struct, list)")


def _group(spec, where):
    return T.struct([T.field("value", _BINARY),
                     T.field("typed_value", physical_type(spec, where))])


def physical_type(spec, where="shredding schema"):
    """The type of the ``typed_value`` column that ``spec`` shreds into."""
    if isinstance(spec, T.StructType):
        if not spec.fields:
            raise SchemaError(f"{where}: a shredded object needs at least one field")
        return T.struct([T.field(f.name, _group(f.type, f"{where}.{f.name}"), nullable=False)
                         for f in spec.fields])
    if isinstance(spec, (T.ListType, T.FixedSizeListType)):
        element = _group(spec.value_type, f"{where}[]")
        return T.list_(T.field("element", element, nullable=False))
    if not isinstance(spec, T.DataType):
        raise SchemaError(f"{where}: a shredding schema is a pqkit DataType, got "
                          f"{type(spec).__name__}")
    check_leaf(spec, where)
    return spec


def variant_type(spec):
    """The type of the variant group: unshredded without ``spec``, else with an optional
    ``value`` and a ``typed_value`` of :func:`physical_type`."""
    metadata = T.field("metadata", _BINARY, nullable=False)
    if spec is None:
        return T.struct([metadata, T.field("value", _BINARY, nullable=False)])
    return T.struct([metadata, T.field("value", _BINARY),
                     T.field("typed_value", physical_type(spec))])


def schema_of(group_type, where="variant"):
    """The shredding schema of a variant group's type as read (None: unshredded); a
    layout this writer cannot produce raises SchemaError."""
    names = group_type.names
    if "typed_value" not in names:
        return None
    return _spec(group_type.fields[names.index("typed_value")].type, where)


def _spec(typed, where):
    if isinstance(typed, T.StructType):
        fields = []
        for f in typed.fields:
            if not isinstance(f.type, T.StructType) or "typed_value" not in f.type.names:
                raise SchemaError(f"{where}.{f.name}: a shredded field without typed_value "
                                  f"cannot be re-shredded; give a shredding schema")
            fields.append(T.field(f.name, schema_of(f.type, f"{where}.{f.name}")))
        return T.struct(fields)
    if isinstance(typed, T.ListType):
        element = typed.value_type
        if not isinstance(element, T.StructType) or "typed_value" not in element.names:
            raise SchemaError(f"{where}[]: a shredded element without typed_value cannot be "
                              f"re-shredded; give a shredding schema")
        return T.list_(schema_of(element, f"{where}[]"))
    if isinstance(typed, T.DictionaryType):
        typed = typed.value_type
    check_leaf(typed, where)
    return typed
