"""pqinspect dictionary and bloom: corpus runs checked against pyarrow, written files, bad data.

dictionary: every dictionary page of every corpus file pyarrow reads holds exactly the
distinct values pyarrow decodes for that column chunk (spelled alike), in the order
pyarrow's ``read_dictionary`` gives for flat byte-array columns; chunks without one say
so (``"dictionary": null``).

bloom: every value of a column with a bloom filter (the corpus files and files written
here by pyarrow and by pqkit, for every type a filter applies to) is "maybe present";
values not in the column are "absent" except for the filter's false positives.
"""
import json
import random
import uuid
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import run
from pyarrow_json import spelled_values

import pqkit
from corpus import MANIFEST, entries, path_of
from pqkit.cli.main import main

# Files whose dictionary command finds problems, with their kinds. Everything else that
# pyarrow reads gives exit 0.
DICTIONARY_PROBLEMS = {
    "data/rle-dict-uncompressed-corrupt-checksum.parquet": {"crc_mismatch"},
    # parquet-mr < 1.2.9 left dictionary page headers out of the chunk size (PARQUET-816).
    "data/nation.dict-malformed.parquet": {"chunk_overrun"},
}
# bad_data/: (exit code, a fragment of stderr naming the offset). Exit 0 where the
# damage lies inside data page payloads, which `dictionary` does not decode (the
# dictionary pages and page headers are intact); head/cat report those.
BAD_DATA_DICTIONARY = {
    "bad_data/ARROW-GH-41317.parquet": (1, "the chunk's 92 bytes at offset 2923 end after 0"),
    "bad_data/ARROW-GH-41321.parquet": (1, "dictionary page at offset 32869"),
    "bad_data/ARROW-GH-43605.parquet": (0, None),        # readable: pyarrow reads it too
    "bad_data/ARROW-GH-45185.parquet": (0, None),        # repetition levels in the payload
    "bad_data/ARROW-GH-47662.parquet": (0, None),        # PLAIN values cut short
    "bad_data/ARROW-RS-GH-6229-DICTHEADER.parquet": (1, "chunk at offset 129 with 322 bytes"),
    "bad_data/ARROW-RS-GH-6229-LEVELS.parquet": (1, "hold 21 values, the column metadata "
                                                    "says 1 (chunk at offset 4)"),
    "bad_data/PARQUET-1481.parquet": (2, "footer of 154 bytes at offset 289"),
}
BLOOM_FILES = ("data/data_index_bloom_encoding_stats.parquet",
               "data/data_index_bloom_encoding_with_length.parquet")


def column_flags(path):
    return [a for c in pqkit.read_metadata(path).schema.columns
            for a in ("--column", c.dotted_path)]


def leaf_values(array):
    """The leaf values of a one-leaf selection: lists flattened, one-field structs opened."""
    while True:
        t = array.type
        if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
            array = array.flatten()
        elif pa.types.is_struct(t):
            assert t.num_fields == 1, t
            array = array.flatten()[0]
        else:
            return array


def distinct(array):
    return {json.dumps(v) for v in spelled_values(array) if v is not None}


# --- dictionary over the corpus -----------------------------------------------------------

def plain_readable(e):
    return e["readable"] and not e["encrypted"]


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(plain_readable))
def test_corpus_dictionaries_equal_pyarrow(entry, capsys):
    path = path_of(entry)
    flags = column_flags(path)
    code, out, err = run(capsys, "dictionary", path, *flags, "--json")
    doc = json.loads(out)
    expected = DICTIONARY_PROBLEMS.get(entry["path"], set())
    assert code == (1 if expected else 0), err
    assert {p["kind"] for p in doc["problems"]} == expected
    assert all(str(p["offset"]) in p["message"] for p in doc["problems"])
    found = doc["summary"]["with_dictionary"]
    assert (found > 0) == entry["has_dictionary_page"]
    pf = pq.ParquetFile(path)
    for column in doc["columns"]:
        for chunk in column["row_groups"]:
            page = chunk["dictionary"]
            if page is None:
                continue
            assert page["num_values"] == len(page["values"]) and page["values_omitted"] == 0
            table = pf.read_row_group(chunk["row_group"], columns=[column["path"]])
            theirs = distinct(leaf_values(table.column(0).combine_chunks()))
            ours = {json.dumps(v) for v in page["values"]}
            pages = chunk["data_pages"]
            if pages["dictionary_encoded"] == pages["count"]:
                assert ours == theirs, (column["path"], chunk["row_group"])
            else:                                    # fell back to another encoding
                assert ours <= theirs, (column["path"], chunk["row_group"])
    code, out, err = run(capsys, "dictionary", path, *flags)
    assert code == (1 if expected else 0) and out


