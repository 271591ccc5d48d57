"""CSV / JSON Lines <-> Parquet (pqkit.textio): inference, readers, writers, round trips.

Parquet files are checked by reading them with pyarrow; text written back is compared
byte for byte with text this file renders itself from the generated values.
"""
import base64
import datetime as dt
import decimal
import io
import json
import math
import re
import uuid

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pqkit import datatypes as T
from pqkit.errors import ParquetError, SchemaError
from pqkit.textio import (
    ConversionError,
    CsvReader,
    JsonLinesReader,
    TextFormatError,
    TextValueError,
    convert,
    parse_type,
    schema_from_spec,
    type_to_string,
)

D = decimal.Decimal
UTC = dt.timezone.utc
SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- helpers ---------------------------------------------------------------------------------
def to_parquet(text, fmt, **options):
    """Convert text to Parquet in memory: (pyarrow Table, summary, Parquet bytes)."""
    out = io.BytesIO()
    summary = convert(io.BytesIO(text.encode("utf-8")), out, from_format=fmt,
                      to_format="parquet", **options)
    data = out.getvalue()
    return pq.read_table(io.BytesIO(data)), summary, data


def from_parquet(data, fmt, **options):
    out = io.BytesIO()
    convert(io.BytesIO(data), out, from_format="parquet", to_format=fmt, **options)
    return out.getvalue().decode("utf-8")


def csv_line(cells):
    """A CSV line as RFC 4180 quotes it (written out here, not by the code under test)."""
    quoted = ['"' + c.replace('"', '""') + '"' if any(x in c for x in ',"\r\n') else c
              for c in cells]
    line = ",".join(quoted)
    return (line if line or len(cells) != 1 else '""') + "\n"


def csv_reader(text, **options):
    return CsvReader(io.BytesIO(text.encode("utf-8")), **options)


def jsonl_reader(text, **options):
    return JsonLinesReader(io.BytesIO(text.encode("utf-8")), **options)


def first_error(reader_factory, text, **options):
    with pytest.raises(ParquetError) as info:
        reader = reader_factory(text, **options)
        for _ in reader.batches():
            pass
    return info.value


# --- inference ---------------------------------------------------------------------------------
@pytest.mark.parametrize("values, expected", [
    (["1", "-2", "", "+3"], "int64"),
    (["0", "-0"], "int64"),
    (["1", "2.5"], "double"),
    (["1e5", "nan", "-inf", "Infinity", ".5"], "double"),
    (["1", "x"], "string"),
    (["true", "False", "TRUE"], "bool"),
    (["1", "true"], "string"),
    (["007", "1"], "string"),                         # leading zeros keep their digits
    ([" 1"], "string"),
    (["12345678901234567890123", "5"], "decimal(23,0)"),
    (["12345678901234567890123", "1.5"], "double"),
    (["9" * 39], "string"),
    (["2024-01-02", "2024-02-29"], "date"),
    (["2023-02-29"], "string"),                       # not a calendar date
    (["2024-01-02", "2024-01-02T03:04:05"], "timestamp[us]"),
    (["2024-01-02 03:04", "2024-01-02T03:04:05.5"], "timestamp[us]"),
    (["2024-01-02T03:04:05.123456789"], "timestamp[ns]"),
    (["2024-01-02T03:04:05Z", "2024-01-02 03:04:05+05:30"], "timestamp[us, UTC]"),
    (["2024-01-02T03:04:05Z", "2024-01-02T03:04:05"], "string"),
    (["2024-01-02T25:00:00"], "string"),
    (["", ""], "string"),
])
def test_csv_inference(values, expected):
    reader = csv_reader("a\n" + "".join(csv_line([v]) for v in values))
    assert [type_to_string(f.type) for f in reader.fields] == [expected]
    assert reader.inferred and reader.fields[0].nullable


