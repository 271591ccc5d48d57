"""A v1 data page may continue the previous page's record.

Writers before the page index (old parquet-mr) split a repeated column's
records across v1 pages; pyarrow reads such chunks. The file is built by hand:
`repeated int32 r` with records [1, 2, 3] and [4, 5], the second page starting
inside the first record (repetition level 1).
"""
import pyarrow.parquet as pq
import pytest

import pqkit
from pqkit import format as fmt
from pqkit.encodings.plain import encode_plain
from pqkit.encodings.rle import encode_levels
from pqkit.format import CompressionCodec, Encoding, FieldRepetitionType, PageType, Type


def _page(reps, values):
    body = (encode_levels(reps, 1) + encode_levels([1] * len(reps), 1)
            + encode_plain(Type.INT32, values))
    header = fmt.PageHeader(
        type=PageType.DATA_PAGE, uncompressed_page_size=len(body),
        compressed_page_size=len(body),
        data_page_header=fmt.DataPageHeader(
            num_values=len(reps), encoding=Encoding.PLAIN,
            definition_level_encoding=Encoding.RLE, repetition_level_encoding=Encoding.RLE))
    return fmt.encode(header) + body


def _file(pages, num_rows, num_values):
    chunk = b"".join(pages)
    meta = fmt.ColumnMetaData(
        type=Type.INT32, encodings=[Encoding.PLAIN, Encoding.RLE], path_in_schema=["r"],
        codec=CompressionCodec.UNCOMPRESSED, num_values=num_values,
        total_uncompressed_size=len(chunk), total_compressed_size=len(chunk),
        data_page_offset=4)
    footer = fmt.encode(fmt.FileMetaData(
        version=1, num_rows=num_rows,
        schema=[fmt.SchemaElement(name="schema", num_children=1),
                fmt.SchemaElement(name="r", type=Type.INT32,
                                  repetition_type=FieldRepetitionType.REPEATED)],
        row_groups=[fmt.RowGroup(columns=[fmt.ColumnChunk(file_offset=4, meta_data=meta)],
                                 total_byte_size=len(chunk), num_rows=num_rows)]))
    return b"PAR1" + chunk + footer + len(footer).to_bytes(4, "little") + b"PAR1"


def test_a_page_continuing_the_previous_record(tmp_path):
    path = tmp_path / "spanning.parquet"
    path.write_bytes(_file([_page([0, 1], [1, 2]), _page([1, 0, 1], [3, 4, 5])], 2, 5))
    want = {"r": [[1, 2, 3], [4, 5]]}
    assert pq.read_table(path).to_pydict() == want
    assert pqkit.read_table(path).to_pydict() == want


def test_the_first_page_must_start_a_record(tmp_path):
    path = tmp_path / "bad.parquet"
    path.write_bytes(_file([_page([1, 1], [1, 2]), _page([0, 1], [3, 4])], 1, 4))
    with pytest.raises(pqkit.ParquetError, match="starts with repetition level 1"):
        pqkit.read_table(path)
