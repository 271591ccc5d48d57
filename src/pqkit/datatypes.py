"""Logical data types of pqkit's in-memory tables, mirroring Arrow's type system.

A column's :class:`DataType` says how its buffers are read and which Python
values ``to_pylist()`` yields; the types and their ``str()`` spellings follow
Arrow so that values and schemas compare directly with pyarrow's. Types are
immutable values: equal when their parameters are equal, and hashable.

Fixed-width types name the numpy dtype of their value buffer
(:attr:`DataType.numpy_dtype`); temporal types store raw integers counted in
their unit from the Unix epoch (or from midnight, for times)::

    >>> t = timestamp("ms", tz="UTC")
    >>> str(t), t.numpy_dtype
    ('timestamp[ms, tz=UTC]', dtype('int64'))
    >>> str(list_(struct([("a", int32()), field("b", string(), nullable=False)])))
    'list<item: struct<a: int32, b: string not null>>'

Nested types hold their children as :class:`Field` objects (name, type,
nullability, metadata). Child field *metadata* is ignored by type equality,
as in Arrow; :class:`Field` equality compares it.

Two types exist for Parquet logical types that Arrow has no built-in type for.
``uuid()`` is Arrow's ``arrow.uuid`` extension type (storage
``fixed_size_binary[16]``; values are :class:`uuid.UUID`), which is how
pyarrow reads Parquet UUID. ``interval()`` is Parquet's INTERVAL (storage
``fixed_size_binary[12]``: little-endian uint32 months, days, milliseconds);
pyarrow reads it as plain 12-byte binary, so its values are ``bytes`` too.
"""
from collections import namedtuple
from types import MappingProxyType

import numpy as np

from pqkit.errors import SchemaError

TIME_UNITS = ("s", "ms", "us", "ns")

MonthDayNano = namedtuple("MonthDayNano", ["months", "days", "nanoseconds"])
MonthDayNano.__doc__ = """A month_day_nano_interval value (a tuple, so it equals pyarrow's)."""

_MDN_DTYPE = np.dtype([("months", "<i4"), ("days", "<i4"), ("nanoseconds", "<i8")])


class DataType:
    """Base of all types. Subclasses define ``_params`` (the identity) and ``__str__``."""

    __slots__ = ()
    #: numpy dtype of the value buffer for fixed-width types, else None.
    numpy_dtype = None

    def _params(self):
        return ()

    def __eq__(self, other):
        return type(self) is type(other) and self._params() == other._params()

    def __hash__(self):
        return hash((type(self).__name__, self._params()))

    def __repr__(self):
        return f"pqkit.DataType<{self}>"

    def __setattr__(self, name, value):
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _init(self, **attrs):
        for k, v in attrs.items():
            object.__setattr__(self, k, v)

    def _init_args(self):
        return self._params()

    def __reduce__(self):
        return (type(self), self._init_args())

    @property
    def fields(self):
        """Child fields of a nested type (empty for others)."""
        return ()

    @property
    def is_nested(self):
        return bool(self.fields)


class _Simple(DataType):
    __slots__ = ()
    _name = None

    def __str__(self):
        return self._name


class NullType(_Simple):
    """All values are null."""
    __slots__ = ()
    _name = "null"


class BooleanType(_Simple):
    """True/false, one numpy bool per value."""
    __slots__ = ()
    _name = "bool"
    numpy_dtype = np.dtype(np.bool_)


class IntegerType(DataType):
    """Signed or unsigned integer of 8, 16, 32 or 64 bits."""
    __slots__ = ("bit_width", "signed")

    def __init__(self, bit_width, signed=True):
        if bit_width not in (8, 16, 32, 64):
            raise SchemaError(f"integer bit width {bit_width!r}: expected 8, 16, 32 or 64")
        self._init(bit_width=bit_width, signed=bool(signed))

    def _params(self):
        return (self.bit_width, self.signed)

    @property
    def numpy_dtype(self):
        return np.dtype(f"{'i' if self.signed else 'u'}{self.bit_width // 8}")

    def __str__(self):
        return f"{'' if self.signed else 'u'}int{self.bit_width}"


