"""ARROW:schema decoding: pyarrow schemas and files, hand-built flatbuffers, bad input, corpus."""
import base64
import struct
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from arrow_bridge import field_to_arrow, type_from_arrow, type_to_arrow
from corpus import entries, path_of
from pqkit import datatypes as T
from pqkit.errors import CorruptFileError, ParquetError, UnsupportedFeatureError
from pqkit.schema.arrow_read import (
    MAX_DEPTH,
    ArrowSchema,
    UnsupportedArrowType,
    decode_arrow_schema,
    find_unsupported,
)

EXT_KEYS = ("ARROW:extension:name", "ARROW:extension:metadata")


# --- comparing our decoding with pyarrow's -------------------------------------------

def _md(metadata):
    """pyarrow's bytes metadata as the str dict we decode (None when empty)."""
    if not metadata:
        return None
    return {k.decode("utf-8", "surrogateescape"): v.decode("utf-8", "surrogateescape")
            for k, v in metadata.items()}


def _plain(pt):
    """True when type_to_arrow can reproduce ``pt`` exactly (no unsupported types, and
    no decimal whose width pqkit would choose differently)."""
    if pa.types.is_decimal(pt):
        return pt.bit_width == T.decimal(pt.precision, pt.scale).bit_width
    if isinstance(pt, pa.ExtensionType):
        return pt == pa.uuid()
    if pa.types.is_dictionary(pt):
        return _plain(pt.value_type)
    nested = (pa.types.is_list, pa.types.is_large_list, pa.types.is_fixed_size_list,
              pa.types.is_struct, pa.types.is_map)
    if any(is_kind(pt) for is_kind in nested):
        return all(_plain(pt.field(i).type) for i in range(pt.num_fields))
    try:
        type_from_arrow(pt)
    except TypeError:
        return False
    return True


def check_field(ours, theirs):
    """Assert the pqkit Field we decoded describes pyarrow's field ``theirs``."""
    assert ours.name == theirs.name
    assert ours.nullable == theirs.nullable, ours
    pt = theirs.type
    metadata = dict(ours.metadata or {})
    if isinstance(pt, pa.BaseExtensionType) and pt != pa.uuid():
        # Unknown to pqkit: storage type, and the extension keys stay in the field metadata.
        assert metadata.pop(EXT_KEYS[0]) == pt.extension_name
        assert EXT_KEYS[1] in metadata
        del metadata[EXT_KEYS[1]]
        pt = pt.storage_type
    assert metadata == (_md(theirs.metadata) or {}), ours
    check_type(ours.type, pt)
    if _plain(theirs.type):
        assert field_to_arrow(ours).equals(theirs, check_metadata=True), (ours, theirs)


def check_type(ours, pt):
    if isinstance(ours, UnsupportedArrowType):
        assert ours.arrow_name == str(pt).split("<")[0]
        assert len(ours.children) == pt.num_fields
        for i, child in enumerate(ours.children):
            check_field(child, pt.field(i))
    elif isinstance(ours, T.DecimalType):
        assert pa.types.is_decimal(pt) and (ours.precision, ours.scale) == (pt.precision, pt.scale)
    elif isinstance(ours, T.DictionaryType):
        assert pa.types.is_dictionary(pt) and ours.ordered == pt.ordered
        check_type(ours.index_type, pt.index_type)
        check_type(ours.value_type, pt.value_type)
    elif isinstance(ours, T.ListType):
        assert (pa.types.is_large_list if ours.large else pa.types.is_list)(pt)
        check_field(ours.value_field, pt.value_field)
    elif isinstance(ours, T.FixedSizeListType):
        assert pa.types.is_fixed_size_list(pt) and ours.list_size == pt.list_size
        check_field(ours.value_field, pt.value_field)
    elif isinstance(ours, T.StructType):
        assert pa.types.is_struct(pt) and len(ours.fields) == pt.num_fields
        for i, child in enumerate(ours.fields):
            check_field(child, pt.field(i))
    elif isinstance(ours, T.MapType):
        assert pa.types.is_map(pt) and ours.keys_sorted == pt.keys_sorted
        check_field(ours.key_field, pt.key_field)
        check_field(ours.item_field, pt.item_field)
    else:
        assert type_to_arrow(ours) == pt, (ours, pt)


def check_schema(ours, theirs):
    assert isinstance(ours, ArrowSchema)
    assert len(ours.fields) == len(theirs)
    for f, g in zip(ours.fields, theirs):
        check_field(f, g)
    assert ours.metadata == (_md(theirs.metadata) or {})


