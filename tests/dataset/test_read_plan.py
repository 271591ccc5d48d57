"""Planning in O(1) store calls and reading with pruning (§3.8, §3.10)."""
import datetime
import glob
import os

import pytest
from dshelpers import row_set

import pqkit
import pqkit.dataset as pds
import pqkit.datatypes as T
from pqkit import SchemaError
from pqkit.dataset.core import scan


@pytest.fixture
def sales(tmp_path):
    root = str(tmp_path / "sales")
    pds.write(root, {"year": [2023, 2023, 2024, 2024, 2025],
                     "country": ["DE", "FR", "DE", None, "DE"],
                     "id": [1, 2, 3, 4, 5], "amount": [10.0, 20.0, float("nan"), None, 50.0],
                     "name": ["a", "b", "c", "d", "e"]},
              partition_by=["year", "country"], mode="create")
    for i in range(3):
        pds.write(root, {"year": [2025], "country": ["DE"], "id": [100 + i],
                         "amount": [1.0 * i], "name": [f"n{i}"]})
    return root


class _Counter:
    def __init__(self, monkeypatch):
        self.calls = []
        for mod, name in ((os, "listdir"), (os, "scandir"), (os, "walk"), (glob, "glob"),
                          (glob, "iglob")):
            real = getattr(mod, name)
            monkeypatch.setattr(mod, name, self._wrap(name, real))

    def _wrap(self, name, real):
        def counted(*a, **k):
            self.calls.append((name, a))
            return real(*a, **k)
        return counted


def test_planning_and_reading_never_list_a_directory(sales, monkeypatch):
    counter = _Counter(monkeypatch)
    ds = pds.open(sales)
    files = ds.files([("year", "==", 2025), ("id", ">", 100)])
    table = ds.read(filters=[[("country", "==", "DE"), ("amount", ">", 0.5)],
                             [("year", "<", 2024)]])
    n = ds.count([("year", "==", 2025)])
    assert counter.calls == []
    assert len(files) == 2 and n == 4
    assert sorted(table.to_pydict()["id"]) == [1, 2, 5, 101, 102]


def test_open_costs_the_same_store_calls_for_few_and_many_versions(tmp_path, monkeypatch):
    from pqkit.dataset.pqds.paths import _cache

    def calls(root):
        _cache.clear()                                 # count a cold open
        stats, opens = [], []
        real_stat, real_open = os.stat, open
        monkeypatch.setattr(os, "stat", lambda p, *a, **k: stats.append(p) or real_stat(p, *a, **k))
        import builtins
        monkeypatch.setattr(builtins, "open",
                            lambda p, *a, **k: opens.append(p) or real_open(p, *a, **k))
        try:
            pds.open(root)
        finally:
            monkeypatch.undo()
            monkeypatch.setenv("PQKIT_DATASET_FSYNC", "0")
        return len(stats), len(opens)
    few, many = str(tmp_path / "few"), str(tmp_path / "many")
    for root, n in ((few, 2), (many, 25)):
        for i in range(n):
            pds.write(root, {"x": [i]})
    assert calls(few) == calls(many)
    stats, opens = calls(many)
    # opens: hint + version file. stats: layout detection (_pqkit, hint), the hinted
    # version, one probe past it, the planning index, the version file's cache key.
    assert stats <= 6 and opens == 2


def test_latest_is_found_by_probing_past_a_stale_hint(sales):
    layout = pds.Layout(sales)
    with open(layout.latest_hint, "w") as f:
        f.write('{"version": 1}')
    assert pds.open(sales).version == 3
    os.remove(layout.latest_hint)                   # no hint at all: probe from version 0
    assert pds.open(sales).version == 3


def test_partition_only_count_opens_no_data_file(sales, monkeypatch):
    def refuse(*a, **k):
        raise AssertionError("a data file was opened")
    monkeypatch.setattr(scan, "ParquetFile", refuse)
    ds = pds.open(sales)
    assert ds.count() == 8
    assert ds.count([("year", "==", 2025)]) == 4
    assert ds.count([("country", "is_null", None)]) == 1
    assert ds.count([[("year", "in", [2023])], [("country", "!=", "DE")]]) == 2
    assert ds.count([("year", ">", 2030)]) == 0
    with pytest.raises(AssertionError, match="opened"):
        ds.count([("id", "==", 1)])


def test_partition_pruning_is_exact_and_typed(sales):
    ds = pds.open(sales)
    paths = [f.path for f in ds.files([("year", ">=", 2024), ("country", "==", "DE")])]
    assert len(paths) == 5 and all("year=202" in p and "country=DE" in p for p in paths)
    f = ds.files([("country", "is_null", True)])[0]
    assert f.partition == {"year": "2024", "country": None}
    assert f.partition_values == {"year": 2024, "country": None}
    assert f.filters is None and os.path.exists(f.location)
    # A partition value never equals a value of another type.
    assert ds.files([("year", "==", "2024")]) == []


