"""pqinspect diff: identical files give 0; each kind of structural change is listed (exit 1)."""
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_run import run

import pqkit
from corpus import entries, path_of
from pqkit.cli.main import main


def diff(capsys, a, b, *flags):
    code, out, err = run(capsys, "diff", a, b, "--json", *flags)
    doc = json.loads(out)
    assert code == (0 if doc["identical"] else 1), err
    assert doc["summary"]["total"] == len(doc["differences"])
    return doc


def by_field(doc, section=None):
    """{(section, path, row group, field): (kind, a, b)}"""
    return {(d["section"], d["path"], d["row_group"], d["field"]): (d["kind"], d["a"], d["b"])
            for d in doc["differences"] if section is None or d["section"] == section}


def table(**overrides):
    columns = {"id": pa.array([1, 2, 3, 4], pa.int64()),
               "name": pa.array(["a", "b", None, "d"]),
               "score": pa.array([0.5, 1.5, 2.5, None])}
    columns.update(overrides)
    return pa.table({k: v for k, v in columns.items() if v is not None})


def write(tmp_path, name, data, **options):
    path = tmp_path / name
    pq.write_table(data, path, **options)
    return path


# --- identical ------------------------------------------------------------------------------

@pytest.mark.corpus
@pytest.mark.parametrize("entry", entries())
def test_corpus_file_equals_itself(entry, capsys):
    path = path_of(entry)
    try:
        pqkit.read_metadata(path)
    except pqkit.ParquetError:
        code, out, err = run(capsys, "diff", path, path)
        assert code == 2 and entry["path"].split("/")[-1] in err and "Traceback" not in err
        return
    doc = diff(capsys, path, path)
    assert doc["identical"] and doc["differences"] == []
    code, out, err = run(capsys, "diff", path, path)
    assert code == 0 and "no structural differences" in out


def test_two_writes_of_the_same_table_are_identical(tmp_path, capsys):
    a = write(tmp_path, "a.parquet", table())
    b = write(tmp_path, "b.parquet", table())
    assert diff(capsys, a, b)["identical"]


# --- each kind of difference ----------------------------------------------------------------

def test_codec(tmp_path, capsys):
    a = write(tmp_path, "a.parquet", table(), compression="zstd")
    b = write(tmp_path, "b.parquet", table(), compression="snappy")
    doc = diff(capsys, a, b)
    found = by_field(doc, "column_chunk")
    for column in ("id", "name", "score"):
        assert found[("column_chunk", column, 0, "codec")] == ("changed", "ZSTD", "SNAPPY")
    assert doc["summary"]["schema"] == 0 and doc["summary"]["key_value_metadata"] == 0


def test_schema_fields_added_removed_and_changed(tmp_path, capsys):
    a = write(tmp_path, "a.parquet", table())
    changed = pa.table({
        "id": pa.array([1, 2, 3, 4], pa.int32()),                        # INT64 -> INT32
        "name": pa.array([b"a", b"b", None, b"d"], pa.binary()),         # STRING dropped
        "extra": pa.array([True, False, True, False]),                   # added
    }, schema=pa.schema([pa.field("id", pa.int32(), nullable=False),    # now REQUIRED
                         pa.field("name", pa.binary()), pa.field("extra", pa.bool_())]))
    b = write(tmp_path, "b.parquet", changed)
    doc = diff(capsys, a, b)
    found = by_field(doc, "schema")
    assert found[("schema", "id", None, "physical_type")] == ("changed", "INT64", "INT32")
    assert found[("schema", "id", None, "repetition")] == ("changed", "OPTIONAL", "REQUIRED")
    assert found[("schema", "name", None, "logical_type")] == ("removed", "STRING", None)
    kind, before, after = found[("schema", "score", None, "field")]
    assert kind == "removed" and before["physical_type"] == "DOUBLE" and after is None
    kind, before, after = found[("schema", "extra", None, "field")]
    assert kind == "added" and before is None and after["physical_type"] == "BOOLEAN"
    assert ("file", None, None, "num_columns") not in by_field(doc, "file")      # 3 and 3


def test_nested_schema_and_leaf_order(tmp_path, capsys):
    nested = pa.table({"p": pa.array([{"x": 1, "y": 2}], pa.struct([("x", pa.int32()),
                                                                     ("y", pa.int32())])),
                       "q": pa.array([1])})
    reordered = pa.table({"q": pa.array([1]),
                          "p": pa.array([{"x": 1, "z": 2}], pa.struct([("x", pa.int32()),
                                                                       ("z", pa.int32())]))})
    a = write(tmp_path, "a.parquet", nested)
    b = write(tmp_path, "b.parquet", reordered)
    doc = diff(capsys, a, b)
    found = by_field(doc, "schema")
    assert found[("schema", "p.y", None, "field")][0] == "removed"
    assert found[("schema", "p.z", None, "field")][0] == "added"
    assert found[("schema", None, None, "leaf_order")] == ("changed", ["p.x", "q"], ["q", "p.x"])