@pytest.mark.corpus
def test_corpus_dictionary_order_equals_read_dictionary(corpus, capsys):
    """Flat byte-array columns: the entries in pyarrow's read_dictionary order."""
    compared = 0
    for entry in MANIFEST:
        if not (plain_readable(entry) and entry["has_dictionary_page"]):
            continue
        path = path_of(entry)
        flat = [c.dotted_path for c in pqkit.read_metadata(path).schema.columns
                if c.physical_type == pqkit.format.Type.BYTE_ARRAY and len(c.path) == 1
                and c.max_repetition_level == 0]
        if not flat:
            continue
        code, out, err = run(capsys, "dictionary", path,
                             *[a for c in flat for a in ("--column", c)], "--json")
        for column in json.loads(out)["columns"]:
            pf = pq.ParquetFile(path, read_dictionary=[column["path"]])
            for chunk in column["row_groups"]:
                if chunk["dictionary"] is None:
                    continue
                col = pf.read_row_group(chunk["row_group"], columns=[column["path"]]).column(0)
                assert pa.types.is_dictionary(col.type)
                assert spelled_values(col.chunks[0].dictionary) == \
                    chunk["dictionary"]["values"], (entry["path"], column["path"])
                compared += 1
    assert compared >= 250          # 277 dictionaries in the corpus as of this writing


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: e["path"].startswith("bad_data/")))
def test_dictionary_bad_data(entry, capsys):
    path = path_of(entry)
    try:
        flags = column_flags(path)
    except pqkit.ParquetError:
        flags = ["--column", "Handle"]          # PARQUET-1481: the footer does not load
    code, out, err = run(capsys, "dictionary", path, *flags, "--json")
    want, fragment = BAD_DATA_DICTIONARY[entry["path"]]
    assert code == want, err
    assert "Traceback" not in err
    if fragment is not None:
        assert fragment in err and "offset" in err
    if want == 1:
        problems = json.loads(out)["problems"]
        assert problems and all(p["offset"] is not None for p in problems)


# --- dictionary on written files ------------------------------------------------------------

@pytest.fixture(scope="module")
def dict_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("dict") / "dict.parquet"
    words = [f"word{i % 7}" for i in range(40)]
    table = pa.table({
        "s": pa.array([None if i % 9 == 0 else w for i, w in enumerate(words)]),
        "d": pa.array([Decimal(i % 5).scaleb(-2) - Decimal("0.02") for i in range(40)],
                      pa.decimal128(9, 2)),
        "ts": pa.array([(i % 3) * 1_000_000 for i in range(40)], pa.timestamp("us", tz="UTC")),
        "day": pa.array([i % 4 for i in range(40)], pa.date32()),
        "b": pa.array([bytes([i % 3, 255]) for i in range(40)], pa.binary()),
        "many": pa.array([f"unique-{i:04d}-" + "x" * 40 for i in range(40)]),
        "plain": pa.array(list(range(40)), pa.int64()),
        "lst": pa.array([[w, w] for w in words], pa.list_(pa.string())),
    })
    pq.write_table(table, path, row_group_size=20, dictionary_pagesize_limit=256,
                   write_batch_size=5, store_decimal_as_integer=False,
                   use_dictionary=["s", "d", "ts", "day", "b", "many", "lst.list.element"])
    return path


def chunks_of(doc, path):
    return next(c for c in doc["columns"] if c["path"] == path)["row_groups"]


