"""pqkit fields -> the Parquet schema a writer stores, and each leaf's physical conversion.

The layout is the one the spec recommends and Arrow-based writers use, so any
reader restores the same nesting::

    list<item: T>            optional group f (LIST) { repeated group list { optional T element; } }
    map<K, V>                optional group f (MAP) { repeated group key_value {
                                                        required K key; optional V value; } }
    struct<a: T, ...>        optional group f { optional T a; ... }
    fixed_size_list<T>[n]    written as list<T> (Parquet has no fixed-size lists)

A non-nullable field is ``required``. Leaf types (physical + annotation)::

    int8/16/32, uint8/16/32  INT32 + INT(bits, signed)     int64/uint64   INT64 + INT(64, signed)
    float16                  FLBA(2) + FLOAT16             float32/64     FLOAT / DOUBLE
    string, large_string     BYTE_ARRAY + STRING           binary         BYTE_ARRAY
    fixed_size_binary[w]     FLBA(w)                       uuid           FLBA(16) + UUID
    decimal(p, s)            FLBA(minimal bytes) + DECIMAL date32/date64  INT32 + DATE
    time32[s|ms]             INT32 + TIME(MILLIS, local)   time64[us|ns]  INT64 + TIME(unit, local)
    timestamp[s|ms|us|ns]    INT64 + TIMESTAMP(ms|ms|us|ns, UTC when a tz is set)
    duration                 INT64                         interval       FLBA(12) + INTERVAL
    null                     INT32 + UNKNOWN (always optional)
    dictionary<..., V>       as V (values are dictionary-encoded on write anyway)

A field marked as VARIANT (a struct) or as WKB geometry (binary) in its metadata
(:mod:`pqkit.schema.annotations`) gets the VARIANT, GEOMETRY or GEOGRAPHY annotation.
Inside a VARIANT group, decimals of up to 9 / 18 digits are INT32 / INT64, as the
shredding spec's table of typed_value types requires.
"""
from dataclasses import dataclass

from pqkit import datatypes as T
from pqkit import format as fmt
from pqkit.errors import SchemaError
from pqkit.format import ConvertedType, Type
from pqkit.levels import OPTIONAL, REPEATED, REQUIRED
from pqkit.schema.annotations import logical_type

_UNITS = {"ms": fmt.TimeUnit(MILLIS=fmt.MilliSeconds()),
          "us": fmt.TimeUnit(MICROS=fmt.MicroSeconds()),
          "ns": fmt.TimeUnit(NANOS=fmt.NanoSeconds())}
_CONVERTED_INT = {(8, True): ConvertedType.INT_8, (16, True): ConvertedType.INT_16,
                  (32, True): ConvertedType.INT_32, (64, True): ConvertedType.INT_64,
                  (8, False): ConvertedType.UINT_8, (16, False): ConvertedType.UINT_16,
                  (32, False): ConvertedType.UINT_32, (64, False): ConvertedType.UINT_64}


@dataclass(frozen=True)
class LeafSpec:
    """How one leaf's in-memory values become physical values.

    ``conversion`` names the step (see :mod:`pqkit.write_values`); ``scale`` is
    the integer factor of unit conversions (e.g. seconds -> millis) or the
    divisor for date64 -> days.
    """
    physical: int
    type_length: int = None
    conversion: str = "identity"
    scale: int = 1


def decimal_width(precision):
    """Bytes of the smallest two's complement integer holding ``precision`` digits."""
    width = 1
    while 10 ** precision - 1 >= 1 << (8 * width - 1):
        width += 1
    return width


