"""pqkit data types <-> Arrow C Data Interface format strings, and schema metadata bytes.

The Arrow C Data Interface names a type by a short format string: one letter
for the simple types (``"l"`` int64, ``"u"`` utf8), a ``t`` prefix for
temporal types with the unit as a letter (``"tsm:UTC"`` is timestamp[ms,
tz=UTC]), ``w:``/``d:`` with parameters for fixed-size binary and decimals,
and a ``+`` prefix for nested types whose children come as child schemas
(``"+l"`` list, ``"+w:3"`` fixed-size list of 3, ``"+s"`` struct, ``"+m"``
map). A dictionary-encoded field has its *index* type as format and the value
type as its dictionary schema. This module is the one table of those names,
used by export and import alike::

    >>> format_of(T.timestamp("us", "Europe/Paris"))
    'tsu:Europe/Paris'
    >>> str(simple_type("tdD")), str(parametric_type("d:9,2"))
    ('date32[day]', 'decimal128(9, 2)')

Extension types travel as their storage type plus two metadata keys,
``ARROW:extension:name`` and ``ARROW:extension:metadata``: ``uuid`` is
``w:16`` named ``arrow.uuid``; pqkit's Parquet ``interval`` is ``w:12``
named ``parquet.interval`` (consumers that do not know the name see the
12-byte storage, as pyarrow does when it reads Parquet).

Schema metadata is binary: an int32 count, then for each pair an int32 length
and the key's bytes, an int32 length and the value's bytes (native byte order).
"""
import struct

from pqkit import datatypes as T
from pqkit.errors import SchemaError, UnsupportedFeatureError

EXTENSION_NAME = "ARROW:extension:name"
EXTENSION_METADATA = "ARROW:extension:metadata"

# ArrowSchema.flags bits.
FLAG_DICTIONARY_ORDERED = 1
FLAG_NULLABLE = 2
FLAG_MAP_KEYS_SORTED = 4

_SIMPLE = {
    "n": T.null(), "b": T.bool_(),
    "c": T.int8(), "C": T.uint8(), "s": T.int16(), "S": T.uint16(),
    "i": T.int32(), "I": T.uint32(), "l": T.int64(), "L": T.uint64(),
    "e": T.float16(), "f": T.float32(), "g": T.float64(),
    "u": T.string(), "U": T.large_string(), "z": T.binary(), "Z": T.large_binary(),
    "tdD": T.date32(), "tdm": T.date64(), "tin": T.month_day_nano_interval(),
    "tts": T.time32("s"), "ttm": T.time32("ms"), "ttu": T.time64("us"), "ttn": T.time64("ns"),
}
_SIMPLE_FORMAT = {t: f for f, t in _SIMPLE.items()}
# String and binary views have no pqkit type of their own: they import as string/binary.
VIEW_TYPES = {"vu": T.string(), "vz": T.binary()}
_UNIT_LETTER = {"s": "s", "ms": "m", "us": "u", "ns": "n"}
_LETTER_UNIT = {v: k for k, v in _UNIT_LETTER.items()}
# Extension types pqkit has, by extension name.
_EXTENSIONS = {T.UuidType.extension_name: T.uuid(), T.IntervalType.extension_name: T.interval()}


def format_of(type_):
    """The format string of a non-nested, non-dictionary ``type_`` or of a nested one's
    parent (``"+l"``, ``"+s"``, ...); an extension type gives its storage's format."""
    if isinstance(type_, T.ExtensionType):
        type_ = type_.storage_type
    simple = _SIMPLE_FORMAT.get(type_)
    if simple is not None:
        return simple
    if isinstance(type_, T.FixedSizeBinaryType):
        return f"w:{type_.byte_width}"
    if isinstance(type_, T.DecimalType):
        tail = "" if type_.bit_width == 128 else ",256"
        return f"d:{type_.precision},{type_.scale}{tail}"
    if isinstance(type_, T.TimestampType):
        return f"ts{_UNIT_LETTER[type_.unit]}:{type_.tz or ''}"
    if isinstance(type_, T.DurationType):
        return f"tD{_UNIT_LETTER[type_.unit]}"
    if isinstance(type_, T.ListType):
        return "+L" if type_.large else "+l"
    if isinstance(type_, T.FixedSizeListType):
        return f"+w:{type_.list_size}"
    if isinstance(type_, T.StructType):
        return "+s"
    if isinstance(type_, T.MapType):
        return "+m"
    if isinstance(type_, T.DictionaryType):
        return _SIMPLE_FORMAT[type_.index_type]
    raise SchemaError(f"type {type_} has no Arrow format")


def view_format(type_):
    """The view format of a string or binary ``type_``: ``"vu"`` for text, ``"vz"`` else."""
    return "vu" if T.is_text_type(type_) else "vz"


