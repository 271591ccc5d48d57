"""tail.py, a stage module both roads share: where the footer lies, from the file's
last eight bytes, and the magic at its head."""
import struct

import pytest

import pqkit
from pqkit.tail import check_head, footer_location, tail_bytes


def _tail(footer_len, magic=b"PAR1"):
    return struct.pack("<I", footer_len) + magic


@pytest.mark.parametrize("size, tail, where, location", [
    (1000, _tail(300), "", (692, 300)),
    (12, _tail(0), "", (4, 0)),
])
def test_footer_location(size, tail, where, location):
    assert footer_location(size, tail, where) == location


def test_tail_bytes_are_what_footer_location_reads():
    assert tail_bytes(300) == b"\x2c\x01\x00\x00PAR1"
    assert footer_location(1000, tail_bytes(300)) == (692, 300)


@pytest.mark.parametrize("size, tail, error, message", [
    (11, b"", pqkit.CorruptFileError, "^f.parquet: file of 11 bytes is too small"),
    (100, _tail(10, b"PAR2"), pqkit.CorruptFileError, "^f.parquet: bad magic b'PAR2' at offset 96"),
    (100, _tail(10, b"PARE"), pqkit.EncryptedFileError, "^f.parquet: the file is encrypted"),
    (100, _tail(89), pqkit.CorruptFileError, "^f.parquet: footer length 89 .* exceeds the file "
                                             "of 100 bytes"),
])
def test_footer_location_errors(size, tail, error, message):
    with pytest.raises(error, match=message):
        footer_location(size, tail, "f.parquet")


def test_check_head():
    check_head(b"PAR1")
    with pytest.raises(pqkit.CorruptFileError, match="^bad magic b'PAR0' at offset 0"):
        check_head(b"PAR0")
