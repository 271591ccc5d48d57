"""Decode the Arrow schema that Arrow-based writers store in the Parquet footer.

pyarrow, arrow-rs, polars and others put their Arrow schema in the footer's
key/value metadata under ``ARROW:schema``. The value is base64 text of one
Arrow IPC *message*, framed in one of three ways:

* current form: ``FF FF FF FF`` (continuation marker), int32 length ``L``,
  then ``L`` bytes of flatbuffer (padded to a multiple of 8);
* legacy form (Arrow < 0.15): int32 length ``L``, then ``L`` bytes;
* bare flatbuffer with no prefix at all (accepted by arrow-rs, which some of
  its old versions wrote). It is told apart from the legacy form by the first
  word: a legacy length covers the rest of the buffer (up to 7 bytes of
  padding), while a bare buffer's first word is the offset of its root table,
  which is small.

The flatbuffer is an Arrow ``Message`` table whose header union holds a
``Schema`` table. This module reads it with a small bounds-checked reader of
its own; no flatbuffers package is needed.

Flatbuffer layout
-----------------
All integers are little-endian; "offset" below means a byte offset.

* **Root.** The buffer starts with a uint32 that is the offset of the root
  table, counted from the start of the buffer.
* **Tables.** A table starts with an int32 ``s``; its *vtable* lives at
  ``table - s`` (so the vtable may sit before or after the table, and many
  tables may share one). A vtable is a run of uint16: its own size in bytes,
  the size of the table's inline data, then one entry per field slot in
  declaration order. An entry is the field's offset from the table start, or
  0 when the field is absent; slots past the end of the vtable are absent
  too. An absent scalar takes the default from the schema definition
  (usually 0, but e.g. ``Date.unit`` defaults to MILLISECOND).
* **References.** A field holding a table, string or vector stores a uint32
  that is added to *the field's own position* to find the target. Such
  offsets are unsigned, so they always point forward.
* **Vectors** start with a uint32 element count followed by the elements; a
  vector of tables holds one forward uint32 offset per element (relative to
  that element's position). **Strings** are a uint32 byte count, the UTF-8
  bytes and a NUL terminator that we do not rely on.
* **Unions** take two slots: a uint8 type tag (0 means none), then a
  reference to a table whose layout the tag selects.

Worked example: the 48 flatbuffer bytes pyarrow writes for an empty schema
(after the 8-byte prefix; positions relative to the flatbuffer)::

    0:  10 00 00 00            root table is at 16
    4:  00 00                  padding
    6:  0a 00 0c 00            vtable: 10 bytes long, table data 12 bytes,
        06 00 05 00 08 00      slot 0 (version) at +6, slot 1 (header tag) at
                               +5, slot 2 (header) at +8
    16: 0a 00 00 00            Message table: vtable at 16 - 10 = 6
    20: 00 01 04 00            +5 = 01: header is a Schema; +6 = 4: version V5
    24: 0c 00 00 00            header table at 24 + 12 = 36
    28: 08 00 08 00 00 00 04 00   vtable: slot 0 absent, slot 1 (fields) at +4
    36: 08 00 00 00            Schema table: vtable at 36 - 8 = 28
    40: 04 00 00 00            fields vector at 40 + 4 = 44
    44: 00 00 00 00            ... which has 0 elements

Slots used here (from Arrow's Schema.fbs and Message.fbs): ``Message`` =
version, header tag, header, bodyLength, custom_metadata; ``Schema`` =
endianness, fields, custom_metadata, features; ``Field`` = name, nullable,
type tag, type, dictionary, children, custom_metadata; ``KeyValue`` = key,
value; ``DictionaryEncoding`` = id, indexType, isOrdered, dictionaryKind.

Safety
------
Every read is checked against the flatbuffer's byte range, and every vector
or string length against the bytes that remain before anything is built.
Field nesting deeper than :data:`MAX_DEPTH` is rejected. Because tables may
be shared, a small message could otherwise describe an exponentially large
tree; a work budget proportional to the message size (tables visited, vector
elements and string bytes) bounds the total. Any violation, bad base64, an
unknown union tag or an out-of-range parameter raises
:class:`~pqkit.errors.CorruptFileError` naming what was wrong and its byte
offset in the decoded message.

Type mapping
------------
Arrow types map to :mod:`pqkit.datatypes` as their names suggest. Two points
lose information: Arrow's decimal32/64/128/256 all become
``decimal(precision, scale)`` (pqkit picks the storage width from the
precision, so a decimal256 of precision <= 38 comes back as a 128-bit
decimal with the same values); and a map's entries-struct name is dropped.
The ``arrow.uuid`` extension becomes ``uuid()``; other extension types keep
their storage type and their ``ARROW:extension:*`` field metadata.

Arrow types pqkit has no type for (string_view, binary_view, list_view,
large_list_view, run_end_encoded, sparse/dense unions, month and day_time
intervals) still decode, as :class:`UnsupportedArrowType` placeholders that
carry the Arrow type name and the decoded child fields. A caller that cannot
use them asks ``schema.field(name, strict=True)``, which raises
:class:`~pqkit.errors.UnsupportedFeatureError`, or checks
:func:`find_unsupported`.
"""
import base64
import binascii
import struct