def b64(schema_or_bytes):
    data = schema_or_bytes
    if isinstance(data, pa.Schema):
        data = data.serialize().to_pybytes()
    return base64.b64encode(data).decode()


def roundtrip(schema):
    decoded = decode_arrow_schema(b64(schema))
    check_schema(decoded, schema)
    return decoded


# --- pyarrow schemas -------------------------------------------------------------------

PRIMITIVES = [
    pa.null(), pa.bool_(), pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(),
    pa.uint16(), pa.uint32(), pa.uint64(), pa.float16(), pa.float32(), pa.float64(),
    pa.string(), pa.large_string(), pa.binary(), pa.large_binary(), pa.binary(0),
    pa.binary(1), pa.binary(16), pa.binary(1000), pa.date32(), pa.date64(),
    pa.time32("s"), pa.time32("ms"), pa.time64("us"), pa.time64("ns"),
    pa.month_day_nano_interval(),
]
TIMEZONES = [None, "UTC", "+01:00", "-02:15", "Europe/Paris", "America/New_York",
             "Asia/Kolkata"]
DECIMALS = [pa.decimal128(1, 0), pa.decimal128(9, 2), pa.decimal128(18, 4),
            pa.decimal128(38, 10), pa.decimal128(38, 38), pa.decimal128(5, -3),
            pa.decimal256(39, 0), pa.decimal256(50, 5), pa.decimal256(76, 20),
            pa.decimal256(10, 2), pa.decimal256(1, 0), pa.decimal32(5, 2),
            pa.decimal64(18, 3)]


@pytest.mark.parametrize("pt", PRIMITIVES, ids=str)
@pytest.mark.parametrize("nullable", [True, False])
def test_primitive(pt, nullable):
    if pt == pa.null() and not nullable:
        pytest.skip("pyarrow refuses a non-nullable null field")
    got = roundtrip(pa.schema([pa.field("c", pt, nullable)]))
    assert got.field("c").nullable is nullable


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
@pytest.mark.parametrize("tz", TIMEZONES)
def test_timestamp(unit, tz):
    got = roundtrip(pa.schema([pa.field("t", pa.timestamp(unit, tz))]))
    assert got.field("t").type == T.timestamp(unit, tz)


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_duration(unit):
    assert roundtrip(pa.schema([("d", pa.duration(unit))])).fields[0].type == T.duration(unit)


@pytest.mark.parametrize("pt", DECIMALS, ids=str)
def test_decimal(pt):
    got = roundtrip(pa.schema([("d", pt)]))
    # Every Arrow decimal width maps to pqkit's decimal, whose width follows the precision.
    assert got.fields[0].type == T.decimal(pt.precision, pt.scale)


@pytest.mark.parametrize("index", [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(),
                                   pa.uint32()], ids=str)
@pytest.mark.parametrize("value", [pa.string(), pa.large_string(), pa.binary(), pa.int64()],
                         ids=str)
@pytest.mark.parametrize("ordered", [False, True])
def test_dictionary(index, value, ordered):
    got = roundtrip(pa.schema([("d", pa.dictionary(index, value, ordered))])).fields[0].type
    assert isinstance(got, T.DictionaryType) and got.ordered is ordered
    assert got.index_type == T.IntegerType(index.bit_width, pa.types.is_signed_integer(index))


NESTED = {
    "list": pa.list_(pa.int32()),
    "list_not_null_element": pa.list_(pa.field("element", pa.string(), False)),
    "large_list": pa.large_list(pa.float64()),
    "fixed_size_list": pa.list_(pa.int16(), 3),
    "fixed_size_list_0": pa.list_(pa.field("x", pa.bool_(), False), 0),
    "struct": pa.struct([pa.field("a", pa.int8(), False), ("b", pa.string())]),
    "empty_struct": pa.struct([]),
    "map": pa.map_(pa.string(), pa.int64()),
    "map_sorted": pa.map_(pa.int32(), pa.field("v", pa.list_(pa.int8()), False),
                          keys_sorted=True),
    "map_named": pa.map_(pa.field("k", pa.large_string(), False), pa.field("it", pa.date32())),
    "deep": pa.list_(pa.struct([
        pa.field("m", pa.map_(pa.string(), pa.struct([
            pa.field("x", pa.large_list(pa.field("y", pa.timestamp("us", "UTC"), False)),
                     metadata={"doc": "x"}),
            pa.field("z", pa.dictionary(pa.int16(), pa.string()), False),
        ])), metadata={b"k": b"v", b"empty": b""}),
        pa.field("f", pa.list_(pa.decimal128(20, 4), 2), False),
    ])),
    "dict_of_list": pa.dictionary(pa.int32(), pa.list_(pa.string())),
}