class FloatingType(DataType):
    """IEEE 754 binary16, binary32 or binary64."""
    __slots__ = ("bit_width",)
    _NAMES = {16: "halffloat", 32: "float", 64: "double"}

    def __init__(self, bit_width):
        if bit_width not in self._NAMES:
            raise SchemaError(f"float bit width {bit_width!r}: expected 16, 32 or 64")
        self._init(bit_width=bit_width)

    def _params(self):
        return (self.bit_width,)

    @property
    def numpy_dtype(self):
        return np.dtype(f"f{self.bit_width // 8}")

    def __str__(self):
        return self._NAMES[self.bit_width]


class StringType(DataType):
    """UTF-8 text; ``large`` selects Arrow's 64-bit-offset variant (same values)."""
    __slots__ = ("large",)
    _base = "string"

    def __init__(self, large=False):
        self._init(large=bool(large))

    def _params(self):
        return (self.large,)

    def __str__(self):
        return ("large_" if self.large else "") + self._base


class BinaryType(StringType):
    """Variable-length bytes."""
    __slots__ = ()
    _base = "binary"


def is_text_type(t):
    """Whether ``t`` is a string type (UTF-8 text), not binary."""
    return isinstance(t, StringType) and not isinstance(t, BinaryType)


class FixedSizeBinaryType(DataType):
    """Byte strings of one fixed width."""
    __slots__ = ("byte_width",)

    def __init__(self, byte_width):
        if not isinstance(byte_width, (int, np.integer)) or byte_width < 0:
            raise SchemaError(f"fixed_size_binary width {byte_width!r}: expected an int >= 0")
        self._init(byte_width=int(byte_width))

    def _params(self):
        return (self.byte_width,)

    def __str__(self):
        return f"fixed_size_binary[{self.byte_width}]"


class DecimalType(DataType):
    """Exact decimal: an unscaled integer times 10**-scale, at most ``precision`` digits.

    Arrow's decimal128 for precision <= 38, decimal256 up to 76.
    """
    __slots__ = ("precision", "scale")

    def __init__(self, precision, scale=0):
        if not isinstance(precision, (int, np.integer)) or not 1 <= precision <= 76:
            raise SchemaError(f"decimal precision {precision!r}: expected 1..76")
        if not isinstance(scale, (int, np.integer)):
            raise SchemaError(f"decimal scale {scale!r}: expected an int")
        self._init(precision=int(precision), scale=int(scale))

    def _params(self):
        return (self.precision, self.scale)

    @property
    def bit_width(self):
        return 128 if self.precision <= 38 else 256

    def __str__(self):
        return f"decimal{self.bit_width}({self.precision}, {self.scale})"


class Date32Type(_Simple):
    """Days since 1970-01-01 (int32)."""
    __slots__ = ()
    _name = "date32[day]"
    numpy_dtype = np.dtype(np.int32)


class Date64Type(_Simple):
    """Milliseconds since 1970-01-01 (int64); values are dates."""
    __slots__ = ()
    _name = "date64[ms]"
    numpy_dtype = np.dtype(np.int64)


def _check_unit(unit, allowed, what):
    if unit not in allowed:
        raise SchemaError(f"{what} unit {unit!r}: expected one of {', '.join(allowed)}")


class _UnitType(DataType):
    __slots__ = ("unit",)
    _units = TIME_UNITS
    _name = None
    numpy_dtype = np.dtype(np.int64)

    def __init__(self, unit):
        _check_unit(unit, self._units, self._name)
        self._init(unit=unit)

    def _params(self):
        return (self.unit,)

    def __str__(self):
        return f"{self._name}[{self.unit}]"


