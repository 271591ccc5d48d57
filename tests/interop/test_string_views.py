"""``Table.arrow_stream(string_view=True)``: strings as Arrow views, into pyarrow, polars
and DuckDB.

Each consumer must see the same values as from the plain export
(``pyarrow.table(t)`` / ``polars.DataFrame(t)`` / ``select * from t``, which
tests/interop/test_arrow_exchange.py checks against pyarrow's own reading),
string and binary columns now typed as views where the consumer keeps them,
and the variadic data buffers must be the Table's own memory.
"""
import io

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from test_read_pyarrow_files import all_types_table

import pqkit
from arrow_bridge import same_values

pytestmark = pytest.mark.interop

# Types a consumer refuses whatever the string layout (see test_arrow_exchange.py).
POLARS_REFUSES = ("decimal256", "+05:30", "parquet.interval", "month_day_nano", "halffloat")
DUCKDB_REFUSES = ("halffloat", "month_day_nano", "decimal256")


def _read(table, **kw):
    buf = io.BytesIO()
    pq.write_table(table, buf, **kw)
    return pqkit.read_table(buf.getvalue())


TABLE = _read(all_types_table())
STRINGS = _read(pa.table({
    "low": pa.array([f"category-{i % 7:03d}" if i % 11 else None for i in range(2000)]),
    "high": pa.array([f"user-{i:012d}-{i * 7919 % 1000:04d}" for i in range(2000)]),
    "mixed": pa.array(["" if i % 5 == 0 else "s" * (i % 40) for i in range(2000)]),
    "bin": pa.array([bytes([i % 256]) * (i % 30) for i in range(2000)], pa.binary()),
}), use_dictionary=["low"])


def _without(t, refused):
    return t.select([f.name for f in t.schema if not any(r in str(f.type) for r in refused)])


def _views(t):
    return t.arrow_stream(string_view=True)


def _normal(arrow_type):
    """``arrow_type`` with every string type as ``string`` and binary type as ``binary``
    (views and large types alike), so the two exports' types compare."""
    if arrow_type in (pa.string_view(), pa.large_string()):
        return pa.string()
    if arrow_type in (pa.binary_view(), pa.large_binary()):
        return pa.binary()
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        ctor = pa.large_list if pa.types.is_large_list(arrow_type) else pa.list_
        return ctor(arrow_type.value_field.with_type(_normal(arrow_type.value_type)))
    if pa.types.is_map(arrow_type):
        return pa.map_(arrow_type.key_field.with_type(_normal(arrow_type.key_type)),
                       arrow_type.item_field.with_type(_normal(arrow_type.item_type)))
    if pa.types.is_struct(arrow_type):
        return pa.struct([f.with_type(_normal(f.type)) for f in arrow_type])
    return arrow_type


@pytest.mark.parametrize("t", [TABLE, STRINGS, TABLE.slice(37, 211)], ids=["all_types",
                                                                          "strings", "slice"])
def test_pyarrow_reads_views_equal_to_the_plain_export(t):
    views, plain = pa.table(_views(t)), pa.table(t)
    views.validate(full=True)
    assert views.column_names == plain.column_names
    for name in plain.column_names:
        got, want = views.column(name), plain.column(name)
        assert _normal(got.type) == _normal(want.type), name
        same_values(got.to_pylist(), want.to_pylist(), name)


def test_view_types_only_where_strings_are():
    views = pa.table(_views(TABLE)).schema
    assert views.field("str_high").type == pa.string_view()
    assert views.field("large_str").type == pa.string_view()
    assert views.field("bin").type == pa.binary_view()
    assert views.field("struct").type.field("b").type == pa.string_view()
    assert views.field("map").type.key_type == pa.string_view()
    assert views.field("dict").type == pa.dictionary(pa.int32(), pa.string())
    assert views.field("fixed").type == pa.binary(5)


def test_pyarrow_shares_the_data_buffers():
    p = pa.table(_views(STRINGS))
    high = p.column("high").chunk(0).buffers()
    # validity (none), views, one variadic buffer: the column's data from its first value
    assert high[2].address == STRINGS.column("high").data.ctypes.data
    assert high[2].size == len(STRINGS.column("high").data)
    mixed = STRINGS.column("mixed")
    first_long = int(next(o for o, n in zip(mixed.offsets, mixed.value_lengths()) if n > 12))
    assert p.column("mixed").chunk(0).buffers()[2].address == mixed.data.ctypes.data + first_long
    # values of at most 12 bytes live in their views: no data buffer at all
    assert len(p.column("low").chunk(0).buffers()) == 2


def test_views_outlive_the_table():
    t = _read(pa.table({"s": [f"a value of some length {i}" for i in range(500)]}))
    p = pa.table(_views(t))
    want = t.column("s").to_pylist()
    del t
    assert p.column("s").to_pylist() == want


def test_polars_takes_views_without_copying_the_strings():
    for t in (_without(TABLE, POLARS_REFUSES), STRINGS):
        ours = pl.DataFrame(_views(t))
        assert ours.equals(pl.DataFrame(t), null_equal=True)
    back = ours.to_arrow(compat_level=pl.CompatLevel.newest())
    assert back.schema.field("high").type == pa.string_view()
    assert back.column("high").chunk(0).buffers()[2].address == \
        STRINGS.column("high").data.ctypes.data


