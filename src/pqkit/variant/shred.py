"""Variant values -> the rows of a shredded variant group (VariantShredding.md).

The input is a value decoded with ``types=True`` (primitives are ``(type_name,
value)`` pairs). Against a shredding schema (:mod:`pqkit.variant.shredding_schema`)
each level becomes ``{"value": bytes or None, "typed_value": ... or None}``:

* a primitive whose Variant type the typed column holds goes to ``typed_value``
  (integers also into a wider integer column, decimals into one with at least
  their scale and digits); anything else is encoded into ``value``;
* an object under an object schema: its schema fields go to ``typed_value``
  (an absent field has both null), the others stay in ``value`` as an object
  (null when there are none);
* an array under a list schema: ``typed_value`` holds one such group per element.

The metadata is the whole value's keys, sorted and unique, so it names the
shredded fields as the spec requires. The rows are plain Python values that a
column builder turns into the group of :func:`shredding_schema.variant_type`.
"""
from decimal import Context, Decimal

from pqkit import datatypes as T
from pqkit.variant.from_values import Encoder, encode_metadata, object_keys

__all__ = ["shred_row"]

_MISSING = object()
_WIDE = Context(prec=80)
_INT_WIDTH = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def shred_row(value, spec):
    """The row ``{"metadata", "value", "typed_value"}`` of one decoded (``types=True``)
    variant; ``spec`` None writes it unshredded (``value`` only)."""
    names = sorted(object_keys(value, True), key=lambda n: n.encode("utf-8"))
    enc = Encoder({n: i for i, n in enumerate(names)}, True)
    row = {"metadata": encode_metadata(names)}
    if spec is None:
        row["value"] = enc.value(value, 0)
    else:
        row["value"], row["typed_value"] = _shred(value, spec, enc)
    return row


def _group(value, spec, enc):
    if value is _MISSING:
        return {"value": None, "typed_value": None}
    v, t = _shred(value, spec, enc)
    return {"value": v, "typed_value": t}


def _shred(value, spec, enc):
    """(value bytes or None, typed value or None) of one level."""
    if isinstance(spec, T.StructType):
        if not isinstance(value, dict):
            return enc.value(value, 0), None
        names = set(spec.names)
        typed = {f.name: _group(value.get(f.name, _MISSING), f.type, enc) for f in spec.fields}
        rest = {k: v for k, v in value.items() if k not in names}
        return (enc.value(rest, 0) if rest else None), typed
    if isinstance(spec, (T.ListType, T.FixedSizeListType)):
        if not isinstance(value, list):
            return enc.value(value, 0), None
        return None, [_group(v, spec.value_type, enc) for v in value]
    fitted = _fit(value, spec)
    if fitted is _MISSING:
        return enc.value(value, 0), None
    return None, fitted


def _fit(value, t):
    """The Python value ``t``'s column stores for the primitive ``value``, or _MISSING
    when the typed column cannot hold it exactly."""
    if not isinstance(value, tuple):
        return _MISSING
    name, v = value
    if isinstance(t, T.BooleanType):
        return v if name == "boolean" else _MISSING
    if isinstance(t, T.IntegerType):
        return v if _INT_WIDTH.get(name, 99) <= t.bit_width else _MISSING
    if isinstance(t, T.FloatingType):
        return v if name == ("float" if t.bit_width == 32 else "double") else _MISSING
    if isinstance(t, T.DecimalType):
        return _decimal(name, v, t)
    if isinstance(t, T.TimestampType):
        want = "timestamp" if t.tz is not None else "timestamp_ntz"
        return v if name == (want + ("_nanos" if t.unit == "ns" else "")) else _MISSING
    if isinstance(t, T.BinaryType):
        return v if name == "binary" else _MISSING
    if isinstance(t, T.StringType):
        return v if name == "string" else _MISSING
    kinds = {T.Date32Type: "date", T.Time64Type: "time", T.UuidType: "uuid"}
    return v if kinds.get(type(t)) == name else _MISSING


def _decimal(name, v, t):
    if not name.startswith("decimal"):
        return _MISSING
    exponent = v.as_tuple().exponent
    if -exponent > t.scale:
        return _MISSING
    # Up to 38 digits: more than the default context's 28 (which would raise).
    scaled = v.quantize(Decimal(1).scaleb(-t.scale), context=_WIDE)
    if len(scaled.as_tuple().digits) > t.precision:
        return _MISSING
    return scaled
