"""read/decode/row_group.py: the row-group reader ParquetFile and the filtered reader share."""
import io

import numpy as np
import pytest

import pqkit
from pqkit.read.fetch.page_index import read_offset_index
from pqkit.read.decode.row_group import RowGroupReader


@pytest.fixture(scope="module")
def pf():
    n = 4000
    table = {"id": np.arange(n, dtype=np.int64),
             "s": [None if i % 7 == 0 else f"v{i % 50}" for i in range(n)],
             "l": [[i, i + 1] if i % 3 else None for i in range(n)]}
    buf = io.BytesIO()
    pqkit.write_table(table, buf, row_group_size=1000, data_page_size=1024)
    return pqkit.ParquetFile(buf.getvalue())


def test_whole_row_groups_equal_the_file_reader(pf):
    reader = pf.row_group_reader
    assert isinstance(reader, RowGroupReader)
    tops, wanted = list(pf.schema.root.children), {c.path for c in pf.schema.columns}
    for g in range(pf.num_row_groups):
        assert reader.read(g, tops, wanted).to_pydict() == pf.read_row_group(g).to_pydict()
    assert reader.empty(tops, wanted).num_rows == 0


def test_some_pages_decode_only_their_rows(pf):
    reader = pf.row_group_reader
    node = pf.schema.column("id")
    chunk = pf.metadata.row_group(2).thrift.columns[node.column_index]
    oi = read_offset_index(reader.source, chunk, pf.metadata.footer_offset, "id")
    assert len(oi.page_locations) > 2
    second = oi.page_locations[1]
    segments = [(second.offset, second.compressed_page_size)]
    dict_off = chunk.meta_data.dictionary_page_offset
    if dict_off:                       # the dictionary page comes first, when there is one
        segments.insert(0, (dict_off, oi.page_locations[0].offset - dict_off))
    data = reader.read_pages(2, node, segments)
    _, col = reader.leaf(node, data, "id")
    first_row = 2000 + second.first_row_index
    assert col.to_pylist() == list(range(first_row, first_row + len(col)))


def test_encrypted_and_missing_chunks_are_refused(pf):
    node = pf.schema.column("id")
    # A fresh footer: a row group's chunks are checked once, when first read.
    fresh = pqkit.ParquetFile(pf.row_group_reader.source.read(0, pf.metadata.file_size))
    reader = fresh.row_group_reader
    fresh.metadata.row_group(0).thrift.columns = []
    with pytest.raises(pqkit.CorruptFileError,
                       match=r"row_groups\[0\]\.columns holds 0 column chunks"):
        reader.column_chunk(0, node)
