"""Canonical text of types and values, bound truncation and Hive path escaping (§3.2, §3.5)."""
import datetime
import decimal

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pqkit import SchemaError, datatypes as T
from pqkit.dataset.core.canonical import (
    civil_from_days,
    codec_for,
    date_text,
    days_from_civil,
    timestamp_ns,
    truncate_max,
    truncate_min,
    type_from_json,
    type_to_json,
)
from pqkit.dataset.core.partitioning import (
    HIVE_NULL,
    PartitionColumn,
    Partitioning,
    escape_path_component,
    parse_partition_dirs,
    unescape_path_component,
)

TYPES = [T.bool_(), T.int8(), T.int16(), T.int32(), T.int64(), T.uint8(), T.uint16(),
         T.uint32(), T.uint64(), T.float16(), T.float32(), T.float64(), T.string(),
         T.large_string(), T.binary(), T.large_binary(), T.fixed_size_binary(5),
         T.decimal(18, 2), T.decimal(40, 10), T.date32(), T.date64(), T.time32("ms"),
         T.time64("ns"), T.timestamp("us"), T.timestamp("ns", "UTC"),
         T.timestamp("ms", "Europe/Berlin"), T.duration("s"), T.uuid(), T.null(),
         T.list_(T.int32()), T.large_list(T.string()), T.fixed_size_list(T.float64(), 3),
         T.struct([("a", T.int64()), T.field("b", T.string(), nullable=False)]),
         T.map_(T.string(), T.int64())]


@pytest.mark.parametrize("t", TYPES, ids=str)
def test_type_spelling_round_trips(t):
    assert type_from_json(type_to_json(t)) == t


def test_type_spellings_follow_the_design_examples():
    assert type_to_json(T.int64()) == "int64"
    assert type_to_json(T.decimal(18, 2)) == "decimal(18,2)"
    assert type_to_json(T.timestamp("us", "UTC")) == "timestamp(us,utc)"
    assert type_to_json(T.dictionary(T.int32(), T.string())) == "string"


def test_bad_type_spelling_is_a_schema_error():
    with pytest.raises(SchemaError, match="bad type"):
        type_from_json("int128")
    with pytest.raises(SchemaError, match="bad type"):
        type_from_json({"type": "tree"})


@pytest.mark.parametrize("t, raw, text", [
    (T.bool_(), True, "true"),
    (T.int64(), -(2 ** 63), "-9223372036854775808"),
    (T.uint64(), 2 ** 64 - 1, "18446744073709551615"),
    (T.float64(), -0.0, "-0.0"),
    (T.float64(), float("inf"), "inf"),
    (T.float64(), 1e300, "1e+300"),
    (T.float64(), 0.1, "0.1"),
    (T.float32(), float(np.float32(0.1)), "0.10000000149011612"),
    (T.float32(), 3.0, "3.0"),
    (T.decimal(18, 2), -1250, "-12.50"),
    (T.decimal(9, 3), 5, "0.005"),
    (T.decimal(5, 0), -7, "-7"),
    (T.string(), "é/x", "é/x"),
    (T.binary(), b"\x00\xff", "AP8="),
    (T.date32(), 19753, "2024-01-31"),
    (T.date32(), -719529, "-0001-12-31"),
    (T.date32(), 2932897, "+10000-01-01"),
    (T.timestamp("us", "UTC"), 1706702400123456, "2024-01-31T12:00:00.123456Z"),
    (T.timestamp("s"), -1, "1969-12-31T23:59:59"),
    (T.timestamp("ns"), 1, "1970-01-01T00:00:00.000000001"),
    (T.timestamp("ms"), -(2 ** 63), "-292275055-05-16T16:47:04.192"),
    (T.time64("us"), 3723000000, "01:02:03.000000"),
    (T.duration("ms"), -5, "-5"),
])
def test_value_text(t, raw, text):
    codec = codec_for(t)
    assert codec.text(raw) == text
    back = codec.raw(text)
    assert back == raw and str(back) == str(raw) or (isinstance(raw, float) and
                                                     codec.text(back) == text)


