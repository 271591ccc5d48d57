"""Encoding pqkit fields as the ``ARROW:schema`` footer entry (an Arrow IPC Schema message).

The reader side, with the flatbuffer layout explained, is :mod:`pqkit.schema.arrow_read`.
This builder writes front to back: a table is written with placeholder offset
slots, its children are appended after it and the slots patched, so every
offset points forward as flatbuffers require. Each table is preceded by its
own vtable (``[vtable bytes, table bytes, field offsets...]``, all u16) and
starts with the signed distance back to it. Everything is 8-byte aligned.

The value stored is base64 of ``FF FF FF FF | u32 length | message``.
"""
import base64
import struct

from pqkit import datatypes as T
from pqkit.errors import SchemaError

_METADATA_V5 = 4
_HEADER_SCHEMA = 1
_TYPE_IDS = {
    "Null": 1, "Int": 2, "FloatingPoint": 3, "Binary": 4, "Utf8": 5, "Bool": 6, "Decimal": 7,
    "Date": 8, "Time": 9, "Timestamp": 10, "Interval": 11, "List": 12, "Struct_": 13,
    "FixedSizeBinary": 15, "FixedSizeList": 16, "Map": 17, "Duration": 18, "LargeBinary": 19,
    "LargeUtf8": 20, "LargeList": 21,
}
_UNIT = {"s": 0, "ms": 1, "us": 2, "ns": 3}


class _Table:
    """A flatbuffer table to write: slots of scalars (struct format, value) or children."""

    def __init__(self):
        self.slots = {}

    def scalar(self, slot, code, value):
        self.slots[slot] = ("scalar", code, value)
        return self

    def child(self, slot, obj):
        """``obj``: a _Table, a str, or a list of _Table (vector of tables)."""
        self.slots[slot] = ("ref", None, obj)
        return self


class _Builder:
    def __init__(self):
        self.buf = bytearray()

    def _align(self, n=8):
        self.buf.extend(b"\0" * (-len(self.buf) % n))

    def finish(self, root):
        self.buf.extend(b"\0" * 8)                  # root offset (4) + padding
        pos = self.table(root)
        struct.pack_into("<I", self.buf, 0, pos)
        self._align()
        return bytes(self.buf)

    def table(self, t):
        n_slots = max(t.slots) + 1 if t.slots else 0
        layout, size = {}, 4                        # the soffset comes first
        for slot in sorted(t.slots):
            kind, code, _ = t.slots[slot]
            width = struct.calcsize(code) if kind == "scalar" else 4
            size += -size % width
            layout[slot] = size
            size += width
        vt_size = 4 + 2 * n_slots
        self._align()
        vt_pos = len(self.buf)
        self.buf.extend(struct.pack(f"<HH{n_slots}H", vt_size, size,
                                    *[layout.get(i, 0) for i in range(n_slots)]))
        self._align()
        pos = len(self.buf)
        self.buf.extend(b"\0" * size)
        self._align()
        struct.pack_into("<i", self.buf, pos, pos - vt_pos)
        for slot, (kind, code, value) in t.slots.items():
            at = pos + layout[slot]
            if kind == "scalar":
                struct.pack_into(code, self.buf, at, value)
            else:
                target = self.string(value) if isinstance(value, str) else \
                    self.vector(value) if isinstance(value, list) else self.table(value)
                struct.pack_into("<I", self.buf, at, target - at)
        return pos

    def string(self, s):
        data = s.encode("utf-8")
        self._align(4)
        pos = len(self.buf)
        self.buf.extend(struct.pack("<I", len(data)) + data + b"\0")
        return pos

    def vector(self, tables):
        self._align(4)
        pos = len(self.buf)
        self.buf.extend(struct.pack("<I", len(tables)) + b"\0" * (4 * len(tables)))
        for i, t in enumerate(tables):
            at = pos + 4 + 4 * i
            target = self.string(t) if isinstance(t, str) else self.table(t)
            struct.pack_into("<I", self.buf, at, target - at)
        return pos


def _key_values(md):
    out = []
    for k, v in (md or {}).items():
        k = k.decode("utf-8", "replace") if isinstance(k, bytes) else str(k)
        v = v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
        out.append(_Table().child(0, k).child(1, v))
    return out