def test_dictionary_values_typed(dict_file, capsys):
    code, out, err = run(capsys, "dictionary", dict_file, "--column", "s", "--column", "d",
                         "--column", "ts", "--column", "day", "--column", "b",
                         "--column", "lst.list.element", "--json")
    assert code == 0, err
    doc = json.loads(out)
    s = chunks_of(doc, "s")[0]["dictionary"]
    assert s["values"] == [f"word{i}" for i in (1, 2, 3, 4, 5, 6, 0)]
    assert s["encoding"] in ("PLAIN", "PLAIN_DICTIONARY") and s["offset"] >= 4
    assert s["compressed_size"] > 0 and s["uncompressed_size"] >= 40
    assert chunks_of(doc, "d")[0]["dictionary"]["values"] == ["-0.02", "-0.01", "0.00",
                                                              "0.01", "0.02"]
    assert chunks_of(doc, "ts")[1]["dictionary"]["values"] == [
        "1970-01-01T00:00:02.000000Z", "1970-01-01T00:00:00.000000Z",
        "1970-01-01T00:00:01.000000Z"]
    assert chunks_of(doc, "day")[0]["dictionary"]["values"] == [
        "1970-01-01", "1970-01-02", "1970-01-03", "1970-01-04"]
    assert chunks_of(doc, "b")[0]["dictionary"]["values"] == ["AP8=", "Af8=", "Av8="]
    assert chunks_of(doc, "lst.list.element")[0]["dictionary"]["num_values"] == 7
    for chunk in chunks_of(doc, "s"):
        assert chunk["data_pages"]["dictionary_encoded"] == chunk["data_pages"]["count"] >= 1


def test_dictionary_spelling_choices(tmp_path, capsys):
    """Values are spelled as head spells them; the Parquet leaf type of a zoned timestamp
    is only UTC-adjusted (the zone name lives in the Arrow schema), so it shows Z."""
    path = tmp_path / "zoned.parquet"
    pq.write_table(pa.table({
        "ny": pa.array([1_700_000_000_000, 0] * 4, pa.timestamp("ms", tz="America/New_York")),
        "b": pa.array([b"\x00\xff", b"\x01"] * 4)}), path)
    code, out, err = run(capsys, "dictionary", path, "--column", "ny", "--column", "b",
                         "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert chunks_of(doc, "ny")[0]["dictionary"]["values"] == [
        "2023-11-14T22:13:20.000Z", "1970-01-01T00:00:00.000Z"]
    assert chunks_of(doc, "b")[0]["dictionary"]["values"] == ["AP8=", "AQ=="]
    code, out, err = run(capsys, "dictionary", path, "--column", "b", "--json",
                         "--binary", "hex")
    assert code == 0, err
    assert chunks_of(json.loads(out), "b")[0]["dictionary"]["values"] == ["00ff", "01"]


def test_dictionary_none_fallback_and_limit(dict_file, capsys):
    code, out, err = run(capsys, "dictionary", dict_file, "--column", "plain",
                         "--column", "many", "--row-group", "1", "--limit", "2", "--json")
    assert code == 0, err
    doc = json.loads(out)
    plain = chunks_of(doc, "plain")
    assert [c["row_group"] for c in plain] == [1] and plain[0]["dictionary"] is None
    assert plain[0]["data_pages"]["encodings"][0]["encoding"] == "PLAIN"
    many = chunks_of(doc, "many")[0]
    page, pages = many["dictionary"], many["data_pages"]
    # The 256-byte dictionary limit made the writer fall back to PLAIN pages.
    assert pages["dictionary_encoded"] < pages["count"]
    assert len(page["values"]) == 2 and page["values_omitted"] == page["num_values"] - 2
    assert doc["summary"] == {"chunks": 2, "with_dictionary": 1, "problems": 0}
    code, out, err = run(capsys, "dictionary", dict_file, "--column", "many", "--limit", "1")
    assert code == 0 and "more entries" in out


def test_dictionary_crc_mismatch_is_a_problem(tmp_path, capsys):
    path = tmp_path / "crc.parquet"
    pqkit.write_table({"s": ["a", "b", "a"]}, path, compression="none")
    chunk = pqkit.read_metadata(path).row_group(0).thrift.columns[0].meta_data
    data = bytearray(path.read_bytes())
    data[chunk.data_page_offset - 1] ^= 0x01        # the dictionary page's last byte
    path.write_bytes(bytes(data))
    code, out, err = run(capsys, "dictionary", path, "--column", "s", "--json")
    doc = json.loads(out)
    assert code == 1
    assert [p["kind"] for p in doc["problems"]] == ["crc_mismatch"]
    assert doc["columns"][0]["row_groups"][0]["dictionary"]["crc_ok"] is False
    assert f"offset {chunk.dictionary_page_offset}" in err


