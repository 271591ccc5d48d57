"""Random operation sequences on a Kartothek store written by pqkit, checked against an
oracle (test helper shared by tests/dataset and tests/remote).

The oracle is a plain list of row dicts. After every operation the store is read
back by pqkit's Kartothek reader and must hold exactly the oracle's rows; every
index file, read with pyarrow, must map each value to the labels of exactly the
listed files that hold it (computed by reading those files with pyarrow); and no
data file may lie in the table's directory that the metadata does not list.
"""
import datetime
import json
import os
import urllib.parse

import pyarrow.parquet as pq
from hypothesis import strategies as st

from pqkit.dataset.kartothek import KartothekSource
from pqkit.dataset.kartothek.writing import KartothekWriter
from pqkit.dataset.pqds import open_snapshot

UUID = "oracle-ds"
TABLE = "table"
PARTITION_ON = ["k", "day", "s"]
INDEXED = ["c"]
COLUMNS = ["k", "day", "s", "c", "v"]
K_VALUES = [0, 1, 2, -3]
DAYS = [datetime.date(2024, 1, 31), datetime.date(2023, 12, 24)]
S_VALUES = ["a", "b c", "x/y", "é%"]

row = st.fixed_dictionaries({
    "k": st.sampled_from(K_VALUES), "day": st.sampled_from(DAYS),
    "s": st.sampled_from(S_VALUES), "c": st.integers(0, 6),
    "v": st.floats(-10, 10, allow_nan=False)})
rows = st.lists(row, min_size=1, max_size=8)
term = st.one_of(
    st.tuples(st.just("k"), st.sampled_from(["==", "!=", "<", ">="]),
              st.sampled_from(K_VALUES)),
    st.tuples(st.just("s"), st.sampled_from(["==", "!="]), st.sampled_from(S_VALUES)),
    st.tuples(st.just("day"), st.just("in"), st.lists(st.sampled_from(DAYS), min_size=1)),
    st.tuples(st.just("k"), st.just("not in"), st.lists(st.sampled_from(K_VALUES),
                                                          min_size=1)))
predicate = st.lists(st.lists(term, min_size=1, max_size=2), min_size=1, max_size=2)
operation = st.one_of(
    st.tuples(st.just("append"), rows),
    st.tuples(st.just("overwrite"), rows),
    st.tuples(st.just("delete"), predicate),
    st.tuples(st.just("index"), st.sampled_from([["c"], ["v"], ["c", "v"]])))
sequences = st.tuples(rows, st.lists(operation, max_size=5),
                      st.sampled_from(["json", "msgpack"]))


def columns_of(batch):
    return {name: [r[name] for r in batch] for name in COLUMNS}


_CHECK = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
          ">=": lambda a, b: a >= b, "in": lambda a, b: a in b,
          "not in": lambda a, b: a not in b}


def matches(r, dnf):
    return any(all(_CHECK[op](r[name], value) for name, op, value in conj) for conj in dnf)


def partition_of(r):
    return tuple(r[k] for k in PARTITION_ON)


def apply(writer, oracle, op, arg):
    """Run one operation on the store and on the oracle (a list, changed in place)."""
    if op == "append":
        writer.append(columns_of(arg))
        oracle.extend(arg)
    elif op == "overwrite":
        touched = {partition_of(r) for r in arg}
        writer.overwrite_partitions(columns_of(arg))
        oracle[:] = [r for r in oracle if partition_of(r) not in touched] + list(arg)
    elif op == "delete":
        writer.delete(arg)
        oracle[:] = [r for r in oracle if not matches(r, arg)]
    else:
        writer.update_indices(arg)


def sorted_rows(batch):
    return sorted((tuple(r[c] for c in COLUMNS) for r in batch), key=repr)


def check_rows(dataset, oracle):
    """``dataset`` (a pqkit Dataset) reads the oracle's rows, and an index-pruned point
    query on ``c`` the oracle's rows holding that value."""
    got = dataset.read().to_pydict()
    assert sorted_rows([dict(zip(got, vals)) for vals in zip(*got.values())]) == \
        sorted_rows(oracle)
    for value in {r["c"] for r in oracle[:2]}:
        got = dataset.read(filters=[("c", "==", value)]).to_pydict()
        assert sorted_rows([dict(zip(got, vals)) for vals in zip(*got.values())]) == \
            sorted_rows([r for r in oracle if r["c"] == value])


def check_local_store(store, oracle):
    """The store at local directory ``store`` holds the oracle's rows, prescribed index
    files and no unlisted data file."""
    source = KartothekSource(store, UUID, TABLE)
    check_rows(open_snapshot(source), oracle)
    doc = source.document
    listed = {label: f"{store}/{part['files'][TABLE]}"
              for label, part in doc["partitions"].items()}
    for column, key in (doc.get("indices") or {}).items():
        assert expected_index(listed, column) == read_index(f"{store}/{key}", column)
    table_dir = os.path.join(store, UUID, TABLE)
    on_disk = {os.path.join(d, n) for d, _, names in os.walk(table_dir) for n in names
               if n.endswith(".parquet")}
    assert on_disk == {os.path.join(store, *p.split("/")) for p in
                       (part["files"][TABLE] for part in doc["partitions"].values())}
    index_files = {os.path.join(d, n) for d, _, names in
                   os.walk(os.path.join(store, UUID, "indices")) for n in names}
    assert index_files == {os.path.join(store, *k.split("/"))
                           for k in (doc.get("indices") or {}).values()}


def expected_index(listed, column):
    """value -> sorted labels of the listed files holding it, read with pyarrow."""
    out = {}
    for label, path in listed.items():
        for value in set(pq.read_table(path, columns=[column]).column(column).to_pylist()):
            if value is not None:
                out.setdefault(value, []).append(label)
    return {v: sorted(labels) for v, labels in out.items()}


def read_index(path, column):
    table = pq.read_table(path)
    assert table.column_names == [column, "partition"]
    values = table.column(column).to_pylist()
    assert values == sorted(values)
    return {v: sorted(labels) for v, labels in
            zip(values, table.column("partition").to_pylist())}


def run_sequence(store, initial, ops, fmt, check, storage_options=None):
    """Create the dataset at ``store`` then apply ``ops``, calling ``check(oracle)`` after
    each step."""
    writer = KartothekWriter(store, UUID, TABLE, storage_options=storage_options)
    writer.create(columns_of(initial), partition_on=PARTITION_ON, secondary_indices=INDEXED,
                  metadata_format=fmt)
    oracle = list(initial)
    check(oracle)
    for op, arg in ops:
        apply(writer, oracle, op, arg)
        check(oracle)
    return oracle


def labels_are_kartothek_keys(doc):
    """Every label is ``col=value/.../<32 hex>`` with URL-quoted, typed text."""
    for label in doc["partitions"]:
        *segments, leaf = label.split("/")
        assert len(leaf) == 32 and int(leaf, 16) >= 0
        assert [s.split("=")[0] for s in segments] == PARTITION_ON
        for s in segments:
            value = s.split("=", 1)[1]
            assert urllib.parse.quote(urllib.parse.unquote(value), safe="") == value
    return True


def metadata_bytes_document(data, fmt):
    if fmt == "json":
        return json.loads(data)
    import msgpack
    import zstandard
    return msgpack.unpackb(zstandard.ZstdDecompressor().decompressobj().decompress(data))


__all__ = ["UUID", "TABLE", "run_sequence", "sequences", "check_local_store", "check_rows",
           "labels_are_kartothek_keys", "metadata_bytes_document"]
