"""pqkit.textio.render: the one text spelling of each type, its style choices, and that the
default spelling reads back through the text readers.

The per-type table of the module is checked in tests/unit/textio/test_schema_spec.py and against
pyarrow in tests/cli/test_head_cat.py and tests/cli/test_convert_cmd.py; this file checks
the choices (binary, zoned timestamps, invalid UTF-8), edge values, and the writers.
"""
import io
import json
import re
import uuid
from decimal import Decimal as D

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pqkit import datatypes as T
from pqkit.columnar.column import BinaryColumn
from pqkit.columnar.table import Table
from pqkit.convert import column_from_values
from pqkit.errors import EncodingError, SchemaError
from pqkit.textio import CsvReader, JsonLinesReader
from pqkit.textio.render import TextStyle, cell_text, csv_texts, json_values
from pqkit.textio.values import text_coercer
from pqkit.textio.writers import CsvLines, CsvWriter, JsonLinesWriter

LOCAL = TextStyle(zoned_timestamps="local")
HEX = TextStyle(binary="hex")
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
SUMMER_2024 = 1_719_835_200          # 2024-07-01T12:00:00Z
WINTER_2024 = 1_704_110_400          # 2024-01-01T12:00:00Z


def values(items, type_, style=TextStyle()):
    return json_values(column_from_values(items, type_), style)


def test_style_choices_are_checked():
    for bad in ({"binary": "b64"}, {"zoned_timestamps": "Europe/Paris"},
                {"invalid_utf8": "ignore"}):
        name = next(iter(bad))
        with pytest.raises(SchemaError, match=f"{name} must be one of"):
            TextStyle(**bad)


@pytest.mark.parametrize("tz, utc, local", [
    ("UTC", "2024-07-01T12:00:00Z", "2024-07-01T12:00:00Z"),
    ("+00:00", "2024-07-01T12:00:00Z", "2024-07-01T12:00:00Z"),
    ("+05:30", "2024-07-01T12:00:00Z", "2024-07-01T17:30:00+05:30"),
    ("-0330", "2024-07-01T12:00:00Z", "2024-07-01T08:30:00-03:30"),
    ("America/New_York", "2024-07-01T12:00:00Z", "2024-07-01T08:00:00-04:00"),
    ("Europe/Paris", "2024-07-01T12:00:00Z", "2024-07-01T14:00:00+02:00"),
    ("Not/AZone", "2024-07-01T12:00:00Z", "2024-07-01T12:00:00Z"),
])
def test_zoned_timestamps(tz, utc, local):
    type_ = T.timestamp("s", tz)
    assert values([SUMMER_2024, None], type_) == [utc, None]
    assert values([SUMMER_2024, None], type_, LOCAL) == [local, None]


def test_local_offsets_follow_the_zone_rules():
    ny = T.timestamp("ms", "America/New_York")
    counts = [SUMMER_2024 * 1000, WINTER_2024 * 1000 + 5, SUMMER_2024 * 1000]
    assert values(counts, ny, LOCAL) == [
        "2024-07-01T08:00:00.000-04:00", "2024-01-01T07:00:00.005-05:00",
        "2024-07-01T08:00:00.000-04:00"]
    # Local mean time before 1911 in Paris: an offset of 9 minutes 21 seconds.
    assert values([-2_500_000_000], T.timestamp("s", "Europe/Paris"), LOCAL) == [
        "1890-10-11T19:42:41+00:09:21"]


def test_unplaceable_and_extreme_counts():
    fixed = T.timestamp("s", "+05:30")
    # Shifting int64 max by the offset would overflow: the UTC instant is shown instead.
    assert values([INT64_MAX], fixed, LOCAL) == ["292277026596-12-04T15:30:07Z"]
    # numpy's NaT is the smallest int64: the stored count is shown.
    for type_ in (T.timestamp("s"), fixed, T.timestamp("us", "Europe/Paris")):
        for style in (TextStyle(), LOCAL):
            assert values([INT64_MIN], type_, style) == [str(INT64_MIN)]
    # Local time past year 9999 cannot be placed by the zone database.
    assert values([253402300799], T.timestamp("s", "Asia/Tokyo"), LOCAL) == [
        "9999-12-31T23:59:59Z"]
    assert values([], fixed, LOCAL) == []


def test_times_dates_decimals_at_the_edges():
    assert values([-1, 86400, 3723], T.time32("s")) == ["23:59:59", "00:00:00", "01:02:03"]
    assert values([-1], T.date64()) == ["1969-12-31"]           # floor, not truncation
    assert values([INT64_MIN + 1], T.duration("ns")) == ["-P106751DT23H47M16.854775807S"]
    assert values([D("1200"), D("0")], T.decimal(5, -2)) == ["1200", "0"]
    assert values([D("0.00"), D("-0.05"), None], T.decimal(5, 2)) == ["0.00", "-0.05", None]


def test_binary_choice_reaches_nested_and_dictionary_values():
    nested = T.struct([("b", T.binary()), ("f", T.fixed_size_binary(2)),
                       ("l", T.list_(T.binary())), ("u", T.uuid())])
    row = {"b": b"\x00\xff", "f": b"\x01\x02", "l": [b"\xab", None],
           "u": uuid.UUID("12345678-1234-5678-1234-567812345678")}
    assert values([row], nested, HEX) == [{"b": "00ff", "f": "0102", "l": ["ab", None],
                                           "u": "12345678-1234-5678-1234-567812345678"}]
    assert values([row], nested)[0]["b"] == "AP8="
    dictionary = column_from_values([b"\x01", None, b"\x01", b"\x02"],
                                    T.dictionary(T.int32(), T.binary()))
    assert json_values(dictionary, HEX) == ["01", None, "01", "02"]
    assert values([b"", None], T.fixed_size_binary(0), HEX) == ["", None]