@pytest.mark.parametrize("values, expected", [
    ([1, 2.5, None], "double"),
    ([1, "a"], "string"),
    ([True, 1], "string"),
    (["12"], "string"),                               # JSON strings are not numbers
    (["2024-01-02"], "date"),
    (["2024-01-02T03:04:05Z"], "timestamp[us, UTC]"),
    ([1.5, "NaN", "Infinity", "-Infinity"], "double"),
    (["NaN"], "string"),
    ([2**70, 1], "decimal(22,0)"),
    ([[1], [2.5, None], [], None], "list<double>"),
    ([[], []], "list<string>"),
    ([{"a": 1}, {"b": "x"}, {"a": 2.5}], "struct<a: double, b: string>"),
    ([{}], "string"),
    ([{"a": 1}, [1]], "string"),
    ([{"a": [{"b": 1}]}, {"a": [{"b": 2.5, "c": True}]}],
     "struct<a: list<struct<b: double, c: bool>>>"),
    ([None, None], "string"),
])
def test_jsonl_inference(values, expected):
    reader = jsonl_reader("".join(json.dumps({"v": v}) + "\n" for v in values))
    assert [type_to_string(f.type) for f in reader.fields] == [expected]


def test_jsonl_keys_first_seen_first_and_missing_keys_null():
    text = '{"b": 1}\n{"a": "x", "b": 2}\n{}\n'
    reader = jsonl_reader(text)
    assert [f.name for f in reader.fields] == ["b", "a"]
    assert next(reader.batches()).to_pydict() == {"b": [1, 2, None], "a": [None, "x", None]}


def test_string_columns_take_any_json_as_text():
    text = '{"s": "a"}\n{"s": 1}\n{"s": [1, {"x": null}]}\n{"s": true}\n'
    reader = jsonl_reader(text, infer_rows=1)
    assert next(reader.batches()).to_pydict() == {"s": ["a", "1", '[1,{"x":null}]', "true"]}


# --- errors name the line, offset and column ----------------------------------------------------
def test_later_value_that_does_not_fit():
    text = "a,b\n1,x\n2,y\nz,w\n"
    err = first_error(csv_reader, text, infer_rows=2)
    assert isinstance(err, TextValueError) and isinstance(err, SchemaError)
    assert (err.line, err.column, err.offset) == (4, "a", 12)
    assert "value 'z' does not fit int64" in str(err)
    assert "inferred from the first 2 records" in str(err)


def test_earliest_error_of_a_batch_is_reported():
    schema = [T.field("a", T.int64()), T.field("b", T.int64())]
    err = first_error(csv_reader, "a,b\n1,1\n2,x\ny,3\n", schema=schema)
    assert (err.line, err.column) == (3, "b")
    err = first_error(csv_reader, "a,b\n1,1\n2,x\n4\n", schema=schema)
    assert isinstance(err, TextValueError) and err.line == 3
    err = first_error(csv_reader, 'a,b\n1,1\n2,x\n"4\n', schema=schema)
    assert isinstance(err, TextValueError) and err.line == 3


def test_nested_value_error_names_the_path():
    text = '{"a": {"b": [1, 2]}}\n{"a": {"b": [3, "x"]}}\n'
    err = first_error(jsonl_reader, text, infer_rows=1)
    assert (err.line, err.column, err.offset) == (2, "a['b'][1]", 21)
    err = first_error(jsonl_reader, '{"a": 1}\n{"a": 2, "c": 3}\n', infer_rows=1)
    assert err.line == 2 and "key 'c' is not a column" in str(err)


