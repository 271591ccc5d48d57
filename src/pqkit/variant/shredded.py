"""Shredded variants back to unshredded bytes (parquet-format VariantShredding.md).

A VARIANT group holds ``metadata`` and, at every level, an optional ``value``
(variant bytes) and an optional ``typed_value`` (the value in a Parquet type).
Per row and level:

    value     typed_value   meaning
    null      null          missing (an absent object field; a Variant null elsewhere)
    bytes     null          the value, any type
    null      set           the typed value
    bytes     set           a partially shredded object: ``value`` holds the other fields

``typed_value`` is a primitive column, a LIST whose elements are groups of
``value``/``typed_value``, or a group with one such group per shredded object
field. The work goes column by column: each level turns into one list of
encoded values (None = missing) for its rows, its parent combines them, and
object field ids are looked up in the metadata of the row they belong to.

Where the spec leaves a choice: a field both shredded and present in
``value`` is taken from the shredded column (the spec calls such files invalid
and lets readers use ``typed_value``); ``value`` and ``typed_value`` both set for
a primitive or an array, a non-object ``value`` beside shredded fields and
a ``typed_value`` type outside the spec's table raise
:class:`pqkit.VariantError`; an array element with neither ``value`` nor
``typed_value`` reads as a Variant null (a value missing where one is required).
"""

import numpy as np

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn
from pqkit.columnar.fixed import DecimalColumn, FixedSizeBinaryColumn
from pqkit.columnar.nested import DictionaryColumn, ListColumn, StructColumn
from pqkit.errors import VariantError
from pqkit.variant import encode
from pqkit.variant.binary import object_fields
from pqkit.variant.metadata import VariantMetadata

__all__ = ["unshred"]

_INT_IDS = {8: 3, 16: 4, 32: 5, 64: 6}
_TIMESTAMP_IDS = {("us", True): 12, ("us", False): 13, ("ns", True): 18, ("ns", False): 19}


class _Rows:
    """The top-level rows: their metadata (each distinct one parsed once) and the column
    name, for error messages."""

    def __init__(self, name, metadata):
        self.name = name
        self.raw = metadata
        self._parsed = {}

    def metadata(self, row):
        raw = self.raw[row]
        if raw is None:     # a shredded object below a null variant group
            raise VariantError(f"{self.where(row, ())}: metadata is null")
        parsed = self._parsed.get(raw)
        if parsed is None:
            parsed = self._parsed[raw] = self.fail(row, (), VariantMetadata, raw)
        return parsed

    def fail(self, row, path, func, *args):
        """``func(*args)``, with the column, row and path put in front of a VariantError."""
        try:
            return func(*args)
        except VariantError as e:
            raise VariantError(f"{self.where(row, path)}: {e}") from None

    def where(self, row, path):
        """``row`` None: a fact of the column, not of one row."""
        at = f" at {'.'.join(path)}" if path else ""
        return f"variant column {self.name!r}{'' if row is None else f', row {row}'}{at}"


def _field(group, name):
    return group.field(name) if name in group.type.names else None


def _binary_rows(column, where):
    """The bytes of a ``metadata`` or ``value`` column, which the spec makes binary."""
    if isinstance(column, DictionaryColumn):
        column = column.decode()
    if not isinstance(column, BinaryColumn) or not isinstance(column.type, T.BinaryType):
        raise VariantError(f"{where} is {column.type}: the Variant spec makes it binary")
    return column.to_pylist()