@pytest.mark.parametrize("name", sorted(NESTED))
@pytest.mark.parametrize("nullable", [True, False])
def test_nested(name, nullable):
    roundtrip(pa.schema([pa.field(name, NESTED[name], nullable, metadata={"n": name})]))


def test_deep_nested_shape():
    got = roundtrip(pa.schema([("deep", NESTED["deep"])])).field("deep").type
    m = got.value_type.fields[0]
    assert dict(m.metadata) == {"k": "v", "empty": ""}
    inner = m.type.item_type
    assert inner.fields[0].metadata["doc"] == "x"
    assert inner.fields[1].type == T.dictionary(T.int16(), T.string())
    assert not inner.fields[1].nullable


def test_uuid_extension():
    schema = pa.schema([
        pa.field("u", pa.uuid()),
        pa.field("u_md", pa.uuid(), False, metadata={"k": "v"}),
        pa.field("lu", pa.list_(pa.field("item", pa.uuid(), False))),
        pa.field("raw16", pa.binary(16)),
    ])
    got = roundtrip(schema)
    assert got.field("u").type == T.uuid() and got.field("u").metadata is None
    assert dict(got.field("u_md").metadata) == {"k": "v"}     # extension keys removed
    assert got.field("lu").type.value_type == T.uuid()
    assert got.field("raw16").type == T.fixed_size_binary(16)


def test_other_extensions_keep_storage_and_metadata():
    got = roundtrip(pa.schema([pa.field("j", pa.json_()), pa.field("b", pa.bool8())]))
    assert got.field("j").type == T.string()
    assert got.field("j").metadata["ARROW:extension:name"] == "arrow.json"
    assert got.field("b").type == T.int8()
    assert got.field("b").metadata["ARROW:extension:name"] == "arrow.bool8"


def test_schema_and_field_metadata():
    schema = pa.schema([pa.field("a", pa.int32(), metadata={"x": "1", "ü": "é"})],
                       metadata={"pandas": '{"a": 1}', "other": "", "raw": b"\xff\xfe"})
    got = roundtrip(schema)
    assert got.metadata["pandas"] == '{"a": 1}' and got.metadata["other"] == ""
    assert got.metadata["raw"].encode("utf-8", "surrogateescape") == b"\xff\xfe"
    assert dict(got.field("a").metadata) == {"x": "1", "ü": "é"}


def test_empty_schema_and_odd_names():
    assert decode_arrow_schema(b64(pa.schema([]))) == ArrowSchema([], {})
    got = roundtrip(pa.schema([("", pa.int8()), ("dup", pa.int8()), ("dup", pa.string()),
                               ("naïve 名前", pa.int8())]))
    assert got.names == ["", "dup", "dup", "naïve 名前"]
    with pytest.raises(KeyError, match="2 fields named 'dup'"):
        got.field("dup")
    with pytest.raises(KeyError, match="no field named 'nope'"):
        got.field("nope")


