"""parquet-testing's variant/ and shredded_variant/ cases: the contract of pqkit.variant.

variant/: each ``<name>.metadata`` + ``<name>.value`` pair decodes to the value that
data_dictionary.json gives for ``<name>`` (JSON renders dates, timestamps, decimals and
binaries as text or floats; ``_matches_json`` compares through those renderings).

shredded_variant/: each case's Parquet file, read with ``variant="decode"``, gives per
row the value of its ``*.variant.bin`` (metadata bytes then value bytes), compared with
the primitive types kept; error cases raise :class:`pqkit.VariantError`.
"""
import base64
import datetime as dt
import io
import json
import os
import re
import uuid
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest

import pqkit
from corpus import ROOT
from pqkit.variant import VariantColumn, VariantMetadata, decode, decode_column, variant_column

pytestmark = pytest.mark.corpus

# No entry in data_dictionary.json: the value, as the file's README describes it.
NOT_IN_DICTIONARY = {
    "long_string": "This string is for sure and certainly longer than 64 bytes and it also "
                   "includes several non ascii characters such as 🐢, 💖, ♥️, 🎣 and 🤦!!",
}
# The variant type each primitive_* file holds (types=True names).
PRIMITIVE_TYPES = {
    "binary": "binary", "boolean_false": "boolean", "boolean_true": "boolean",
    "date": "date", "decimal4": "decimal4", "decimal8": "decimal8", "decimal16": "decimal16",
    "double": "double", "float": "float", "int8": "int8", "int16": "int16", "int32": "int32",
    "int64": "int64", "null": "null", "string": "string", "time": "time",
    "timestamp": "timestamp", "timestamp_nanos": "timestamp_nanos",
    "timestampntz": "timestamp_ntz", "timestampntz_nanos": "timestamp_ntz_nanos",
    "uuid": "uuid",
}
# Cases the corpus marks invalid, where a reader may fail or return the shredded value.
MAY_FAIL = {43, 84, 125}


def _variant_dir():
    return None if ROOT is None else os.path.join(ROOT, "variant")


def _shredded_dir():
    return None if ROOT is None else os.path.join(ROOT, "shredded_variant")


def _variant_names():
    d = _variant_dir()
    if d is None or not os.path.isdir(d):
        return []
    return sorted(f[:-len(".metadata")] for f in os.listdir(d) if f.endswith(".metadata"))


def _dictionary():
    with open(os.path.join(_variant_dir(), "data_dictionary.json"), encoding="utf-8") as f:
        text = f.read()
    return json.loads(re.sub(r",\s*}\s*$", "}", text))    # the file has a trailing comma