def unshred(column, name="variant", present=None):
    """The unshredded ``(metadata, value)`` bytes of each row of a VARIANT column.

    Parameters
    ----------
    column : StructColumn
        The variant group as read (``pqkit.read_table`` keeps it as a struct of
        ``metadata``, ``value`` and, when shredded, ``typed_value``).
    name : str
        The column's name, for error messages.
    present : numpy.ndarray of bool, optional
        Rows to rebuild (e.g. those whose enclosing struct is not null); the other
        rows give None without their bytes being looked at.

    Returns
    -------
    list
        Per row, None for a null variant group, else ``(metadata, value)`` bytes
        that :func:`pqkit.variant.decode` (or Spark's ``VariantVal``) takes; a
        shredded value is rebuilt as the spec's reconstruction says, a missing one
        is the Variant null ``b"\\x00"``.

    Raises
    ------
    pqkit.VariantError
        A shredding rule is broken; the message names the column, row and path.
    """
    if not isinstance(column, StructColumn) or "metadata" not in column.type.names:
        raise VariantError(f"variant column {name!r} ({column.type}) is not a group with "
                           f"a metadata field")
    if "value" not in column.type.names and "typed_value" not in column.type.names:
        raise VariantError(f"variant column {name!r} has neither value nor typed_value")
    metadata = _binary_rows(column.field("metadata"), f"variant column {name!r} metadata")
    valid = column.valid_mask() if present is None else column.valid_mask() & present
    missing = np.flatnonzero(valid & np.array([m is None for m in metadata], bool))
    if missing.size:
        raise VariantError(f"variant column {name!r}, row {int(missing[0])}: metadata is null")
    rows = _Rows(name, metadata)
    values = _level(column, np.arange(len(column)), rows, (), valid)
    return [(metadata[i], encode.NULL if v is None else v) if ok else None
            for i, (v, ok) in enumerate(zip(values, valid.tolist()))]


def _level(group, rows, ctx, path, present=None):
    """Encoded values (None = missing) of a ``value``/``typed_value`` group's rows;
    ``rows`` gives each one's top-level row, ``present`` the rows to look at (default:
    the group's non-null rows)."""
    value_col, typed = _field(group, "value"), _field(group, "typed_value")
    n = len(group)
    values = [None] * n if value_col is None else \
        _binary_rows(value_col, ctx.where(None, path + ("value",)))
    if present is None:
        present = group.valid_mask()
    if typed is None:
        return [v if ok else None for v, ok in zip(values, present.tolist())]
    typed_ok = (typed.valid_mask() & present).tolist()
    if isinstance(typed, StructColumn):
        return _object(typed, values, typed_ok, rows, ctx, path)
    if isinstance(typed, ListColumn):
        elements = _array_elements(typed, rows, ctx, path)
        kind = "an array"
    else:
        elements = ctx.fail(None, path + ("typed_value",), encode_leaf, typed)
        kind = "a primitive"
    out = []
    for i, (v, ok) in enumerate(zip(values, typed_ok)):
        if not ok:
            out.append(v)
        elif v is not None:
            raise VariantError(f"{ctx.where(int(rows[i]), path)}: value and typed_value are "
                               f"both set for {kind} (only objects may be partially shredded)")
        else:
            out.append(elements[i])
    return out


def _array_elements(typed, rows, ctx, path):
    """Per row, the encoded array (rows whose typed_value is null get None)."""
    child = typed.flatten()
    element_path = path + ("typed_value", "element")
    if not isinstance(child, StructColumn):
        raise VariantError(f"{ctx.where(None, element_path)}: a shredded array's "
                           f"element must be a group of value and typed_value, got {child.type}")
    lengths = np.diff(typed.offsets)
    items = _level(child, np.repeat(rows, lengths), ctx, element_path)
    # An element with neither value nor typed_value breaks the spec's rule for arrays;
    # its rule for a value missing where one is required makes it a Variant null, which
    # is what parquet-testing's shredded_variant case 85 expects.
    items = [encode.NULL if v is None else v for v in items]
    out, at = [], 0
    for count in lengths.tolist():
        out.append(encode.encode_array(items[at:at + count]))
        at += count
    return out


def _object(typed, values, typed_ok, rows, ctx, path):
    """Rows of an object shredded into ``typed`` (one group per field), merged with the
    unshredded fields in ``values``."""
    names = typed.type.names
    columns = []
    for field_name, child in zip(names, typed.children):
        field_path = path + ("typed_value", field_name)
        if not isinstance(child, StructColumn):
            raise VariantError(f"{ctx.where(None, field_path)}: a "
                               f"shredded field must be a group of value and typed_value, got "
                               f"{child.type}")
        columns.append(_level(child, rows, ctx, field_path))
    shredded = set(names)
    out = []
    for i, (v, ok) in enumerate(zip(values, typed_ok)):
        if not ok:
            out.append(v)
            continue
        row = int(rows[i])
        meta = ctx.metadata(row)
        fields = []
        for field_name, col in zip(names, columns):
            if col[i] is not None:
                fid = meta.field_id(field_name)
                if fid is None:
                    raise VariantError(f"{ctx.where(row, path)}: shredded field {field_name!r} "
                                       f"is not in the row's metadata dictionary")
                fields.append((field_name, fid, col[i]))
        if v is not None:
            try:
                rest = object_fields(memoryview(v), 0, len(v), meta)
            except VariantError as e:
                raise VariantError(f"{ctx.where(row, path)}: value beside shredded fields "
                                   f"must be an object: {e}") from None
            fields += [f for f in rest if f[0] not in shredded]
        out.append(encode.encode_object(fields))
    return out