UNSUPPORTED = {
    "string_view": pa.string_view(),
    "binary_view": pa.binary_view(),
    "list_view": pa.list_view(pa.int32()),
    "large_list_view": pa.large_list_view(pa.field("x", pa.string(), False)),
    "run_end_encoded": pa.run_end_encoded(pa.int32(), pa.string()),
    "dense_union": pa.dense_union([pa.field("a", pa.int8()), pa.field("b", pa.string())]),
    "sparse_union": pa.sparse_union([pa.field("a", pa.int8())]),
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_types_decode_as_placeholders(name):
    schema = pa.schema([pa.field("ok", pa.int32()), pa.field("x", UNSUPPORTED[name]),
                        pa.field("s", pa.struct([pa.field("inner", UNSUPPORTED[name])]))])
    got = roundtrip(schema)
    placeholder = got.field("x").type
    assert isinstance(placeholder, UnsupportedArrowType) and placeholder.arrow_name == name
    assert str(placeholder) == f"unsupported<{name}>"
    assert got.field("ok", strict=True).type == T.int32()
    with pytest.raises(UnsupportedFeatureError, match=f"'x' has Arrow type {name}"):
        got.field("x", strict=True)
    with pytest.raises(UnsupportedFeatureError, match=f"'s.inner' has Arrow type {name}"):
        got.field("s", strict=True)
    assert find_unsupported(got.field("s").type, "s") == ("s.inner", placeholder)
    assert find_unsupported(got.field("ok").type) is None


def test_dictionary_of_unsupported_is_found():
    got = roundtrip(pa.schema([("d", pa.dictionary(pa.int8(), pa.string_view()))]))
    assert find_unsupported(got.fields[0].type, "d")[0] == "d"


# --- files written by pyarrow.parquet ------------------------------------------------

def _tables():
    yield "flat", pa.table({
        "b": [True, None], "i8": pa.array([1, 2], pa.int8()), "u64": pa.array([1, 2], pa.uint64()),
        "f16": pa.array([1.0, 2.0], pa.float16()), "s": ["a", None], "ls": pa.array(
            ["a", "b"], pa.large_string()), "bin": [b"x", b"y"],
        "fsb": pa.array([b"ab", b"cd"], pa.binary(2)), "d32": pa.array([1, 2], pa.date32()),
        "d64": pa.array([0, 86400000], pa.date64()),
        "t32": pa.array([1, 2], pa.time32("ms")), "t64": pa.array([1, 2], pa.time64("ns")),
        "dur": pa.array([1, 2], pa.duration("us")),
        "dec": pa.array([1, 2], pa.decimal128(12, 3)),
        "dec256": pa.array([1, 2], pa.decimal256(60, 7)),
        "uuid": pa.ExtensionArray.from_storage(pa.uuid(), pa.array([b"0" * 16, None],
                                                                   pa.binary(16))),
    })
    yield "timestamps", pa.table({
        f"ts_{unit}_{tz}": pa.array([0, 1], pa.timestamp(unit, tz))
        for unit in ("s", "ms", "us", "ns") for tz in TIMEZONES})
    yield "nested", pa.table({
        "l": pa.array([[1], None], pa.list_(pa.field("element", pa.int32(), False))),
        "ll": pa.array([[1.5], []], pa.large_list(pa.float64())),
        "fsl": pa.array([[1, 2], [3, 4]], pa.list_(pa.int8(), 2)),
        "st": pa.array([{"a": 1, "b": "x"}, None],
                       pa.struct([pa.field("a", pa.int16(), False), ("b", pa.string())])),
        "m": pa.array([[("k", 1)], []], pa.map_(pa.string(), pa.int32())),
        "dict": pa.array(["a", "b", "a"][:2]).dictionary_encode(),
        "ordered": pa.DictionaryArray.from_arrays(
            pa.array([0, 1], pa.int8()), ["x", "y"], ordered=True),
    }).replace_schema_metadata({"origin": "test"})
    yield "pandas", pa.Table.from_pandas(
        __import__("pandas").DataFrame({"a": [1, 2], "s": ["x", "y"]}))


@pytest.mark.parametrize("name, table", list(_tables()), ids=lambda v: v if isinstance(v, str)
                         else "")
def test_parquet_files(tmp_path, name, table):
    path = tmp_path / f"{name}.parquet"
    pq.write_table(table, path)
    value = pqkit.read_metadata(str(path)).key_value_metadata["ARROW:schema"]
    got = decode_arrow_schema(value)
    check_schema(got, table.schema)
    oracle = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(value)))
    check_schema(got, oracle)


# --- framing ---------------------------------------------------------------------------

RICH = pa.schema([pa.field(k, v) for k, v in NESTED.items()]
                 + [pa.field("u", pa.uuid()), pa.field("ts", pa.timestamp("ms", "Europe/Paris")),
                    pa.field("sv", pa.string_view())], metadata={"k": "v"})


def test_framings_and_input_kinds():
    message = RICH.serialize().to_pybytes()
    assert message[:4] == b"\xff\xff\xff\xff"
    expected = decode_arrow_schema(b64(message))
    check_schema(expected, RICH)
    legacy = message[4:]                     # int32 length, flatbuffer
    bare = message[8:]                       # flatbuffer only (accepted by arrow-rs)
    text = b64(message)
    for value in (b64(legacy), b64(bare), text.encode(), bytearray(text.encode()),
                  memoryview(text.encode()), f"  {text}\n"):
        assert decode_arrow_schema(value) == expected
    # Trailing bytes after the declared metadata length are ignored.
    assert decode_arrow_schema(b64(message + b"\0" * 16)) == expected


def test_worked_example_from_docstring():
    """The 48-byte empty-schema flatbuffer walked through in the module docstring."""
    message = pa.schema([]).serialize().to_pybytes()
    assert message[:8] == b"\xff\xff\xff\xff" + struct.pack("<i", 48)
    assert message[8:].hex() == (
        "10000000" "0000" "0a000c00060005000800"
        "0a000000" "00010400" "0c000000" "0800080000000400" "08000000" "04000000" "00000000")
    assert decode_arrow_schema(b64(message)) == ArrowSchema([])