def test_dictionary_unusable_arguments(dict_file, capsys):
    code, _, err = run(capsys, "dictionary", dict_file, "--column", "nope")
    assert code == 2 and "nope" in err
    code, _, err = run(capsys, "dictionary", dict_file, "--column", "s", "--row-group", "9")
    assert code == 2 and "row group 9" in err
    with pytest.raises(SystemExit):
        main(["dictionary", str(dict_file)])             # --column is required
    capsys.readouterr()


# --- bloom over the corpus ------------------------------------------------------------------

@pytest.mark.corpus
@pytest.mark.parametrize("path", BLOOM_FILES)
def test_corpus_bloom_present_values(path, corpus, capsys):
    path = corpus / path
    present = pq.read_table(path).column("String").to_pylist()
    absent = [f"absent-{i}" for i in range(200)]
    code, out, err = run(capsys, "bloom", path, "--column", "String", *present, *absent,
                         "--json")
    assert code == 0, err
    doc = json.loads(out)
    (chunk,) = doc["row_groups"]
    header = chunk["bloom_filter"]
    assert header["algorithm"] == "BLOCK" and header["hash"] == "XXHASH"
    assert header["compression"] == "UNCOMPRESSED" and header["num_bytes"] > 0
    meta = pq.ParquetFile(path).metadata.row_group(0).column(0)
    results = {p["value"]: p["result"] for p in chunk["probes"]}
    assert all(results[v] == "maybe present" for v in present)
    assert sum(results[v] == "absent" for v in absent) >= 190
    assert meta.num_values == len(present)


@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries(lambda e: plain_readable(e)
                                          and not e["has_bloom_filter"]))
def test_corpus_bloom_none(entry, capsys):
    """Files without filters: every column says "none" and probes say "no filter"."""
    path = path_of(entry)
    columns = pqkit.read_metadata(path).schema.columns
    for column in columns[:3]:
        code, out, err = run(capsys, "bloom", path, "--column", column.dotted_path, "--json")
        assert code == 0, err
        doc = json.loads(out)
        assert all(c["bloom_filter"] is None for c in doc["row_groups"])
        assert doc["summary"]["with_bloom_filter"] == 0


# --- bloom on written files: every type ---------------------------------------------------

N = 300


def bloom_table(seed=7):
    rng = random.Random(seed)
    return pa.table({
        "i8": pa.array([rng.randint(-128, 127) for _ in range(N)], pa.int8()),
        "u32": pa.array([rng.randint(0, 2**32 - 1) for _ in range(N)], pa.uint32()),
        "u64": pa.array([rng.randint(0, 2**64 - 1) for _ in range(N)], pa.uint64()),
        "i64": pa.array([rng.randint(-2**63, 2**63 - 1) for _ in range(N)], pa.int64()),
        "f32": pa.array([rng.uniform(-1e6, 1e6) for _ in range(N)], pa.float32()),
        "f64": pa.array([rng.uniform(-1e6, 1e6) for _ in range(N)]),
        "s": pa.array([f"name {rng.random()} ✓" for _ in range(N)]),
        "b": pa.array([rng.randbytes(6) for _ in range(N)], pa.binary()),
        "fsb": pa.array([rng.randbytes(3) for _ in range(N)], pa.binary(3)),
        "d9": pa.array([Decimal(rng.randint(-10**8, 10**8)).scaleb(-2) for _ in range(N)],
                       pa.decimal128(9, 2)),
        "d18": pa.array([Decimal(rng.randint(-10**17, 10**17)).scaleb(-4) for _ in range(N)],
                        pa.decimal128(18, 4)),
        "d30": pa.array([Decimal(rng.randint(-10**29, 10**29)).scaleb(-3) for _ in range(N)],
                        pa.decimal128(30, 3)),
        "date": pa.array([rng.randint(-100_000, 100_000) for _ in range(N)], pa.date32()),
        "t_ms": pa.array([rng.randint(0, 86_400_000 - 1) for _ in range(N)], pa.time32("ms")),
        "t_ns": pa.array([rng.randint(0, 86_400 * 10**9 - 1) for _ in range(N)],
                         pa.time64("ns")),
        "ts_ms": pa.array([rng.randint(-10**12, 10**13) for _ in range(N)],
                          pa.timestamp("ms")),
        "ts_us_utc": pa.array([rng.randint(-10**15, 10**16) for _ in range(N)],
                              pa.timestamp("us", tz="UTC")),
        "ts_ns_ny": pa.array([rng.randint(-10**18, 10**18) for _ in range(N)],
                             pa.timestamp("ns", tz="America/New_York")),
        "uuid": pa.array([uuid.UUID(int=rng.getrandbits(128)).bytes for _ in range(N)],
                         pa.binary(16)).cast(pa.uuid()),
        "f16": pa.array([rng.randint(0, 4000) / 8 for _ in range(N)], pa.float16()),
        "lst": pa.array([[rng.randint(0, 10**6)] for _ in range(N)], pa.list_(pa.int32())),
    })