def test_statistics(tmp_path, capsys):
    a = write(tmp_path, "a.parquet", table())
    b = write(tmp_path, "b.parquet", table(id=pa.array([1, 2, 3, 40], pa.int64()),
                                           name=pa.array(["a", None, None, "d"])))
    doc = diff(capsys, a, b)
    found = by_field(doc, "column_chunk")
    assert found[("column_chunk", "id", 0, "statistics.max_value")] == ("changed", 4, 40)
    assert found[("column_chunk", "name", 0, "statistics.null_count")] == ("changed", 1, 2)
    assert ("column_chunk", "id", 0, "statistics.max_value_raw") not in found
    assert ("column_chunk", "score", 0, "statistics.max_value") not in found
    ignored = diff(capsys, a, b, "--ignore", "statistics", "--ignore", "total_compressed_size",
                   "--ignore", "total_uncompressed_size", "--ignore", "total_byte_size")
    assert ignored["identical"] and "statistics" in ignored["ignored"]


def test_key_value_metadata(tmp_path, capsys):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    data = {"id": [1, 2]}
    pqkit.write_table(data, a, key_value_metadata={"keep": "1", "change": "old", "drop": "x"})
    pqkit.write_table(data, b, key_value_metadata={"keep": "1", "change": "new", "new": "y"})
    doc = diff(capsys, a, b)
    found = by_field(doc, "key_value_metadata")
    assert found == {
        ("key_value_metadata", "change", None, "value"): ("changed", "old", "new"),
        ("key_value_metadata", "drop", None, "value"): ("removed", "x", None),
        ("key_value_metadata", "new", None, "value"): ("added", None, "y"),
    }
    assert diff(capsys, a, b, "--ignore", "key_value_metadata")["identical"]
    partly = diff(capsys, a, b, "--ignore", "change")
    assert {d["path"] for d in partly["differences"]} == {"drop", "new"}


def test_row_groups_and_created_by(tmp_path, capsys):
    a = write(tmp_path, "a.parquet", table(), row_group_size=2)
    b = tmp_path / "b.parquet"
    pqkit.write_table(pqkit.read_table(a), b, row_group_size=3)
    doc = diff(capsys, a, b)
    files = by_field(doc, "file")
    assert ("file", None, None, "num_row_groups") not in files               # 2 and 2
    kind, before, after = files[("file", None, None, "created_by")]
    assert kind == "changed" and before.startswith("parquet-cpp") and "pqkit" in after
    groups = by_field(doc, "row_group")
    assert groups[("row_group", None, 0, "num_rows")] == ("changed", 2, 3)
    assert groups[("row_group", None, 1, "num_rows")] == ("changed", 2, 1)
    c = write(tmp_path, "c.parquet", table(), row_group_size=1)
    doc = diff(capsys, a, c)
    assert by_field(doc, "file")[("file", None, None, "num_row_groups")] == ("changed", 2, 4)
    extra = [d for d in doc["differences"] if d["section"] == "row_group"
             and d["field"] == "row_group"]
    assert [(d["row_group"], d["kind"]) for d in extra] == [(2, "added"), (3, "added")]
    assert extra[0]["b"]["num_rows"] == 1


def test_encodings_dictionary_page_index_and_bloom(tmp_path, capsys):
    a = write(tmp_path, "a.parquet", table(), use_dictionary=True, write_page_index=True)
    b = write(tmp_path, "b.parquet", table(), use_dictionary=False, write_page_index=False,
              bloom_filter_options={"name": True})
    found = by_field(diff(capsys, a, b), "column_chunk")
    assert found[("column_chunk", "name", 0, "dictionary_page")] == ("changed", True, False)
    kind, before, after = found[("column_chunk", "name", 0, "encodings")]
    assert "RLE_DICTIONARY" in before and "RLE_DICTIONARY" not in after
    assert found[("column_chunk", "id", 0, "column_index")] == ("changed", True, False)
    assert found[("column_chunk", "id", 0, "offset_index")] == ("changed", True, False)
    assert found[("column_chunk", "name", 0, "bloom_filter")] == ("changed", False, True)


def test_human_view_and_limit(tmp_path, capsys):
    a = write(tmp_path, "a.parquet", table(), compression="zstd")
    b = write(tmp_path, "b.parquet", table(), compression="gzip")
    code, out, err = run(capsys, "diff", a, b, "--limit", "2")
    assert code == 1 and "SNAPPY" not in out and "GZIP" in out and "more" in out


def test_unusable_input(tmp_path, capsys):
    good = write(tmp_path, "good.parquet", table())
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"PAR1 not really parquet PAR1")
    code, out, err = run(capsys, "diff", good, junk)
    assert code == 2 and "junk.parquet" in err and not out
    code, out, err = run(capsys, "diff", tmp_path / "missing.parquet", good)
    assert code == 2 and "missing.parquet" in err


def test_help_has_examples(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["diff", "--help"])
    assert exc.value.code == 0
    assert "pqinspect diff old.parquet new.parquet" in capsys.readouterr().out