class Time32Type(_UnitType):
    """Time of day in seconds or milliseconds since midnight (int32)."""
    __slots__ = ()
    _units = ("s", "ms")
    _name = "time32"
    numpy_dtype = np.dtype(np.int32)


class Time64Type(_UnitType):
    """Time of day in microseconds or nanoseconds since midnight (int64)."""
    __slots__ = ()
    _units = ("us", "ns")
    _name = "time64"


class DurationType(_UnitType):
    """A length of time in ``unit`` (int64)."""
    __slots__ = ()
    _name = "duration"


class TimestampType(DataType):
    """Instant (``tz`` set; values count from the UTC epoch) or local date-time (``tz=None``)."""
    __slots__ = ("unit", "tz")
    numpy_dtype = np.dtype(np.int64)

    def __init__(self, unit, tz=None):
        _check_unit(unit, TIME_UNITS, "timestamp")
        if tz is not None and not isinstance(tz, str):
            raise SchemaError(f"timestamp tz {tz!r}: expected a string such as 'UTC' or '+01:00'")
        self._init(unit=unit, tz=tz)

    def _params(self):
        return (self.unit, self.tz)

    def __str__(self):
        return f"timestamp[{self.unit}]" if self.tz is None \
            else f"timestamp[{self.unit}, tz={self.tz}]"


class MonthDayNanoIntervalType(_Simple):
    """Calendar interval: int32 months, int32 days, int64 nanoseconds (16 bytes)."""
    __slots__ = ()
    _name = "month_day_nano_interval"
    numpy_dtype = _MDN_DTYPE


class ExtensionType(DataType):
    """A named type stored as another type (``storage_type``)."""
    __slots__ = ()
    extension_name = None
    storage_type = None

    def __str__(self):
        return f"extension<{self.extension_name}>"


class UuidType(ExtensionType):
    """RFC 4122 UUID, 16 big-endian bytes; values are :class:`uuid.UUID`."""
    __slots__ = ()
    extension_name = "arrow.uuid"
    storage_type = FixedSizeBinaryType(16)


class IntervalType(ExtensionType):
    """Parquet INTERVAL: 12 bytes = little-endian uint32 months, days, milliseconds.

    Values are the raw 12 ``bytes``, as pyarrow reads them.
    """
    __slots__ = ()
    extension_name = "parquet.interval"
    storage_type = FixedSizeBinaryType(12)


class Field:
    """A named, typed, possibly nullable slot of a schema or nested type.

    Parameters
    ----------
    name : str
    type : DataType
    nullable : bool, default True
    metadata : mapping of str/bytes to str/bytes, optional
    """

    __slots__ = ("name", "type", "nullable", "_metadata")

    def __init__(self, name, type, nullable=True, metadata=None):
        if not isinstance(name, str):
            raise SchemaError(f"field name {name!r}: expected a str")
        if not isinstance(type, DataType):
            raise SchemaError(f"field {name!r}: type {type!r} is not a pqkit DataType")
        md = None if metadata is None else tuple(dict(metadata).items())
        for attr, v in (("name", name), ("type", type), ("nullable", bool(nullable)),
                        ("_metadata", md)):
            object.__setattr__(self, attr, v)

    def __setattr__(self, name, value):
        raise AttributeError("Field is immutable")

    @property
    def metadata(self):
        """Read-only mapping, or None."""
        return None if self._metadata is None else MappingProxyType(dict(self._metadata))

    def __reduce__(self):
        md = None if self._metadata is None else dict(self._metadata)
        return (Field, (self.name, self.type, self.nullable, md))

    def with_name(self, name):
        return Field(name, self.type, self.nullable, self.metadata)

    def with_type(self, type):
        return Field(self.name, type, self.nullable, self.metadata)

    def _key(self):
        return (self.name, self.type, self.nullable)

    def __eq__(self, other):
        return isinstance(other, Field) and self._key() == other._key() \
            and self._metadata == other._metadata

    def __hash__(self):
        return hash(self._key())

    def __str__(self):
        return f"{self.name}: {self.type}" + ("" if self.nullable else " not null")

    def __repr__(self):
        return f"pqkit.Field<{self}>"


