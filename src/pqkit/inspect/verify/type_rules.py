"""Schema rules: which logical and converted types may annotate which physical types.

The legal pairs (LogicalTypes.md):

=====================================  ==========================================
annotation                             physical type
=====================================  ==========================================
STRING, ENUM, JSON, BSON               BYTE_ARRAY
UUID                                   FIXED_LEN_BYTE_ARRAY(16)
FLOAT16                                FIXED_LEN_BYTE_ARRAY(2)
INTEGER(8/16/32, signed or not)        INT32
INTEGER(64, signed or not)             INT64
DATE, TIME(MILLIS)                     INT32
TIME(MICROS/NANOS), TIMESTAMP(any)     INT64
DECIMAL(p, s)                          INT32 (p <= 9), INT64 (p <= 18),
                                       FIXED_LEN_BYTE_ARRAY(n) (p <= floor(log10(2^(8n-1) - 1))),
                                       BYTE_ARRAY; always 0 <= s <= p and p >= 1
INTERVAL (converted only)              FIXED_LEN_BYTE_ARRAY(12)
GEOMETRY, GEOGRAPHY                    BYTE_ARRAY
UNKNOWN (all nulls)                    any
LIST, MAP, VARIANT, FILE               a group, never a leaf
=====================================  ==========================================

For example ``optional int64 amount (DECIMAL(20, 2))`` breaks PQ-TYPE-002 (an
INT64 holds at most 18 digits) and ``required int32 ts (TIMESTAMP(MILLIS,
true))`` breaks PQ-TYPE-001.
"""
import math

from pqkit.format import ConvertedType as CT
from pqkit.format import Type
from pqkit.inspect.verify.findings import Where
from pqkit.levels import REPEATED

_BA, _FLBA = Type.BYTE_ARRAY, Type.FIXED_LEN_BYTE_ARRAY
_GROUP_LOGICAL = ("LIST", "MAP", "VARIANT", "FILE")
_GROUP_CONVERTED = (CT.LIST, CT.MAP, CT.MAP_KEY_VALUE)
_BYTE_ARRAY_LOGICAL = ("STRING", "ENUM", "JSON", "BSON", "GEOMETRY", "GEOGRAPHY")
_CONVERTED_PHYSICAL = {
    CT.UTF8: (_BA,), CT.ENUM: (_BA,), CT.JSON: (_BA,), CT.BSON: (_BA,),
    CT.DATE: (Type.INT32,), CT.TIME_MILLIS: (Type.INT32,), CT.TIME_MICROS: (Type.INT64,),
    CT.TIMESTAMP_MILLIS: (Type.INT64,), CT.TIMESTAMP_MICROS: (Type.INT64,),
    CT.INT_8: (Type.INT32,), CT.INT_16: (Type.INT32,), CT.INT_32: (Type.INT32,),
    CT.UINT_8: (Type.INT32,), CT.UINT_16: (Type.INT32,), CT.UINT_32: (Type.INT32,),
    CT.INT_64: (Type.INT64,), CT.UINT_64: (Type.INT64,),
    CT.DECIMAL: (Type.INT32, Type.INT64, _BA, _FLBA), CT.INTERVAL: (_FLBA,),
}
_UNITS_CT = {"TIME": {"MILLIS": CT.TIME_MILLIS, "MICROS": CT.TIME_MICROS},
             "TIMESTAMP": {"MILLIS": CT.TIMESTAMP_MILLIS, "MICROS": CT.TIMESTAMP_MICROS}}
_SIMPLE_CT = {"STRING": CT.UTF8, "ENUM": CT.ENUM, "JSON": CT.JSON, "BSON": CT.BSON,
              "DATE": CT.DATE, "DECIMAL": CT.DECIMAL, "LIST": CT.LIST, "MAP": CT.MAP}


def check_schema(ctx):
    """Check every node of the file's schema."""
    at = ctx.md.footer_offset
    stack = list(ctx.md.schema.root.children)
    while stack:
        node = stack.pop()
        where = Where(column=node.dotted_path)
        if node.is_leaf:
            _check_leaf(ctx, node, where, at)
        else:
            _check_group(ctx, node, where, at)
            stack.extend(node.children)


def _member(lt):
    """(name, value) of the LogicalType union's set member, or (None, None)."""
    if lt is None:
        return None, None
    for name in lt.FIELD_NAMES:
        value = getattr(lt, name)
        if value is not None:
            return name, value
    return "UNKNOWN_MEMBER", None


def _unit(time_type):
    unit = time_type.unit
    if unit is None:
        return None
    return next((u for u in unit.FIELD_NAMES if getattr(unit, u) is not None), None)