from pqkit import datatypes as T
from pqkit.errors import CorruptFileError, SchemaError, UnsupportedFeatureError

#: Deepest field nesting accepted (a top-level field has depth 1).
MAX_DEPTH = 64

# Work budget: units spent per table visited (4), vector element (1) and string
# byte (1). A message that shares nothing spends at most its own size; allow
# generous slack for writers that share strings or vtables.
_BUDGET_PER_BYTE = 4
_BUDGET_SLACK = 4096

_U8 = struct.Struct("<B")
_U16 = struct.Struct("<H")
_I16 = struct.Struct("<h")
_I32 = struct.Struct("<i")
_U32 = struct.Struct("<I")

_CONTINUATION = 0xFFFFFFFF
_HEADER_SCHEMA = 1          # MessageHeader union: NONE, Schema, DictionaryBatch, ...

_EXT_NAME = "ARROW:extension:name"
_EXT_METADATA = "ARROW:extension:metadata"

# Tags of Arrow's ``Type`` union, in declaration order (0 is NONE).
(_NULL, _INT, _FLOAT, _BINARY, _UTF8, _BOOL, _DECIMAL, _DATE, _TIME, _TIMESTAMP,
 _INTERVAL, _LIST, _STRUCT, _UNION, _FIXED_SIZE_BINARY, _FIXED_SIZE_LIST, _MAP,
 _DURATION, _LARGE_BINARY, _LARGE_UTF8, _LARGE_LIST, _RUN_END_ENCODED,
 _BINARY_VIEW, _UTF8_VIEW, _LIST_VIEW, _LARGE_LIST_VIEW) = range(1, 27)
_LAST_TYPE_TAG = _LARGE_LIST_VIEW

_TIME_UNITS = ("s", "ms", "us", "ns")       # Arrow TimeUnit enum order
_DECIMAL_MAX_PRECISION = {32: 9, 64: 18, 128: 38, 256: 76}
_FLOAT_BITS = (16, 32, 64)                   # Precision enum: HALF, SINGLE, DOUBLE

# Types without parameters (and without children) that pqkit has.
_SIMPLE = {
    _NULL: T.null, _BOOL: T.bool_, _BINARY: T.binary, _UTF8: T.string,
    _LARGE_BINARY: T.large_binary, _LARGE_UTF8: T.large_string,
}
# Types pqkit has no equivalent for, by the name pyarrow prints for them.
_UNSUPPORTED = {
    _RUN_END_ENCODED: "run_end_encoded", _BINARY_VIEW: "binary_view",
    _UTF8_VIEW: "string_view", _LIST_VIEW: "list_view", _LARGE_LIST_VIEW: "large_list_view",
}


class UnsupportedArrowType(T.DataType):
    """Placeholder for an Arrow type that pqkit has no type for.

    Attributes
    ----------
    arrow_name : str
        The Arrow type's name as pyarrow spells it (``"string_view"``,
        ``"dense_union"``, ``"month_interval"``, ...).
    children : tuple of Field
        The decoded child fields (value field of a list view, union members,
        ``run_ends``/``values`` of run-end encoding); empty for leaf types.
    """

    __slots__ = ("arrow_name", "children")

    def __init__(self, arrow_name, children=()):
        self._init(arrow_name=str(arrow_name), children=tuple(children))

    def _params(self):
        return (self.arrow_name,) + tuple(f._key() for f in self.children)

    def _init_args(self):
        return (self.arrow_name, self.children)

    def __str__(self):
        return f"unsupported<{self.arrow_name}>"


