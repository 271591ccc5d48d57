"""Type strings and schema files of pqkit.textio, and the rendering of column values as
JSON / CSV text (the Parquet -> text direction)."""
import datetime as dt
import decimal
import json
import math
import uuid

import pytest

from pqkit import datatypes as T
from pqkit.convert import column_from_values
from pqkit.errors import SchemaError
from pqkit.textio import (
    csv_texts,
    json_values,
    parse_type,
    schema_from_spec,
    schema_to_spec,
    type_to_string,
)
from pqkit.textio.schema_spec import load_schema

D = decimal.Decimal


# --- type strings and schema files ---------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("int64", T.int64()), ("UINT8", T.uint8()), ("double", T.float64()),
    ("float", T.float32()), ("halffloat", T.float16()), ("string", T.string()),
    ("utf8", T.string()), ("large_string", T.large_string()), ("binary", T.binary()),
    ("bool", T.bool_()), ("boolean", T.bool_()), ("date", T.date32()),
    ("date32[day]", T.date32()), ("date64", T.date64()), ("time", T.time64("us")),
    ("time32[ms]", T.time32("ms")), ("time64[ns]", T.time64("ns")),
    ("timestamp", T.timestamp("us")), ("timestamp[ns]", T.timestamp("ns")),
    ("timestamp[us, UTC]", T.timestamp("us", "UTC")),
    ("timestamp[ms, tz=Europe/Paris]", T.timestamp("ms", "Europe/Paris")),
    ("timestamp[s,+05:30]", T.timestamp("s", "+05:30")),
    ("duration[ms]", T.duration("ms")), ("decimal(9,2)", T.decimal(9, 2)),
    ("decimal128(38, 0)", T.decimal(38, 0)), ("decimal(5)", T.decimal(5, 0)),
    ("decimal256(76, 10)", T.decimal(76, 10)), ("uuid", T.uuid()), ("null", T.null()),
    ("fixed_size_binary[16]", T.fixed_size_binary(16)),
    ("list<int64>", T.list_(T.int64())),
    ("list<item: string not null>", T.list_(T.field("item", T.string(), False))),
    ("large_list<double>", T.large_list(T.float64())),
    ("fixed_size_list<float>[3]", T.fixed_size_list(T.float32(), 3)),
    ("struct<a: int64, b: list<string> not null>",
     T.struct([("a", T.int64()), T.field("b", T.list_(T.string()), False)])),
    ('struct<"odd: name": date>', T.struct([("odd: name", T.date32())])),
    ("map<string, list<int8>>", T.map_(T.string(), T.list_(T.int8()))),
    (" list < struct < x : double > > ", T.list_(T.struct([("x", T.float64())]))),
])
def test_parse_type(text, expected):
    assert parse_type(text) == expected
    assert parse_type(type_to_string(expected)) == expected
    if '"' not in text:                          # Arrow's own spelling parses too
        assert parse_type(str(expected)) == expected


def test_type_to_string_spellings():
    assert type_to_string(T.timestamp("us", "UTC")) == "timestamp[us, UTC]"
    assert type_to_string(T.decimal(9, 2)) == "decimal(9,2)"
    assert type_to_string(T.list_(T.struct([("x y", T.float64())]))) == \
        'list<struct<"x y": double>>'
    assert type_to_string(T.dictionary(T.int32(), T.string())) == "string"


@pytest.mark.parametrize("text, where", [
    ("int", "unknown type name 'int' at position 0"), ("list<int64", "position 10"),
    ("timestamp[xs]", "position 9"), ("struct<a int64>", "expected ':'"),
    ("decimal(9,2", "expected ')'"), ("int64 int64", "the end of the type"),
    ("struct<a: int8, a: int16>", "names a field twice"),
])
def test_bad_type_strings(text, where):
    with pytest.raises(SchemaError, match=None) as info:
        parse_type(text)
    assert where in str(info.value)