def test_stats_pruning_keeps_every_matching_file(sales):
    ds = pds.open(sales)
    hits = ds.files([("id", "==", 101)])
    assert [f.row_count for f in hits] == [1] and hits[0].filters == [[("id", "==", 101)]]
    assert len(ds.files([("id", ">", 100)])) == 2
    assert len(ds.files([("amount", "is_null", None)])) == 1
    assert len(ds.files([("name", "<", "b")])) == 1


def test_read_restores_typed_partition_columns(sales):
    ds = pds.open(sales)
    t = ds.read(columns=["year", "id", "country"], filters=[("id", "<=", 2)])
    assert t.column_names == ["year", "id", "country"]
    assert t.schema[0].type == T.int64() and t.schema[2].type == T.string()
    assert row_set(t) == row_set({"year": [2023, 2023], "id": [1, 2],
                                  "country": ["DE", "FR"]})
    assert ds.read(columns=["country"], filters=[("year", "==", 1999)]).num_rows == 0
    assert ds.read(filters=[("year", "==", 1999)]).column_names == ds.column_names


def test_null_and_nan_semantics(sales):
    ds = pds.open(sales)
    assert sorted(ds.read(filters=[("amount", "!=", 10.0)]).to_pydict()["id"]) == \
        [2, 3, 5, 100, 101, 102]                       # NaN != 10 holds; null never matches
    assert ds.read(filters=[("amount", ">", -1e9)]).num_rows == 6   # NaN orders with nothing
    assert ds.read(filters=[("amount", "==", float("nan"))]).num_rows == 0
    assert ds.read(filters=[("amount", "is_not_null", None)]).num_rows == 7
    # as pyarrow: a null country is "not in" any list (row 4)
    assert ds.read(filters=[("country", "not in", ["DE"])]).to_pydict()["id"] == [2, 4]


def test_filters_are_validated(sales):
    ds = pds.open(sales)
    with pytest.raises(SchemaError, match="not a column"):
        ds.read(filters=[("nope", "==", 1)])
    with pytest.raises(SchemaError, match="unknown operator"):
        ds.files([("id", "~", 1)])
    with pytest.raises(SchemaError, match="list of values"):
        ds.files([("id", "in", 5)])
    with pytest.raises(SchemaError, match="cannot be compared"):
        ds.read(filters=[("year", "<", "x")])


def test_bloom_filters_skip_row_groups(tmp_path, monkeypatch):
    root = str(tmp_path / "b")
    keys = [f"key{i:04d}" for i in range(400)]
    pds.write(root, {"k": keys, "v": list(range(400))}, row_group_size=50,
              bloom_filter_columns=["k"], write_statistics=False)
    groups_read = []
    real = pqkit.ParquetFile.read

    def spy(self, columns=None, row_groups=None, filters=None):
        groups_read.append(row_groups)
        return real(self, columns=columns, row_groups=row_groups, filters=filters)
    monkeypatch.setattr(pqkit.ParquetFile, "read", spy)
    t = pds.open(root).read(filters=[("k", "==", "key0123")])
    assert t.to_pydict() == {"k": ["key0123"], "v": [123]}
    assert len(groups_read[-1]) < 8 and 2 in groups_read[-1]
    assert pds.open(root).read(filters=[("k", "in", ["nope", "key0399"])]).num_rows == 1


def test_extreme_integers_prune_exactly(tmp_path):
    root = str(tmp_path / "x")
    big = 2 ** 63 - 1
    pds.write(root, {"g": ["lo"] * 2, "i": [-(2 ** 63), 0], "u": [0, 1]},
              schema=[T.field("g", T.string()), T.field("i", T.int64()),
                      T.field("u", T.uint64())], partition_by=["g"])
    pds.write(root, {"g": ["hi"] * 2, "i": [big - 1, big], "u": [2 ** 63, 2 ** 64 - 1]},
              schema=[T.field("g", T.string()), T.field("i", T.int64()),
                      T.field("u", T.uint64())])
    ds = pds.open(root)
    assert [f.partition["g"] for f in ds.files([("i", "==", big)])] == ["hi"]
    assert [f.partition["g"] for f in ds.files([("i", ">", big - 2)])] == ["hi"]
    # As a float, 2**63 - 1 rounds to 2**63: the exact bound keeps the file out.
    assert ds.files([("i", ">=", float(2 ** 63))]) == []
    assert ds.read(filters=[("u", ">=", 2 ** 63)]).to_pydict()["u"] == [2 ** 63, 2 ** 64 - 1]
    assert [f.partition["g"] for f in ds.files([("u", "<", 2)])] == ["lo"]


def test_truncated_string_bounds_never_lose_rows(tmp_path):
    root = str(tmp_path / "s")
    prefix = "x" * 70
    pds.write(root, {"s": [prefix + "a", prefix + "b"]})
    pds.write(root, {"s": [prefix + "c", "z" * 100]})
    ds = pds.open(root)
    stats = [f.stats["s"] for f in ds.files()]
    assert all(not s["min_exact"] and len(s["min"].encode()) <= 64 for s in stats)
    assert ds.read(filters=[("s", "==", prefix + "b")]).num_rows == 1
    assert ds.read(filters=[("s", ">", prefix + "b")]).num_rows == 2
    assert len(ds.files([("s", "==", prefix + "c")])) == 2   # both bounds are truncated
    assert len(ds.files([("s", "==", "y" * 10)])) == 1        # above the first file's max