def _type(t):
    """(type name, type _Table, child fields) for a pqkit type."""
    e = _Table()
    if isinstance(t, T.NullType):
        return "Null", e, []
    if isinstance(t, T.BooleanType):
        return "Bool", e, []
    if isinstance(t, T.IntegerType):
        return "Int", e.scalar(0, "<i", t.bit_width).scalar(1, "<?", t.signed), []
    if isinstance(t, T.FloatingType):
        return "FloatingPoint", e.scalar(0, "<h", {16: 0, 32: 1, 64: 2}[t.bit_width]), []
    if isinstance(t, T.BinaryType):
        return ("LargeBinary" if t.large else "Binary"), e, []
    if isinstance(t, T.StringType):
        return ("LargeUtf8" if t.large else "Utf8"), e, []
    if isinstance(t, T.UuidType):
        return "FixedSizeBinary", e.scalar(0, "<i", 16), []
    if isinstance(t, T.IntervalType):
        return "FixedSizeBinary", e.scalar(0, "<i", 12), []
    if isinstance(t, T.FixedSizeBinaryType):
        return "FixedSizeBinary", e.scalar(0, "<i", t.byte_width), []
    if isinstance(t, T.DecimalType):
        return "Decimal", e.scalar(0, "<i", t.precision).scalar(1, "<i", t.scale) \
            .scalar(2, "<i", t.bit_width), []
    if isinstance(t, T.Date32Type):
        return "Date", e.scalar(0, "<h", 0), []
    if isinstance(t, T.Date64Type):
        return "Date", e.scalar(0, "<h", 1), []
    if isinstance(t, (T.Time32Type, T.Time64Type)):
        bits = 32 if isinstance(t, T.Time32Type) else 64
        return "Time", e.scalar(0, "<h", _UNIT[t.unit]).scalar(1, "<i", bits), []
    if isinstance(t, T.TimestampType):
        e.scalar(0, "<h", _UNIT[t.unit])
        if t.tz is not None:
            e.child(1, t.tz)
        return "Timestamp", e, []
    if isinstance(t, T.DurationType):
        return "Duration", e.scalar(0, "<h", _UNIT[t.unit]), []
    if isinstance(t, T.MonthDayNanoIntervalType):
        return "Interval", e.scalar(0, "<h", 2), []
    if isinstance(t, T.ListType):
        return ("LargeList" if t.large else "List"), e, [t.value_field]
    if isinstance(t, T.FixedSizeListType):
        return "FixedSizeList", e.scalar(0, "<i", t.list_size), [t.value_field]
    if isinstance(t, T.StructType):
        return "Struct_", e, list(t.fields)
    if isinstance(t, T.MapType):
        entries = T.Field("entries", T.struct([t.key_field, t.item_field]), nullable=False)
        return "Map", e.scalar(0, "<?", t.keys_sorted), [entries]
    raise SchemaError(f"type {t} has no Arrow IPC encoding")


def _field(f, ids):
    t = f.type
    table = _Table().child(0, f.name).scalar(1, "<?", f.nullable)
    metadata = dict(f.metadata or {})
    if isinstance(t, T.UuidType):
        metadata.setdefault("ARROW:extension:name", "arrow.uuid")
        metadata.setdefault("ARROW:extension:metadata", "")
    if isinstance(t, T.DictionaryType):
        index = _Table().scalar(0, "<i", t.index_type.bit_width) \
            .scalar(1, "<?", t.index_type.signed)
        encoding = _Table().scalar(0, "<q", len(ids)).child(1, index) \
            .scalar(2, "<?", t.ordered)
        ids.append(f.name)
        table.child(4, encoding)
        t = t.value_type
    name, type_table, children = _type(t)
    table.scalar(2, "<B", _TYPE_IDS[name]).child(3, type_table)
    table.child(5, [_field(c, ids) for c in children])
    if metadata:
        table.child(6, _key_values(metadata))
    return table


def encode_arrow_schema(fields, metadata=None):
    """The base64 ``ARROW:schema`` value for top-level ``fields`` (pqkit Fields)."""
    ids = []
    schema = _Table().scalar(0, "<h", 0).child(1, [_field(f, ids) for f in fields])
    if metadata:
        schema.child(2, _key_values(metadata))
    message = _Table().scalar(0, "<h", _METADATA_V5).scalar(1, "<B", _HEADER_SCHEMA) \
        .child(2, schema).scalar(3, "<q", 0)
    body = _Builder().finish(message)
    framed = struct.pack("<Ii", 0xFFFFFFFF, len(body)) + body
    return base64.b64encode(framed).decode("ascii")
