"""Schemas written as text: the ``--schema`` JSON file and its type strings.

A schema file is a JSON list with one object per column, in column order::

    [
      {"name": "id",      "type": "int64",               "nullable": false},
      {"name": "price",   "type": "decimal(9,2)"},
      {"name": "seen_at", "type": "timestamp[us, UTC]"},
      {"name": "tags",    "type": "list<string>"},
      {"name": "point",   "type": "struct<x: double, y: double not null>"}
    ]

``nullable`` is optional (default true). An object ``{"schema": [...]}`` (what
``pqinspect convert --json`` prints) or ``{"fields": [...]}`` is accepted too,
so the schema inferred by one run can be edited and given to the next.

Type strings (case-insensitive keywords; Arrow's own spellings are accepted as
well, so ``str(pqkit_type)`` parses back):

=====================================  ===============================================
spelling                               type
=====================================  ===============================================
bool, boolean                          bool
int8 ... int64, uint8 ... uint64       integers
float16 / float32, float / double      halffloat, float, double (float64)
string, utf8 / large_string            string / large_string
binary / large_binary                  binary (base64 in text) / large_binary
fixed_size_binary[16]                  fixed-width bytes
decimal(p, s), decimal128, decimal256  exact decimal, precision 1..76 (scale default 0)
date, date32, date64                   date32 (days) / date64 (milliseconds)
time, time32[ms], time64[us|ns]        time of day (``time`` is time64[us])
timestamp, timestamp[ns]               timestamp without time zone (default unit us)
timestamp[us, UTC], timestamp[ms,      instants; values are stored as UTC
tz=Europe/Paris]
duration[s|ms|us|ns]                   a length of time (text: ISO-8601 ``PT1.5S``)
uuid, null                             arrow.uuid extension, all-null column
list<T>, list<item: T not null>,       lists (the element may be named and not null)
large_list<T>, fixed_size_list<T>[n]
struct<a: T, "odd name": U not null>   records; names with punctuation are JSON-quoted
map<K, V>                              maps (keys are never null)
=====================================  ===============================================
"""
import json
import re

from pqkit import datatypes as T
from pqkit.errors import SchemaError

_SIMPLE = {
    "null": T.null, "bool": T.bool_, "boolean": T.bool_,
    "int8": T.int8, "int16": T.int16, "int32": T.int32, "int64": T.int64,
    "uint8": T.uint8, "uint16": T.uint16, "uint32": T.uint32, "uint64": T.uint64,
    "float16": T.float16, "halffloat": T.float16, "float32": T.float32, "float": T.float32,
    "float64": T.float64, "double": T.float64,
    "string": T.string, "utf8": T.string, "large_string": T.large_string,
    "large_utf8": T.large_string, "binary": T.binary, "large_binary": T.large_binary,
    "date": T.date32, "date32": T.date32, "date64": T.date64, "uuid": T.uuid,
}
_WORD = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)")
_SPACE = re.compile(r"\s*")
_INT = re.compile(r"\s*(\d+)")
_UNIT = re.compile(r"\s*\[\s*(s|ms|us|ns|day)\s*\]", re.I)
_TIMESTAMP = re.compile(r"\s*\[\s*(s|ms|us|ns)\s*(?:,\s*(?:tz\s*=\s*)?([^\]\s][^\]]*?))?\s*\]",
                        re.I)
_NAME = re.compile(r"\s*([^\s:,<>\[\]()\"]+)")
_QUOTED = re.compile(r'\s*("(?:[^"\\]|\\.)*")')
_NOT_NULL = re.compile(r"\s+not\s+null\b", re.I)