@pytest.mark.parametrize("factory, text, options, error, line, offset, message", [
    (csv_reader, "a,b\n1,2\n3\n", {}, TextFormatError, 3, 8, "1 fields, expected 2"),
    (csv_reader, 'a\n1\n"open\nmore\n', {}, TextFormatError, 3, 4, "unexpected end of data"),
    (csv_reader, 'a\n"x"y\n', {}, TextFormatError, 2, 2, "malformed CSV"),
    (csv_reader, "a,a\n", {}, TextFormatError, 1, 0, "names column 'a' twice"),
    (csv_reader, "a\n" + "x" * 40 + "\n", {"max_line_bytes": 32}, TextFormatError, 2, 2,
     "longer than 32 bytes"),
    (jsonl_reader, '{"a": 1}\n{"a": 2,}\n', {}, TextFormatError, 2, 17, "invalid JSON"),
    (jsonl_reader, '{"a": 1}\n[1, 2]\n', {}, TextFormatError, 2, 9, "one JSON object per line"),
    (jsonl_reader, '{"a": ' + "1" * 5000 + "}\n", {}, TextFormatError, 1, 0, "unusable JSON"),
    (jsonl_reader, '{"a": ' + "[" * 100_000 + "\n", {}, TextFormatError, 1, 0, "JSON"),
])
def test_malformed_input(factory, text, options, error, line, offset, message):
    err = first_error(factory, text, **options)
    assert isinstance(err, error)
    assert (err.line, err.offset) == (line, offset)
    assert message in str(err) and f"line {line}" in str(err)


def test_invalid_utf8_names_the_byte():
    err = first_error(lambda t, **o: CsvReader(io.BytesIO(t), **o), b"a\nok\nb\xffd\n")
    assert isinstance(err, TextFormatError)
    assert (err.line, err.offset) == (3, 6) and "invalid UTF-8" in str(err)


# --- explicit schemas ------------------------------------------------------------------------------
ALL_TYPES = [
    ("i8", "int8"), ("u16", "uint16"), ("f32", "float"), ("dec", "decimal(6,2)"),
    ("d", "date"), ("ts", "timestamp[ms]"), ("tsz", "timestamp[us, UTC]"),
    ("t", "time64[us]"), ("dur", "duration[ms]"), ("b", "bool"), ("bin", "binary"),
    ("u", "uuid"), ("lst", "list<int64>"), ("st", "struct<x: double, y: string>"),
    ("m", "map<string, int64>"), ("ns", "timestamp[ns]"),
]


def test_csv_with_schema_all_types():
    schema = schema_from_spec([{"name": n, "type": t} for n, t in ALL_TYPES])
    row = ["-128", "65535", "1.5", "-12.3", "2024-02-29", "2024-02-29T13:45:00.5",
           "2024-02-29 13:45:00+01:00", "13:45:00.25", "-P1DT1.5S", "yes", "AP8=",
           "12345678-1234-5678-1234-567812345678", "[1,null]", '{"x":1.5}', '{"k":2}',
           "2024-02-29T13:45:00.123456789"]
    text = csv_line([n for n, _ in ALL_TYPES]) + csv_line(row) + csv_line([""] * len(row))
    table, summary, data = to_parquet(text, "csv", schema=schema)
    assert summary["rows"] == 2 and not summary["schema_inferred"]
    assert [str(f.type) for f in table.schema] == [
        "int8", "uint16", "float", "decimal128(6, 2)", "date32[day]", "timestamp[ms]",
        "timestamp[us, tz=UTC]", "time64[us]", "duration[ms]", "bool", "binary",
        "extension<arrow.uuid>", "list<element: int64>", "struct<x: double, y: string>",
        "map<string, int64 ('m')>", "timestamp[ns]"]
    first = {n: table.column(n)[0] for n, _ in ALL_TYPES}
    assert first["dec"].as_py() == D("-12.30")
    assert first["ts"].as_py() == dt.datetime(2024, 2, 29, 13, 45, 0, 500000)
    assert first["tsz"].as_py() == dt.datetime(2024, 2, 29, 12, 45, tzinfo=UTC)
    assert first["t"].as_py() == dt.time(13, 45, 0, 250000)
    assert first["dur"].as_py() == -dt.timedelta(days=1, seconds=1, milliseconds=500)
    assert first["bin"].as_py() == b"\x00\xff"
    assert first["u"].as_py() == uuid.UUID("12345678-1234-5678-1234-567812345678")
    assert first["lst"].as_py() == [1, None]
    assert first["st"].as_py() == {"x": 1.5, "y": None}
    assert first["m"].as_py() == [("k", 2)]
    assert first["ns"].value == 1709214300123456789
    assert all(table.column(n)[1].as_py() is None for n, _ in ALL_TYPES)
    back = from_parquet(data, "csv")
    assert back.splitlines()[1].split(",")[:12] == [
        "-128", "65535", "1.5", "-12.30", "2024-02-29", "2024-02-29T13:45:00.500",
        "2024-02-29T12:45:00.000000Z", "13:45:00.250000", "-P1DT0H0M1.500S", "true", "AP8=",
        "12345678-1234-5678-1234-567812345678"]


