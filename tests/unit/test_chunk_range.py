"""read/chunk_range.py: the one rule for where a column chunk's pages lie."""
import pytest

import pqkit
from pqkit import format as fmt
from pqkit.read.chunk_range import (MAX_DICT_HEADER, chunk_range, chunk_start,
                                    dictionary_header_padding)


def _chunk(dict_off=None, data_off=None, size=100):
    meta = fmt.ColumnMetaData(dictionary_page_offset=dict_off, data_page_offset=data_off,
                              total_compressed_size=size)
    return fmt.ColumnChunk(file_offset=0, meta_data=meta)


@pytest.mark.parametrize("dict_off, data_off, start", [
    (None, 120, 120),      # no dictionary
    (4, 120, 4),           # dictionary first
    (0, 120, 120),         # writers that store 0 for "no dictionary page"
    (2, 120, 120),         # inside the magic: not valid
    (40, 0, 40),           # a chunk of no values: only its dictionary page
    (200, 120, 120),       # a dictionary offset after the data pages is not the start
])
def test_start_is_the_smaller_valid_offset(dict_off, data_off, start):
    chunk = _chunk(dict_off, data_off)
    assert chunk_start(chunk.meta_data) == start
    assert chunk_range(chunk, 10_000, "column a, row group 0") == (start, 100)


@pytest.mark.parametrize("chunk, message", [
    (fmt.ColumnChunk(file_offset=0), "no meta_data"),
    (_chunk(None, 0), "invalid chunk range"),
    (_chunk(None, None), "invalid chunk range"),
    (_chunk(None, 120, size=-1), "invalid chunk range"),
    (_chunk(None, 120, size=None), "invalid chunk range"),
    (_chunk(None, 120, size=9_881), "runs past the end of the data"),
])
def test_bad_ranges_name_the_column(chunk, message):
    with pytest.raises(pqkit.CorruptFileError, match=message) as info:
        chunk_range(chunk, 10_000, "column a.b, row group 3")
    assert str(info.value).startswith("column a.b, row group 3: ")


def test_padding_stops_at_the_data_end():
    chunk = _chunk(4, 50, size=100)
    assert chunk_range(chunk, 10_000, "c", pad=MAX_DICT_HEADER) == (4, 200)
    assert chunk_range(chunk, 150, "c", pad=MAX_DICT_HEADER) == (4, 146)
    assert chunk_range(chunk, 104, "c", pad=MAX_DICT_HEADER) == (4, 100)


@pytest.mark.parametrize("created_by, pad", [
    (None, 0), ("parquet-cpp-arrow version 26.0.1", 0), ("parquet-mr version 1.2.8", 100),
    ("parquet-mr version 1.2.9", 0), ("parquet-mr version 1.12.3 (build abc)", 0),
    ("parquet-mr", 100),
])
def test_parquet_816_padding_by_writer(created_by, pad):
    assert dictionary_header_padding(created_by) == pad