def _leaf(t, integer_decimals=False):
    """(SchemaElement keyword arguments, LeafSpec) for a leaf type; ``integer_decimals``
    stores decimals of up to 18 digits as INT32 / INT64."""
    if isinstance(t, T.DictionaryType):
        return _leaf(t.value_type, integer_decimals)
    if isinstance(t, T.BooleanType):
        return {"type": Type.BOOLEAN}, LeafSpec(Type.BOOLEAN)
    if isinstance(t, T.IntegerType):
        physical = Type.INT64 if t.bit_width == 64 else Type.INT32
        lt = fmt.LogicalType(INTEGER=fmt.IntType(bitWidth=t.bit_width, isSigned=t.signed))
        return ({"type": physical, "logicalType": lt,
                 "converted_type": _CONVERTED_INT[(t.bit_width, t.signed)]},
                LeafSpec(physical, conversion="int"))
    if isinstance(t, T.FloatingType):
        if t.bit_width == 16:
            return ({"type": Type.FIXED_LEN_BYTE_ARRAY, "type_length": 2,
                     "logicalType": fmt.LogicalType(FLOAT16=fmt.Float16Type())},
                    LeafSpec(Type.FIXED_LEN_BYTE_ARRAY, 2, "float16"))
        physical = Type.FLOAT if t.bit_width == 32 else Type.DOUBLE
        return {"type": physical}, LeafSpec(physical)
    if isinstance(t, T.StringType):     # BinaryType is a StringType subclass
        if isinstance(t, T.BinaryType):
            return {"type": Type.BYTE_ARRAY}, LeafSpec(Type.BYTE_ARRAY)
        return ({"type": Type.BYTE_ARRAY, "logicalType": fmt.LogicalType(STRING=fmt.StringType()),
                 "converted_type": ConvertedType.UTF8}, LeafSpec(Type.BYTE_ARRAY))
    if isinstance(t, T.UuidType):
        return ({"type": Type.FIXED_LEN_BYTE_ARRAY, "type_length": 16,
                 "logicalType": fmt.LogicalType(UUID=fmt.UUIDType())},
                LeafSpec(Type.FIXED_LEN_BYTE_ARRAY, 16))
    if isinstance(t, T.IntervalType):
        return ({"type": Type.FIXED_LEN_BYTE_ARRAY, "type_length": 12,
                 "converted_type": ConvertedType.INTERVAL},
                LeafSpec(Type.FIXED_LEN_BYTE_ARRAY, 12))
    if isinstance(t, T.FixedSizeBinaryType):
        return ({"type": Type.FIXED_LEN_BYTE_ARRAY, "type_length": t.byte_width},
                LeafSpec(Type.FIXED_LEN_BYTE_ARRAY, t.byte_width))
    if isinstance(t, T.DecimalType) and integer_decimals and t.precision <= 18:
        physical = Type.INT32 if t.precision <= 9 else Type.INT64
        lt = fmt.LogicalType(DECIMAL=fmt.DecimalType(scale=t.scale, precision=t.precision))
        return ({"type": physical, "logicalType": lt, "converted_type": ConvertedType.DECIMAL,
                 "scale": t.scale, "precision": t.precision},
                LeafSpec(physical, conversion="decimal_int"))
    if isinstance(t, T.DecimalType):
        width = decimal_width(t.precision)
        lt = fmt.LogicalType(DECIMAL=fmt.DecimalType(scale=t.scale, precision=t.precision))
        return ({"type": Type.FIXED_LEN_BYTE_ARRAY, "type_length": width, "logicalType": lt,
                 "converted_type": ConvertedType.DECIMAL, "scale": t.scale,
                 "precision": t.precision},
                LeafSpec(Type.FIXED_LEN_BYTE_ARRAY, width, "decimal"))
    if isinstance(t, (T.Date32Type, T.Date64Type)):
        spec = LeafSpec(Type.INT32, conversion="date64", scale=86_400_000) \
            if isinstance(t, T.Date64Type) else LeafSpec(Type.INT32)
        return ({"type": Type.INT32, "logicalType": fmt.LogicalType(DATE=fmt.DateType()),
                 "converted_type": ConvertedType.DATE}, spec)
    if isinstance(t, (T.Time32Type, T.Time64Type)):
        # A time of day is local (isAdjustedToUTC=false), with no TIME_MILLIS/MICROS
        # converted type, which would imply UTC: pyarrow's default since 20. Marked UTC,
        # DuckDB reads the column as TIME WITH TIME ZONE.
        unit = "ms" if isinstance(t, T.Time32Type) else t.unit
        physical = Type.INT32 if unit == "ms" else Type.INT64
        lt = fmt.LogicalType(TIME=fmt.TimeType(isAdjustedToUTC=False, unit=_UNITS[unit]))
        return ({"type": physical, "logicalType": lt},
                LeafSpec(physical, conversion="multiply", scale=1000 if t.unit == "s" else 1))
    if isinstance(t, T.TimestampType):
        unit = "ms" if t.unit == "s" else t.unit
        lt = fmt.LogicalType(TIMESTAMP=fmt.TimestampType(isAdjustedToUTC=t.tz is not None,
                                                         unit=_UNITS[unit]))
        kw = {"type": Type.INT64, "logicalType": lt}
        if t.tz is not None and unit in ("ms", "us"):
            kw["converted_type"] = (ConvertedType.TIMESTAMP_MILLIS if unit == "ms"
                                    else ConvertedType.TIMESTAMP_MICROS)
        return kw, LeafSpec(Type.INT64, conversion="multiply", scale=1000 if t.unit == "s" else 1)
    if isinstance(t, T.DurationType):
        return {"type": Type.INT64}, LeafSpec(Type.INT64)
    if isinstance(t, T.NullType):
        return ({"type": Type.INT32, "logicalType": fmt.LogicalType(UNKNOWN=fmt.NullType())},
                LeafSpec(Type.INT32, conversion="null"))
    raise SchemaError(f"pqkit cannot write values of type {t} to Parquet")