# --- hand-built flatbuffers ------------------------------------------------------------

class Tbl:
    """A table: ``slots[i]`` is None (absent), (struct format, value), or a Tbl/Str/Vec."""

    def __init__(self, *slots):
        self.slots = slots


class Str:
    def __init__(self, text, length=None):
        self.raw = text.encode() if isinstance(text, str) else text
        self.length = len(self.raw) if length is None else length


class Vec:
    """A vector of tables (the same Tbl object twice is written once, then shared)."""

    def __init__(self, items, length=None):
        self.items = list(items)
        self.length = len(self.items) if length is None else length


def build(root):
    """Serialize ``root`` as a flatbuffer, each object aligned as Arrow's verifier expects."""
    out = bytearray(4)
    written = {}

    def align(n):
        out.extend(b"\0" * (-len(out) % n))

    def patch(slot_pos, obj):
        struct.pack_into("<I", out, slot_pos, emit(obj) - slot_pos)

    def emit(obj):
        if id(obj) in written:
            return written[id(obj)]
        if isinstance(obj, Str):
            align(4)
            pos = len(out)
            out.extend(struct.pack("<I", obj.length) + obj.raw + b"\0")
        elif isinstance(obj, Vec):
            align(4)
            pos = len(out)
            out.extend(struct.pack("<I", obj.length) + b"\0" * (4 * len(obj.items)))
            for k, item in enumerate(obj.items):
                patch(pos + 4 + 4 * k, item)
        else:
            pos = _emit_table(obj)
        written[id(obj)] = pos
        return pos

    def _emit_table(tbl):
        layout, size = [], 4
        for value in tbl.slots:
            width = 0 if value is None else (struct.calcsize("<" + value[0])
                                             if isinstance(value, tuple) else 4)
            size += -size % width if width else 0
            layout.append(size if width else 0)
            size += width
        size += -size % 4
        vtable = struct.pack(f"<HH{len(layout)}H", 4 + 2 * len(layout), size, *layout)
        align(2)
        vt_pos = len(out)
        out.extend(vtable)
        align(8)
        pos = len(out)
        out.extend(struct.pack("<i", pos - vt_pos) + b"\0" * (size - 4))
        for value, off in zip(tbl.slots, layout):
            if isinstance(value, tuple):
                struct.pack_into("<" + value[0], out, pos + off, value[1])
        for value, off in zip(tbl.slots, layout):
            if value is not None and not isinstance(value, tuple):
                patch(pos + off, value)
        return pos

    patch(0, root)
    align(8)
    return bytes(out)


def fld(name, tag, type_tbl=None, children=None, nullable=True, dictionary=None, md=None):
    """An Arrow Field table (type tag per Schema.fbs's Type union)."""
    kvs = None if md is None else Vec([Tbl(Str(k), Str(v)) for k, v in md.items()])
    return Tbl(Str(name) if name is not None else None, ("B", nullable), ("B", tag),
               Tbl() if type_tbl is None else type_tbl, dictionary,
               None if children is None else Vec(children), kvs)


def message(fields, header_tag=1, header=None):
    schema = Tbl(None, Vec(fields)) if header is None else header
    return Tbl(("h", 4), ("B", header_tag), schema)


def frame(root):
    fb = build(root)
    return b"\xff\xff\xff\xff" + struct.pack("<i", len(fb)) + fb


def decode_built(root):
    return decode_arrow_schema(b64(frame(root)))


INT, FLOAT, DECIMAL, DATE, TIME, TIMESTAMP, INTERVAL = 2, 3, 7, 8, 9, 10, 11
LIST, STRUCT, UNION, FSB, FSL, MAP, DURATION = 12, 13, 14, 15, 16, 17, 18


@pytest.mark.parametrize("unit, name", [(0, "month_interval"), (1, "day_time_interval")])
def test_intervals_pyarrow_cannot_build(unit, name):
    root = message([fld("i", INTERVAL, Tbl(("h", unit)))])
    got = decode_built(root)
    assert got.fields[0].type == UnsupportedArrowType(name)
    check_schema(got, pa.ipc.read_schema(pa.py_buffer(frame(root))))