def find_unsupported(dtype, path=""):
    """The first ``(path, UnsupportedArrowType)`` inside ``dtype``, or None.

    ``path`` is the dotted field path of ``dtype``, used to build child paths.
    """
    if isinstance(dtype, UnsupportedArrowType):
        return path, dtype
    if isinstance(dtype, T.DictionaryType):
        return find_unsupported(dtype.value_type, path)
    for f in dtype.fields:
        hit = find_unsupported(f.type, f"{path}.{f.name}" if path else f.name)
        if hit is not None:
            return hit
    return None


class ArrowSchema:
    """An Arrow schema decoded from ``ARROW:schema``.

    Attributes
    ----------
    fields : list of pqkit.datatypes.Field
        Top-level fields in order. Types pqkit lacks appear as
        :class:`UnsupportedArrowType`.
    metadata : dict of str to str
        Schema-level custom metadata (empty when there is none).
    """

    __slots__ = ("fields", "metadata")

    def __init__(self, fields, metadata=None):
        self.fields = list(fields)
        self.metadata = dict(metadata or {})

    @property
    def names(self):
        return [f.name for f in self.fields]

    def field(self, name, strict=False):
        """The top-level field called ``name``.

        Parameters
        ----------
        name : str
        strict : bool, default False
            Raise :class:`~pqkit.errors.UnsupportedFeatureError` when the
            field's type is, or contains, an :class:`UnsupportedArrowType`.

        Raises
        ------
        KeyError
            No field, or more than one field, has this name.
        """
        matches = [f for f in self.fields if f.name == name]
        if len(matches) != 1:
            what = "no field" if not matches else f"{len(matches)} fields"
            raise KeyError(f"{what} named {name!r} in the Arrow schema")
        found = matches[0]
        if strict:
            hit = find_unsupported(found.type, found.name)
            if hit is not None:
                raise UnsupportedFeatureError(
                    f"field {hit[0]!r} has Arrow type {hit[1].arrow_name}, "
                    f"which pqkit has no type for")
        return found

    def __len__(self):
        return len(self.fields)

    def __iter__(self):
        return iter(self.fields)

    def __eq__(self, other):
        return isinstance(other, ArrowSchema) and self.fields == other.fields \
            and self.metadata == other.metadata

    def __repr__(self):
        return f"<pqkit.ArrowSchema {', '.join(str(f) for f in self.fields)}>"


def decode_arrow_schema(value):
    """Decode the value of the ``ARROW:schema`` footer entry.

    Parameters
    ----------
    value : str or bytes-like
        The base64 text, as stored in the key/value metadata.

    Returns
    -------
    ArrowSchema

    Raises
    ------
    pqkit.errors.CorruptFileError
        The text is not base64, or the message is malformed (truncated,
        offsets or lengths out of range, unknown type tag, nesting deeper
        than :data:`MAX_DEPTH`, invalid type parameters). The message names
        the byte offset in the decoded message.
    """
    data = _unbase64(value)
    lo, hi = _locate_flatbuffer(data)
    buf = _Buffer(data, lo, hi)
    root = _Table(buf, buf.offset(lo, "root table offset"), "Message")
    tag = root.scalar(1, _U8)
    if tag != _HEADER_SCHEMA:
        buf.fail(root.pos, f"Message header type {tag}: expected {_HEADER_SCHEMA} (Schema)")
    schema = root.table(2, "Schema")
    if schema is None:
        buf.fail(root.pos, "Message has no header table")
    fields = [_field(buf, t, "", 1) for t in schema.tables(1, "Schema.fields")]
    return ArrowSchema(fields, _key_values(schema, 2, "schema custom_metadata") or {})


# --- framing -------------------------------------------------------------------------

def _unbase64(value):
    if value is None:
        raise CorruptFileError("ARROW:schema: the key/value entry has no value")
    if isinstance(value, str):
        try:
            value = value.encode("ascii")
        except UnicodeEncodeError as e:
            raise CorruptFileError(
                f"ARROW:schema: non-ASCII character at text position {e.start}: "
                f"not base64") from None
    try:
        return base64.b64decode(bytes(value).strip(), validate=True)
    except (binascii.Error, ValueError, TypeError) as e:
        raise CorruptFileError(f"ARROW:schema: not valid base64 ({e})") from None


