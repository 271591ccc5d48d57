"""Binary views over pqkit's offsets + data (pqkit._native.views, columnar.arrow_views).

The view bytes are checked against the layout the Arrow columnar format gives;
the export is read back through pqkit's own view importer
(``arrow_c.views_to_binary`` behind ``Table.from_arrow``), so these tests need
no other library but pyarrow for the release tests, as in test_arrow_export.py.
The consumers (pyarrow, polars, DuckDB) are in tests/interop/test_string_views.py.
"""
import gc
import sys

import struct

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pqkit
from leak_check import traced_growth
from pqkit import datatypes as T
from pqkit._native import arrow_c
from pqkit._native.views import binary_views
from pqkit.columnar.arrow_views import binary_view_node
from pqkit.columnar.column import BinaryColumn, PrimitiveColumn
from pqkit.columnar.nested import DictionaryColumn, ListColumn
from pqkit.errors import SchemaError


def _column(values, type_=None):
    type_ = type_ or T.string()
    raw = [v.encode() if isinstance(v, str) else v for v in values]
    offsets = np.zeros(len(raw) + 1, np.int64)
    np.cumsum([len(v or b"") for v in raw], out=offsets[1:])
    data = np.frombuffer(b"".join(v or b"" for v in raw), np.uint8).copy()
    validity = None if all(v is not None for v in raw) else np.array([v is not None for v in raw])
    return BinaryColumn(type_, offsets, data, validity)


def _decode(views, buffers):
    """Offsets and data back from views, through pqkit's import kernel."""
    return arrow_c.views_to_binary(views.ctypes.data, 0, len(views),
                                   [b.ctypes.data for b in buffers], [len(b) for b in buffers])


def test_the_module_docstring_example():
    data = np.frombuffer(b"ab" b"user-000000000001" b"user-000000000002", np.uint8)
    views, buffers = binary_views(np.array([0, 2, 19, 36], np.int64), data)
    assert views[0].tobytes() == bytes.fromhex("02000000 6162 00000000000000000000")
    assert views[1].tobytes() == bytes.fromhex("11000000 75736572 00000000 00000000")
    assert views[2].tobytes() == bytes.fromhex("11000000 75736572 00000000 11000000")
    assert len(buffers) == 1 and buffers[0].ctypes.data == data.ctypes.data + 2
    assert len(buffers[0]) == 34


def test_inline_values_need_no_buffer():
    col = _column(["", "a", "exactly12byt", None])
    views, buffers = binary_views(col.offsets, col.data)
    assert buffers == []
    assert views[2, :4].view(np.int32)[0] == 12 and views[2, 4:].tobytes() == b"exactly12byt"


def test_offsets_not_starting_at_zero_keep_their_positions():
    col = _column(["x" * 20, "short", "y" * 30, "z" * 13]).slice(1, 4)
    views, buffers = binary_views(col.offsets, col.data)
    assert buffers[0].ctypes.data == col.data.ctypes.data + 25   # where "y"*30 starts
    offsets, data = _decode(views, buffers)
    assert data.tobytes() == b"short" + b"y" * 30 + b"z" * 13
    assert offsets.tolist() == [0, 5, 35, 48]


def test_data_beyond_one_buffer_is_split_without_copying():
    values = [bytes([65 + i % 26]) * (13 + i % 40) for i in range(200)]
    col = _column(values, T.binary())
    views, buffers = binary_views(col.offsets, col.data, max_buffer=100)
    assert len(buffers) > 40
    base, end = col.data.ctypes.data, col.data.ctypes.data + len(col.data)
    assert all(base <= b.ctypes.data and b.ctypes.data + len(b) <= end for b in buffers)
    assert all(len(b) <= 100 for b in buffers)
    offsets, data = _decode(views, buffers)
    assert data.tobytes() == b"".join(values)
    assert np.array_equal(offsets, col.offsets)


def test_a_value_longer_than_a_buffer_is_refused():
    col = _column(["a" * 20, "b" * 200])
    with pytest.raises(SchemaError, match="row 1 has 200 bytes"):
        binary_views(col.offsets, col.data, max_buffer=100)


def _reference_views(offsets, data):
    """The view bytes as the Arrow format describes them, one buffer (data from the
    first long value on), built byte by byte."""
    out, first = b"", None
    for s, e in zip(offsets[:-1], offsets[1:]):
        value = bytes(data[s:e])
        if len(value) <= 12:
            out += struct.pack("<i", len(value)) + value.ljust(12, b"\0")
        else:
            first = s if first is None else first
            out += struct.pack("<i4sii", len(value), value[:4], 0, s - first)
    return out


@settings(max_examples=200, deadline=None)
@given(lengths=st.lists(st.integers(0, 30), max_size=60), lead=st.integers(0, 5),
       trail=st.integers(0, 3), seed=st.integers(0, 2**32 - 1))