class _Parser:
    """Recursive descent over one type string; ``pos`` is the next character to read."""

    def __init__(self, text):
        self.text, self.pos = text, 0

    def fail(self, expected):
        shown = self.text[self.pos:self.pos + 20] or "the end"
        raise SchemaError(f"type {self.text!r}: expected {expected} at position {self.pos}, "
                          f"found {shown!r}")

    def match(self, pattern):
        m = pattern.match(self.text, self.pos)
        if m:
            self.pos = m.end()
        return m

    def peek(self, char):
        self.match(_SPACE)
        return self.text.startswith(char, self.pos)

    def expect(self, char):
        if not self.peek(char):
            self.fail(repr(char))
        self.pos += len(char)

    def number(self, what):
        m = self.match(_INT)
        if not m:
            self.fail(what)
        return int(m.group(1))

    def type(self):
        m = self.match(_WORD)
        if not m:
            self.fail("a type name")
        word = m.group(1).lower()
        special = _SPECIAL.get(word)
        if special is not None:
            return special(self, word)
        if word in _SIMPLE:
            if word in ("date32", "date64"):
                self.match(_UNIT)                   # Arrow writes date32[day], date64[ms]
            return _SIMPLE[word]()
        self.pos = m.start(1)
        known = ", ".join(sorted(set(_SIMPLE) | set(_SPECIAL)))
        raise SchemaError(f"type {self.text!r}: unknown type name {m.group(1)!r} at position "
                          f"{self.pos}; known names: {known}")

    def field_name(self):
        m = self.match(_QUOTED)
        if m:
            return json.loads(m.group(1))
        m = self.match(_NAME)
        return m.group(1) if m else None

    def element(self, default_name):
        """``T`` or ``name: T``, then an optional ``not null``, as a Field."""
        start = self.pos
        name = self.field_name()
        if name is None or not self.peek(":"):
            self.pos, name = start, default_name
        else:
            self.expect(":")
        t = self.type()
        return T.field(name, t, nullable=not self.match(_NOT_NULL))

    def parse(self):
        t = self.type()
        self.match(_SPACE)
        if self.pos != len(self.text):
            self.fail("the end of the type")
        return t


def _timestamp(p, word):
    m = p.match(_TIMESTAMP)
    if not m:
        if p.peek("["):
            p.fail("[unit] or [unit, time zone] with unit s, ms, us or ns")
        return T.timestamp("us")
    return T.timestamp(m.group(1).lower(), m.group(2))


def _unit_type(p, word):
    if word == "time" and not p.peek("["):
        return T.time64("us")
    m = p.match(_UNIT)
    if not m:
        p.fail("[unit]")
    unit = m.group(1).lower()
    cls = {"time32": T.time32, "time64": T.time64, "duration": T.duration}.get(word)
    if cls is None:
        cls = T.time32 if unit in ("s", "ms") else T.time64
    return cls(unit)


def _decimal(p, word):
    p.expect("(")
    precision = p.number("a precision")
    scale = 0
    if p.peek(","):
        p.expect(",")
        sign = -1 if p.peek("-") else 1
        if sign < 0:
            p.expect("-")
        scale = sign * p.number("a scale")
    p.expect(")")
    return T.decimal(precision, scale)


def _fixed_binary(p, word):
    p.expect("[")
    width = p.number("a byte width")
    p.expect("]")
    return T.fixed_size_binary(width)


def _list(p, word):
    p.expect("<")
    element = p.element("item")
    p.expect(">")
    if word == "fixed_size_list":
        p.expect("[")
        size = p.number("a list size")
        p.expect("]")
        return T.fixed_size_list(element, size)
    return T.large_list(element) if word == "large_list" else T.list_(element)


def _struct(p, word):
    p.expect("<")
    fields = []
    while not p.peek(">"):
        if fields:
            p.expect(",")
        name = p.field_name()
        if name is None:
            p.fail("a field name")
        p.expect(":")
        t = p.type()
        fields.append(T.field(name, t, nullable=not p.match(_NOT_NULL)))
    p.expect(">")
    names = [f.name for f in fields]
    if len(set(names)) != len(names):
        raise SchemaError(f"type {p.text!r}: a struct names a field twice: {names}")
    return T.struct(fields)


def _map(p, word):
    p.expect("<")
    key = p.type()
    p.expect(",")
    item = p.element("value")
    sorted_keys = False
    if p.peek(","):
        p.expect(",")
        m = p.match(_WORD)
        if not m or m.group(1).lower() != "keys_sorted":
            p.fail("keys_sorted")
        sorted_keys = True
    p.expect(">")
    return T.map_(key, item, sorted_keys)


def _extension(p, word):
    p.expect("<")
    m = p.match(re.compile(r"\s*([A-Za-z0-9_.]+)"))
    p.expect(">")
    if not m or m.group(1) != "arrow.uuid":
        p.fail("arrow.uuid, the one extension type text can hold")
    return T.uuid()


_SPECIAL = {"extension": _extension, "timestamp": _timestamp, "time": _unit_type, "time32": _unit_type,
            "time64": _unit_type, "duration": _unit_type, "decimal": _decimal,
            "decimal128": _decimal, "decimal256": _decimal,
            "fixed_size_binary": _fixed_binary, "list": _list, "large_list": _list,
            "fixed_size_list": _list, "struct": _struct, "map": _map}


