"""Checking a parsed dataset metadata document against its schema, once, at load.

Every layout's metadata (PQDS/1 version files, tags and hints, RFC-0008
manifests, Kartothek documents) is JSON or msgpack that anyone may have
edited. Its loader checks it here, so that what the rest of pqkit reads has
the types it expects: a wrongly typed field is a
:class:`~pqkit.errors.ManifestCorrupted` naming the file and the field
(``files[3].partition: missing``) where the document is loaded, never an
AttributeError or KeyError where the field is used.

A schema is built from the checks below, each a function of one value that
returns nothing and raises :class:`Invalid` when the value is wrong::

    ENTRY = record(required={"key": text(), "size": count()},
                   optional={"stats": map_of(anything())})
    validate(doc, list_of(ENTRY), "version 7")

Numbers are finite (the JSON parser already refuses ``1e999``; msgpack floats
are checked here), integers are not booleans and fit int64 unless a check says
otherwise, and free-form values (``metadata``) nest at most :data:`MAX_DEPTH`
levels. The checks add no cost per value beyond a type test: the field path of
an error is assembled only when one is raised.
"""
import math

from pqkit.errors import ManifestCorrupted

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
#: How deep a free-form value (user metadata, properties) may nest.
MAX_DEPTH = 32


class Invalid(Exception):
    """A value does not match its check; ``field`` grows as the error unwinds."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message
        self.field = []


def validate(doc, check, where):
    """``doc`` when it passes ``check``; ManifestCorrupted naming ``where`` and the field."""
    try:
        check(doc)
    except Invalid as bad:
        field = field_text(reversed(bad.field))
        raise ManifestCorrupted(f"{where}: {'malformed ' + field + ': ' if field else ''}"
                                f"{bad.message}") from None
    return doc


def field_text(steps):
    """``files[3].partition`` of the steps ``["files", 3, "partition"]``."""
    out = ""
    for step in steps:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += f".{step}" if out else str(step)
    return out


def shown(value):
    """A short description of a wrong value for a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (dict, list)):
        return f"{'an object' if isinstance(value, dict) else 'a list'} {value!r:.40}"
    return f"{type(value).__name__} {value!r:.60}"


def _expected(what, value):
    return Invalid(f"expected {what}, got {shown(value)}")


# --- scalar checks ---------------------------------------------------------------------
def _inline(check, kind, lo=None, hi=None, nullable=False):
    """Mark a scalar check so that :func:`record` can test its type without calling it:
    ``(type, lo, hi, nullable)``; the call is made only to report a wrong value."""
    check.inline = (kind, lo, hi, nullable)
    return check


def integer(lo=INT64_MIN, hi=INT64_MAX):
    """An int (not a bool) in ``lo..hi``."""
    def check(value):
        if type(value) is not int or not lo <= value <= hi:
            if type(value) is int:
                raise Invalid(f"{value} is outside {lo}..{hi}")
            raise _expected("an integer", value)
    return _inline(check, int, lo, hi)


def count():
    """A non-negative int64."""
    return integer(0, INT64_MAX)


def number():
    """A finite int or float (not a bool)."""
    def check(value):
        kind = type(value)
        if kind is int:
            return
        if kind is not float:
            raise _expected("a number", value)
        if not math.isfinite(value):
            raise Invalid(f"the number {value} is not finite")
    return check


def text(max_chars=None):
    """A string (of at most ``max_chars`` characters)."""
    def check(value):
        if type(value) is not str:
            raise _expected("a string", value)
        if max_chars is not None and len(value) > max_chars:
            raise Invalid(f"a string of {len(value)} characters, more than {max_chars}")
    return check if max_chars is not None else _inline(check, str)


def boolean():
    def check(value):
        if type(value) is not bool:
            raise _expected("true or false", value)
    return _inline(check, bool)


def constant(*allowed):
    """One of the values ``allowed`` (compared with ==, types checked)."""
    def check(value):
        if not any(type(value) is type(a) and value == a for a in allowed):
            raise Invalid(f"expected {' or '.join(repr(a) for a in allowed)}, got "
                          f"{shown(value)}")
    return check