@pytest.mark.parametrize("type_text, value, message", [
    ("int8", "128", "outside -128..127"), ("uint8", "-1", "outside 0..255"),
    ("int64", "1.0", "expected an integer"), ("int64", "9" * 40, "outside"),
    ("float", "1e39", "outside the range of float"), ("double", "1e999", "outside"),
    ("decimal(5,2)", "1.234", "more than 2 fractional digits"),
    ("decimal(5,2)", "1234", "more than 3 integral digits"),
    ("decimal(5,2)", "NaN", "expected a decimal number"),
    ("timestamp[us]", "2024-01-02T03:04:05Z", "the column has no time zone"),
    ("timestamp[s]", "2024-01-02T03:04:05.5", "more fractional digits than unit s"),
    ("timestamp[ns]", "2300-01-01", "outside the range of int64 ns"),
    ("date", "2024-13-01", "not a calendar date"), ("time", "24:00", "out of range"),
    ("bool", "maybe", "expected true or false"), ("binary", "###", "expected base64"),
    ("fixed_size_binary[4]", "AP8=", "decodes to 2 bytes, expected 4"),
    ("duration[s]", "P1Y", "expected an ISO-8601 duration"),
    ("list<int8>", "[1, 300]", "outside -128..127"), ("list<int8>", "[1,", "expected JSON"),
    ("struct<a: int8 not null>", "{}", "null where the type says not null"),
    ("struct<a: int8>", '{"b": 1}', "key 'b' is not a field"),
    ("uuid", "nope", "expected a UUID"), ("null", "x", "holds only nulls"),
])
def test_values_that_do_not_fit_a_schema(type_text, value, message):
    schema = [T.field("c", parse_type(type_text))]
    err = first_error(csv_reader, "c\n" + csv_line([value]), schema=schema)
    assert isinstance(err, TextValueError)
    assert err.line == 2 and err.column.startswith("c") and message in str(err)
    assert "inferred" not in str(err)


def test_schema_order_and_headers():
    schema = [T.field("b", T.int64(), False), T.field("a", T.string())]
    reader = csv_reader("a,b\nx,1\ny,2\n", schema=schema)
    assert next(reader.batches()).to_pydict() == {"b": [1, 2], "a": ["x", "y"]}
    err = first_error(csv_reader, "a,c\nx,1\n", schema=schema)
    assert "the schema column 'b' is not in the CSV header" in str(err)
    reader = csv_reader("1,x\n", schema=schema, header=False)
    assert next(reader.batches()).to_pydict() == {"b": [1], "a": ["x"]}
    reader = csv_reader("1,x\n2,y\n", header=False)
    assert [f.name for f in reader.fields] == ["f0", "f1"]
    assert next(reader.batches()).num_rows == 2
    err = first_error(csv_reader, "a,b\nx,\n", schema=schema)
    assert err.line == 2 and err.column == "b" and "not nullable" in str(err)


