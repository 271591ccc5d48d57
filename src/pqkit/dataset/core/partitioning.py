"""Typed Hive partitioning (§3.2, §3.5): canonical values, escaped directory names.

A file's partition is one ``name=value`` directory per partition column, in
the partitioning's column order. ``value`` is the canonical text of §3.5 with
``%XX`` (uppercase hex) for exactly Hive's escape set plus ``< > |``; space
and non-ASCII characters stay raw UTF-8 (Spark decodes per character), null
is ``__HIVE_DEFAULT_PARTITION__``. For columns ``(k: string, d: date32)``::

    {"k": "a/b=c %d é+#", "d": "2024-01-31"}  ->  k=a%2Fb%3Dc %25d é+%23/d=2024-01-31
    {"k": None, "d": "2024-01-31"}           ->  k=__HIVE_DEFAULT_PARTITION__/d=2024-01-31

The empty string is refused (Spark and Hive turn it into null, pyarrow writes
``k=``, which Spark rejects) unless the caller asks for ``empty_string_as_null``;
the literal ``__HIVE_DEFAULT_PARTITION__`` is refused as a value.
"""
import re

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn
from pqkit.columnar.nested import DictionaryColumn, nulls
from pqkit.convert import column_from_values
from pqkit.dataset.core.canonical import TimestampCodec, codec_for, type_from_json, type_to_json
from pqkit.errors import SchemaError

HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"
_ESCAPED = frozenset([chr(c) for c in range(0x20)] + list("\"#%'*/:=?\\\x7f{[]^<>|"))
_MAX_COMPONENT_BYTES = 255


def escape_path_component(text):
    """``%XX`` for Hive's escape set plus ``< > |``; everything else stays as it is."""
    return "".join(f"%{ord(c):02X}" if c in _ESCAPED else c for c in text)