def test_views_equal_the_layout_byte_for_byte(lengths, lead, trail, seed):
    """Short values (loaded 12 bytes at a time, or byte by byte near the end of the
    data), long values and empty ones, with data before and after the offsets."""
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 256, lead + sum(lengths) + trail, dtype=np.uint8)
    offsets = np.array([lead] + list(np.cumsum(lengths) + lead), np.int64)
    views, buffers = binary_views(offsets, data)
    assert views.shape == (len(lengths), 16) and views.dtype == np.uint8
    assert views.tobytes() == _reference_views(offsets, data)
    assert len(buffers) == (1 if any(n > 12 for n in lengths) else 0)


@pytest.mark.parametrize("offsets, match", [
    ([0, 5, 3], "decrease at row 1"), ([0, 13, 2, 9], "decrease at row 1"),
    ([0, 4, 99], "leave the 10 data bytes"),
    ([-1, 2], "leave the 10 data bytes")])
def test_bad_offsets_are_refused(offsets, match):
    with pytest.raises(SchemaError, match=match):
        binary_views(np.array(offsets, np.int64), np.zeros(10, np.uint8))


def test_dictionary_decoded_column_shares_the_distinct_values():
    source = _column(["a value longer than twelve", "tiny", "another long distinct value"])
    positions = np.array([2, 0, 0, 1, 2, 0], np.uint8)
    validity = np.array([True, True, False, True, True, True])
    col = BinaryColumn._gather(T.string(), source, positions, validity)
    node = binary_view_node(col, np.packbits(validity, bitorder="little"), 1)
    length, nulls, _, buffers, _, _ = node
    assert (length, nulls) == (6, 1)
    assert buffers[2].ctypes.data == source.data.ctypes.data     # the dictionary's own bytes
    assert buffers[-1].tolist() == [len(source.data)]
    assert col._offsets is None                                  # rows' bytes never built
    back = pqkit.Table.from_arrow(pqkit.Table({"s": col}).arrow_stream(string_view=True))
    assert back.column("s").to_pylist() == [
        "another long distinct value", "a value longer than twelve", None, "tiny",
        "another long distinct value", "a value longer than twelve"]


def test_table_round_trips_through_its_own_views():
    t = _nested_table()
    back = pqkit.Table.from_arrow(t.arrow_stream(string_view=True))
    assert back.equals(t)
    assert back.to_pydict() == t.to_pydict()


def test_schema_names_view_formats_and_leaves_dictionaries():
    t = _nested_table()
    node = arrow_c.schema_from_capsule(t.arrow_stream(string_view=True).__arrow_c_schema__())
    formats = {c[1]: c[0] for c in node[4]}
    assert formats == {"s": "vu", "b": "vz", "l": "+l", "d": "i", "n": "l"}
    assert node[4][2][4][0][0] == "vu"                  # the list's items
    assert node[4][3][5][0] == "u"                      # dictionary values stay strings
    plain = arrow_c.schema_from_capsule(t.__arrow_c_schema__())
    assert [c[0] for c in plain[4]] == ["u", "z", "+l", "i", "l"]


def _nested_table():
    s = _column(["short", None, "a string longer than twelve bytes", "", "x" * 13])
    b = _column([b"\x00" * 13, b"\xff", None, b"", b"bin"], T.binary())
    items = _column(["p" * 20, "q", "r" * 15, "s"])
    lst = ListColumn(T.list_(T.string()), np.array([0, 2, 2, 3, 4, 4]), items,
                     np.array([True, False, True, True, True]))
    d = DictionaryColumn(T.dictionary(T.int32(), T.string()),
                         np.array([1, 0, 1, 1, 0], np.int32), _column(["dict value one!", "b"]))
    return pqkit.Table({"s": s, "b": b, "l": lst, "d": d,
                        "n": PrimitiveColumn(T.int64(), np.arange(5, dtype=np.int64))})


def test_release_drops_the_data_references():
    t = _nested_table()
    data = t.column("s").data
    before = sys.getrefcount(data)
    reader = pa.RecordBatchReader.from_stream(t.arrow_stream(string_view=True))
    batch = reader.read_next_batch()
    assert sys.getrefcount(data) > before
    del batch, reader
    gc.collect()
    assert sys.getrefcount(data) == before


def test_no_leak_over_a_thousand_view_exports():
    t = _nested_table()
    stream = t.arrow_stream(string_view=True)

    def exports():
        pa.table(stream)
        pqkit.Table.from_arrow(stream)
    grown = traced_growth(exports)
    # Each export makes views and buffer lists of a few hundred bytes: a leak of them
    # over 1,000 exports would pass 200 KB.
    assert grown < 200_000, grown