def _locate_flatbuffer(data):
    """Byte range ``(lo, hi)`` of the flatbuffer inside the decoded message."""
    n = len(data)
    if n < 8:
        raise CorruptFileError(f"ARROW:schema: decoded message of {n} bytes is too short")
    first = _U32.unpack_from(data, 0)[0]
    if first == _CONTINUATION:
        length = _I32.unpack_from(data, 4)[0]
        if length <= 0 or length > n - 8:
            raise CorruptFileError(
                f"ARROW:schema: metadata length {length} at byte 4: expected 1..{n - 8}, "
                f"the bytes that follow")
        return 8, 8 + length
    if first > n - 4:
        raise CorruptFileError(
            f"ARROW:schema: legacy metadata length {first} at byte 0 exceeds the "
            f"{n - 4} bytes that follow")
    if n - 4 - first < 8:
        return 4, 4 + first
    return 0, n


# --- flatbuffer reader ---------------------------------------------------------------

class _Buffer:
    """Bounds-checked little-endian reads over the flatbuffer bytes ``data[lo:hi]``."""

    __slots__ = ("data", "lo", "hi", "budget")

    def __init__(self, data, lo, hi):
        self.data, self.lo, self.hi = data, lo, hi
        self.budget = _BUDGET_PER_BYTE * (hi - lo) + _BUDGET_SLACK

    def fail(self, pos, what):
        raise CorruptFileError(f"ARROW:schema: {what} (at byte {pos} of the decoded message)")

    def read(self, fmt, pos, what):
        if pos < self.lo or pos + fmt.size > self.hi:
            self.fail(pos, f"{what}: {fmt.size}-byte read outside the flatbuffer "
                           f"(bytes {self.lo}..{self.hi})")
        return fmt.unpack_from(self.data, pos)[0]

    def offset(self, pos, what):
        """Follow the forward uint32 offset stored at ``pos``."""
        return pos + self.read(_U32, pos, what)

    def spend(self, units, pos, what):
        self.budget -= units
        if self.budget < 0:
            self.fail(pos, f"{what}: the message refers to far more data than it holds "
                           f"(shared offsets forming a huge tree?)")

    def counted(self, pos, elem_size, what):
        """``(start, count)`` of the vector or string at ``pos``, checked against the end."""
        count = self.read(_U32, pos, f"{what} length")
        start = pos + 4
        if count * elem_size > self.hi - start:
            self.fail(pos, f"{what}: length {count} needs {count * elem_size} bytes, "
                           f"only {self.hi - start} remain")
        self.spend(count, pos, what)
        return start, count

    def string(self, pos, what):
        start, count = self.counted(pos, 1, what)
        return self.data[start:start + count].decode("utf-8", "surrogateescape")


class _Table:
    """One flatbuffer table: its position, vtable and inline size, all checked."""

    __slots__ = ("buf", "pos", "vtable", "vt_size", "size", "what")

    def __init__(self, buf, pos, what):
        buf.spend(4, pos, what)
        vtable = pos - buf.read(_I32, pos, f"{what} vtable offset")
        vt_size = buf.read(_U16, vtable, f"{what} vtable size")
        size = buf.read(_U16, vtable + 2, f"{what} table size")
        if vt_size < 4 or vt_size % 2 or vtable + vt_size > buf.hi:
            buf.fail(vtable, f"{what}: bad vtable size {vt_size}")
        if size < 4 or pos + size > buf.hi:
            buf.fail(pos, f"{what}: table size {size} runs past the flatbuffer end {buf.hi}")
        self.buf, self.pos, self.vtable, self.vt_size, self.size, self.what = \
            buf, pos, vtable, vt_size, size, what

    def _slot(self, i, width):
        """Absolute position of field slot ``i`` (``width`` bytes), or None if absent."""
        entry = 4 + 2 * i
        if entry + 2 > self.vt_size:
            return None
        off = self.buf.read(_U16, self.vtable + entry, f"{self.what} vtable entry {i}")
        if off == 0:
            return None
        if off + width > self.size:
            self.buf.fail(self.pos, f"{self.what}: field slot {i} at +{off} lies outside "
                                    f"the {self.size}-byte table")
        return self.pos + off

    def scalar(self, i, fmt, default=0):
        pos = self._slot(i, fmt.size)
        return default if pos is None else self.buf.read(fmt, pos, f"{self.what} slot {i}")

    def _target(self, i, what):
        pos = self._slot(i, 4)
        return None if pos is None else self.buf.offset(pos, what)

    def table(self, i, what):
        pos = self._target(i, what)
        return None if pos is None else _Table(self.buf, pos, what)

    def string(self, i, what):
        pos = self._target(i, what)
        return None if pos is None else self.buf.string(pos, what)

    def tables(self, i, what):
        """The tables of a vector-of-tables slot (empty when absent)."""
        pos = self._target(i, what)
        if pos is None:
            return []
        start, count = self.buf.counted(pos, 4, what)
        return [_Table(self.buf, self.buf.offset(start + 4 * k, what), f"{what}[{k}]")
                for k in range(count)]