def test_json_schema_coercions():
    schema = schema_from_spec([
        {"name": "i", "type": "int16"}, {"name": "f", "type": "double"},
        {"name": "d", "type": "decimal(10,3)"}, {"name": "ts", "type": "timestamp[ms, UTC]"},
        {"name": "day", "type": "date"}, {"name": "m", "type": "map<int32, string>"}])
    text = ('{"i": 3.0, "f": "NaN", "d": 1.25, "ts": 1000, "day": 19000, '
            '"m": {"1": "a", "2": null}}\n'
            '{"i": -7, "f": 2, "d": "-0.001", "ts": "1970-01-01T00:00:02+00:00", '
            '"day": "2024-02-29", "m": [[3, "c"]]}\n')
    table, _, _ = to_parquet(text, "jsonl", schema=schema)
    rows = table.to_pylist()
    assert [r["i"] for r in rows] == [3, -7]
    assert math.isnan(rows[0]["f"]) and rows[1]["f"] == 2.0
    assert [r["d"] for r in rows] == [D("1.250"), D("-0.001")]
    assert [r["ts"] for r in rows] == [dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC),
                                       dt.datetime(1970, 1, 1, 0, 0, 2, tzinfo=UTC)]
    assert [r["day"] for r in rows] == [dt.date(2022, 1, 8), dt.date(2024, 2, 29)]
    assert [r["m"] for r in rows] == [[(1, "a"), (2, None)], [(3, "c")]]
    err = first_error(jsonl_reader, '{"i": 1.5}\n', schema=schema[:1])
    assert "expected an integer, got a number" in str(err)


# --- edge cases of the input -----------------------------------------------------------------
@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_empty_input(fmt):
    table, summary, data = to_parquet("", fmt)
    assert (table.num_rows, table.num_columns, summary["rows"]) == (0, 0, 0)
    assert from_parquet(data, fmt) == ("\n" if fmt == "csv" else "")
    schema = [T.field("a", T.int32())]
    table, _, _ = to_parquet("", fmt, schema=schema)
    assert table.schema == pa.schema([("a", pa.int32())]) and table.num_rows == 0


def test_header_only_csv():
    table, summary, data = to_parquet("a,b\n", "csv")
    assert table.schema == pa.schema([("a", pa.string()), ("b", pa.string())])
    assert table.num_rows == 0 and summary["row_groups"] == 0
    assert from_parquet(data, "csv") == "a,b\n"
    table, _, _ = to_parquet("a,b\r\n", "csv", schema=[T.field("a", T.date32()),
                                                         T.field("b", T.bool_())])
    assert table.schema == pa.schema([("a", pa.date32()), ("b", pa.bool_())])


def test_quoted_fields_unicode_bom_crlf_and_blank_lines():
    text = ('\ufeffname,note\r\n"Smith, J","said ""hi""\r\nthen left"\r\n\r\n'
            'Zoë 日本,🎉\u2028x\r\n"",""\r\n')
    table, _, data = to_parquet(text, "csv")
    assert table.to_pydict() == {"name": ["Smith, J", "Zoë 日本", None],
                                 "note": ['said "hi"\r\nthen left', "🎉\u2028x", None]}
    assert from_parquet(data, "csv") == ('name,note\n"Smith, J","said ""hi""\r\nthen left"\n'
                                         'Zoë 日本,🎉\u2028x\n,\n')


def test_delimiter_and_null_text():
    text = "a;b\n;x\n\\N;\n"
    table, _, data = to_parquet(text, "csv", delimiter=";", null_text="\\N")
    assert table.to_pydict() == {"a": ["", None], "b": ["x", ""]}
    assert from_parquet(data, "csv", delimiter=";", null_text="\\N") == text
    table, _, _ = to_parquet("a,b\n1,\n\\N,2\n", "csv", null_text="\\N")
    assert table.to_pydict() == {"a": [1, None], "b": [None, 2]}     # empty: null if not text
    with pytest.raises(SchemaError, match="delimiter"):
        csv_reader("a\n", delimiter='"')


def test_batches_respect_batch_size():
    reader = csv_reader("a\n" + "".join(f"{i}\n" for i in range(25)), batch_size=10,
                        infer_rows=3)
    assert [b.num_rows for b in reader.batches()] == [10, 10, 5]


