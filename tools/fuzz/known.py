"""Failures the new harnesses tolerate because issue 31 fixes them in other changes.

Each entry names its class of issue 31 and matches only where that class was found:
the exception's type and the function (and module) of its innermost pqkit frame.
Anything else stays a finding. Remove an entry once its fix has landed.
"""
import os
import traceback

KNOWN = {
    # class 7: IndexError escaping take and filtered reads
    ("IndexError", "read/batches.py", "concat_row_groups"),
    ("IndexError", "columnar/column.py", "take"),
    # class 8: exporting key/value metadata or column names with lone surrogates, or
    # a key/value entry without a value
    ("UnicodeEncodeError", "columnar/arrow_export.py", None),
    ("UnicodeEncodeError", "columnar/arrow_types.py", None),
    ("TypeError", "columnar/arrow_types.py", "encode_metadata"),
    # class 11: dataset metadata of the wrong types, nested too deeply or with numbers
    # too large for a float, read without a check
    *((kind, "/dataset/", None) for kind in ("AttributeError", "KeyError", "TypeError",
                                             "RecursionError", "OverflowError")),
}
# PQKIT_FUZZ_KNOWN_LOG names a file where each distinct known failure (type and
# innermost pqkit frame) is appended once per process, for the report.
LOG = os.environ.get("PQKIT_FUZZ_KNOWN_LOG")
_logged = set()


def known(exc):
    """True when ``exc`` is one of :data:`KNOWN`."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/pqkit/" in f.filename]
    if not frames:
        return False
    last = frames[-1]
    name = type(exc).__name__
    found = any(name == kind and module in last.filename and function in (None, last.name)
                for kind, module, function in KNOWN)
    if found and LOG:
        where = f"{name} {last.filename.split('/pqkit/')[-1]}:{last.lineno} {last.name}"
        if where not in _logged:
            _logged.add(where)
            with open(LOG, "a", encoding="utf-8") as f:
                f.write(f"{where}: {str(exc)[:120]}\n")
    return found


def invalid_utf8(exc):
    """Class 3: a STRING column holding bytes that are not UTF-8 reaches Arrow as
    ``string``, and pyarrow's full validation refuses it."""
    return "invalid UTF8" in str(exc) or "Invalid UTF8" in str(exc)


def null_in_dictionary(arrow_table):
    """Class 4: ``Table.from_arrow`` of a dictionary array whose dictionary holds a null
    writes the null as "" (at any depth of lists and structs)."""
    import pyarrow as pa

    def holds(array):
        t = array.type
        if pa.types.is_dictionary(t):
            return array.dictionary.null_count > 0
        if pa.types.is_struct(t):
            return any(holds(array.field(i)) for i in range(t.num_fields))
        if pa.types.is_list(t):
            return holds(array.values)
        return False
    return any(holds(chunk) for column in arrow_table.columns for chunk in column.chunks)


FAILED = object()


def attempt(fn, *args, **kwargs):
    """``fn(*args, **kwargs)``, or :data:`FAILED` when it raises a
    :class:`pqkit.ParquetError` or a :func:`known` failure; anything else propagates."""
    import pqkit
    try:
        return fn(*args, **kwargs)
    except pqkit.ParquetError:
        return FAILED
    except Exception as exc:
        if known(exc):
            return FAILED
        raise