def unescape_path_component(text):
    """Decode ``%XX`` as bytes, then the bytes as UTF-8 (pyarrow's rule)."""
    data = text.encode("utf-8")
    out, i = bytearray(), 0
    while i < len(data):
        if data[i] == 0x25 and _is_hex(data[i + 1:i + 3]):
            out.append(int(data[i + 1:i + 3], 16))
            i += 3
        else:
            out.append(data[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


def _is_hex(two):
    return len(two) == 2 and all(chr(b) in "0123456789abcdefABCDEF" for b in two)


def parse_partition_dirs(relpath):
    """[(column name, decoded value text or None)] of the ``name=value`` parts of a path."""
    out = []
    for part in relpath.split("/")[:-1]:
        if "=" not in part:
            continue
        name, _, value = part.partition("=")
        value = unescape_path_component(value)
        out.append((unescape_path_component(name), None if value == HIVE_NULL else value))
    return out


def _allowed(t):
    return isinstance(t, (T.BooleanType, T.IntegerType, T.DecimalType, T.Date32Type,
                          T.TimestampType)) or \
        (isinstance(t, T.FloatingType) and t.bit_width in (32, 64)) or \
        T.is_text_type(t)


def check_column_name(name):
    if not isinstance(name, str) or not name:
        raise SchemaError(f"partition column name {name!r} must be a non-empty string")
    if name[0] in "_.":
        raise SchemaError(f"partition column {name!r} starts with {name[0]!r}: pyarrow and "
                          "Spark would hide its directories")
    return name


class PartitionColumn:
    """One partition column: name, type, and its value codec."""

    def __init__(self, name, type_):
        check_column_name(name)
        if isinstance(type_, T.DictionaryType):
            type_ = type_.value_type
        if not _allowed(type_):
            raise SchemaError(f"partition column {name!r} has type {type_}; partition columns "
                              "may be bool, integer, float, decimal, string, date32 or timestamp")
        self.name = name
        self.type = type_
        self.codec = codec_for(type_)
        self._columns = {}

    def check_text(self, text, where="partition value"):
        """Reject values Hive cannot represent; returns the text."""
        if text is None:
            return None
        if text == "":
            raise SchemaError(f"{where}: partition column {self.name!r} holds the empty "
                              "string; Spark and Hive read it back as null and pyarrow writes "
                              "a 'k=' directory Spark rejects. Pass empty_string_as_null=True "
                              "to store it as null")
        if text == HIVE_NULL:
            raise SchemaError(f"{where}: partition column {self.name!r} holds the reserved "
                              f"text {HIVE_NULL!r}")
        return text

    def text_of_raw(self, raw, *, empty_string_as_null=False, where="partition value"):
        if raw is None:
            return None
        if isinstance(self.type, T.FloatingType) and raw == 0:
            raw = 0.0                       # -0.0 and 0.0 are one partition
        text = self.codec.text(raw)
        if text == "" and empty_string_as_null:
            return None
        return self.check_text(text, where)

    def text_of_value(self, value, *, empty_string_as_null=False, where="partition value"):
        """Canonical text of a Python value (as ``to_pylist()`` gives) or None."""
        if value is None:
            return None
        if value == "" and empty_string_as_null and isinstance(value, str):
            return None
        try:
            col = column_from_values([value], self.type)
        except SchemaError as exc:
            raise SchemaError(f"{where}: {value!r} is not a {self.type} value for partition "
                              f"column {self.name!r}: {exc}") from None
        return self.text_of_raw(_raw_values(col)[0], empty_string_as_null=empty_string_as_null,
                                where=where)

    def path_text(self, text):
        if text is None:
            return HIVE_NULL
        if isinstance(self.codec, TimestampCodec):
            return self.codec.path_text(text)
        return text

    def column(self, text, length):
        """A column of ``length`` copies of the value ``text`` (None: nulls)."""
        if text is None:
            return nulls(self.type, length)
        one = self._columns.get(text)
        if one is None:
            one = self._columns[text] = self._one(text)
        return one.take(np.zeros(int(length), np.int64))

    def _one(self, text):
        raw = self.codec.raw(text)
        t = self.type
        if isinstance(t, T.StringType):
            data = raw.encode("utf-8")
            return BinaryColumn(t, np.array([0, len(data)], np.int64), data)
        if isinstance(t, T.DecimalType):
            if -(1 << 63) <= raw < (1 << 63):
                return DecimalColumn(t, np.array([raw], np.int64))
            width = (raw.bit_length() + 8) // 8
            return DecimalColumn(t, np.frombuffer(raw.to_bytes(width, "big", signed=True),
                                                  np.uint8).reshape(1, width))
        return PrimitiveColumn(t, np.array([raw], dtype=t.numpy_dtype))

    def value(self, text):
        """The Python value of ``text``, equal to what reading the column returns."""
        return None if text is None else self.column(text, 1).to_pylist()[0]


class Partitioning:
    """The ordered partition columns of a dataset (possibly none)."""

    def __init__(self, columns=()):
        self.columns = list(columns)
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise SchemaError(f"partition columns repeat a name: {names}")
        self.by_name = {c.name: c for c in self.columns}

    @property
    def names(self):
        return [c.name for c in self.columns]

    def __bool__(self):
        return bool(self.columns)

    def __eq__(self, other):
        return isinstance(other, Partitioning) and \
            [(c.name, c.type) for c in self.columns] == [(c.name, c.type) for c in other.columns]

    def to_json(self):
        return {"style": "hive",
                "columns": [{"name": c.name, "type": type_to_json(c.type)} for c in self.columns],
                "null_token": HIVE_NULL}

    @classmethod
    def from_json(cls, spec, where="partitioning"):
        if spec is None:
            return cls()
        if spec.get("style", "hive") != "hive" or spec.get("null_token", HIVE_NULL) != HIVE_NULL:
            raise SchemaError(f"{where}: only Hive partitioning with null token {HIVE_NULL!r} "
                              "is supported")
        return cls([PartitionColumn(c["name"], type_from_json(c["type"], where))
                    for c in spec.get("columns", [])])

    def directory(self, texts):
        """The relative directory (``a=1/b=x``) of a partition given its texts; '' if none."""
        parts = []
        for c in self.columns:
            comp = f"{escape_path_component(c.name)}=" \
                   f"{escape_path_component(c.path_text(texts.get(c.name)))}"
            if len(comp.encode("utf-8")) > _MAX_COMPONENT_BYTES:
                raise SchemaError(f"partition directory for column {c.name!r} would be "
                                  f"{len(comp.encode('utf-8'))} bytes; filesystems allow "
                                  f"{_MAX_COMPONENT_BYTES}")
            parts.append(comp)
        return "/".join(parts)

    def check_texts(self, texts, where):
        """Validate a file entry's ``partition`` mapping: same columns, canonical texts."""
        if set(texts) != set(self.names):
            raise SchemaError(f"{where}: partition {sorted(texts)} does not match the "
                              f"partition columns {self.names}")
        for c in self.columns:
            text = texts[c.name]
            if text is None:
                continue
            try:
                again = c.codec.text(c.codec.raw(text))
            except (ValueError, TypeError) as exc:
                raise SchemaError(f"{where}: partition value {text!r} of column {c.name!r} is "
                                  f"not a {c.type} value: {exc}") from None
            if again != text:
                raise SchemaError(f"{where}: partition value {text!r} of column {c.name!r} is "
                                  f"not canonical (expected {again!r})")
            c.check_text(text, where)

    def split(self, table, *, empty_string_as_null=False):
        """Group the rows of ``table`` by partition.

        Returns a list of ``(texts, data table without partition columns)``, in
        order of first appearance.
        """
        missing = [n for n in self.names if n not in table.column_names]
        if missing:
            raise SchemaError(f"the data has no partition column {missing[0]!r}; its columns "
                              f"are {table.column_names}")
        data = table.drop(self.names)
        if not self.columns:
            return [({}, data)]
        codes, texts = [], []
        for c in self.columns:
            code, uniques = _factorize(table.column(c.name))
            codes.append(code)
            texts.append([c.text_of_raw(u, empty_string_as_null=empty_string_as_null,
                                        where=f"column {c.name!r}") for u in uniques])
        keys = np.stack(codes, axis=1)
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        order = np.argsort(inverse, kind="stable")
        bounds = np.searchsorted(inverse[order], np.arange(len(first) + 1))
        groups = {}
        for g in np.argsort(first, kind="stable"):
            rows = order[bounds[g]:bounds[g + 1]]
            part = {c.name: texts[j][keys[rows[0], j]] for j, c in enumerate(self.columns)}
            key = tuple(part[n] for n in self.names)
            groups.setdefault(key, (part, []))[1].append(rows)
        return [(part, data.take(np.sort(np.concatenate(rows))))
                for part, rows in groups.values()]


def _raw_values(col):
    """Raw Python values of a column (ints for temporal and unscaled decimals), None for nulls."""
    if isinstance(col, DictionaryColumn):
        col = col.decode()
    if isinstance(col, PrimitiveColumn):
        vals = col.values.tolist()
    elif isinstance(col, DecimalColumn):
        vals = col.unscaled()
    elif isinstance(col, BinaryColumn):
        vals = col.to_pylist()
    else:
        raise SchemaError(f"a {col.type} column cannot be a partition column")
    if col.validity is not None:
        vals = [v if ok else None for v, ok in zip(vals, col.validity.tolist())]
    return vals


def _factorize(col):
    """(codes int64[n], unique raw values); nulls get their own code."""
    if isinstance(col, DictionaryColumn):
        col = col.decode()
    if isinstance(col, PrimitiveColumn) and col.values.dtype.names is None:
        values = col.values
        valid = col.valid_mask()
        uniques, inverse = np.unique(values[valid], return_inverse=True)
        codes = np.full(len(values), len(uniques), np.int64)
        codes[valid] = inverse.reshape(-1)
        out = uniques.tolist()
        return codes, out + [None] if not valid.all() else out
    seen, codes = {}, np.empty(len(col), np.int64)
    for i, v in enumerate(_raw_values(col)):
        codes[i] = seen.setdefault(v, len(seen))
    return codes, list(seen)


_INT_RE = re.compile(r"[+-]?\d{1,19}")
_INT64 = (-(1 << 63), (1 << 63) - 1)


def typed_partition_column(name, values, declared, where):
    """The PartitionColumn of ``name``: the ``declared`` type (from ``_common_metadata``,
    every value must parse as it), else int64 or string by the directory values."""
    col = None
    try:
        if declared is not None:
            try:
                col = PartitionColumn(name, declared)
            except SchemaError:
                col = None                # not a partition type: infer instead
        if col is not None:
            for v in values:
                canonical_text(col, v)
            return col
        return PartitionColumn(name, T.int64() if _all_int64(values) else T.string())
    except (ValueError, TypeError, OverflowError) as exc:
        raise SchemaError(f"{where}: partition column {name!r} is declared {declared} "
                          f"in _common_metadata, but a directory value does not parse as "
                          f"one: {exc}") from None
    except SchemaError as exc:
        raise SchemaError(f"{where}: {exc}") from None


def canonical_text(column, text):
    """The canonical text of a directory value of ``column`` (None stays None)."""
    if text is None:
        return None
    if isinstance(column.codec, TimestampCodec):
        return column.codec.from_path_text(text)
    return column.codec.text(column.codec.raw(text))


def _all_int64(values):
    seen = False
    for v in values:
        if v is None:
            continue
        if not _INT_RE.fullmatch(v) or not _INT64[0] <= int(v) <= _INT64[1]:
            return False
        seen = True
    return seen