def test_timestamp_and_date_filters(tmp_path):
    root = str(tmp_path / "t")
    day = datetime.date(2024, 1, 31)
    ts = [datetime.datetime(2024, 1, 31, 12, 0, 0, 5), datetime.datetime(2024, 2, 1)]
    pds.write(root, {"d": [day, day], "ts": ts, "v": [1, 2]}, partition_by=["d"])
    pds.write(root, {"d": [day], "ts": [datetime.datetime(2030, 1, 1)], "v": [3]})
    ds = pds.open(root)
    assert ds.files()[0].stats["ts"] == {"min": "2024-01-31T12:00:00.000005",
                                         "max": "2024-02-01T00:00:00.000000", "nulls": 0}
    assert len(ds.files([("ts", ">", datetime.datetime(2025, 1, 1))])) == 1
    assert ds.read(filters=[("ts", "==", ts[0])]).to_pydict()["v"] == [1]
    assert ds.count([("d", "==", day)]) == 3
    assert ds.read(filters=[("d", "==", datetime.date(2000, 1, 1))]).num_rows == 0


def test_pinned_reader_survives_overwrite_and_publish(sales):
    old = pds.open(sales)
    pds.write(sales, {"year": [1], "country": ["X"], "id": [0], "amount": [0.0],
                      "name": ["new"]}, mode="overwrite")
    assert old.count() == 8 and old.read().num_rows == 8      # files found in shadow
    assert pds.open(sales).read().num_rows == 1


def test_struct_child_filters_pass_through(tmp_path):
    root = str(tmp_path / "n")
    pds.write(root, {"s": [{"a": 1, "b": "x"}, {"a": 2, "b": "y"}], "v": [1, 2]})
    ds = pds.open(root)
    assert ds.read(filters=[("s.a", "==", 2)]).to_pydict()["v"] == [2]
    assert ds.count([("s.b", "is_null", None)]) == 0


# --- the planning index (derived Parquet copy of the file list) -----------------------------------
def _indexed(tmp_path, n=12):
    root = str(tmp_path / "ix")
    props = {"planning.index.min_files": "0"}
    pds.write(root, {"a": [i % 4 for i in range(n)], "b": [f"v{i % 3}" for i in range(n)],
                     "id": list(range(n))}, partition_by=["a", "b"], properties=props)
    return root


def test_planning_index_answers_partition_queries_without_the_json(tmp_path, monkeypatch):
    root = _indexed(tmp_path)
    assert os.path.exists(pds.Layout(root).planning_path(0))
    counter = _Counter(monkeypatch)
    ds = pds.open(root)
    assert ds._manifest is None and ds.file_count == 12 and ds.row_count == 12
    files = ds.files([("a", "==", 1), ("b", "in", ["v1", "v2"])])
    t = ds.read(filters=[[("a", ">=", 2), ("id", "<", 9)], [("b", "==", "v0"), ("a", "==", 0)]])
    assert ds.count([("a", "!=", 3)]) == 9 and ds.count() == 12
    assert ds._manifest is None                 # the 12-entry JSON was never parsed
    assert counter.calls == []
    assert sorted(f.partition_values["b"] for f in files) == ["v1", "v2"]
    assert sorted(t.to_pydict()["id"]) == [0, 2, 3, 6, 7]
    # A predicate without a partition term in some group needs the whole list.
    assert ds.count([[("a", "==", 1)], [("id", "==", 4)]]) == 4
    assert ds._manifest is not None
    assert ds.operation["added"]                 # loaded from the version file


def test_planning_index_and_json_agree(tmp_path):
    root = _indexed(tmp_path, 40)
    from pqkit.dataset import Dataset, ManifestSource
    source = ManifestSource(root)
    indexed, plain = pds.open(root), Dataset(source, source.load(0))
    for f in ([("a", "<", 2)], [("b", "not in", ["v0"]), ("a", "in", [0, 3])],
              [[("a", "==", 9)], [("b", "==", "v2"), ("id", ">", 20)]], [("a", "!=", 1)]):
        assert sorted(x.key for x in indexed.files(f)) == sorted(x.key for x in plain.files(f))
        assert row_set(indexed.read(filters=f)) == row_set(plain.read(filters=f))


def test_stale_or_missing_planning_index_is_ignored(tmp_path):
    root = _indexed(tmp_path)
    layout = pds.Layout(root)
    path = layout.planning_path(0)
    os.utime(layout.version_path(0), ns=(1, 1))          # the version file is another one now
    ds = pds.open(root)
    assert ds._manifest is not None and ds.count([("a", "==", 1)]) == 3
    os.remove(path)
    assert pds.open(root).count([("a", "==", 1)]) == 3
    pds.publish(root)                                    # rebuilds it
    assert os.path.exists(path) and pds.open(root)._manifest is None
    pds.write(root, {"a": [1], "b": ["v9"], "id": [99]})
    assert os.path.exists(layout.planning_path(1))
    pds.vacuum(root, retention=0, keep_last=1, grace=0)
    assert not os.path.exists(path)                     # expired with its version
