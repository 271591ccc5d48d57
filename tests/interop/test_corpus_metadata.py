"""read_metadata and Schema against pyarrow on every corpus file."""
import pyarrow.parquet as pq
import pytest

import pqkit
from corpus import entries, path_of
from pqkit.format import CompressionCodec, Encoding, Type

pytestmark = pytest.mark.corpus

# pyarrow names LZ4_RAW "LZ4" and the deprecated Hadoop-framed LZ4 "UNKNOWN"/"LZ4_HADOOP".
PYARROW_CODEC = {"LZ4_RAW": {"LZ4"}, "LZ4": {"UNKNOWN", "LZ4_HADOOP"}}

# pyarrow refuses this footer while converting the schema to Arrow ("Map keys must be
# annotated as required"). The Parquet footer itself is valid and the format asks
# readers to accept optional map keys (Presto/Trino wrote them), so pqkit reads it.
LENIENT_ON_PURPOSE = {"data/incorrect_map_schema.parquet"}


def _pyarrow_metadata(entry):
    try:
        return pq.read_metadata(path_of(entry)), None
    except Exception as exc:  # pyarrow's verdict is the reference
        return None, exc


@pytest.mark.parametrize("entry", entries(lambda e: e["readable"]))
def test_metadata_matches_pyarrow(entry):
    ours = pqkit.read_metadata(path_of(entry))
    theirs = pq.read_metadata(path_of(entry))
    assert ours.num_rows == theirs.num_rows
    assert ours.num_row_groups == theirs.num_row_groups
    assert ours.num_columns == theirs.num_columns
    assert (ours.created_by or "") == theirs.created_by   # pyarrow shows absent as ""
    for r in range(theirs.num_row_groups):
        rg_theirs = theirs.row_group(r)
        rg_ours = ours.row_group(r)
        assert rg_ours.num_rows == rg_theirs.num_rows
        assert rg_ours.num_columns == rg_theirs.num_columns
        for c in range(rg_theirs.num_columns):
            _compare_chunk(rg_ours.column(c), rg_theirs.column(c))


def _compare_chunk(ours, theirs):
    """The public ColumnChunkMetaData against pyarrow's, and against its own Thrift."""
    md = ours.thrift.meta_data
    for name in ("file_offset", "data_page_offset", "dictionary_page_offset",
                 "total_compressed_size", "total_uncompressed_size", "num_values",
                 "physical_type", "path_in_schema", "encodings", "has_dictionary_page"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.physical_type == Type(md.type).name
    assert ours.encodings == tuple(Encoding(e).name for e in md.encodings)
    codec = CompressionCodec(md.codec).name
    assert theirs.compression in PYARROW_CODEC.get(codec, {codec})
    assert ours.compression in {"LZ4_RAW": {"LZ4"}, "LZ4": {"LZ4_HADOOP"}}.get(codec, {codec})


@pytest.mark.parametrize("entry", entries(lambda e: e["readable"]))
def test_schema_levels_match_pyarrow(entry):
    ours = pqkit.read_metadata(path_of(entry)).schema
    theirs = pq.read_metadata(path_of(entry)).schema
    assert len(ours) == len(theirs)
    for i, col in enumerate(ours.columns):
        ref = theirs.column(i)
        assert col.dotted_path == ref.path
        assert col.max_definition_level == ref.max_definition_level
        assert col.max_repetition_level == ref.max_repetition_level
        assert Type(col.physical_type).name == ref.physical_type
        assert ours.column(ref.path) is col


@pytest.mark.parametrize("entry", entries(lambda e: not e["readable"]))
def test_rejected_footers_raise_parquet_error(entry):
    """Where pyarrow rejects the footer, pqkit raises a ParquetError subclass."""
    if entry.get("encrypted"):
        _check_encrypted(entry)
        return
    theirs, exc = _pyarrow_metadata(entry)
    if entry["path"] in LENIENT_ON_PURPOSE:
        assert exc is not None
        md = pqkit.read_metadata(path_of(entry))
        assert md.num_columns > 0
        return
    if exc is None:
        # pyarrow reads this footer (the file is bad further in): so must we.
        md = pqkit.read_metadata(path_of(entry))
        assert md.num_rows == theirs.num_rows
        assert md.num_columns == theirs.num_columns
        return
    with pytest.raises(pqkit.ParquetError):
        pqkit.read_metadata(path_of(entry))


def _check_encrypted(entry):
    # pyarrow aborts the process on some of these files, so it is not consulted.
    if entry["path"].endswith("plaintext_footer.parquet.encrypted"):
        md = pqkit.read_metadata(path_of(entry))   # the footer is plaintext and signed
        assert md.raw.encryption_algorithm is not None
        return
    with pytest.raises(pqkit.EncryptedFileError, match="encrypted"):
        pqkit.read_metadata(path_of(entry))