# --- Arrow tables --------------------------------------------------------------------

def _key_values(table, slot, what):
    """A ``[KeyValue]`` slot as a dict (None when absent or empty)."""
    out = {}
    for kv in table.tables(slot, what):
        out[kv.string(0, f"{what} key") or ""] = kv.string(1, f"{what} value") or ""
    return out or None


def _field(buf, table, parent, depth):
    name = table.string(0, "Field.name") or ""
    path = f"{parent}.{name}" if parent else name
    where = f"field {path!r}"
    if depth > MAX_DEPTH:
        buf.fail(table.pos, f"{where}: nesting deeper than {MAX_DEPTH} levels")
    nullable = bool(table.scalar(1, _U8))
    tag = table.scalar(2, _U8)
    type_table = table.table(3, f"{where} type")
    children = [_field(buf, t, path, depth + 1)
                for t in table.tables(5, f"{where} children")]
    metadata = _key_values(table, 6, f"{where} custom_metadata")
    dtype = _type(buf, tag, type_table, children, table.pos, where)
    if metadata and metadata.get(_EXT_NAME) == "arrow.uuid" \
            and dtype == T.fixed_size_binary(16):
        dtype = T.uuid()
        metadata = {k: v for k, v in metadata.items() if k not in (_EXT_NAME, _EXT_METADATA)}
    encoding = table.table(4, f"{where} dictionary")
    if encoding is not None:
        dtype = _dictionary(buf, encoding, dtype, where)
    return _checked(buf, table.pos, where, T.Field, name, dtype, nullable, metadata or None)


def _checked(buf, pos, where, ctor, *args):
    """Call a pqkit type constructor, turning its SchemaError into CorruptFileError."""
    try:
        return ctor(*args)
    except SchemaError as e:
        buf.fail(pos, f"{where}: {e}")


def _dictionary(buf, encoding, value_type, where):
    index = encoding.table(1, f"{where} dictionary indexType")
    if index is None:
        index_type = T.int32()                  # the format's documented default
    else:
        index_type = _checked(buf, index.pos, f"{where} dictionary index", T.IntegerType,
                              index.scalar(0, _I32), bool(index.scalar(1, _U8)))
    ordered = bool(encoding.scalar(2, _U8))
    return _checked(buf, encoding.pos, where, T.dictionary, index_type, value_type, ordered)


def _unit(buf, table, slot, default, where):
    unit = table.scalar(slot, _I16, default)
    if not 0 <= unit < len(_TIME_UNITS):
        buf.fail(table.pos, f"{where}: time unit {unit}: expected 0..3")
    return _TIME_UNITS[unit]


def _only_child(buf, children, pos, where, kind):
    if len(children) != 1:
        buf.fail(pos, f"{where}: {kind} has {len(children)} child fields, expected 1")
    return children[0]


def _type(buf, tag, t, children, pos, where):
    """The pqkit type for a ``Type`` union member ``tag`` with table ``t``."""
    if tag == 0 or tag > _LAST_TYPE_TAG:
        what = "has no type" if tag == 0 else f"unknown Arrow type tag {tag}"
        buf.fail(pos, f"{where}: {what} (known tags 1..{_LAST_TYPE_TAG})")
    if t is None:
        buf.fail(pos, f"{where}: type tag {tag} without its type table")
    if tag in _SIMPLE:
        return _SIMPLE[tag]()
    if tag in _UNSUPPORTED:
        return UnsupportedArrowType(_UNSUPPORTED[tag], children)
    if tag in (_LIST, _LARGE_LIST, _FIXED_SIZE_LIST, _MAP, _STRUCT, _UNION):
        return _nested_type(buf, tag, t, children, where)
    return _leaf_type(buf, tag, t, where)