@pytest.mark.parametrize("tag, tbl, expected", [
    (DATE, Tbl(), T.date64()),                       # DateUnit defaults to MILLISECOND
    (DATE, Tbl(("h", 0)), T.date32()),
    (TIME, Tbl(), T.time32("ms")),                   # unit ms, bitWidth 32
    (TIME, Tbl(("h", 3), ("i", 64)), T.time64("ns")),
    (DURATION, Tbl(), T.duration("ms")),
    (TIMESTAMP, Tbl(), T.timestamp("s")),
    (TIMESTAMP, Tbl(("h", 2), Str("")), T.timestamp("us")),     # empty tz: naive
    (DECIMAL, Tbl(("i", 5)), T.decimal(5, 0)),        # bitWidth defaults to 128
    (FLOAT, Tbl(), T.float16()),
    (INT, Tbl(("i", 16)), T.uint16()),                # is_signed defaults to false
    (FSB, Tbl(), T.fixed_size_binary(0)),
    (INTERVAL, Tbl(("h", 2)), T.month_day_nano_interval()),
])
def test_absent_scalars_take_schema_defaults(tag, tbl, expected):
    root = message([fld("c", tag, tbl)])
    got = decode_built(root)
    assert got.fields[0].type == expected
    check_schema(got, pa.ipc.read_schema(pa.py_buffer(frame(root))))   # Arrow agrees


def test_absent_field_parts_take_defaults():
    # No name, no nullable flag, dictionary without indexType: "", False, int32.
    root = message([Tbl(None, None, ("B", 5), Tbl(), Tbl(("q", 7)))])
    # (Arrow C++ refuses the missing indexType although Schema.fbs documents the default.)
    got = decode_built(root)
    assert got.fields[0] == T.Field("", T.dictionary(T.int32(), T.string()), nullable=False)


def _nest(depth):
    node = fld("leaf", INT, Tbl(("i", 8), ("B", 1)))
    for i in range(depth - 1):
        node = fld(f"s{i}", STRUCT, children=[node])
    return message([node])


def test_depth_limit():
    got = decode_built(_nest(MAX_DEPTH))
    t, depth = got.fields[0].type, 1
    while isinstance(t, T.StructType):
        t, depth = t.fields[0].type, depth + 1
    assert depth == MAX_DEPTH and t == T.int8()
    too_deep = r"s0\.leaf': nesting deeper than 64 levels \(at byte \d+"
    with pytest.raises(CorruptFileError, match=too_deep):
        decode_built(_nest(MAX_DEPTH + 1))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)            # for the recursive test builder only
    try:
        very_deep = frame(_nest(2000))
    finally:
        sys.setrecursionlimit(limit)
    with pytest.raises(CorruptFileError, match="deeper than 64"):
        decode_arrow_schema(b64(very_deep))


def test_shared_tables_cannot_explode():
    # Each level's children vector names the next level twice: 2**40 fields in ~2 KiB.
    node = fld("leaf", INT, Tbl(("i", 8), ("B", 1)))
    for i in range(40):
        node = fld(f"l{i}", STRUCT, children=[node, node])
    with pytest.raises(CorruptFileError, match="far more data than it holds"):
        decode_built(message([node]))


def _good():
    return message([fld("a", INT, Tbl(("i", 32), ("B", 1)))])


def _patched(data, pos, fmt, value):
    data = bytearray(data)
    struct.pack_into(fmt, data, pos, value)
    return b64(bytes(data))


BAD_TEXT = [
    (None, "has no value"),
    ("not base64!", "not valid base64"),
    ("////", "too short"),
    ("aé==", "non-ASCII character at text position 1"),
    (b64(b"\xff\xff\xff\xff\0\0\0\0"), r"metadata length 0 at byte 4"),
    (b64(b"\xff\xff\xff\xff" + struct.pack("<i", 100) + b"\0" * 16), "length 100 at byte 4"),
    (b64(b"\xff\xff\xff\xff" + struct.pack("<i", -8) + b"\0" * 16), "length -8"),
    (b64(struct.pack("<I", 50) + b"\0" * 20), "legacy metadata length 50 at byte 0"),
]


@pytest.mark.parametrize("value, message_re", BAD_TEXT)
def test_bad_framing(value, message_re):
    with pytest.raises(CorruptFileError, match=message_re):
        decode_arrow_schema(value)