def test_dictionary_of_only_nulls():
    column = column_from_values([None, None], T.dictionary(T.int8(), T.string()))
    assert json_values(column) == [None, None]


def test_invalid_utf8_refused_or_replaced():
    column = BinaryColumn(T.string(), [0, 2, 5, 5], np.frombuffer(b"ok\xffab", np.uint8),
                          np.array([True, True, False]))
    with pytest.raises(EncodingError, match="invalid UTF-8 in string value at row 1"):
        json_values(column)
    assert json_values(column, TextStyle(invalid_utf8="replace")) == ["ok", "\ufffdab", None]


def test_cell_text():
    assert [cell_text(v) for v in (None, "", "é", True, False, 7, 2**64, 1e16, -0.0)] == [
        "", "", "é", "true", "false", "7", str(2**64), "1e+16", "-0.0"]
    assert cell_text(None, "NULL") == "NULL"
    assert cell_text({"a": [1, "é", None]}) == '{"a":[1,"é",null]}'
    assert csv_texts(column_from_values([1.5, None, float("nan")]), "-") == ["1.5", "-", "NaN"]


def test_csv_lines_quote_what_must_be_quoted():
    lines = CsvLines(";")
    assert lines.text([["a,b", "c;d", "e\rf", 'g"h'], [""], []]) == \
        'a,b;"c;d";"e\rf";"g""h"\n""\n\n'
    assert lines.text([]) == ""
    with pytest.raises(SchemaError, match="delimiter"):
        CsvLines('"')


# --- writers and reading back ----------------------------------------------------------------
def _zoned_table(counts):
    columns = [column_from_values(counts, T.timestamp("us", tz)) for tz in
               ("Europe/Paris", "+05:30", "UTC")]
    columns.append(column_from_values([b"\x00\xff"] * len(counts), T.binary()))
    return Table(columns, ["paris", "kolkata", "utc", "raw"])


def test_writers_default_reads_back_and_style_changes_spellings():
    counts = [SUMMER_2024 * 10**6 + 123456, None, -2_500_000_000 * 10**6]
    table = _zoned_table(counts)
    out = io.BytesIO()
    writer = CsvWriter(out, table.schema)
    writer.write(table)
    text = out.getvalue().decode()
    assert text.splitlines()[1] == ("2024-07-01T12:00:00.123456Z,2024-07-01T12:00:00.123456Z,"
                                    "2024-07-01T12:00:00.123456Z,AP8=")
    back = next(CsvReader(io.BytesIO(out.getvalue()), schema=table.schema).batches())
    assert back.to_pydict() == table.to_pydict()

    out = io.BytesIO()
    writer = JsonLinesWriter(out, table.schema, style=TextStyle(binary="hex",
                                                                zoned_timestamps="local"))
    writer.write(table)
    first = json.loads(out.getvalue().splitlines()[0])
    assert first == {"paris": "2024-07-01T14:00:00.123456+02:00",
                     "kolkata": "2024-07-01T17:30:00.123456+05:30",
                     "utc": "2024-07-01T12:00:00.123456Z", "raw": "00ff"}


def test_local_spelling_reads_back_where_the_offset_is_whole_minutes():
    table = _zoned_table([SUMMER_2024 * 10**6, WINTER_2024 * 10**6])
    out = io.BytesIO()
    writer = JsonLinesWriter(out, table.schema, style=LOCAL)
    writer.write(table)
    back = next(JsonLinesReader(io.BytesIO(out.getvalue()), schema=table.schema).batches())
    assert back.to_pydict() == table.to_pydict()


def test_writer_names_the_column_with_invalid_utf8():
    good = Table([column_from_values(["a"])], ["s"])
    bad = Table([BinaryColumn(T.string(), [0, 1], b"\xff")], ["s"])
    writer = CsvWriter(io.BytesIO(), good.schema)
    writer.write(good)
    with pytest.raises(EncodingError, match="column 's', batch starting at output row 1: "
                                            "invalid UTF-8"):
        writer.write(bad)
    lenient = CsvWriter(io.BytesIO(), bad.schema, style=TextStyle(invalid_utf8="replace"))
    lenient.write(bad)
    assert lenient.stream.getvalue().decode() == "s\n\ufffd\n"


# Local text that is documented not to read back: an offset with seconds, a local time
# outside the years 1 to 9999.
LOCAL_EXCEPTIONS = re.compile(r"[+-]\d\d:\d\d:\d\d$|^\d{5}|^0000-")
ZONES = ["UTC", "Europe/Paris", "America/New_York", "Asia/Kathmandu", "Australia/Lord_Howe",
         "+05:45", "-09:30"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ZONES), st.sampled_from(["s", "ms", "us", "ns"]), st.data())
def test_utc_spelling_always_reads_back(tz, unit, data):
    """Every instant from year 1 to 9999 that the unit holds: default text -> same count;
    local text -> same count too, unless its offset has seconds (documented)."""
    per = {"s": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}[unit]
    low, high = (-62135596800 * per, 253402300799 * per) if unit != "ns" else \
        (INT64_MIN + 1, INT64_MAX)
    counts = data.draw(st.lists(st.integers(low, high), min_size=1, max_size=20))
    type_ = T.timestamp(unit, tz)
    read = text_coercer(type_)
    assert [read(text) for text in values(counts, type_)] == counts
    for count, text in zip(counts, values(counts, type_, LOCAL)):
        if not LOCAL_EXCEPTIONS.search(text):
            assert read(text) == count, text
