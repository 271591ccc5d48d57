"""pqkit.WriteOptions: validated once, resolved per column in one place, taken by every
writer entry point, with keyword arguments still building one."""
import io

import pytest

import pqkit
from pqkit.write.options import WriteOptions


def _codecs(buf):
    md = pqkit.read_metadata(buf.getvalue())
    return {md.row_group(0).column(i).path_in_schema: md.row_group(0).column(i).compression
            for i in range(md.num_columns)}


def test_options_object_and_keywords_write_the_same_file():
    data = {"id": list(range(100)), "s": ["x"] * 100}
    a, b = io.BytesIO(), io.BytesIO()
    opts = WriteOptions(compression={"id": "snappy"}, row_group_size=30,
                        bloom_filter_columns=["s"])
    pqkit.write_table(data, a, options=opts)
    pqkit.write_table(data, b, compression={"id": "snappy"}, row_group_size=30,
                      bloom_filter_columns=["s"])
    assert a.getvalue() == b.getvalue()
    assert _codecs(a) == {"id": "SNAPPY", "s": "UNCOMPRESSED"}
    assert pqkit.read_metadata(a.getvalue()).num_row_groups == 4


def test_keywords_apply_over_an_options_object():
    buf = io.BytesIO()
    pqkit.write_table({"id": [1, 2]}, buf, options=WriteOptions(compression="snappy"),
                      compression="gzip")
    assert _codecs(buf) == {"id": "GZIP"}


def test_writer_and_append_take_it(tmp_path):
    path = str(tmp_path / "f.parquet")
    opts = WriteOptions(compression="snappy", write_page_index=False)
    with pqkit.ParquetWriter(path, [pqkit.datatypes.field("a", pqkit.datatypes.int64())],
                             options=opts) as w:
        w.write({"a": [1, 2]})
    assert pqkit.append(path, {"a": [3]}, options=opts.replace(compression="gzip")) == 3
    md = pqkit.read_metadata(path)
    assert [md.row_group(g).column(0).compression for g in range(2)] == ["SNAPPY", "GZIP"]


@pytest.mark.parametrize("bad, error", [
    ({"row_group_size": 0}, pqkit.SchemaError),
    ({"row_group_size": "10"}, pqkit.ArgumentError),
    ({"data_page_version": "3.0"}, pqkit.SchemaError),
    ({"version": "9.9"}, pqkit.ParquetError),
    ({"key_value_metadata": [("a", "b")]}, pqkit.ArgumentError),
])
def test_bad_settings_are_refused_when_built(bad, error):
    with pytest.raises(error):
        WriteOptions(**bad)


def test_unknown_setting_names_the_valid_ones():
    with pytest.raises(pqkit.ArgumentError, match="unknown write option.*compresion.*valid: "
                       "compression"):
        pqkit.write_table({"a": [1]}, io.BytesIO(), compresion="snappy")
    with pytest.raises(pqkit.ArgumentError, match="must be a pqkit.WriteOptions"):
        pqkit.write_table({"a": [1]}, io.BytesIO(), options={"compression": "snappy"})


def test_per_column_resolution():
    buf = io.BytesIO()
    pqkit.write_table({"a": [1], "b": [2]}, buf)
    schema = pqkit.read_metadata(buf.getvalue()).schema
    opts = WriteOptions(compression={"a": "snappy"}, use_dictionary=["b"],
                        column_encoding={"a": "DELTA_BINARY_PACKED"})
    a, b = (opts.for_column(schema.column(n)) for n in "ab")
    assert (a.use_dictionary, b.use_dictionary) == (False, True)
    assert a.encoding is not None and b.encoding is None
    with pytest.raises(pqkit.SchemaError, match="names no column"):
        WriteOptions(bloom_filter_columns=["nope"]).check_columns(schema)


def test_encryption_takes_encryption_properties_naming_known_columns():
    with pytest.raises(pqkit.ArgumentError, match="EncryptionProperties"):
        WriteOptions(encryption={"footer_key": b"k" * 16})
    props = pqkit.EncryptionProperties(b"k" * 16, {"nope": b"c" * 16})
    with pytest.raises(pqkit.SchemaError, match=r"encryption.column_keys names no column: \['nope'\]"):
        pqkit.write_table({"a": [1]}, io.BytesIO(), encryption=props)