def test_progress_and_summary():
    seen = []
    text = "a\n" + "".join(f"{i}\n" for i in range(100))
    out = io.BytesIO()
    summary = convert(io.BytesIO(text.encode()), out, from_format="csv", to_format="parquet",
                      batch_size=30, row_group_size=40,
                      progress=lambda done, total: seen.append((done, total)))
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] == len(text)
    assert summary["rows"] == 100 and summary["row_groups"] == 3
    assert summary["output_bytes"] == len(out.getvalue())
    assert pq.ParquetFile(io.BytesIO(out.getvalue())).metadata.num_row_groups == 3
    with pytest.raises(ConversionError, match="cannot tell the input format"):
        convert(io.BytesIO(b""), io.BytesIO(), to_format="csv")
    with pytest.raises(ConversionError, match="unknown output format"):
        convert(io.BytesIO(b""), io.BytesIO(), from_format="csv", to_format="xml")


# --- round trips (hypothesis) --------------------------------------------------------------------
def _ts_text(v, aware):
    return v.isoformat(timespec="microseconds") + ("Z" if aware else "")


def _float_text(v):
    return "NaN" if math.isnan(v) else "Infinity" if v == math.inf else \
        "-Infinity" if v == -math.inf else repr(v)


# name: (type string, value strategy, text of a value, pyarrow value of a value)
FLAT = {
    "int64": (st.integers(-2**63, 2**63 - 1), str, lambda v: v),
    "double": (st.floats(), _float_text, lambda v: v),
    "bool": (st.booleans(), lambda v: "true" if v else "false", lambda v: v),
    "string": (st.text(min_size=0).map(lambda s: "s" + s), lambda v: v, lambda v: v),
    "date": (st.dates(), dt.date.isoformat, lambda v: v),
    "timestamp[us]": (st.datetimes(), lambda v: _ts_text(v, False), lambda v: v),
    "timestamp[us, UTC]": (st.datetimes(), lambda v: _ts_text(v, True),
                           lambda v: v.replace(tzinfo=UTC)),
}
# Types a schema gives (inference never picks them).
SCHEMA_ONLY = {
    "int8": (st.integers(-128, 127), str, lambda v: v),
    "uint32": (st.integers(0, 2**32 - 1), str, lambda v: v),
    "decimal(9,3)": (st.decimals(min_value=-999999, max_value=999999, places=3),
                     lambda v: format(v, "f"), lambda v: v),
    "binary": (st.binary(), lambda v: base64.b64encode(v).decode(), lambda v: v),
    "string": (st.text(), lambda v: v, lambda v: v),
    "time64[us]": (st.times(), lambda v: v.isoformat(timespec="microseconds"), lambda v: v),
    "duration[us]": (st.integers(-10**17, 10**17), lambda v: _duration_text(v),
                     lambda v: dt.timedelta(microseconds=v)),
}


def _duration_text(micros):
    """ISO-8601 P<d>DT<h>H<m>M<s>.<ffffff>S, as the writers spell a duration[us]."""
    days, rest = divmod(abs(micros), 86_400 * 10**6)
    seconds, frac = divmod(rest, 10**6)
    return (f"{'-' if micros < 0 else ''}P{days}DT{seconds // 3600}H{seconds // 60 % 60}M"
            f"{seconds % 60}.{frac:06d}S")


def _canon(text):
    """A type string with list elements named as a schema file names them (pqkit's writer
    calls them "element", as the Parquet spec does)."""
    def norm(t):
        if isinstance(t, T.ListType):
            return T.list_(T.field("item", norm(t.value_type), t.value_field.nullable))
        if isinstance(t, T.StructType):
            return T.struct([T.field(f.name, norm(f.type), f.nullable) for f in t.fields])
        return t
    # pyarrow names a map's entries after the column: map<string, int64 ('c0')>
    return type_to_string(norm(parse_type(re.sub(r" \('[^']*'\)", "", text))))


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b) or a != a and b != b
    return a == b


@st.composite
def flat_tables(draw, kinds, witness):
    """(column names, type strings, rows of values); with ``witness`` the first row has a
    value in every column, so that inference sees each column's type."""
    names = draw(st.lists(st.sampled_from(sorted(kinds)), min_size=1, max_size=4))
    rows = []
    for r in range(draw(st.integers(0 if not witness else 1, 12))):
        rows.append([draw(kinds[k][0]) if (witness and r == 0) or draw(st.booleans())
                     else None for k in names])
    return [f"c{i}" for i in range(len(names))], names, rows