def _bad_built():
    fb_len = len(build(_good()))
    head = b"\xff\xff\xff\xff" + struct.pack("<i", fb_len)
    good = frame(_good())
    one = lambda f: message([f])                                        # noqa: E731
    return {
        "root_offset_past_end": (_patched(good, 8, "<I", 10_000), "outside the flatbuffer"),
        "vtable_before_start": (_patched(good, 8 + struct.unpack_from("<I", good, 8)[0],
                                         "<i", 10_000), "vtable size"),
        "truncated": (b64(head[:4] + struct.pack("<i", 24) + good[8:32]),
                      "table size 12 runs past the flatbuffer end 32"),
        "record_batch_header": (b64(frame(message([], header_tag=3))),
                                r"header type 3: expected 1 \(Schema\)"),
        "no_header": (b64(frame(Tbl(("h", 4), ("B", 1)))), "no header table"),
        "type_tag_27": (b64(frame(one(fld("a", 27)))), "field 'a': unknown Arrow type tag 27"),
        "type_tag_255": (b64(frame(one(fld("a", 255)))), "unknown Arrow type tag 255"),
        "no_type": (b64(frame(one(fld("a", 0)))), "field 'a': has no type"),
        "type_table_missing": (b64(frame(one(Tbl(Str("a"), ("B", 1), ("B", 5))))),
                               "type tag 5 without its type table"),
        "huge_fields_vector": (b64(frame(message([], header=Tbl(
            None, Vec([], length=0x7FFFFFFF))))), r"length 2147483647 needs 8589934588 bytes"),
        "huge_children_vector": (b64(frame(one(Tbl(
            Str("s"), ("B", 1), ("B", STRUCT), Tbl(), None, Vec([], length=1 << 30))))),
            r"'s' children: length 1073741824 needs"),
        "huge_name": (b64(frame(one(Tbl(Str("abc", length=1 << 31), ("B", 1), ("B", 5), Tbl())))),
                      "Field.name: length 2147483648 needs"),
        "huge_metadata_vector": (b64(frame(message([], header=Tbl(
            None, Vec([]), Vec([], length=999_999))))), "schema custom_metadata: length 999999"),
        "int_width_7": (b64(frame(one(fld("a", INT, Tbl(("i", 7), ("B", 1)))))),
                        "field 'a': integer bit width 7"),
        "float_precision_5": (b64(frame(one(fld("a", FLOAT, Tbl(("h", 5)))))),
                              "floating point precision 5"),
        "decimal_precision_40_in_128": (b64(frame(one(fld("a", DECIMAL, Tbl(("i", 40)))))),
                                        "decimal bit width 128, precision 40"),
        "decimal_width_100": (b64(frame(one(fld("a", DECIMAL, Tbl(("i", 5), ("i", 0),
                                                                   ("i", 100)))))),
                              "decimal bit width 100"),
        "decimal_precision_0": (b64(frame(one(fld("a", DECIMAL, Tbl())))), "precision 0"),
        "time_unit_7": (b64(frame(one(fld("a", TIME, Tbl(("h", 7)))))), "time unit 7"),
        "time32_us": (b64(frame(one(fld("a", TIME, Tbl(("h", 2), ("i", 32)))))),
                      "time32 unit 'us'"),
        "time_width_16": (b64(frame(one(fld("a", TIME, Tbl(("h", 1), ("i", 16)))))),
                          "time bit width 16"),
        "timestamp_unit_-1": (b64(frame(one(fld("a", TIMESTAMP, Tbl(("h", -1)))))),
                              "time unit -1"),
        "duration_unit_4": (b64(frame(one(fld("a", DURATION, Tbl(("h", 4)))))), "time unit 4"),
        "date_unit_2": (b64(frame(one(fld("a", DATE, Tbl(("h", 2)))))), "date unit 2"),
        "interval_unit_3": (b64(frame(one(fld("a", INTERVAL, Tbl(("h", 3)))))),
                            "interval unit 3"),
        "union_mode_2": (b64(frame(one(fld("a", UNION, Tbl(("h", 2)))))), "union mode 2"),
        "fsb_negative": (b64(frame(one(fld("a", FSB, Tbl(("i", -1)))))), "width -1"),
        "fsl_negative": (b64(frame(one(fld("a", FSL, Tbl(("i", -2)), [fld("i", 5)])))),
                         "size -2"),
        "list_two_children": (b64(frame(one(fld("a", LIST, None, [fld("x", 5), fld("y", 5)])))),
                              "list has 2 child fields, expected 1"),
        "list_no_children": (b64(frame(one(fld("a", LIST)))), "list has 0 child fields"),
        "map_of_int": (b64(frame(one(fld("a", MAP, None, [fld("e", INT, Tbl(("i", 8)))])))),
                       "map entries must be a struct of key and value, got uint8"),
        "dictionary_index_float": (b64(frame(one(fld("a", 5, dictionary=Tbl(
            ("q", 0), Tbl(("i", 3))))))), "dictionary index: integer bit width 3"),
        "child_bad": (b64(frame(one(fld("s", STRUCT, None, [fld("c", 99)])))),
                      "field 's.c': unknown Arrow type tag 99"),
    }