def test_schema_spec_forms(tmp_path):
    spec = [{"name": "id", "type": "int64", "nullable": False}, {"name": "tags",
                                                                  "type": "list<string>"}]
    fields = schema_from_spec(spec)
    assert fields == [T.field("id", T.int64(), False), T.field("tags", T.list_(T.string()))]
    assert schema_from_spec({"schema": spec}) == fields          # a --json summary
    assert schema_from_spec({"fields": spec}) == fields
    assert schema_to_spec(fields) == [dict(spec[0]), dict(spec[1], nullable=True)]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(spec))
    assert load_schema(str(path)) == fields
    path.write_text('[{"name": "a",\n "type": }]')
    with pytest.raises(SchemaError, match="line 2, column 10"):
        load_schema(str(path))


@pytest.mark.parametrize("spec, message", [
    ({"columns": []}, "expected a JSON list"),
    ([["a", "int64"]], "entry 0 is not an object"),
    ([{"name": "a", "type": "int64", "nulable": True}], "unknown keys \\['nulable'\\]"),
    ([{"name": "a"}], "needs a string name and a string type"),
    ([{"name": "a", "type": "int64", "nullable": "no"}], "nullable must be true or false"),
    ([{"name": "a", "type": "integer"}], "column 'a': type 'integer'"),
    ([{"name": "a", "type": "int64"}, {"name": "a", "type": "string"}], "named twice"),
])
def test_bad_schema_specs(spec, message):
    with pytest.raises(SchemaError, match=message):
        schema_from_spec(spec)



# --- rendering ----------------------------------------------------------------------------------
@pytest.mark.parametrize("values, type_, expected", [
    ([0, 1500, None], T.timestamp("ms"), ["1970-01-01T00:00:00.000", "1970-01-01T00:00:01.500",
                                         None]),
    ([-1], T.timestamp("s", "Europe/Paris"), ["1969-12-31T23:59:59Z"]),
    ([1], T.timestamp("ns"), ["1970-01-01T00:00:00.000000001"]),
    ([86_400_000 * 2], T.date64(), ["1970-01-03"]),
    ([3723], T.time32("s"), ["01:02:03"]), ([1], T.time64("ns"), ["00:00:00.000000001"]),
    ([-1500, 90, 93784_500], T.duration("ms"),
     ["-P0DT0H0M1.500S", "P0DT0H0M0.090S", "P1DT2H3M4.500S"]),
    ([-3600], T.duration("s"), ["-P0DT1H0M0S"]),
    ([math.nan, math.inf, -math.inf, -0.0, None], T.float64(),
     ["NaN", "Infinity", "-Infinity", -0.0, None]),
    ([D("1.5"), D("-0.01")], T.decimal(5, 2), ["1.50", "-0.01"]),
    ([b"\x00\xff", b""], T.binary(), ["AP8=", ""]),
    ([uuid.UUID(int=1)], T.uuid(), ["00000000-0000-0000-0000-000000000001"]),
    ([[("a", 1), ("a", None)], None], T.map_(T.string(), T.int64()),
     [[["a", 1], ["a", None]], None]),
    ([[1.5, None], None], T.fixed_size_list(T.float32(), 2), [[1.5, None], None]),
    ([{"x": dt.date(2000, 1, 1), "y": [b"\x01"]}, None],
     T.struct([("x", T.date32()), ("y", T.list_(T.binary()))]),
     [{"x": "2000-01-01", "y": ["AQ=="]}, None]),
    ([(1, 2, -3)], T.month_day_nano_interval(), [{"months": 1, "days": 2, "nanoseconds": -3}]),
    ([b"\x01\0\0\0\x02\0\0\0\x03\0\0\0", None], T.interval(),
     [{"months": 1, "days": 2, "milliseconds": 3}, None]),
])
def test_json_values(values, type_, expected):
    assert json_values(column_from_values(values, type_)) == expected


def test_csv_texts_and_dictionary_columns():
    col = column_from_values(["b", None, "b"], T.dictionary(T.int32(), T.string()))
    assert json_values(col) == ["b", None, "b"]
    assert csv_texts(col, "NULL") == ["b", "NULL", "b"]
    assert csv_texts(column_from_values([True, None])) == ["true", ""]
    assert csv_texts(column_from_values([[1, 2], []])) == ["[1,2]", "[]"]
    assert csv_texts(column_from_values([{"a": "é"}])) == ['{"a":"é"}']