def test_duckdb_scans_views():
    for t in (_without(TABLE, DUCKDB_REFUSES), STRINGS):
        v = _views(t)       # noqa: F841 (DuckDB finds Python variables by name)
        got = duckdb.sql("select * from v").to_arrow_table()
        want = duckdb.sql("select * from t").to_arrow_table()
        assert got.column_names == want.column_names
        for name in want.column_names:
            same_values(got.column(name).to_pylist(), want.column(name).to_pylist(), name)
    count = duckdb.sql("select count(*) from v where high like 'user-0000000001%'").fetchall()
    assert count == [(100,)]


def test_pqkit_reads_its_own_views_back():
    back = pqkit.Table.from_arrow(_views(TABLE))
    # views have no pqkit type of their own: they come back as string / binary
    assert str(back.field("large_str").type) == "string"
    assert str(back.field("bin").type) == "binary"
    ours, theirs = back.to_pydict(), TABLE.to_pydict()
    assert list(ours) == list(theirs)
    for name in theirs:
        same_values(ours[name], theirs[name], name)


# --- ParquetFile.arrow_stream: row groups decoded up front, one batch each -------------------

def _multi_group_file(tmp_path):
    n = 3000
    t = pa.table({
        "id": pa.array(range(n), pa.int64()),
        "name": pa.array([f"name number {i % 1300:05d}" if i % 9 else None for i in range(n)]),
        "tag": pa.array([f"t{i % 3}" for i in range(n)]),
        "items": pa.array([[f"item-{j}-of-a-longer-kind" for j in range(i % 4)]
                           for i in range(n)]),
    })
    path = tmp_path / "groups.parquet"
    # the dictionary of "name" overflows: its chunks mix dictionary and plain pages
    pq.write_table(t, path, row_group_size=700, dictionary_pagesize_limit=2000)
    return path, t


def test_file_stream_has_one_batch_per_row_group(tmp_path):
    path, t = _multi_group_file(tmp_path)
    with pqkit.ParquetFile(path) as f:
        stream = f.arrow_stream(string_view=True)
    reader = pa.RecordBatchReader.from_stream(stream)
    assert reader.schema.field("name").type == pa.string_view()
    batches = list(reader)
    assert [b.num_rows for b in batches] == [700, 700, 700, 700, 200]
    got = pa.Table.from_batches(batches)
    for name in t.column_names:
        assert got.column(name).to_pylist() == t.column(name).to_pylist(), name
    # a stream producer can be read again
    assert pa.table(stream).num_rows == 3000


def test_file_stream_into_polars_equals_polars_reading_the_file(tmp_path):
    path, _ = _multi_group_file(tmp_path)
    with pqkit.ParquetFile(path) as f:
        df = pl.DataFrame(f.arrow_stream(string_view=True))
        plain = pl.DataFrame(f.arrow_stream())
    assert df.equals(pl.read_parquet(path))
    assert plain.equals(df)


def test_file_stream_selection_and_filters(tmp_path):
    path, t = _multi_group_file(tmp_path)
    with pqkit.ParquetFile(path) as f:
        part = pa.table(f.arrow_stream(columns=["id", "name"], row_groups=[3, 1],
                                       string_view=True))
        kept = pa.table(f.arrow_stream(filters=[("id", ">=", 2990)]))
        none = pa.table(f.arrow_stream(filters=[("id", "<", 0)], string_view=True))
    assert part.column_names == ["id", "name"]
    assert part.column("id").to_pylist() == list(range(2100, 2800)) + list(range(700, 1400))
    assert kept.column("id").to_pylist() == list(range(2990, 3000))
    assert kept.column("tag").to_pylist() == t.column("tag").to_pylist()[2990:]
    assert none.num_rows == 0 and none.schema.field("name").type == pa.string_view()


def test_duckdb_scans_a_file_stream(tmp_path):
    path, _ = _multi_group_file(tmp_path)
    with pqkit.ParquetFile(path) as f:
        s = f.arrow_stream(string_view=True)    # noqa: F841 (DuckDB finds it by name)
    got = duckdb.sql("select count(name), count(distinct name), sum(len(items)) from s")
    assert got.fetchall() == duckdb.sql(
        f"select count(name), count(distinct name), sum(len(items)) from '{path}'").fetchall()


@pytest.mark.parametrize("source", [
    pa.table({"s": pa.array([], pa.string()), "b": pa.array([], pa.binary())}),
    pa.table({"s": pa.array([None, None], pa.string()), "b": pa.array([None, b""])}),
], ids=["empty", "all_null"])
def test_empty_and_null_columns_as_views(source):
    v = pqkit.Table.from_arrow(source).arrow_stream(string_view=True)
    got = pa.table(v)
    assert got.schema.types == [pa.string_view(), pa.binary_view()]
    assert got.to_pydict() == source.to_pydict()
    assert pl.DataFrame(v).to_dict(as_series=False) == source.to_pydict()
    assert duckdb.sql("select * from v").fetchall() == list(zip(*source.to_pydict().values()))