def _as_field(value, default_name):
    if isinstance(value, Field):
        return value
    if isinstance(value, DataType):
        return Field(default_name, value)
    raise SchemaError(f"{value!r} is neither a Field nor a DataType")


class _Nested(DataType):
    __slots__ = ()

    def _params(self):
        # Child metadata does not take part in type identity.
        return tuple(f._key() for f in self.fields) + self._extra()

    def _extra(self):
        return ()


class ListType(_Nested):
    """Variable-length lists of ``value_field``; ``large`` is Arrow's 64-bit-offset variant."""
    __slots__ = ("value_field", "large")

    def __init__(self, value, large=False):
        self._init(value_field=_as_field(value, "item"), large=bool(large))

    @property
    def value_type(self):
        return self.value_field.type

    @property
    def fields(self):
        return (self.value_field,)

    def _extra(self):
        return (self.large,)

    def _init_args(self):
        return (self.value_field, self.large)

    def __str__(self):
        return f"{'large_' if self.large else ''}list<{self.value_field}>"


class FixedSizeListType(_Nested):
    """Lists of exactly ``list_size`` values."""
    __slots__ = ("value_field", "list_size")

    def __init__(self, value, list_size):
        if not isinstance(list_size, (int, np.integer)) or list_size < 0:
            raise SchemaError(f"fixed_size_list size {list_size!r}: expected an int >= 0")
        self._init(value_field=_as_field(value, "item"), list_size=int(list_size))

    @property
    def value_type(self):
        return self.value_field.type

    @property
    def fields(self):
        return (self.value_field,)

    def _extra(self):
        return (self.list_size,)

    def _init_args(self):
        return (self.value_field, self.list_size)

    def __str__(self):
        return f"fixed_size_list<{self.value_field}>[{self.list_size}]"


class StructType(_Nested):
    """A record of named fields; values are dicts."""
    __slots__ = ("_fields",)

    def __init__(self, fields):
        if isinstance(fields, dict):
            fields = fields.items()
        out = []
        for f in fields:
            if isinstance(f, tuple) and len(f) == 2:
                f = Field(f[0], f[1])
            if not isinstance(f, Field):
                raise SchemaError(f"struct member {f!r}: expected a Field or (name, type)")
            out.append(f)
        self._init(_fields=tuple(out))

    @property
    def fields(self):
        return self._fields

    @property
    def names(self):
        return [f.name for f in self._fields]

    def _init_args(self):
        return (self._fields,)

    def __str__(self):
        return f"struct<{', '.join(str(f) for f in self._fields)}>"


class MapType(_Nested):
    """Lists of key/item pairs; values are lists of ``(key, item)`` tuples."""
    __slots__ = ("key_field", "item_field", "keys_sorted")

    def __init__(self, key, item, keys_sorted=False):
        key_field = _as_field(key, "key")
        if key_field.nullable:
            key_field = Field(key_field.name, key_field.type, False, key_field.metadata)
        self._init(key_field=key_field, item_field=_as_field(item, "value"),
                   keys_sorted=bool(keys_sorted))

    @property
    def key_type(self):
        return self.key_field.type

    @property
    def item_type(self):
        return self.item_field.type

    @property
    def fields(self):
        return (self.key_field, self.item_field)

    def _extra(self):
        return (self.keys_sorted,)

    def _init_args(self):
        return (self.key_field, self.item_field, self.keys_sorted)

    def __str__(self):
        def part(f, default):
            suffix = "" if f.name == default else f" ({f.name!r})"
            return f"{f.type}{suffix}"
        tail = ", keys_sorted" if self.keys_sorted else ""
        return f"map<{part(self.key_field, 'key')}, {part(self.item_field, 'value')}{tail}>"