BAD_BUILT = _bad_built()


@pytest.mark.parametrize("name", sorted(BAD_BUILT))
def test_malformed_message(name):
    value, message_re = BAD_BUILT[name]
    with pytest.raises(CorruptFileError, match=message_re) as info:
        decode_arrow_schema(value)
    assert "ARROW:schema" in str(info.value)
    assert "at byte" in str(info.value)


def test_field_slot_outside_table():
    data = bytearray(frame(_good()))
    # Shrink the Message table's declared inline size so its header slot falls outside.
    root = 8 + struct.unpack_from("<I", data, 8)[0]
    vtable = root - struct.unpack_from("<i", data, root)[0]
    struct.pack_into("<H", data, vtable + 2, 4)
    with pytest.raises(CorruptFileError, match=r"Message: field slot \d at \+\d+ lies outside"):
        decode_arrow_schema(b64(bytes(data)))


# --- fuzzing ---------------------------------------------------------------------------

FUZZ_SEEDS = [
    RICH.serialize().to_pybytes(),
    pa.schema([pa.field("a", pa.int32(), metadata={"k": "v"}),
               pa.field("d", pa.dictionary(pa.int8(), pa.string(), True))]).serialize()
    .to_pybytes(),
    frame(_nest(6)),
]


def _decode_or_corrupt(data):
    try:
        got = decode_arrow_schema(b64(data))
    except CorruptFileError as e:
        assert "ARROW:schema" in str(e)
        return
    assert isinstance(got, ArrowSchema)
    for f in got.fields:            # whatever decoded is made of valid pqkit objects
        assert isinstance(f, T.Field) and isinstance(f.type, T.DataType)
        str(f)


FUZZ = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.sampled_from(range(len(FUZZ_SEEDS))), st.data())
def test_fuzz_byte_flips(seed, data):
    buf = bytearray(FUZZ_SEEDS[seed])
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(buf) - 1), st.integers(1, 255)),
                               min_size=1, max_size=6))
    for pos, xor in flips:
        buf[pos] ^= xor
    _decode_or_corrupt(bytes(buf))


@FUZZ
@given(st.sampled_from(range(len(FUZZ_SEEDS))), st.data())
def test_fuzz_word_overwrites(seed, data):
    # Offsets and lengths are 4-byte words: overwrite whole words with edge values.
    buf = bytearray(FUZZ_SEEDS[seed])
    for _ in range(data.draw(st.integers(1, 3))):
        pos = data.draw(st.integers(0, len(buf) - 4))
        value = data.draw(st.one_of(st.integers(0, 0xFFFFFFFF), st.sampled_from(
            [0, 1, 4, 8, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF, 0x10000])))
        struct.pack_into("<I", buf, pos, value)
    _decode_or_corrupt(bytes(buf))


@FUZZ
@given(st.sampled_from(range(len(FUZZ_SEEDS))), st.data())
def test_fuzz_truncations(seed, data):
    full = FUZZ_SEEDS[seed]
    cut = data.draw(st.integers(0, len(full) - 1))
    keep_prefix_length = data.draw(st.booleans())
    buf = full[:cut]
    if not keep_prefix_length and cut >= 8:
        # Also shrink the declared length, so the flatbuffer itself is cut short.
        buf = buf[:4] + struct.pack("<i", cut - 8) + buf[8:]
    _decode_or_corrupt(buf)


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_fuzz_arbitrary_values(value):
    try:
        decode_arrow_schema(value)
    except CorruptFileError:
        pass


# --- corpus ----------------------------------------------------------------------------

def _arrow_schema_value(entry):
    try:
        return pqkit.read_metadata(path_of(entry)).key_value_metadata.get("ARROW:schema")
    except (ParquetError, OSError):
        return None


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: _arrow_schema_value(e) is not None))
def test_corpus_arrow_schemas(corpus, entry):
    value = _arrow_schema_value(entry)
    try:
        got = decode_arrow_schema(value)
    except CorruptFileError:
        with pytest.raises(Exception):
            pa.ipc.read_schema(pa.py_buffer(base64.b64decode(value)))
        return
    check_schema(got, pa.ipc.read_schema(pa.py_buffer(base64.b64decode(value))))