@pytest.mark.parametrize("t, bad", [
    (T.int32(), "1.0"), (T.int32(), "2147483648"), (T.decimal(9, 2), "1.5"),
    (T.bool_(), "True"), (T.date32(), "2024-13-01"), (T.timestamp("us", "UTC"),
                                                      "2024-01-01T00:00:00.000000"),
    (T.timestamp("s"), "2024-01-01T00:00:00.5"), (T.float64(), "1,5")])
def test_non_canonical_text_is_refused(t, bad):
    with pytest.raises(ValueError):
        codec_for(t).raw(bad)


@given(st.integers(-10 ** 7, 10 ** 7))
def test_civil_calendar_matches_python(days):
    y, m, d = civil_from_days(days)
    assert days_from_civil(y, m, d) == days
    if 1 <= y <= 9999:
        assert datetime.date(y, m, d) == datetime.date(1970, 1, 1) + datetime.timedelta(days)
        assert date_text(days) == datetime.date(y, m, d).isoformat()


@given(st.integers(-(2 ** 63), 2 ** 63 - 1), st.sampled_from(["s", "ms", "us", "ns"]),
       st.sampled_from([None, "UTC"]))
def test_timestamp_text_round_trips_at_every_unit(raw, unit, tz):
    codec = codec_for(T.timestamp(unit, tz))
    assert codec.raw(codec.text(raw)) == raw
    assert codec.key(raw) == raw * {"s": 10 ** 9, "ms": 10 ** 6, "us": 1000, "ns": 1}[unit]


@given(st.one_of(st.tuples(st.floats(allow_nan=False, width=32), st.just(32)),
                 st.tuples(st.floats(allow_nan=False), st.just(64))))
def test_float_text_is_shortest_round_trip(case):
    v, bits = case
    t = T.float64() if bits == 64 else T.float32()
    text = codec_for(t).text(v)
    assert codec_for(t).raw(text) == v
    assert text == repr(v)                   # exact as a double: safe under widening


@given(st.integers(-(10 ** 20), 10 ** 20), st.integers(0, 12))
def test_decimal_text_has_exactly_scale_digits(unscaled, scale):
    codec = codec_for(T.decimal(38, scale))
    text = codec.text(unscaled)
    assert codec.raw(text) == unscaled
    assert decimal.Decimal(text) == decimal.Decimal(unscaled).scaleb(-scale)
    if scale:
        assert len(text.split(".")[1]) == scale


def test_filter_value_keys_are_exact():
    ts = codec_for(T.timestamp("us"))
    assert ts.value_key(datetime.datetime(1970, 1, 1, 0, 0, 1)) == 10 ** 9
    assert ts.value_key(datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) is None
    aware = codec_for(T.timestamp("ms", "UTC"))
    berlin = datetime.timezone(datetime.timedelta(hours=1))
    assert aware.value_key(datetime.datetime(1970, 1, 1, 1, tzinfo=berlin)) == 0
    assert timestamp_ns(datetime.datetime(2000, 1, 1), True) is None
    assert codec_for(T.date32()).value_key(datetime.date(1970, 1, 2)) == 1
    assert codec_for(T.date32()).value_key(datetime.datetime(1970, 1, 2)) is None
    assert codec_for(T.string()).value_key(b"x") is None
    assert codec_for(T.int64()).value_key(2 ** 63 - 1) == 2 ** 63 - 1


def test_string_bounds_truncate_at_code_points():
    s = "日本語" * 30                                  # 270 bytes
    lo, exact = truncate_min(s)
    assert not exact and len(lo.encode()) <= 64 and s.startswith(lo)
    hi, exact = truncate_max(s)
    assert not exact and hi > s and len(hi) == len(lo)
    assert truncate_max("\U0010ffff" * 20) == (None, False)
    assert truncate_max("a" + "\U0010ffff" * 20)[0] == "b"
    assert truncate_min("short") == ("short", True)