def _check_group(ctx, node, where, at):
    name, _ = _member(node.logical_type)
    ct = node.converted_type
    if name is not None and name not in _GROUP_LOGICAL + ("UNKNOWN", "UNKNOWN_MEMBER"):
        ctx.add("PQ-TYPE-008", f"the group is annotated {name}, a leaf type (schema in the "
                f"footer at offset {at})", at, where)
    if ct is not None and ct not in _GROUP_CONVERTED:
        ctx.add("PQ-TYPE-008", f"the group has converted type {_ct_name(ct)}, a leaf type "
                f"(schema in the footer at offset {at})", at, where)
    if name == "LIST" or (name is None and ct == CT.LIST):
        _check_list(ctx, node, where, at)
    elif name == "MAP" or (name is None and ct == CT.MAP):
        _check_map(ctx, node, where, at)


def _check_list(ctx, node, where, at):
    kids = node.children
    if node.repetition == REPEATED and not _is_list(node.parent):
        # Only a 2-level LIST nested in another LIST may be repeated itself.
        ctx.add("PQ-TYPE-007", f"the LIST group is itself repeated (schema in the footer at "
                f"offset {at})", at, where)
    if len(kids) != 1 or kids[0].repetition != REPEATED:
        ctx.add("PQ-TYPE-007", f"a LIST group must have exactly one repeated child; it has "
                f"{len(kids)} ({', '.join(k.name for k in kids)}) (schema in the footer at "
                f"offset {at})", at, where)


def _is_list(node):
    if node is None:
        return False
    name, _ = _member(node.logical_type)
    return name == "LIST" or (name is None and node.converted_type == CT.LIST)


def _check_map(ctx, node, where, at):
    kids = node.children
    if len(kids) != 1 or kids[0].repetition != REPEATED or kids[0].is_leaf:
        ctx.add("PQ-TYPE-007", f"a MAP group must have exactly one repeated group child "
                f"(schema in the footer at offset {at})", at, where)
        return
    entries = kids[0].children
    if not 1 <= len(entries) <= 2:
        ctx.add("PQ-TYPE-007", f"the MAP's key_value group has {len(entries)} fields; it "
                f"needs a key and at most one value (schema in the footer at offset {at})",
                at, where)
    elif entries[0].repetition != 0:
        ctx.add("PQ-TYPE-007", f"the MAP's key {entries[0].name!r} is not required (schema in "
                f"the footer at offset {at})", at, where)


def _check_leaf(ctx, node, where, at):
    e = node.element
    physical, width = e.type, e.type_length
    if physical == _FLBA and width == 0:
        ctx.add("PQ-TYPE-005", f"FIXED_LEN_BYTE_ARRAY of length 0 (schema in the footer at "
                f"offset {at})", at, where)
    name, value = _member(node.logical_type)
    if name is not None:
        _check_logical(ctx, node, name, value, where, at)
    ct = node.converted_type
    if ct is None:
        return
    legal = _CONVERTED_PHYSICAL.get(ct)
    if legal is None:
        ctx.add("PQ-TYPE-008", f"the leaf has converted type {_ct_name(ct)}, a group type "
                f"(schema in the footer at offset {at})", at, where)
        return
    if physical not in legal or (ct == CT.INTERVAL and width != 12):
        ctx.add("PQ-TYPE-001", f"converted type {_ct_name(ct)} on {node.type_str()} (schema "
                f"in the footer at offset {at})", at, where)
    if ct == CT.DECIMAL and name is None:
        _check_decimal(ctx, node, e.precision, e.scale, where, at, "converted DECIMAL")
    if name is not None and name != "UNKNOWN_MEMBER":
        _check_pairing(ctx, node, name, value, ct, where, at)


def _check_logical(ctx, node, name, value, where, at):
    physical, width = node.physical_type, node.element.type_length
    ok = True
    if name == "UNKNOWN_MEMBER":
        ctx.add("PQ-TYPE-006", f"its logical type is not one this version knows (schema in "
                f"the footer at offset {at}); readers use the physical type", at, where)
        return
    if name in _GROUP_LOGICAL:
        ctx.add("PQ-TYPE-008", f"the leaf is annotated {name}, a group type (schema in the "
                f"footer at offset {at})", at, where)
        return
    if name in _BYTE_ARRAY_LOGICAL:
        ok = physical == _BA
    elif name == "UUID":
        ok = physical == _FLBA and width == 16
    elif name == "FLOAT16":
        ok = physical == _FLBA and width == 2
    elif name == "DATE":
        ok = physical == Type.INT32
    elif name == "TIME":
        unit = _unit(value)
        ok = physical == (Type.INT32 if unit == "MILLIS" else Type.INT64)
    elif name == "TIMESTAMP":
        ok = physical == Type.INT64
    elif name == "INTEGER":
        ok = _check_integer(ctx, node, value, where, at)
    elif name == "DECIMAL":
        ok = physical in (Type.INT32, Type.INT64, _BA, _FLBA)
        if ok:
            _check_decimal(ctx, node, value.precision, value.scale, where, at, "DECIMAL")
    if not ok:
        ctx.add("PQ-TYPE-001", f"logical type {_describe(name, value)} on "
                f"{node.type_str()} (schema in the footer at offset {at})", at, where)