def _check_parquet(table, types, rows, kinds):
    assert [_canon(str(f.type)) for f in table.schema] == [_canon(t) for t in types]
    for j, (col, t) in enumerate(zip(table.columns, types)):
        want = [None if r[j] is None else kinds[t][2](r[j]) for r in rows]
        got = col.to_pylist()
        assert len(got) == len(want) and all(_same(a, b) for a, b in zip(got, want)), t


@SETTINGS
@given(flat_tables(FLAT, witness=True))
def test_csv_round_trip_inferred(table):
    names, types, rows = table
    text = csv_line(names) + "".join(
        csv_line(["" if v is None else FLAT[t][1](v) for v, t in zip(row, types)])
        for row in rows)
    parquet, summary, data = to_parquet(text, "csv", batch_size=5, row_group_size=7)
    assert summary["schema_inferred"] and summary["rows"] == len(rows)
    _check_parquet(parquet, types, rows, FLAT)
    assert from_parquet(data, "csv", batch_size=4) == text


@SETTINGS
@given(flat_tables({**FLAT, **SCHEMA_ONLY}, witness=False))
def test_csv_round_trip_with_schema(table):
    names, types, rows = table
    kinds = {**FLAT, **SCHEMA_ONLY}
    schema = [{"name": n, "type": t} for n, t in zip(names, types)]
    text = csv_line(names) + "".join(
        csv_line(["" if v is None else kinds[t][1](v) for v, t in zip(row, types)])
        for row in rows)
    # The empty string and null share the empty field: expect null for an empty text.
    rows = [[None if v is not None and kinds[t][1](v) == "" else v
             for v, t in zip(row, types)] for row in rows]
    parquet, _, data = to_parquet(text, "csv", schema=schema, row_group_size=3)
    _check_parquet(parquet, types, rows, kinds)
    assert from_parquet(data, "csv") == text


@SETTINGS
@given(flat_tables(FLAT, witness=True))
def test_jsonl_round_trip_inferred_flat(table):
    names, types, rows = table
    # JSON spells non-finite doubles as the strings "NaN"/"Infinity", which infer as
    # double only beside a number (a column of such strings alone stays text, by design:
    # test_json_float_words_alone_stay_text).
    assume(all(t != "double" or any(r[j] is not None and math.isfinite(r[j]) for r in rows)
               for j, t in enumerate(types)))
    lines = [json.dumps({n: None if v is None else _json_flat(v, t)
                         for n, v, t in zip(names, row, types)},
                        ensure_ascii=False, separators=(",", ":")) for row in rows]
    text = "".join(line + "\n" for line in lines)
    parquet, summary, data = to_parquet(text, "jsonl", batch_size=3)
    _check_parquet(parquet, types, rows, FLAT)
    assert from_parquet(data, "jsonl") == text


def test_json_float_words_alone_stay_text():
    parquet, _, _ = to_parquet('{"a":"Infinity"}\n{"a":"NaN"}\n', "jsonl")
    assert _canon(str(parquet.schema[0].type)) == "string"
    parquet, _, _ = to_parquet('{"a":"Infinity"}\n{"a":1.5}\n', "jsonl")
    assert _canon(str(parquet.schema[0].type)) == "double"


def _json_flat(v, t):
    if t == "double":
        return v if math.isfinite(v) else _float_text(v)
    return v if t in ("int64", "bool", "string") else FLAT[t][1](v)