def test_binary_bounds_truncate_bytewise():
    hi, exact = truncate_max(b"\x01" + b"\xff" * 80)
    assert hi == b"\x02" and not exact
    assert truncate_max(b"\xff" * 80) == (None, False)
    assert truncate_min(b"x" * 80) == (b"x" * 64, False)


HARD_VALUES = ["a/b", "k=v", "100%", "12:30", "why?", "#tag", "two words", "é", "a+b",
               "<>|", "back\\slash", "quote\"'", "tab\tnl\n", "[x]{y}^*", "日本"]


@pytest.mark.parametrize("value", HARD_VALUES)
def test_path_escaping_round_trips(value):
    escaped = escape_path_component(value)
    assert "/" not in escaped and "=" not in escaped and ":" not in escaped
    assert unescape_path_component(escaped) == value


def test_escaping_keeps_space_plus_and_non_ascii_raw():
    assert escape_path_component("a b+é") == "a b+é"
    assert escape_path_component("a/b%c") == "a%2Fb%25c"
    assert escape_path_component("<|>") == "%3C%7C%3E"


def test_partition_directory_and_parse():
    p = Partitioning([PartitionColumn("k", T.string()), PartitionColumn("d", T.date32())])
    d = p.directory({"k": "a/b=c %d é+#", "d": "2024-01-31"})
    assert d == "k=a%2Fb%3Dc %25d é+%23/d=2024-01-31"
    assert parse_partition_dirs(d + "/part.parquet") == [("k", "a/b=c %d é+#"),
                                                         ("d", "2024-01-31")]
    assert p.directory({"k": None, "d": "2024-01-31"}).startswith(f"k={HIVE_NULL}/")


def test_timestamp_partition_path_is_hive_style():
    col = PartitionColumn("ts", T.timestamp("us", "UTC"))
    text = col.text_of_value(datetime.datetime(2024, 1, 31, 12, tzinfo=datetime.timezone.utc))
    assert text == "2024-01-31T12:00:00.000000Z"
    assert Partitioning([col]).directory({"ts": text}) == "ts=2024-01-31 12%3A00%3A00"
    assert col.codec.from_path_text("2024-01-31 12:00:00") == text


def test_empty_string_and_reserved_token_are_refused():
    col = PartitionColumn("k", T.string())
    with pytest.raises(SchemaError, match="empty string"):
        col.text_of_value("")
    assert col.text_of_value("", empty_string_as_null=True) is None
    with pytest.raises(SchemaError, match="reserved"):
        col.text_of_value(HIVE_NULL)


@pytest.mark.parametrize("name", ["_hidden", ".dot", ""])
def test_partition_column_names_that_readers_hide_are_refused(name):
    with pytest.raises(SchemaError):
        PartitionColumn(name, T.string())


def test_partition_column_types_are_limited():
    with pytest.raises(SchemaError, match="partition columns may be"):
        PartitionColumn("b", T.binary())
    with pytest.raises(SchemaError, match="partition columns may be"):
        PartitionColumn("l", T.list_(T.int32()))


def test_partition_values_come_back_typed():
    col = PartitionColumn("d", T.decimal(20, 3))
    assert col.value("-1.250") == decimal.Decimal("-1.250")
    assert PartitionColumn("t", T.date32()).value("2024-02-29") == datetime.date(2024, 2, 29)
    assert PartitionColumn("i", T.uint64()).column("18446744073709551615", 3).to_pylist() == \
        [2 ** 64 - 1] * 3
    assert PartitionColumn("s", T.string()).column(None, 2).to_pylist() == [None, None]


@settings(max_examples=60)
@given(st.text(min_size=1).filter(lambda s: s != HIVE_NULL and "\x00" not in s))
def test_any_text_survives_escaping(value):
    assert unescape_path_component(escape_path_component(value)) == value