@pytest.fixture(scope="module")
def pyarrow_bloom_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("bloom") / "pyarrow_bloom.parquet"
    table = bloom_table()
    options = {name: {"ndv": N, "fpp": 0.01} for name in table.column_names if name != "lst"}
    options["lst.list.element"] = {"ndv": N, "fpp": 0.01}
    pq.write_table(table, path, bloom_filter_options=options, store_decimal_as_integer=True)
    return path, table


def leaf_of(name):
    return "lst.list.element" if name == "lst" else name


@pytest.mark.parametrize("name", list(bloom_table().column_names))
def test_bloom_every_type_pyarrow_written(pyarrow_bloom_file, name, capsys):
    path, table = pyarrow_bloom_file
    column = table.column(name)
    present = [("base64:" + v if name in ("b", "fsb") else v) for v in
               (x if isinstance(x, str) else repr(x) for x in _flat(spelled_values(column)))]
    # Values of the same type that the column does not hold (a seed of its own).
    others = [("base64:" + v if name in ("b", "fsb") else v) for v in
              (x if isinstance(x, str) else repr(x)
               for x in _flat(spelled_values(bloom_table(seed=99).column(name))))]
    others = [v for v in dict.fromkeys(others) if v not in set(present)]
    code, out, err = run(capsys, "bloom", path, "--column", leaf_of(name), *present, *others,
                         "--json")
    assert code == 0, err
    doc = json.loads(out)
    results = {p["value"]: p["result"] for c in doc["row_groups"] for p in c["probes"]}
    assert all(results[v] == "maybe present" for v in present), name
    absent = sum(results[v] == "absent" for v in others)
    assert absent >= 0.9 * len(others), (name, absent, len(others))


def _flat(values):
    for v in values:
        if isinstance(v, list):
            yield from v
        else:
            yield v