def _shredded_cases():
    d = _shredded_dir()
    if d is None or not os.path.isfile(os.path.join(d, "cases.json")):
        return []
    with open(os.path.join(d, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    return [pytest.param(c, id=f"case-{c['case_number']:03d}") for c in cases
            if "parquet_file" in c]


def _read_pair(name):
    d = _variant_dir()
    with open(os.path.join(d, name + ".metadata"), "rb") as m, \
            open(os.path.join(d, name + ".value"), "rb") as v:
        return m.read(), v.read()


def _matches_json(got, expected):
    """``got`` (a decoded value) equals ``expected`` (its rendering in data_dictionary.json)."""
    if isinstance(got, dict):
        return isinstance(expected, dict) and list(got) == list(expected) and all(
            _matches_json(got[k], expected[k]) for k in got)
    if isinstance(got, list):
        return isinstance(expected, list) and len(got) == len(expected) and all(
            _matches_json(a, b) for a, b in zip(got, expected))
    if got is None or isinstance(got, (bool, str)):
        return got == expected and type(got) is type(expected)
    if isinstance(got, int):
        return type(expected) is int and got == expected
    if isinstance(got, Decimal):
        return float(got) == expected
    if isinstance(got, float):          # a float32 value prints with float32's digits
        return got == expected or np.float32(got) == np.float32(expected)
    if isinstance(got, bytes):
        return base64.b64encode(got).decode() == expected
    if isinstance(got, (dt.datetime, pd.Timestamp)):
        return pd.Timestamp(got) == pd.Timestamp(expected)
    if isinstance(got, dt.date):
        return got.isoformat() == expected
    if isinstance(got, dt.time):        # written HH:MM:SS:ffffff
        return got == dt.time.fromisoformat(re.sub(r":(\d{6})$", r".\1", expected))
    if isinstance(got, uuid.UUID):
        return str(got) == expected
    raise AssertionError(f"no JSON comparison for {type(got).__name__}")


@pytest.mark.parametrize("name", _variant_names())
def test_variant_case_decodes_to_its_expected_value(corpus, name):
    metadata, value = _read_pair(name)
    got = decode(metadata, value)
    if name in NOT_IN_DICTIONARY:
        assert got == NOT_IN_DICTIONARY[name]
    else:
        expected = _dictionary()[name]
        assert _matches_json(got, expected), (got, expected)
    if name.startswith("primitive_"):
        type_name, typed = decode(metadata, value, types=True)
        assert type_name == PRIMITIVE_TYPES[name[len("primitive_"):]]
        assert repr(typed) == repr(got)


def test_every_variant_case_has_an_expected_value(corpus):
    names = set(_variant_names())
    assert len(names) == 29
    assert names == set(_dictionary()) | set(NOT_IN_DICTIONARY)
    files = set(os.listdir(_variant_dir()))
    for n in names:
        assert n + ".value" in files


def _expected_rows(case, types):
    d = _shredded_dir()
    files = case["variant_files"] if "variant_files" in case else [case["variant_file"]]
    out = []
    for name in files:
        if name is None:
            out.append(None)
            continue
        with open(os.path.join(d, name), "rb") as f:
            data = f.read()
        split = VariantMetadata(data).nbytes
        out.append(decode(data[:split], data[split:], types=types))
    return out


@pytest.mark.parametrize("case", _shredded_cases())
def test_shredded_case(corpus, case):
    path = os.path.join(_shredded_dir(), case["parquet_file"])
    if "error_message" in case:
        with pytest.raises(pqkit.VariantError):
            pqkit.read_table(path, variant="decode")
        return
    try:
        table = pqkit.read_table(path, variant="decode")
    except pqkit.VariantError:
        assert case["case_number"] in MAY_FAIL
        return
    column = table.column("var")
    assert isinstance(column, VariantColumn)
    assert column.to_pylist() == _expected_rows(case, False)
    # the primitive types too, not only the Python values: int8 vs int32, -0.0 vs 0.0
    expected = _expected_rows(case, True)
    typed = decode_column(pqkit.read_table(path).column("var"), "var", types=True)
    assert typed == expected and repr(typed) == repr(expected)


def test_default_read_keeps_the_physical_struct(corpus):
    path = os.path.join(_shredded_dir(), "case-045.parquet")
    column = pqkit.read_table(path).column("var")
    assert not isinstance(column, VariantColumn)
    assert column.type.names == ["metadata", "value", "typed_value"]
    assert column.to_pylist()[1] == {"metadata": b"\x01\x00\x00", "value": b'\x14"\x00\x00\x00',
                                     "typed_value": None}


def test_every_shredded_case_is_covered(corpus):
    cases = _shredded_cases()
    on_disk = {f for f in os.listdir(_shredded_dir()) if f.endswith(".parquet")}
    assert {c.values[0]["parquet_file"] for c in cases} == on_disk
    assert len(on_disk) == 137


# --- written back by pqkit's writer ---------------------------------------------------------

def _written(column, **settings):
    buf = io.BytesIO()
    pqkit.write_table({"var": column}, buf, **settings)
    return pqkit.read_table(io.BytesIO(buf.getvalue()))


@pytest.mark.parametrize("name", _variant_names())
def test_variant_case_round_trips_through_the_writer(corpus, name):
    metadata, value = _read_pair(name)
    typed = decode(metadata, value, types=True)
    back = decode_column(_written(variant_column([typed], types=True)).column("var"), "var",
                         types=True)
    assert back == [typed] and repr(back) == repr([typed])
    plain = decode(metadata, value)
    for shredding in (None, "auto"):
        column = _written(variant_column([plain]), shredding=shredding).column("var")
        assert decode_column(column, "var") == [plain]


@pytest.mark.parametrize("case", _shredded_cases())
def test_shredded_case_round_trips_through_the_writer(corpus, case):
    path = os.path.join(_shredded_dir(), case["parquet_file"])
    table = pqkit.read_table(path)
    if "error_message" in case:
        with pytest.raises(pqkit.VariantError):
            pqkit.write_table(table, io.BytesIO())
        return
    try:
        values = pqkit.read_table(path, variant="decode").column("var").to_pylist()
    except pqkit.VariantError:
        assert case["case_number"] in MAY_FAIL
        return
    expected = _expected_rows(case, False)
    assert values == expected
    buf = io.BytesIO()
    pqkit.write_table(table, buf)              # as read: the annotation and layout kept
    again = pqkit.ParquetFile(io.BytesIO(buf.getvalue()))
    assert again.schema.root.children[1].element.logicalType.VARIANT is not None
    assert pqkit.read_table(io.BytesIO(buf.getvalue()), variant="decode") \
        .column("var").to_pylist() == expected
    for shredding in (None, "auto"):
        column = _written(variant_column(values), shredding=shredding).column("var")
        assert decode_column(column, "var") == expected