def _leaf_type(buf, tag, t, where):
    if tag == _INT:
        return _checked(buf, t.pos, where, T.IntegerType, t.scalar(0, _I32),
                        bool(t.scalar(1, _U8)))
    if tag == _FLOAT:
        precision = t.scalar(0, _I16)
        if not 0 <= precision < len(_FLOAT_BITS):
            buf.fail(t.pos, f"{where}: floating point precision {precision}: expected 0..2")
        return T.FloatingType(_FLOAT_BITS[precision])
    if tag == _DECIMAL:
        precision, scale = t.scalar(0, _I32), t.scalar(1, _I32)
        bits = t.scalar(2, _I32, 128)
        limit = _DECIMAL_MAX_PRECISION.get(bits)
        if limit is None or not 1 <= precision <= limit:
            buf.fail(t.pos, f"{where}: decimal bit width {bits}, precision {precision}: "
                            f"expected widths 32/64/128/256 with precision 1..9/18/38/76")
        return T.decimal(precision, scale)
    if tag == _DATE:
        unit = t.scalar(0, _I16, 1)             # DateUnit: DAY, MILLISECOND (the default)
        if unit not in (0, 1):
            buf.fail(t.pos, f"{where}: date unit {unit}: expected 0 (day) or 1 (ms)")
        return T.date32() if unit == 0 else T.date64()
    if tag == _TIME:
        unit = _unit(buf, t, 0, 1, where)
        bits = t.scalar(1, _I32, 32)
        ctor = {32: T.time32, 64: T.time64}.get(bits)
        if ctor is None:
            buf.fail(t.pos, f"{where}: time bit width {bits}: expected 32 or 64")
        return _checked(buf, t.pos, where, ctor, unit)
    if tag == _TIMESTAMP:
        tz = t.string(1, f"{where} timezone")
        return T.timestamp(_unit(buf, t, 0, 0, where), tz or None)   # "" means naive too
    if tag == _DURATION:
        return T.duration(_unit(buf, t, 0, 1, where))
    if tag == _INTERVAL:
        unit = t.scalar(0, _I16)                # YEAR_MONTH, DAY_TIME, MONTH_DAY_NANO
        if not 0 <= unit <= 2:
            buf.fail(t.pos, f"{where}: interval unit {unit}: expected 0..2")
        if unit == 2:
            return T.month_day_nano_interval()
        return UnsupportedArrowType(("month_interval", "day_time_interval")[unit])
    # The only tag left is FixedSizeBinary.
    return _checked(buf, t.pos, where, T.fixed_size_binary, t.scalar(0, _I32))


def _nested_type(buf, tag, t, children, where):
    if tag == _STRUCT:
        return T.struct(children)
    if tag == _UNION:
        mode = t.scalar(0, _I16)
        if mode not in (0, 1):
            buf.fail(t.pos, f"{where}: union mode {mode}: expected 0 (sparse) or 1 (dense)")
        return UnsupportedArrowType(("sparse_union", "dense_union")[mode], children)
    if tag == _MAP:
        entries = _only_child(buf, children, t.pos, where, "map")
        if not isinstance(entries.type, T.StructType) or len(entries.type.fields) != 2:
            buf.fail(t.pos, f"{where}: map entries must be a struct of key and value, "
                            f"got {entries.type}")
        key, item = entries.type.fields
        return T.map_(key, item, bool(t.scalar(0, _U8)))
    value = _only_child(buf, children, t.pos, where, "list")
    if tag == _FIXED_SIZE_LIST:
        return _checked(buf, t.pos, where, T.fixed_size_list, value, t.scalar(0, _I32))
    return T.large_list(value) if tag == _LARGE_LIST else T.list_(value)


__all__ = ["ArrowSchema", "UnsupportedArrowType", "decode_arrow_schema", "find_unsupported",
           "MAX_DEPTH"]
