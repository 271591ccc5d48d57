"""A caller's mistake in the public API raises a ParquetError naming the argument, and
stays the built-in class it was (TypeError, ValueError, IndexError, KeyError) so that
code catching those keeps working."""
import os
import shutil

import pytest

import pqkit
import pqkit.dataset as pds
from pqkit.errors import ArgumentError, ArgumentIndexError, ArgumentKeyError

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "fixtures", "sample.parquet")


@pytest.fixture
def pf():
    with pqkit.ParquetFile(SAMPLE) as f:
        yield f


def _raises(kind, was, match, call):
    with pytest.raises(kind, match=match) as info:
        call()
    assert isinstance(info.value, pqkit.ParquetError) and isinstance(info.value, was)
    return info.value


@pytest.mark.parametrize("value", [3, "Paris", None])
def test_in_filter_without_a_list(value):
    _raises(ArgumentError, TypeError, r"filters: \('city', 'in', .*'in' takes a list",
            lambda: pqkit.read_table(SAMPLE, filters=[("city", "in", value)]))


def test_in_filter_with_a_list_still_reads():
    t = pqkit.read_table(SAMPLE, filters=[("id", "in", (1, 2))], columns=["id"])
    assert t.column("id").to_pylist() == [1, 2]


def test_dataset_version_that_is_not_a_number(tmp_path, monkeypatch):
    monkeypatch.setenv("PQKIT_DATASET_FSYNC", "0")
    root = str(tmp_path / "ds")
    pds.write(root, {"id": [1]})
    for bad in ("v0", 1.0, [0]):
        _raises(ArgumentError, ValueError, "version must be a version number",
                lambda: pds.open(root, version=bad))
    assert pds.open(root, version="0").version == 0
    _raises(ArgumentError, TypeError, "columns must be a list of names, not a string: 'id'",
            lambda: pds.open(root).read(columns="id"))


@pytest.mark.parametrize("buffers", [[1, 2], {"a": b"x"}, 5, [(0, "text")]])
def test_buffers_of_the_wrong_shape(pf, buffers):
    _raises(ArgumentError, (TypeError, ValueError), "buffers must be",
            lambda: pf.read(buffers=buffers))


def test_buffers_as_plan_names_them_still_read(pf):
    data = open(SAMPLE, "rb").read()
    ranges = pf.plan(columns=["id"])
    t = pf.read(columns=["id"], buffers={(o, n): data[o:o + n] for o, n in ranges})
    assert t.column("id").to_pylist() == list(range(12))


def test_columns_as_one_string(pf):
    _raises(ArgumentError, TypeError, "columns must be a list of names, not a string: 'id'",
            lambda: pf.read(columns="id"))


def test_row_groups_out_of_range_or_not_numbers(pf):
    _raises(ArgumentIndexError, IndexError, "row_groups: row group 5 out of range",
            lambda: pf.read(row_groups=[5]))
    _raises(ArgumentError, TypeError, "row_groups: 'a' is not a row group number",
            lambda: pf.read(row_groups=["a"]))
    _raises(ArgumentIndexError, IndexError, "row group 9 out of range",
            lambda: pf.read_row_group(9))
    _raises(ArgumentError, TypeError, "read_row_group: '0' is not a row group number",
            lambda: pf.read_row_group("0"))


def test_batch_size(pf):
    _raises(ArgumentError, ValueError, "batch_size must be a positive int, got 0",
            lambda: pf.iter_batches(0))


def test_take_rows(pf):
    _raises(ArgumentIndexError, IndexError, "row_indices: row 100 out of range",
            lambda: pf.take([100]))
    _raises(ArgumentError, TypeError, "row_indices must be a sequence of ints",
            lambda: pf.take(["a"]))


def test_unknown_column_names():
    err = _raises(ArgumentKeyError, KeyError, "no column 'nope' in the schema",
                  lambda: pqkit.read_metadata(SAMPLE).schema.column("nope"))
    assert str(err) == "no column 'nope' in the schema"
    _raises(ArgumentKeyError, KeyError, "no column named 'nope'",
            lambda: pqkit.read_table(SAMPLE).column("nope"))


