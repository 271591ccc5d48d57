"""Opening a file for pqinspect head, cat, dictionary and bloom.

An error met while reading the footer or the schema is raised again with the
footer's position added, so that even a message about a schema element (which
has no offset of its own) says where the bytes are.
"""
import os
import struct

from pqkit.errors import ParquetError
from pqkit.read.file import ParquetFile


def footer_location(path):
    """Text naming the footer's offset and length, read from the file's last 8 bytes,
    or None when they cannot be read."""
    try:
        size = os.path.getsize(path)
        if size < 12:
            return None
        with open(path, "rb") as f:
            f.seek(size - 8)
            length = struct.unpack("<I", f.read(4))[0]
    except OSError:
        return None
    start = size - 8 - length
    if not 4 <= start < size:
        return None
    return f"footer of {length} bytes at offset {start}"


def open_parquet(path, verify_checksums=True, options=None):
    """A ParquetFile (read with the pqkit.ReadOptions ``options``); a ParquetError from
    its footer or schema names the footer's offset."""
    try:
        return ParquetFile(path, verify_checksums=verify_checksums, options=options)
    except ParquetError as exc:
        where = footer_location(path)
        if where is None or "offset" in str(exc):
            raise
        raise type(exc)(f"{exc} ({where})") from None
