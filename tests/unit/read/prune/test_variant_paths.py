"""Filters into VARIANT columns ("v:$.a.b"): exact answers, and pruning by the shredded
column only where the field's fallback value column is all null."""
import io

import pytest

import pqkit
from pqkit import datatypes as T
from pqkit.variant import variant_column

N = 40_000
SHRED_X = {"v": T.struct([("x", T.int64())])}


def _file(values, shredding=SHRED_X, **settings):
    buf = io.BytesIO()
    pqkit.write_table({"id": list(range(len(values))), "v": variant_column(values)}, buf,
                      shredding=shredding, **settings)
    return buf.getvalue()


def _read(data, filters):
    stats = pqkit.ReadStatistics()
    table = pqkit.read_table(io.BytesIO(data), filters=filters, statistics=stats)
    return table.column("id").to_pylist(), stats


@pytest.fixture(scope="module")
def sorted_file():
    return _file([{"x": i, "s": "text"} for i in range(N)], data_page_size=4096)


def test_a_one_percent_range_decodes_at_most_five_percent_of_the_pages(sorted_file):
    full = pqkit.ReadStatistics()
    pqkit.read_table(io.BytesIO(sorted_file), statistics=full)
    ids, stats = _read(sorted_file, [("v:$.x", ">=", 20_000), ("v:$.x", "<", 20_400)])
    assert ids == list(range(20_000, 20_400))
    assert stats.pages_decoded <= 0.05 * full.pages_decoded


def test_a_value_in_the_fallback_column_is_never_pruned():
    values = [{"x": i} for i in range(N)]
    values[10] = {"x": 30_000.5}            # a double: kept in x's fallback value column
    data = _file(values, data_page_size=4096)
    ids, stats = _read(data, [("v:$.x", ">", 30_000), ("v:$.x", "<", 30_001)])
    assert ids == [10]
    assert stats.pages_skipped > 0          # pages whose fallback is all null still skip


def test_row_groups_with_values_in_the_fallback_are_read():
    values = [{"x": i} for i in range(100)] + [{"x": "text"}] + [{"x": i} for i in range(99)]
    data = _file(values, row_group_size=100)
    plan = pqkit.explain_filter(io.BytesIO(data), [("v:$.x", ">", 1000)])
    first, second = plan["row_groups"]
    assert first["skipped"] and first["checks"][0]["column"] == "v:$.x"
    assert not second["skipped"]
    assert "holds values of any type" in second["checks"][0]["detail"]
    assert _read(data, [("v:$.x", ">", 1000)])[0] == []


def test_unshredded_paths_are_decided_after_decoding():
    data = _file([{"a": {"b": 1}}, {"a": {"b": "1"}}, {"a": 2}, None, {"a": {"b": 3}}],
                 shredding=None)
    assert _read(data, [("v:$.a.b", ">=", 1)])[0] == [0, 4]
    assert _read(data, [("v:$.a.b", "==", "1")])[0] == [1]
    assert _read(data, [("v:$.a.b", "not in", [1])])[0] == [1, 2, 3, 4]


def test_the_whole_value_is_v_dollar():
    data = _file([1, "a", 3], shredding={"v": T.int64()}, row_group_size=1)
    ids, stats = _read(data, [("v:$", ">=", 2)])
    assert ids == [2] and stats.row_groups_skipped == {"statistics": 1}


def test_names_with_a_plain_colon_stay_column_names():
    buf = io.BytesIO()
    pqkit.write_table({"p:part": [1, 2]}, buf)
    table = pqkit.read_table(io.BytesIO(buf.getvalue()), filters=[("p:part", "==", 2)])
    assert table.column("p:part").to_pylist() == [2]


def test_dotted_struct_paths_are_not_variant_paths():
    buf = io.BytesIO()
    pqkit.write_table({"p": [{"x": 1}, {"x": 5}]}, buf)
    table = pqkit.read_table(io.BytesIO(buf.getvalue()), filters=[("p.x", ">", 2)])
    assert table.column("p").to_pylist() == [{"x": 5}]


@pytest.mark.parametrize("column, message", [("v:$x", "column:\\$.field"),
                                             (":$.x", "column:\\$.field"),
                                             ("v:$.a..b", "column:\\$.field"),
                                             ("id:$.x", "not a VARIANT")])
def test_bad_variant_paths_are_schema_errors(column, message):
    data = _file([{"x": 1}])
    with pytest.raises(pqkit.SchemaError, match=message):
        _read(data, [(column, "==", 1)])