def parse_type(text):
    """The pqkit DataType a type string names (see the module docstring).

    Raises
    ------
    SchemaError
        The string is not a type; the message names the position.

    Examples
    --------
    >>> parse_type("list<struct<a: int64, b: timestamp[us, UTC] not null>>")
    pqkit.DataType<list<item: struct<a: int64, b: timestamp[us, tz=UTC] not null>>>
    """
    if not isinstance(text, str):
        raise SchemaError(f"a type must be a string, not {text!r}")
    return _Parser(text).parse()


def _quote(name):
    return name if re.fullmatch(r"[^\s:,<>\[\]()\"]+", name) else json.dumps(name)


def _element(f, default_name):
    tail = "" if f.nullable else " not null"
    if f.name == default_name:
        return type_to_string(f.type) + tail
    return f"{_quote(f.name)}: {type_to_string(f.type)}{tail}"


def type_to_string(t):
    """The type string :func:`parse_type` reads back as ``t``.

    Dictionary types are spelled as their value type (text holds values, not
    indices). Types the grammar has no word for (interval types) fall back to
    their Arrow spelling, which does not parse back.
    """
    if isinstance(t, T.DictionaryType):
        return type_to_string(t.value_type)
    if isinstance(t, T.TimestampType):
        return f"timestamp[{t.unit}]" if t.tz is None else f"timestamp[{t.unit}, {t.tz}]"
    if isinstance(t, T.DecimalType):
        return f"decimal({t.precision},{t.scale})"
    if isinstance(t, T.Date32Type):
        return "date"
    if isinstance(t, T.Date64Type):
        return "date64"
    if isinstance(t, T.UuidType):
        return "uuid"
    if isinstance(t, T.ListType):
        return f"{'large_list' if t.large else 'list'}<{_element(t.value_field, 'item')}>"
    if isinstance(t, T.FixedSizeListType):
        return f"fixed_size_list<{_element(t.value_field, 'item')}>[{t.list_size}]"
    if isinstance(t, T.StructType):
        return "struct<" + ", ".join(_element(f, None) for f in t.fields) + ">"
    if isinstance(t, T.MapType):
        tail = ", keys_sorted" if t.keys_sorted else ""
        return (f"map<{type_to_string(t.key_type)}, "
                f"{_element(t.item_field, 'value')}{tail}>")
    if isinstance(t, T.FloatingType):
        return {16: "float16", 32: "float", 64: "double"}[t.bit_width]
    return str(t)


def schema_to_spec(fields):
    """The schema-file form of a list of Fields: ``[{"name", "type", "nullable"}, ...]``."""
    return [{"name": f.name, "type": type_to_string(f.type), "nullable": f.nullable}
            for f in fields]


def schema_from_spec(spec, where="schema"):
    """Fields from the schema-file form (a list, or a dict holding it under ``schema`` or
    ``fields``).

    Raises
    ------
    SchemaError
        The document is not a list of ``{name, type, nullable}`` objects, a type string
        does not parse, or a name repeats; the message names the entry.
    """
    if isinstance(spec, dict):
        spec = spec.get("schema", spec.get("fields"))
    if not isinstance(spec, list):
        raise SchemaError(f"{where}: expected a JSON list of {{name, type, nullable}} objects")
    fields = []
    for i, entry in enumerate(spec):
        if not isinstance(entry, dict):
            raise SchemaError(f"{where}: entry {i} is not an object: {entry!r}")
        unknown = set(entry) - {"name", "type", "nullable"}
        if unknown:
            raise SchemaError(f"{where}: entry {i} has unknown keys {sorted(unknown)}; "
                              "expected name, type and nullable")
        name, type_text = entry.get("name"), entry.get("type")
        nullable = entry.get("nullable", True)
        if not isinstance(name, str) or not isinstance(type_text, str):
            raise SchemaError(f"{where}: entry {i} needs a string name and a string type")
        if not isinstance(nullable, bool):
            raise SchemaError(f"{where}: entry {i} ({name!r}): nullable must be true or false")
        try:
            t = parse_type(type_text)
        except SchemaError as exc:
            raise SchemaError(f"{where}: column {name!r}: {exc}") from None
        fields.append(T.field(name, t, nullable))
    names = [f.name for f in fields]
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise SchemaError(f"{where}: column {twice!r} is named twice")
    return fields


def load_schema(path):
    """Read a schema file (see the module docstring) into a list of Fields."""
    try:
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
    except json.JSONDecodeError as exc:
        raise SchemaError(f"schema file {path}: invalid JSON at line {exc.lineno}, column "
                          f"{exc.colno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise SchemaError(f"schema file {path}: not UTF-8 (byte offset {exc.start})") from None
    return schema_from_spec(spec, f"schema file {path}")


__all__ = ["parse_type", "type_to_string", "schema_to_spec", "schema_from_spec",
           "load_schema"]