def test_bloom_pqkit_written(tmp_path, capsys):
    path = tmp_path / "pqkit_bloom.parquet"
    cities = [f"city-{i}" for i in range(500)]
    pqkit.write_table({"city": cities, "n": list(range(500))}, path, row_group_size=200,
                      bloom_filter_columns=["city", "n"])
    code, out, err = run(capsys, "bloom", path, "--column", "city", *cities[:250],
                         "city-500", "Oslo", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert len(doc["row_groups"]) == 3
    assert all(c["bloom_filter"]["length"] is not None for c in doc["row_groups"])
    for g, chunk in enumerate(doc["row_groups"]):
        results = {p["value"]: p["result"] for p in chunk["probes"]}
        for v in cities[g * 200:min((g + 1) * 200, 250)]:
            assert results[v] == "maybe present"
        assert results["Oslo"] == "absent" or results["city-500"] == "absent"
    assert doc["summary"]["maybe_present"] >= 250
    # Values given both after --column and before it.
    code, out, err = run(capsys, "bloom", path, "-5", "--column", "n", "7", "0x10", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert [v["value"] for v in doc["values"]] == ["-5", "7", "0x10"]
    assert {p["value"]: p["result"] for p in doc["row_groups"][0]["probes"]}["7"] == \
        "maybe present"
    code, out, err = run(capsys, "bloom", path, "--column", "city", "city-3")
    assert code == 0 and "maybe present" in out


def test_bloom_int96_and_nested(tmp_path, capsys):
    path = tmp_path / "int96.parquet"
    table = pa.table({"ts": pa.array([0, 1_700_000_000_123_456_789, -5], pa.timestamp("ns"))})
    pq.write_table(table, path, use_deprecated_int96_timestamps=True,
                   bloom_filter_options={"ts": {"ndv": 3, "fpp": 0.01}})
    values = ["1970-01-01T00:00:00", "2023-11-14T22:13:20.123456789",
              "1969-12-31T23:59:59.999999995"]
    code, out, err = run(capsys, "bloom", path, "--column", "ts", *values,
                         "2001-01-01T00:00:00", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["column"]["physical_type"] == "INT96"
    results = [p["result"] for p in doc["row_groups"][0]["probes"]]
    assert results == ["maybe present"] * 3 + ["absent"]


@pytest.mark.parametrize("column, value, message", [
    ("i8", "300", "outside the int8 range"),
    ("u32", "-1", "outside the uint32 range"),
    ("d9", "1.234", "more than 2 digits after the point"),
    ("date", "2024-02-30", "day is out of range"),
    ("ts_us_utc", "yesterday", "neither a timestamp"),
    ("ts_ms", "2024-01-01T00:00:00Z", "local date-times"),
    ("t_ms", "12:00:00.0001", "more precise than the column's unit"),
    ("uuid", "not-a-uuid", "badly formed"),
    ("b", "hex:zz", "not valid hex"),
])
def test_bloom_bad_values_are_unusable(pyarrow_bloom_file, column, value, message, capsys):
    path, _ = pyarrow_bloom_file
    code, out, err = run(capsys, "bloom", path, "--column", column, value)
    assert code == 2 and not out
    assert message in err and value in err


def test_bloom_corrupt_filter_is_a_problem(tmp_path, capsys):
    path = tmp_path / "bad_bloom.parquet"
    pqkit.write_table({"s": ["a", "b"], "flag": [True, False]}, path,
                      bloom_filter_columns=["s"])
    meta = pqkit.read_metadata(path).row_group(0).thrift.columns[0].meta_data
    data = bytearray(path.read_bytes())
    data[meta.bloom_filter_offset:meta.bloom_filter_offset + 4] = b"\xff\xff\xff\xff"
    path.write_bytes(bytes(data))
    code, out, err = run(capsys, "bloom", path, "--column", "s", "a", "--json")
    assert code == 1
    doc = json.loads(out)
    assert doc["problems"][0]["kind"] == "bad_bloom_filter"
    assert doc["problems"][0]["offset"] == meta.bloom_filter_offset
    assert doc["row_groups"][0]["probes"] == [{"value": "a", "result": "unknown"}]
    assert f"offset {meta.bloom_filter_offset}" in err
    code, out, err = run(capsys, "bloom", path, "--column", "flag", "true")
    assert code == 2 and "BOOLEAN" in err
    code, out, err = run(capsys, "bloom", path, "--column", "nope", "x")
    assert code == 2 and "nope" in err


@pytest.mark.parametrize("command", ["dictionary", "bloom"])
def test_help_has_examples(command, capsys):
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    assert f"pqinspect {command} data.parquet --column" in capsys.readouterr().out


def test_manifest_lists_the_bloom_files():
    paths = {e["path"] for e in MANIFEST if e["has_bloom_filter"] and not e["encrypted"]}
    assert paths == set(BLOOM_FILES) or not MANIFEST


def test_dictionary_page_bounded_by_the_read_options(tmp_path):
    """A dictionary page is not decompressed past ReadOptions.max_dictionary_size (pqinspect
    dictionary decompressed a page declaring 1 GiB that read_table refuses: 3 GiB resident
    and a minute of brotli)."""
    from pqkit.inspect.dictionary_pages import read_dictionary_page

    path = tmp_path / "dict.parquet"
    pqkit.write_table({"s": [f"value {i % 40}" for i in range(400)]}, str(path))
    with pqkit.ParquetFile(str(path)) as f:
        assert read_dictionary_page(f, "s", 0).num_values == 40
    with pqkit.ParquetFile(str(path), options=pqkit.ReadOptions(max_dictionary_size=100)) as f:
        with pytest.raises(pqkit.AllocationLimitError, match="max_dictionary_size = 100"):
            read_dictionary_page(f, "s", 0)