def _check_integer(ctx, node, value, where, at):
    bits = value.bitWidth
    if bits not in (8, 16, 32, 64):
        ctx.add("PQ-TYPE-003", f"INTEGER bit width {bits}; only 8, 16, 32 and 64 are legal "
                f"(schema in the footer at offset {at})", at, where)
        return True
    expected = Type.INT64 if bits == 64 else Type.INT32
    if node.physical_type != expected:
        ctx.add("PQ-TYPE-003", f"INTEGER({bits}) on {node.type_str()}; it needs "
                f"{expected.name} (schema in the footer at offset {at})", at, where)
    return True


def _check_decimal(ctx, node, precision, scale, where, at, what):
    physical, width = node.physical_type, node.element.type_length
    scale = 0 if scale is None else scale
    problem = None
    if precision is None or precision < 1:
        problem = f"precision {precision}; it must be at least 1"
    elif not 0 <= scale <= precision:
        problem = f"scale {scale} with precision {precision}; 0 <= scale <= precision"
    elif physical == Type.INT32 and precision > 9:
        problem = f"precision {precision} on INT32, which holds at most 9 digits"
    elif physical == Type.INT64 and precision > 18:
        problem = f"precision {precision} on INT64, which holds at most 18 digits"
    elif physical == _FLBA and width and precision > _max_digits(width):
        problem = (f"precision {precision} on FIXED_LEN_BYTE_ARRAY({width}), which holds at "
                   f"most {_max_digits(width)} digits")
    if problem:
        ctx.add("PQ-TYPE-002", f"{what} {problem} (schema in the footer at offset {at})",
                at, where)
    elif physical == Type.INT64 and precision < 10:
        ctx.add("PQ-TYPE-002", f"{what} precision {precision} on INT64; the spec asks for "
                f"INT32 below 10 digits (schema in the footer at offset {at})", at, where,
                severity="warning")


def _max_digits(width):
    """Decimal digits a signed two's-complement integer of ``width`` bytes always holds:
    floor(log10(2**(8*width - 1) - 1)), which equals floor((8*width - 1) * log10(2))
    because no power of two is a power of ten. Computed from the logarithm, not the
    power: a hostile width of 2**31 - 1 bytes must not build a 16-gigabit integer."""
    if width <= 0:
        return 0
    bits = 8 * width - 1
    if bits <= 1024:                    # exact where a float could round the wrong way
        return len(str(2 ** bits - 1)) - 1
    return math.floor(bits * math.log10(2))


def _check_pairing(ctx, node, name, value, ct, where, at):
    """The converted type a writer must pair with a logical type, when one exists."""
    if name in _UNITS_CT:
        expected = _UNITS_CT[name].get(_unit(value))
    elif name == "INTEGER":
        expected = getattr(CT, f"{'' if value.isSigned else 'U'}INT_{value.bitWidth}", None)
    else:
        expected = _SIMPLE_CT.get(name)
    if expected != ct:
        ctx.add("PQ-TYPE-004", f"logical type {_describe(name, value)} with converted type "
                f"{_ct_name(ct)} (expected {_ct_name(expected)}; schema in the footer at "
                f"offset {at})", at, where)
    elif name == "DECIMAL" and (node.element.precision != value.precision or
                                (node.element.scale or 0) != (value.scale or 0)):
        ctx.add("PQ-TYPE-004", f"DECIMAL({value.precision},{value.scale}) but the schema "
                f"element says precision {node.element.precision}, scale "
                f"{node.element.scale} (schema in the footer at offset {at})", at, where)


def _describe(name, value):
    if name == "INTEGER":
        return f"INTEGER({value.bitWidth},{'signed' if value.isSigned else 'unsigned'})"
    if name in ("TIME", "TIMESTAMP"):
        return f"{name}({_unit(value)})"
    if name == "DECIMAL":
        return f"DECIMAL({value.precision},{value.scale})"
    return name


def _ct_name(ct):
    if ct is None:
        return "none"
    try:
        return CT(ct).name
    except ValueError:
        return f"UNKNOWN({ct})"