def extension_metadata(type_):
    """The metadata pairs that mark ``type_`` as an extension type (empty for others)."""
    if isinstance(type_, T.ExtensionType):
        return {EXTENSION_NAME: type_.extension_name, EXTENSION_METADATA: ""}
    return {}


def extension_type(metadata, storage):
    """The pqkit extension type ``metadata`` names over ``storage``, or None."""
    ext = _EXTENSIONS.get((metadata or {}).get(EXTENSION_NAME))
    return ext if ext is not None and ext.storage_type == storage else None


def simple_type(fmt):
    """The type of a format string without parameters or children, or None."""
    return _SIMPLE.get(fmt)


def parametric_type(fmt, where="Arrow field"):
    """The type of a parameterised non-nested format (``w:``, ``d:``, ``ts``, ``tD``), or None."""
    try:
        if fmt.startswith("w:"):
            return T.fixed_size_binary(int(fmt[2:]))
        if fmt.startswith("d:"):
            parts = [int(p) for p in fmt[2:].split(",")]
            if len(parts) == 3 and parts[2] not in (32, 64, 128, 256):
                raise UnsupportedFeatureError(f"{where}: decimal of {parts[2]} bits")
            return T.decimal(parts[0], parts[1])
        if fmt.startswith("ts") and len(fmt) >= 4 and fmt[3] == ":" and fmt[2] in _LETTER_UNIT:
            return T.timestamp(_LETTER_UNIT[fmt[2]], fmt[4:] or None)
        if fmt.startswith("tD") and len(fmt) == 3 and fmt[2] in _LETTER_UNIT:
            return T.duration(_LETTER_UNIT[fmt[2]])
    except ValueError:
        raise SchemaError(f"{where}: malformed Arrow format {fmt!r}") from None
    return None


def decimal_bits(fmt):
    """Storage width in bits of a ``d:`` format (128 unless a width is given)."""
    parts = fmt[2:].split(",")
    return int(parts[2]) if len(parts) == 3 else 128


def nested_type(fmt, fields, flags, where="Arrow field"):
    """The type of a ``+`` format over its child ``fields``, or None if not nested."""
    if fmt in ("+l", "+L"):
        _expect_children(fmt, fields, 1, where)
        return T.ListType(fields[0], large=fmt == "+L")
    if fmt.startswith("+w:"):
        _expect_children(fmt, fields, 1, where)
        try:
            size = int(fmt[3:])
        except ValueError:
            raise SchemaError(f"{where}: malformed Arrow format {fmt!r}") from None
        return T.fixed_size_list(fields[0], size)
    if fmt == "+s":
        return T.struct(fields)
    if fmt == "+m":
        _expect_children(fmt, fields, 1, where)
        entries = fields[0].type
        if not isinstance(entries, T.StructType) or len(entries.fields) != 2:
            raise SchemaError(f"{where}: map entries must be a struct of key and value, "
                              f"got {entries}")
        return T.map_(entries.fields[0], entries.fields[1],
                      keys_sorted=bool(flags & FLAG_MAP_KEYS_SORTED))
    return None


def _expect_children(fmt, fields, n, where):
    if len(fields) != n:
        raise SchemaError(f"{where}: Arrow format {fmt!r} needs {n} child, got {len(fields)}")


def encode_metadata(pairs):
    """Binary metadata for a mapping of str/bytes -> str/bytes/None, or None when empty.

    Arrow's keys and values are bytes, so every entry exports as it was read: text as
    UTF-8, its lone surrogates (pqkit's form of a file's bytes that are not UTF-8) as
    those bytes again, and a value of None (a Parquet KeyValue may leave it out, and
    ``edit_metadata`` can write one) as an empty value, which is how pyarrow reads it.
    """
    if not pairs:
        return None
    out = [struct.pack("=i", len(pairs))]
    for k, v in pairs.items():
        for s in (k, v):
            b = _metadata_bytes(s)
            out.append(struct.pack("=i", len(b)))
            out.append(b)
    return b"".join(out)


def _metadata_bytes(s):
    if s is None:
        return b""
    if not isinstance(s, str):
        return bytes(s)
    try:
        return s.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:       # a surrogate no decoding made: keep its code point
        return s.encode("utf-8", "surrogatepass")


def decode_metadata(data):
    """A dict from binary metadata (None stays None); UTF-8 keys/values become str."""
    if data is None:
        return None
    (count,), pos, out = struct.unpack_from("=i", data, 0), 4, {}
    for _ in range(count):
        pair = []
        for _ in range(2):
            (size,) = struct.unpack_from("=i", data, pos)
            raw = data[pos + 4:pos + 4 + size]
            pos += 4 + size
            try:
                pair.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                pair.append(raw)
        out[pair[0]] = pair[1]
    return out
