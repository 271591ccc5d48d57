"""Issue 18: ``pqinspect explain`` names exactly the row groups and pages the filtered
reader decodes (counted by wrapping the reader's page and chunk reads), for random
filters written as text; the text parser's grammar and errors."""
import datetime
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pqkit
from pqkit.errors import SchemaError
from pqkit.read.prune.filter_text import MAX_CONJUNCTIONS, parse_filter
from pqkit.read.fetch.page_index import read_page_index
from pqkit.read.decode.row_group import RowGroupReader

N = 12_000
CITIES = ["Bergen", "Lima", "Oslo", "Paris", "Quito", "Rome"]


@pytest.fixture(scope="module", params=["pqkit", "pyarrow"])
def path(request, tmp_path_factory):
    """Sorted x (tight bounds), clustered city (bloom filters), noise v, nested s.a."""
    rng = np.random.default_rng(18)
    x = np.arange(N, dtype=np.int64)
    city = [CITIES[(i // 2500 + (i % 3 == 0)) % len(CITIES)] for i in range(N)]
    table = pa.table({
        "x": x,
        "city": pa.array([None if i % 97 == 0 else c for i, c in enumerate(city)]),
        "v": rng.integers(-1000, 1000, N).astype(np.int32),
        "s": pa.array([{"a": int(i // 7), "b": f"b{i % 5}"} for i in range(N)]),
    })
    p = tmp_path_factory.mktemp("explain") / f"{request.param}.parquet"
    if request.param == "pqkit":
        pqkit.write_table(table, p, row_group_size=3000, data_page_size=2048,
                          bloom_filter_columns=["city", "x"])
    else:
        pq.write_table(table, p, row_group_size=3000, data_page_size=2048,
                       write_page_index=True)
    return p


class ReadLog:
    """(row group, leaf path, data page number or None for a whole chunk) of every read
    the filtered reader makes, page numbers found through each chunk's OffsetIndex."""

    def __init__(self, monkeypatch, path):
        self.reads = set()
        self.path = path
        read_pages, decode_leaf = RowGroupReader.read_pages, RowGroupReader.decode_leaf
        log = self

        def pages(self, g, node, segments, **how):
            oi = read_page_index(str(log.path), g, node.path).offset_index
            number = {loc.offset: i for i, loc in enumerate(oi.page_locations)}
            log.reads.update((g, node.dotted_path, number[o]) for o, _ in segments
                             if o in number)
            return read_pages(self, g, node, segments, **how)

        def chunk(self, g, node):
            log.reads.add((g, node.dotted_path, None))
            return decode_leaf(self, g, node)

        monkeypatch.setattr(RowGroupReader, "read_pages", pages)
        monkeypatch.setattr(RowGroupReader, "decode_leaf", chunk)


def explained_reads(doc):
    out = set()
    for g in doc["row_groups"]:
        for r in g["reads"]:
            if r["whole_chunk"]:
                out.add((g["row_group"], r["column"], None))
            out.update((g["row_group"], r["column"], i) for i in r["pages"])
    return out


# --- random filters as text --------------------------------------------------------------
def _literal(v):
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return repr(v)


@st.composite
def terms(draw):
    column = draw(st.sampled_from(["x", "city", "v", "s.a"]))
    if column == "city":
        values = st.sampled_from(CITIES + ["Aarhus", "Zurich", "O'Hare"])
    elif column == "x":
        values = st.integers(-100, N + 100)
    elif column == "v":
        values = st.integers(-1200, 1200)
    else:
        values = st.integers(-10, N // 7 + 10)
    op = draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "not in"]))
    if op in ("in", "not in"):
        vals = draw(st.lists(values, min_size=1, max_size=3))
        return (column, op, vals), f"{column} {op} ({', '.join(map(_literal, vals))})"
    value = draw(values)
    spelled = {"==": draw(st.sampled_from(["=", "=="])), "!=": draw(st.sampled_from(
        ["!=", "<>"]))}.get(op, op)
    return (column, op, value), f"{column} {spelled} {_literal(value)}"


@st.composite
def filters(draw):
    conjs = draw(st.lists(st.lists(terms(), min_size=1, max_size=3), min_size=1, max_size=2))
    dnf = [[t for t, _ in conj] for conj in conjs]
    text = " or ".join("(" + " and ".join(s for _, s in conj) + ")" for conj in conjs)
    return dnf, text


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(case=filters(), columns=st.sampled_from([None, ["x"], ["s", "city"], ["v"]]))
def test_explain_names_exactly_what_the_filtered_reader_reads(path, capsys, monkeypatch,
                                                              case, columns):
    dnf, text = case
    assert parse_filter(text) == dnf
    argv = ["explain", path, "--where", text, "--json"]
    for c in columns or []:
        argv += ["--column", c]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    doc = json.loads(out)
    with monkeypatch.context() as m:
        log = ReadLog(m, path)
        got = pqkit.read_table(path, columns=columns, filters=dnf)
    assert explained_reads(doc) == log.reads
    read_groups = {g for g, _, _ in log.reads}
    assert {g["row_group"] for g in doc["row_groups"] if not g["skipped"]} == read_groups
    assert doc["totals"]["row_groups_skipped"] == 4 - len(read_groups)
    nested = [[(tuple(c.split(".")), op, v) for c, op, v in conj] for conj in dnf]
    want = pq.read_table(path, columns=columns, filters=nested)
    assert got.to_pydict() == want.to_pydict()


def test_explain_skips_by_statistics_bloom_filter_and_page_index(path, capsys):
    code, out, _ = run(capsys, "explain", path, "--where", "x >= 7990 and x < 8010", "--json")
    doc = json.loads(out)
    assert code == 0
    assert [g["skipped"] for g in doc["row_groups"]] == [True, True, False, True]
    assert doc["row_groups"][0]["skipped_by"] == "statistics"
    kept = doc["row_groups"][2]
    assert kept["candidate_rows"] is not None and kept["candidate_rows"] < 3000
    assert any(not p["may_match"] for p in kept["pages"])
    (x,) = [r for r in kept["reads"] if r["column"] == "x"]
    assert 1 <= x["pages_read"] <= 2 < x["pages_total"]
    assert x["bytes_read"] + x["bytes_avoided"] == x["chunk_bytes"]
    assert doc["totals"]["bytes_avoided"] == sum(g["bytes_avoided"] for g in doc["row_groups"])
    if path.name.startswith("pqkit"):          # bloom filters on city
        code, out, _ = run(capsys, "explain", path, "--where", "city = 'Madrid'", "--json")
        doc = json.loads(out)
        by = [g["skipped_by"] for g in doc["row_groups"]]
        assert by == ["bloom filter", "bloom filter", "statistics", "statistics"]
        assert pqkit.read_table(path, filters=[("city", "==", "Madrid")]).num_rows == 0


def test_human_view(path, capsys):
    code, out, err = run(capsys, "explain", path, "--where", "x < 100 or city in ('Rome')")
    assert code == 0 and not err
    assert "row groups skipped" in out and "page index" in out


@pytest.mark.parametrize("text, want", [
    ("x > 5 and (city in ('Oslo') or y = 1)",
     [[("x", ">", 5), ("city", "in", ["Oslo"])], [("x", ">", 5), ("y", "==", 1)]]),
    ("5 < x", [[("x", ">", 5)]]),
    ("-2.5e1 >= v", [[("v", "<=", -25.0)]]),
    ("NOT_A_KEYWORD <> 'it''s'", [[("NOT_A_KEYWORD", "!=", "it's")]]),
    ('"a.b".c not in (1, 2,) OR ok = TRUE', [[(("a.b", "c"), "not in", [1, 2])],
                                             [("ok", "==", True)]]),
    ("`d` >= date '2024-01-02' and t < timestamp '2024-01-02 03:04:05+00:00'",
     [[("d", ">=", datetime.date(2024, 1, 2)),
       ("t", "<", datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc))]]),
])
def test_parse_filter(text, want):
    assert parse_filter(text) == want


@pytest.mark.parametrize("text, message", [
    ("x >", "expected a value .* at character 3, found the end"),
    ("x > 5 5", "expected 'and', 'or' or the end at character 6"),
    ("(x = 1", "expected '\\)' at character 6"),
    ("x = null", "null at character 4"),
    ("and x = 1", "expected a column name at character 0"),
    ("x in 1", "expected '\\(' and a list of values at character 5"),
    ("x = @", "unexpected '@' at character 4"),
    ("d = date 'soon'", "date 'soon' at character 4 is not in ISO format"),
    (" or ".join(f"(a{i} = 1 or b{i} = 2)" for i in range(1)) + " and " +
     " and ".join(f"(a{i} = 1 or b{i} = 2)" for i in range(9)), "conjunctions"),
])
def test_parse_errors(text, message):
    with pytest.raises(SchemaError, match=message):
        parse_filter(text)


def test_bad_where_exits_2(path, capsys):
    code, out, err = run(capsys, "explain", path, "--where", "x >")
    assert code == 2 and not out and "character 3" in err
    code, _, err = run(capsys, "explain", path, "--where", "nope = 1")
    assert code == 2 and "'nope' is not a leaf column" in err
    assert MAX_CONJUNCTIONS == 256


def test_a_dictionary_rules_out_a_value_inside_the_bounds(corpus, capsys):
    """string_col holds '0'..'9': '55' lies within the bounds, and only the dictionary
    (every data page dictionary encoded, per encoding_stats) proves it absent."""
    path = str(corpus / "data" / "alltypes_tiny_pages.parquet")
    code, out, _ = run(capsys, "explain", path, "--where", "string_col = '55'", "--json")
    (g,) = json.loads(out)["row_groups"]
    assert code == 0 and g["skipped"] and g["skipped_by"] == "dictionary"
    assert [(c["source"], c["may_match"]) for c in g["checks"]] == [("statistics", True),
                                                                   ("dictionary", False)]
    assert "10 values" in g["checks"][1]["detail"]
    assert pqkit.read_table(path, filters=[("string_col", "==", "55")]).num_rows == 0
    code, out, _ = run(capsys, "explain", path, "--where", "string_col in ('55', '5')",
                       "--json")
    (g,) = json.loads(out)["row_groups"]
    assert not g["skipped"] and g["checks"][-1] == {
        "column": "string_col", "op": "in", "value": ["55", "5"], "source": "dictionary",
        "may_match": True, "detail": g["checks"][-1]["detail"], "conjunction": 0}