def encode_leaf(column):
    """Each row of a primitive ``typed_value`` column as encoded variant bytes (None where
    null), by the spec's table of shredded types."""
    if isinstance(column, DictionaryColumn):
        column = column.decode()
    t = column.type
    if isinstance(column, PrimitiveColumn) and isinstance(t, T.BooleanType):
        return _with_nulls([b"\x04" if v else b"\x08" for v in column.values.tolist()],
                           column.validity)
    if isinstance(column, PrimitiveColumn):
        type_id, payloads = _fixed_payloads(t, column.values)
    elif isinstance(column, DecimalColumn):
        type_id, payloads = _decimal_payloads(t, column.values, column.valid_mask())
    elif isinstance(column, BinaryColumn) and isinstance(t, T.BinaryType):
        return [None if b is None else encode.binary(b) for b in column.to_pylist()]
    elif isinstance(column, BinaryColumn) and isinstance(t, T.StringType):
        return [None if s is None else encode.string(s.encode("utf-8"))
                for s in column.to_pylist()]
    elif isinstance(column, FixedSizeBinaryColumn) and isinstance(t, T.UuidType):
        type_id, payloads = 20, [bytes(r) for r in column.data]
    else:
        raise VariantError(f"typed_value of type {t} is not a type the Variant shredding "
                           f"spec allows")
    head = bytes((type_id << 2,))
    return _with_nulls([head + p for p in payloads], column.validity)


def _with_nulls(items, validity):
    if validity is None:
        return items
    return [x if ok else None for x, ok in zip(items, validity.tolist())]


def _fixed_payloads(t, values):
    """(type id, payload bytes per row) of a fixed-width column."""
    if isinstance(t, T.IntegerType) and t.signed:
        type_id = _INT_IDS[t.bit_width]
    elif isinstance(t, T.FloatingType) and t.bit_width in (32, 64):
        type_id = 14 if t.bit_width == 32 else 7
    elif isinstance(t, T.Date32Type):
        type_id = 11
    elif isinstance(t, T.Time64Type) and t.unit == "us":
        type_id = 17
    elif isinstance(t, T.TimestampType) and t.unit in ("us", "ns"):
        type_id = _TIMESTAMP_IDS[t.unit, t.tz is not None]
    else:
        raise VariantError(f"typed_value of type {t} is not a type the Variant shredding "
                           f"spec allows")
    raw = np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("<")).tobytes()
    width = values.dtype.itemsize
    return type_id, [raw[i:i + width] for i in range(0, len(raw), width)]


def _decimal_payloads(t, values, valid):
    """The spec's decimal table picks the variant width from the precision (the storage
    of an in-memory decimal column need not be the Parquet one)."""
    if not 0 <= t.scale <= 38 or t.precision > 38:
        raise VariantError(f"typed_value of type {t}: a variant decimal has precision at "
                           f"most 38 and scale 0..38")
    type_id, width = (8, 4) if t.precision <= 9 else (9, 8) if t.precision <= 18 else (10, 16)
    if values.ndim == 1:
        unscaled = values.tolist()
    else:
        unscaled = [int.from_bytes(row.tobytes(), "big", signed=True) for row in values]
    scale = bytes((t.scale,))
    out = []
    for v, ok in zip(unscaled, valid.tolist()):
        if not ok:          # slots under nulls may hold anything
            out.append(b"")
            continue
        try:
            out.append(scale + v.to_bytes(width, "little", signed=True))
        except OverflowError:
            raise VariantError(f"typed_value of type {t}: unscaled value {v} does not fit "
                               f"the {width} bytes of a variant decimal") from None
    return type_id, out