NESTED = {
    "list<int64>": st.lists(st.one_of(st.none(), st.integers(-2**63, 2**63 - 1)), max_size=4),
    "list<string>": st.lists(st.text(), max_size=3),
    "struct<a: int64, b: string>": st.fixed_dictionaries(
        {"a": st.one_of(st.none(), st.integers(-10, 10)), "b": st.one_of(st.none(), st.text())}
    ).map(lambda d: {"a": d["a"], "b": d["b"]}),
    "list<struct<x: double, y: list<bool>>>": st.lists(st.one_of(st.none(), st.fixed_dictionaries(
        {"x": st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
         "y": st.one_of(st.none(), st.lists(st.one_of(st.none(), st.booleans()), max_size=3))}
    ).map(lambda d: {"x": d["x"], "y": d["y"]})), max_size=3),
    "map<string, int64>": st.lists(st.tuples(st.text(max_size=3), st.one_of(
        st.none(), st.integers(-5, 5))), max_size=3).map(lambda p: [list(x) for x in p]),
    "double": st.floats(allow_nan=False, allow_infinity=False),
    "string": st.text(),
}


def _arrow_value(v, t):
    if t.startswith("map"):
        return [tuple(p) for p in v]
    return v


@SETTINGS
@given(st.lists(st.sampled_from(sorted(NESTED)), min_size=1, max_size=4).flatmap(
    lambda types: st.tuples(st.just(types), st.lists(st.tuples(*[
        st.one_of(st.none(), NESTED[t]) for t in types]), max_size=10))))
def test_jsonl_round_trip_nested_with_schema(table):
    types, rows = table
    names = [f"c{i}" for i in range(len(types))]
    text = "".join(json.dumps(dict(zip(names, row)), ensure_ascii=False,
                              separators=(",", ":")) + "\n" for row in rows)
    schema = [{"name": n, "type": t} for n, t in zip(names, types)]
    parquet, _, data = to_parquet(text, "jsonl", schema=schema, row_group_size=4)
    assert [_canon(str(f.type)) for f in parquet.schema] == [_canon(t) for t in types]
    for j, t in enumerate(types):
        assert parquet.column(j).to_pylist() == \
            [None if r[j] is None else _arrow_value(r[j], t) for r in rows]
    assert from_parquet(data, "jsonl") == text


# (type, strategy of values, strategy of a "witness": a value that shows inference the whole
# type -- lists non-empty, no nulls inside, strings that look like nothing else)
_WITNESS_TEXT = st.text().map(lambda s: "s" + s)
INFERRED_NESTED = {
    "list<int64>": (NESTED["list<int64>"], st.lists(st.integers(-2**63, 2**63 - 1), min_size=1)),
    "list<string>": (NESTED["list<string>"], st.lists(_WITNESS_TEXT, min_size=1, max_size=3)),
    "struct<a: int64, b: string>": (NESTED["struct<a: int64, b: string>"], st.builds(
        lambda a, b: {"a": a, "b": b}, st.integers(-10, 10), _WITNESS_TEXT)),
    "list<struct<x: double, y: list<bool>>>": (
        NESTED["list<struct<x: double, y: list<bool>>>"], st.lists(st.builds(
            lambda x, y: {"x": x, "y": y}, st.floats(allow_nan=False, allow_infinity=False),
            st.lists(st.booleans(), min_size=1, max_size=3)), min_size=1, max_size=2)),
}


@SETTINGS
@given(st.lists(st.sampled_from(sorted(INFERRED_NESTED)), min_size=1, max_size=3).flatmap(
    lambda types: st.tuples(st.just(types), st.tuples(*[
        INFERRED_NESTED[t][1] for t in types]), st.lists(st.tuples(*[
            st.one_of(st.none(), INFERRED_NESTED[t][0]) for t in types]), max_size=8))))
def test_jsonl_round_trip_nested_inferred(table):
    types, witness, rows = table
    rows = [witness] + rows
    names = [f"c{i}" for i in range(len(types))]
    text = "".join(json.dumps(dict(zip(names, row)), ensure_ascii=False,
                              separators=(",", ":")) + "\n" for row in rows)
    parquet, summary, data = to_parquet(text, "jsonl", batch_size=4)
    assert summary["schema_inferred"]
    assert [_canon(str(f.type)) for f in parquet.schema] == [_canon(t) for t in types]
    for j in range(len(types)):
        assert parquet.column(j).to_pylist() == [r[j] for r in rows]
    assert from_parquet(data, "jsonl") == text