def test_read_options():
    _raises(ArgumentError, ValueError, "variant must be 'struct' or 'decode', got 'json'",
            lambda: pqkit.read_table(SAMPLE, variant="json"))
    _raises(ArgumentError, TypeError, "cannot read Parquet from int: give a path",
            lambda: pqkit.read_table(12))
    t = pqkit.read_table(SAMPLE)
    _raises(ArgumentError, ValueError, "strings must be one of", lambda: t.to_pandas(
        strings="nope"))
    _raises(ArgumentError, ValueError, "decimals must be one of", lambda: t.to_pandas(
        decimals="nope"))


def test_filter_text_and_variant_bytes():
    _raises(ArgumentError, TypeError, "a filter expression is a str, not int",
            lambda: pqkit.parse_filter(5))
    _raises(ArgumentError, TypeError, "value must be bytes-like, not str",
            lambda: pqkit.variant.decode(b"\x01\x00\x00", "x"))
    assert pqkit.variant.decode(bytearray(b"\x01\x00\x00"), memoryview(b"\x0c\x05")) == 5


def test_edit_metadata_entries(tmp_path):
    path = tmp_path / "s.parquet"
    shutil.copy(SAMPLE, path)
    _raises(ArgumentError, TypeError, "key_value_metadata must be a dict",
            lambda: pqkit.edit_metadata(path, key_value_metadata=["a"]))


def test_the_argument_errors_are_exported():
    assert {"ArgumentError", "ArgumentIndexError", "ArgumentKeyError"} <= set(pqkit.__all__)
    assert pqkit.ArgumentKeyError is ArgumentKeyError


def test_read_options_values():
    for bad in (-1, "x", 1.5, True):
        _raises(ArgumentError, (TypeError, ValueError),
                r"ReadOptions\(tail_read=...\) must be an int >= 0", lambda: pqkit.ReadOptions(
                    tail_read=bad))
    assert pqkit.ReadOptions(max_concurrency=0).max_concurrency == 0


def test_filters_given_as_text():
    _raises(ArgumentError, (TypeError, ValueError), r"filters: 'id > 3' is text; .*parse_filter",
            lambda: pqkit.read_table(SAMPLE, filters="id > 3"))
    assert pqkit.read_table(SAMPLE, filters=pqkit.parse_filter("id > 10")).num_rows == 1


def test_writer_and_table_arguments(tmp_path):
    _raises(ArgumentError, TypeError, "row_group_size must be a positive int, got 'x'",
            lambda: pqkit.write_table({"a": [1]}, tmp_path / "w.parquet", row_group_size="x"))
    t = pqkit.read_table(SAMPLE)
    _raises(ArgumentError, TypeError, "slice takes ints or None, got start='a'",
            lambda: t.slice("a"))
    _raises(ArgumentError, TypeError, "int implements neither __arrow_c_stream__",
            lambda: pqkit.Table.from_arrow(5))
    _raises(ArgumentIndexError, IndexError, "row group index 9 out of range",
            lambda: pqkit.read_metadata(SAMPLE).row_group(9))


def test_concat_arguments(tmp_path):
    out = tmp_path / "c.parquet"
    _raises(ArgumentError, TypeError, "sources must be a list of files, not one path",
            lambda: pqkit.concat(SAMPLE, out))
    for bad in (0, -1, "10"):
        _raises(ArgumentError, ValueError, "row_group_size must be a positive int or None",
                lambda: pqkit.concat([SAMPLE], out, row_group_size=bad))
    assert not out.exists()
    pqkit.concat([SAMPLE, SAMPLE], out, row_group_size=12)
    assert pqkit.read_metadata(out).num_rows == 24


def test_compression_level_is_checked_before_the_file_is_opened(tmp_path):
    out = tmp_path / "w.parquet"
    _raises(ArgumentError, TypeError, "compression_level for column a must be an int, got 'x'",
            lambda: pqkit.write_table({"a": [1]}, out, compression_level="x"))
    _raises(ArgumentError, TypeError, "compression_level for column b must be an int",
            lambda: pqkit.write_table({"a": [1], "b": [2]}, out,
                                      compression_level={"a": 3, "b": 1.5}))
    assert not out.exists()
    pqkit.write_table({"a": [1]}, out, compression_level=3)
    assert pqkit.read_table(out).to_pydict() == {"a": [1]}