def rule(function, what):
    """``function(value)`` must not raise ValueError; its message explains the error."""
    def check(value):
        try:
            function(value)
        except ValueError as exc:
            raise Invalid(f"{what}: {exc}") from None
    return check


# --- combinators -------------------------------------------------------------------------
def optional(check):
    """null, or a value passing ``check``."""
    def nullable(value):
        if value is not None:
            check(value)
    inline = getattr(check, "inline", None)
    return nullable if inline is None else _inline(nullable, *inline[:3], nullable=True)


def both(*checks):
    """A value passing every check in turn."""
    def check(value):
        for c in checks:
            c(value)
    return check


def either(what, *checks):
    """A value passing one of ``checks`` (described as ``what`` when none does)."""
    def check(value):
        for c in checks:
            try:
                c(value)
                return
            except Invalid:
                continue
        raise _expected(what, value)
    return check


def list_of(item, max_items=None):
    """A list whose every element passes ``item``."""
    def check(value):
        if type(value) is not list:
            raise _expected("a list", value)
        if max_items is not None and len(value) > max_items:
            raise Invalid(f"a list of {len(value)} items, more than {max_items}")
        i = 0
        try:
            for i, v in enumerate(value):
                item(v)
        except Invalid as bad:
            bad.field.append(i)
            raise
    return check


def map_of(value_check, key_check=None):
    """An object whose keys are strings (passing ``key_check``) and values pass
    ``value_check``."""
    def check(value):
        if type(value) is not dict:
            raise _expected("an object", value)
        for k, v in value.items():
            try:
                if type(k) is not str:
                    raise _expected("string keys", k)
                if key_check is not None:
                    key_check(k)
                value_check(v)
            except Invalid as bad:
                bad.field.append(k if type(k) is str else repr(k))
                raise
    return check


def record(required=None, optional=None, other=None):
    """An object with the ``required`` keys, maybe the ``optional`` ones (each
    key -> check), and any other keys only when ``other`` (their check) is given."""
    checks = {**(optional or {}), **(required or {})}
    needed = frozenset(required or ())
    scalars = {k: c.inline for k, c in checks.items() if hasattr(c, "inline")}
    kinds = {k: kind for k, (kind, _, _, _) in scalars.items()}
    ranges = {k: (lo, hi) for k, (_, lo, hi, _) in scalars.items() if lo is not None}
    nullable = frozenset(k for k, (_, _, _, null) in scalars.items() if null)

    def check(value):
        if type(value) is not dict:
            raise _expected("an object", value)
        key = None
        try:
            if not needed <= value.keys():
                key = min(needed - value.keys())
                raise Invalid("missing")
            for key, v in value.items():           # only the keys present: fast
                if type(v) is kinds.get(key):
                    bounds = ranges.get(key)
                    if bounds is None or bounds[0] <= v <= bounds[1]:
                        continue
                elif v is None and key in nullable:
                    continue
                field_check = checks.get(key)
                if field_check is None:
                    if other is None:
                        raise Invalid("is not a field of this document")
                    if type(key) is not str:
                        raise _expected("string keys", key)
                    field_check = other
                field_check(v)
        except Invalid as bad:
            bad.field.append(key if type(key) is str else repr(key))
            raise
    return check


def anything(max_depth=MAX_DEPTH):
    """A free-form value: null, booleans, finite numbers, strings, bytes (msgpack), and
    lists and objects of them with string keys, nested at most ``max_depth`` levels."""
    def check(value):
        stack = [(value, 0)]
        while stack:
            v, depth = stack.pop()
            kind = type(v)
            if kind in (str, int, bool, bytes) or v is None:
                continue
            if kind is float:
                if not math.isfinite(v):
                    raise Invalid(f"the number {v} is not finite")
                continue
            if kind not in (list, dict):
                raise _expected("a JSON value", v)
            if depth >= max_depth:
                raise Invalid(f"nested more than {max_depth} levels deep")
            if kind is dict:
                if not all(type(k) is str for k in v):
                    raise Invalid("an object with a key that is not a string")
                stack.extend((x, depth + 1) for x in v.values())
            else:
                stack.extend((x, depth + 1) for x in v)
    return check