class SchemaBuilder:
    """Flatten fields into SchemaElements (root first) and collect the leaf specs in order."""

    def __init__(self):
        self.elements = []
        self.leaves = []
        self.in_variant = False     # the spec's shredded types store decimals as integers

    def build(self, fields, root_name="schema"):
        self.elements.append(fmt.SchemaElement(name=root_name, num_children=len(fields)))
        for f in fields:
            self.field(f.name, f.type, REQUIRED if not f.nullable else OPTIONAL, f)
        return self.elements, self.leaves

    def field(self, name, t, repetition, field=None):
        field_id = _field_id(field)
        if isinstance(t, (T.ListType, T.FixedSizeListType)):
            self._group(name, repetition, 1, ConvertedType.LIST,
                        fmt.LogicalType(LIST=fmt.ListType()), field_id)
            self._group("list", REPEATED, 1)
            vf = t.value_field
            self.field("element", vf.type, OPTIONAL if vf.nullable else REQUIRED, vf)
        elif isinstance(t, T.MapType):
            self._group(name, repetition, 1, ConvertedType.MAP,
                        fmt.LogicalType(MAP=fmt.MapType()), field_id)
            self._group("key_value", REPEATED, 2)
            self.field("key", t.key_type, REQUIRED, t.key_field)
            itf = t.item_field
            self.field("value", itf.type, OPTIONAL if itf.nullable else REQUIRED, itf)
        elif isinstance(t, T.StructType):
            if not t.fields:
                raise SchemaError(f"struct field {name!r} has no children; Parquet groups need "
                                  "at least one")
            annotation = None if field is None else logical_type(field)
            self._group(name, repetition, len(t.fields), logical=annotation,
                        field_id=field_id)
            outer = self.in_variant
            self.in_variant = outer or (annotation is not None and
                                        annotation.VARIANT is not None)
            for f in t.fields:
                self.field(f.name, f.type, OPTIONAL if f.nullable else REQUIRED, f)
            self.in_variant = outer
        else:
            kw, spec = _leaf(t, self.in_variant)
            annotation = None if field is None else logical_type(field)
            if annotation is not None:          # GEOMETRY / GEOGRAPHY over BYTE_ARRAY
                kw = {"type": kw["type"], "logicalType": annotation}
            if isinstance(t, T.NullType):
                repetition = OPTIONAL
            self.elements.append(fmt.SchemaElement(name=name, repetition_type=repetition,
                                                   field_id=field_id, **kw))
            self.leaves.append(spec)

    def _group(self, name, repetition, n, converted=None, logical=None, field_id=None):
        self.elements.append(fmt.SchemaElement(name=name, repetition_type=repetition,
                                               num_children=n, converted_type=converted,
                                               logicalType=logical, field_id=field_id))


def _field_id(field):
    """The Parquet field id from a field's ``PARQUET:field_id`` metadata, if any."""
    if field is None or not field.metadata:
        return None
    md = field.metadata
    raw = md.get("PARQUET:field_id", md.get(b"PARQUET:field_id"))
    if raw is None:
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise SchemaError(f"field {field.name!r}: PARQUET:field_id {raw!r} is not an "
                          "integer") from None


def parquet_schema(fields):
    """(list of SchemaElement, list of LeafSpec) for top-level ``fields``."""
    return SchemaBuilder().build(list(fields))
