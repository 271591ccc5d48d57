"""The ``pandas`` key/value entry: what it says, and parsing it.

pyarrow stores, beside a table made from a pandas DataFrame, a JSON document
under the key ``pandas`` that says how to rebuild the frame: which stored
columns are the index, which index is only described (a RangeIndex), and the
pandas dtype of every column. pqkit writes the same document
(:mod:`pqkit.convert.pandas_metadata`) and reads it back here. A frame with a
named int64 index ``k`` and one column ``a``::

    {"index_columns": ["k"],
     "column_indexes": [{"name": null, "field_name": null, "pandas_type": "unicode",
                         "numpy_type": "str", "metadata": {"encoding": "UTF-8"}}],
     "columns": [{"name": "a", "field_name": "a", "pandas_type": "int64",
                  "numpy_type": "int64", "metadata": null},
                 {"name": "k", "field_name": "k", "pandas_type": "int64",
                  "numpy_type": "int64", "metadata": null}],
     "attributes": {}, "creator": {"library": "pqkit", "version": "..."},
     "pandas_version": "3.1.1"}

``index_columns`` holds, per index level, either the field name of the stored
column or, for a RangeIndex that is not stored, ``{"kind": "range", "name",
"start", "stop", "step"}``. An unnamed stored level is called
``__index_level_<i>__`` and comes back unnamed. ``column_indexes`` describes
the levels of ``DataFrame.columns`` (their name and dtype). In ``columns``,
``name`` is the pandas label, ``field_name`` the stored column's name,
``pandas_type`` the logical type (from the stored type), ``numpy_type`` the
pandas dtype as ``str(dtype)`` (for a categorical: its codes' dtype; for a
time zone aware timestamp: ``datetime64[unit]``), and ``metadata`` the extra
facts: ``timezone``; ``num_categories`` and ``ordered``; ``precision`` and
``scale``.
"""
import json
import re
from dataclasses import dataclass, field

from pqkit.errors import SchemaError

PANDAS_KEY = "pandas"
_GENERATED = re.compile(r"^__index_level_\d+__$")


def generated_index_name(i):
    """The stored name of an unnamed index level ``i``."""
    return f"__index_level_{i}__"


def is_generated_index_name(name):
    return isinstance(name, str) and _GENERATED.match(name) is not None


@dataclass(frozen=True)
class RangeDescriptor:
    """A RangeIndex kept as metadata only."""
    name: object
    start: int
    stop: int
    step: int


@dataclass(frozen=True)
class ColumnInfo:
    """One entry of ``columns`` (or of ``column_indexes``)."""
    name: object
    field_name: object
    pandas_type: str
    numpy_type: str
    metadata: dict


@dataclass(frozen=True)
class PandasMetadata:
    """The parsed ``pandas`` entry.

    ``index`` holds per index level a field name (str) or a RangeDescriptor;
    ``columns`` maps field names to their ColumnInfo.
    """
    index: list
    columns: dict
    column_indexes: list
    attributes: dict = field(default_factory=dict)

    def index_name(self, field_name):
        """The pandas name of the stored index level ``field_name``."""
        info = self.columns.get(field_name)
        name = field_name if info is None else info.name
        if name == field_name and is_generated_index_name(field_name):
            return None
        return name


def _bad(what):
    return SchemaError(f"the 'pandas' key/value metadata entry is malformed: {what}")


def _int(value, where):
    if isinstance(value, bool) or not isinstance(value, int):
        raise _bad(f"{where} is {value!r}, not an integer")
    return value


def _descriptor(d, i):
    if isinstance(d, str):
        return d
    if isinstance(d, dict) and d.get("kind") == "range":
        step = _int(d.get("step", 1), f"index_columns[{i}].step")
        if step == 0:
            raise _bad(f"index_columns[{i}].step is 0")
        return RangeDescriptor(d.get("name"), _int(d.get("start", 0), f"index_columns[{i}].start"),
                               _int(d.get("stop", 0), f"index_columns[{i}].stop"), step)
    raise _bad(f"index_columns[{i}] is {d!r}: expected a column name or a range descriptor")


def _column_info(c, where):
    if not isinstance(c, dict):
        raise _bad(f"{where} is {c!r}, not an object")
    meta = c.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise _bad(f"{where}.metadata is {meta!r}, not an object")
    for key in ("pandas_type", "numpy_type"):
        if c.get(key) is not None and not isinstance(c[key], str):
            raise _bad(f"{where}.{key} is {c[key]!r}, not a string")
    name = c.get("name")
    return ColumnInfo(name, c.get("field_name", name), c.get("pandas_type") or "object",
                      c.get("numpy_type") or "object", meta or {})


def parse_pandas_metadata(text):
    """The :class:`PandasMetadata` of a ``pandas`` entry (a JSON str or bytes).

    Raises
    ------
    SchemaError
        The text is not JSON, or its index or column descriptions are not of the
        documented shape; the message names the part.
    """
    try:
        doc = json.loads(text)
    except (ValueError, TypeError) as exc:
        raise _bad(f"not JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise _bad(f"a JSON {type(doc).__name__}, not an object")
    index, columns, column_indexes = (
        [] if doc.get(key) is None else doc[key]
        for key in ("index_columns", "columns", "column_indexes"))
    for key, value in (("index_columns", index), ("columns", columns),
                       ("column_indexes", column_indexes)):
        if not isinstance(value, list):
            raise _bad(f"{key} is {value!r}, not a list")
    infos = [_column_info(c, f"columns[{i}]") for i, c in enumerate(columns)]
    by_field = {}
    for info in infos:
        key = info.field_name if info.field_name is not None else "None"
        by_field.setdefault(key, info)
    attributes = doc.get("attributes")
    return PandasMetadata(
        index=[_descriptor(d, i) for i, d in enumerate(index)],
        columns=by_field,
        column_indexes=[_column_info(c, f"column_indexes[{i}]")
                        for i, c in enumerate(column_indexes)],
        attributes=attributes if isinstance(attributes, dict) else {})


def pandas_metadata_of(metadata):
    """The parsed ``pandas`` entry of a table's key/value ``metadata``, or None."""
    if not metadata:
        return None
    text = metadata.get(PANDAS_KEY)
    return None if text is None else parse_pandas_metadata(text)