class DictionaryType(DataType):
    """Values stored as integer indices into a dictionary of ``value_type`` values."""
    __slots__ = ("index_type", "value_type", "ordered")

    def __init__(self, index_type, value_type, ordered=False):
        if not isinstance(index_type, IntegerType):
            raise SchemaError(f"dictionary index type {index_type}: expected an integer type")
        if not isinstance(value_type, DataType):
            raise SchemaError(f"dictionary value type {value_type!r} is not a DataType")
        self._init(index_type=index_type, value_type=value_type, ordered=bool(ordered))

    def _params(self):
        return (self.index_type, self.value_type, self.ordered)

    def __str__(self):
        return (f"dictionary<values={self.value_type}, indices={self.index_type}, "
                f"ordered={int(self.ordered)}>")


# --- factories (pyarrow-style names) -------------------------------------------------

def _factory(name, cls, *args):
    def make():
        return cls(*args)
    make.__name__ = make.__qualname__ = name
    make.__doc__ = f"The {name} type."
    return make


null = _factory("null", NullType)
bool_ = _factory("bool_", BooleanType)
int8 = _factory("int8", IntegerType, 8, True)
int16 = _factory("int16", IntegerType, 16, True)
int32 = _factory("int32", IntegerType, 32, True)
int64 = _factory("int64", IntegerType, 64, True)
uint8 = _factory("uint8", IntegerType, 8, False)
uint16 = _factory("uint16", IntegerType, 16, False)
uint32 = _factory("uint32", IntegerType, 32, False)
uint64 = _factory("uint64", IntegerType, 64, False)
float16 = _factory("float16", FloatingType, 16)
float32 = _factory("float32", FloatingType, 32)
float64 = _factory("float64", FloatingType, 64)
string = _factory("string", StringType, False)
large_string = _factory("large_string", StringType, True)
binary = _factory("binary", BinaryType, False)
large_binary = _factory("large_binary", BinaryType, True)
date32 = _factory("date32", Date32Type)
date64 = _factory("date64", Date64Type)
month_day_nano_interval = _factory("month_day_nano_interval", MonthDayNanoIntervalType)
uuid = _factory("uuid", UuidType)
interval = _factory("interval", IntervalType)
interval.__doc__ = "Parquet INTERVAL (months, days, millis in 12 bytes)."


# Parameterised types: the factory is the class itself.
fixed_size_binary = FixedSizeBinaryType
decimal = DecimalType
time32 = Time32Type
time64 = Time64Type
timestamp = TimestampType
duration = DurationType
field = Field
fixed_size_list = FixedSizeListType
struct = StructType
map_ = MapType
dictionary = DictionaryType


def list_(value):
    """List of ``value`` (a DataType, which is named ``item``, or a Field)."""
    return ListType(value)


def large_list(value):
    """Like :func:`list_` with Arrow's 64-bit offsets."""
    return ListType(value, large=True)


__all__ = [
    "DataType", "is_text_type", "NullType", "BooleanType", "IntegerType", "FloatingType", "StringType",
    "BinaryType", "FixedSizeBinaryType", "DecimalType", "Date32Type", "Date64Type",
    "Time32Type", "Time64Type", "DurationType", "TimestampType", "MonthDayNanoIntervalType",
    "ExtensionType", "UuidType", "IntervalType", "Field", "ListType", "FixedSizeListType",
    "StructType", "MapType", "DictionaryType", "MonthDayNano", "TIME_UNITS",
    "null", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "string", "large_string", "binary", "large_binary",
    "fixed_size_binary", "decimal", "date32", "date64", "time32", "time64", "timestamp",
    "duration", "month_day_nano_interval", "uuid", "interval", "field", "list_",
    "large_list", "fixed_size_list", "struct", "map_", "dictionary",
]
