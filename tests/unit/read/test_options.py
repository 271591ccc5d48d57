"""The Thrift limits of pqkit.ReadOptions: string size, container size and nesting,
in the footer and in page headers, each from a small file of its kind; and the
``options`` argument of read_metadata and read_pandas."""
import io

import numpy as np
import pytest

import pqkit
from pqkit.page import PageWalker


def _file(**options):
    out = io.BytesIO()
    pqkit.write_table({"a": [1, 2], "b": ["x", "y"], "c": [1.0, 2.0]}, out,
                      store_schema=False, **options)
    return out.getvalue()


def _limit_message(option, value, limit, what):
    return (rf"{value} {what} exceed ReadOptions\.{option} = {limit} \(read with "
            rf"pqkit\.ReadOptions\({option}=\.\.\.\) to allow more\) at offset \d+")


def test_defaults_are_arrows():
    o = pqkit.ReadOptions()
    assert (o.max_thrift_string_size, o.max_thrift_container_size, o.max_thrift_depth) == \
        (100_000_000, 1_000_000, 64)


def test_footer_string_longer_than_the_limit():
    data = _file(key_value_metadata={"k": "v" * 1000})
    limited = pqkit.ReadOptions(max_thrift_string_size=999)
    with pytest.raises(pqkit.AllocationLimitError,
                       match=_limit_message("max_thrift_string_size", 1000, 999,
                                            "bytes of a thrift string")):
        pqkit.read_metadata(data, options=limited)
    with pytest.raises(pqkit.AllocationLimitError, match="max_thrift_string_size"):
        pqkit.read_table(data, options=limited)
    md = pqkit.read_metadata(data, options=pqkit.ReadOptions(max_thrift_string_size=1000))
    assert md.key_value_metadata["k"] == "v" * 1000


def test_footer_list_longer_than_the_limit():
    data = _file()          # the schema list holds the root and three columns
    with pytest.raises(pqkit.AllocationLimitError,
                       match=_limit_message("max_thrift_container_size", 4, 3,
                                            "thrift container elements")):
        pqkit.read_table(data, options=pqkit.ReadOptions(max_thrift_container_size=3))
    table = pqkit.read_table(data, options=pqkit.ReadOptions(max_thrift_container_size=4))
    assert table.to_pydict() == {"a": [1, 2], "b": ["x", "y"], "c": [1.0, 2.0]}


def test_footer_nested_deeper_than_the_limit():
    data = _file()
    with pytest.raises(pqkit.AllocationLimitError,
                       match=_limit_message("max_thrift_depth", 4, 3,
                                            "levels of nested thrift structures")):
        pqkit.read_metadata(data, options=pqkit.ReadOptions(max_thrift_depth=3))
    assert pqkit.read_metadata(data, options=pqkit.ReadOptions(max_thrift_depth=16)).num_rows == 2


def test_row_groups_decoded_later_keep_the_limits():
    """Row groups are built on first use from the footer's bytes: the limits in force
    are the decode's, not the defaults."""
    data = _file(row_group_size=1)
    md = pqkit.read_metadata(data, options=pqkit.ReadOptions(max_thrift_container_size=4))
    assert md.num_row_groups == 2
    assert [len(md.row_group(g).thrift.columns) for g in range(2)] == [3, 3]
    with pytest.raises(pqkit.AllocationLimitError, match="max_thrift_container_size = 2"):
        pqkit.read_metadata(data, options=pqkit.ReadOptions(max_thrift_container_size=2))


@pytest.mark.parametrize("limits, message", [
    ({"max_depth": 1}, _limit_message("max_thrift_depth", 2, 1,
                                      "levels of nested thrift structures")),
    ({"max_string_size": 7}, _limit_message("max_thrift_string_size", 8, 7,
                                            "bytes of a thrift string")),
])
def test_page_header_within_the_limits(limits, message):
    data = _file(compression="none", use_dictionary=False, write_statistics=True)
    md = pqkit.read_metadata(data)
    meta = md.row_group(0).thrift.columns[0].meta_data        # "a": 8-byte page statistics
    chunk = data[meta.data_page_offset:meta.data_page_offset + meta.total_compressed_size]
    pages = list(PageWalker(chunk, meta.data_page_offset, 2, "column a"))
    assert [p.header.compressed_page_size for p in pages] == [len(pages[0].payload)]
    with pytest.raises(pqkit.AllocationLimitError, match=message):
        list(PageWalker(chunk, meta.data_page_offset, 2, "column a", thrift_limits=limits))


def test_read_pandas_takes_options():
    data = _file(compression="zstd")       # data pages of 9 bytes
    with pytest.raises(pqkit.AllocationLimitError, match="ReadOptions.max_page_size = 8"):
        pqkit.read_pandas(data, options=pqkit.ReadOptions(max_page_size=8))
    frame = pqkit.read_pandas(data, options=pqkit.ReadOptions(max_thrift_depth=16))
    assert frame["a"].tolist() == [1, 2] and frame["b"].tolist() == ["x", "y"]
    assert np.array_equal(frame["c"].to_numpy(), [1.0, 2.0])


@pytest.mark.parametrize("value", [1, "yes", None])
def test_strings_as_binary_must_be_a_bool(value):
    with pytest.raises(pqkit.ArgumentError, match=r"ReadOptions\(strings_as_binary=\.\.\.\) "
                                                   r"must be a bool"):
        pqkit.ReadOptions(strings_as_binary=value)


def test_strings_as_binary_reads_text_columns_as_binary():
    data = _file()
    t = pqkit.read_table(data, options=pqkit.ReadOptions(strings_as_binary=True))
    assert str(t.schema[1].type) == "binary"
    assert t.column("b").to_pylist() == [b"x", b"y"]
