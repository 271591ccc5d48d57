"""The shared checker of dataset metadata documents (issue 31 item 4)."""
import math

import pytest

from pqkit.dataset.core.doc_schema import (
    MAX_DEPTH,
    anything,
    boolean,
    constant,
    count,
    either,
    integer,
    list_of,
    map_of,
    number,
    optional,
    record,
    rule,
    text,
    validate,
)
from pqkit.dataset.core.fsops import loads_finite, parse_json
from pqkit.errors import ManifestCorrupted

ENTRY = record(required={"path": text(), "size": count()},
               optional={"stats": map_of(record(optional={"nulls": count()}))})
DOC = record(required={"version": count(), "files": list_of(ENTRY)},
             optional={"metadata": optional(map_of(anything()))})


def _doc(**changes):
    doc = {"version": 3, "files": [{"path": "a", "size": 1},
                                   {"path": "b", "size": 2, "stats": {"x": {"nulls": 0}}}]}
    doc.update(changes)
    return doc


def test_a_valid_document_passes_unchanged():
    doc = _doc(metadata={"k": [1, 2.5, None, {"deep": True}]}, extra_is_refused=None)
    doc.pop("extra_is_refused")
    assert validate(doc, DOC, "v.json") is doc


@pytest.mark.parametrize("change, field, why", [
    (lambda d: d.update(version=None), "version", "expected an integer, got null"),
    (lambda d: d.update(version=True), "version", "got the boolean true"),
    (lambda d: d.update(version=-1), "version", "outside 0.."),
    (lambda d: d.update(version=1 << 64), "version", "outside 0.."),
    (lambda d: d.update(version=2.0), "version", "expected an integer"),
    (lambda d: d.pop("files"), "files", "missing"),
    (lambda d: d.update(files={"a": 1}), "files", "expected a list"),
    (lambda d: d["files"][1].pop("size"), "files[1].size", "missing"),
    (lambda d: d["files"][1].update(path=["x"]), "files[1].path", "expected a string"),
    (lambda d: d["files"][1].update(stats=[]), "files[1].stats", "expected an object"),
    (lambda d: d["files"][1]["stats"]["x"].update(nulls="0"), "files[1].stats.x.nulls",
     "expected an integer"),
    (lambda d: d["files"][0].update(surprise=1), "files[0].surprise", "not a field"),
    (lambda d: d.update(metadata={"k": float("nan")}), "metadata.k", "not finite"),
    (lambda d: d.update(metadata={"k": float("inf")}), "metadata.k", "not finite"),
    (lambda d: d.update(metadata={"k": {1: "x"}}), "metadata.k", "key that is not a string"),
    (lambda d: d.update(metadata={"k": object()}), "metadata.k", "expected a JSON value"),
])
def test_a_wrong_field_is_manifest_corrupted_naming_file_and_field(change, field, why):
    doc = _doc()
    change(doc)
    with pytest.raises(ManifestCorrupted) as info:
        validate(doc, DOC, "v.json")
    message = str(info.value)
    assert message.startswith(f"v.json: malformed {field}: "), message
    assert why in message


def test_free_form_values_nest_boundedly():
    deep = current = []
    for _ in range(MAX_DEPTH + 5):
        current.append([])
        current = current[0]
    with pytest.raises(ManifestCorrupted, match=f"nested more than {MAX_DEPTH} levels"):
        validate(_doc(metadata={"k": deep}), DOC, "v.json")
    # iterative: a value far deeper than the interpreter's recursion limit is no crash
    deep = current = {}
    for _ in range(100_000):
        current["a"] = {}
        current = current["a"]
    with pytest.raises(ManifestCorrupted, match="nested more than"):
        validate(deep, anything(), "v.json")


def test_scalar_checks():
    for check, good, bad in [
        (integer(-1, 5), [-1, 0, 5], [6, -2, True, 1.0, "1", None]),
        (number(), [0, -1.5, 1e308], [math.inf, math.nan, True, "1", None]),
        (text(3), ["", "abc"], ["abcd", b"ab", 1, None]),
        (boolean(), [True, False], [0, 1, "true", None]),
        (constant("hive", 4), ["hive", 4], ["Hive", 4.0, True, None]),
        (either("a name or a count", text(), count()), ["x", 3], [-1, None, []]),
        (rule(lambda v: int(v, 16), "a hex number"), ["ff", "0"], ["zz"]),
    ]:
        for value in good:
            validate(value, check, "w")
        for value in bad:
            with pytest.raises(ManifestCorrupted):
                validate(value, check, "w")


@pytest.mark.parametrize("text_, why", [
    (b'{"version": 1e999}', "1e999 is not finite"),
    (b'{"version": -1e999}', "-1e999 is not finite"),
    (b'[NaN]', "NaN is not finite"),
    (b'[Infinity]', "Infinity is not finite"),
    (b'[' * 100_000 + b']' * 100_000, "nested too deeply"),
    (b'\xff', "codec can't decode"),
    (b'{', "Expecting property name"),
])
def test_json_of_metadata_has_finite_numbers_and_bounded_nesting(text_, why):
    with pytest.raises(ValueError, match=why):
        loads_finite(text_)
    with pytest.raises(ValueError, match=f"^f.json: not valid JSON .*{why}"):
        parse_json(text_, "f.json")
    assert loads_finite(b'{"a": [1.5, 2, "x", null]}') == {"a": [1.5, 2, "x", None]}
