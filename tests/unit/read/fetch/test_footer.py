"""read_metadata: sources, magic, footer length and truncation errors."""
import io
import struct

import pytest

import pqkit
from pqkit import format as fmt

SAMPLE = "fixtures/sample.parquet"


@pytest.fixture(scope="module")
def sample_bytes(request):
    root = request.config.rootpath
    return (root / SAMPLE).read_bytes()


def test_sources_agree(sample_bytes, tmp_path):
    path = tmp_path / "s.parquet"
    path.write_bytes(sample_bytes)
    a = pqkit.read_metadata(str(path))
    b = pqkit.read_metadata(sample_bytes)
    c = pqkit.read_metadata(io.BytesIO(sample_bytes))
    d = pqkit.read_metadata(path)
    assert a.raw == b.raw == c.raw == d.raw
    assert a.num_rows == 12 and a.num_row_groups == 2 and a.num_columns == 8
    assert a.footer_offset + a.footer_length + 8 == len(sample_bytes)
    assert "ARROW:schema" in a.key_value_metadata


def test_large_footer_needs_second_read():
    # A footer larger than the 64 KiB speculative tail read.
    kv = [fmt.KeyValue(key="k", value="x" * 100_000)]
    md = fmt.FileMetaData(version=1, num_rows=0, row_groups=[], key_value_metadata=kv,
                          schema=[fmt.SchemaElement(name="root", num_children=0)])
    footer = fmt.encode(md)
    data = b"PAR1" + footer + struct.pack("<I", len(footer)) + b"PAR1"
    got = pqkit.read_metadata(data)
    assert got.key_value_metadata["k"] == "x" * 100_000


@pytest.mark.parametrize("mutate, error, message", [
    (lambda d: d[:-4] + b"PAR2", pqkit.CorruptFileError, "bad magic"),
    (lambda d: b"XXXX" + d[4:], pqkit.CorruptFileError, "offset 0"),
    (lambda d: d[:-4] + b"PARE", pqkit.EncryptedFileError, "encrypted"),
    (lambda d: d[:8], pqkit.CorruptFileError, "too small"),
    (lambda d: d[:-8] + struct.pack("<I", 10 ** 9) + b"PAR1", pqkit.CorruptFileError,
     "exceeds the file"),
    (lambda d: d[:-8] + struct.pack("<I", len(d) - 8) + b"PAR1", pqkit.CorruptFileError,
     "exceeds the file"),
    (lambda d: b"PAR1" + d[-200:], pqkit.ParquetError, "offset"),   # truncated file
])
def test_bad_tails(sample_bytes, mutate, error, message):
    with pytest.raises(error, match=message):
        pqkit.read_metadata(mutate(sample_bytes))


def test_missing_required_field_is_reported():
    md = fmt.FileMetaData(version=1, num_rows=0,
                          schema=[fmt.SchemaElement(name="root", num_children=0)])
    footer = fmt.encode(md)          # row_groups missing
    data = b"PAR1" + footer + struct.pack("<I", len(footer)) + b"PAR1"
    with pytest.raises(pqkit.CorruptFileError, match="row_groups"):
        pqkit.read_metadata(data)


def test_not_a_source():
    with pytest.raises(TypeError):
        pqkit.read_metadata(12)
