"""The ends of a Parquet file: the leading magic and the tail that locates the footer.

::

    "PAR1" | column chunks, indexes, bloom filters | FileMetaData | len (u32 LE) | "PAR1"

A file of ``S`` bytes whose last eight are ``len`` and ``"PAR1"`` has its footer
at ``[S - 8 - len, S - 8)``; that offset must be past the leading magic, so a
file is at least 12 bytes. Example: a 1000-byte file ending in
``b"\\x2c\\x01\\x00\\x00PAR1"`` (len 300) has its footer at ``[692, 992)``. A file
whose footer is encrypted ends in ``"PARE"`` instead.

Both roads use this: the read road to open a file, the write road to end one
(:func:`tail_bytes`) and its file surgery to find the footer it rewrites.
"""
import struct

from pqkit.errors import CorruptFileError, EncryptedFileError

__all__ = [
    "MAGIC",
    "MAGIC_ENCRYPTED",
    "MIN_FILE_SIZE",
    "TAIL_SIZE",
    "check_head",
    "footer_location",
    "tail_bytes",
]

MAGIC = b"PAR1"
MAGIC_ENCRYPTED = b"PARE"
TAIL_SIZE = 8               # footer length and magic
MIN_FILE_SIZE = 12          # leading magic and tail


def _at(where, message):
    return f"{where}: {message}" if where else message


def footer_location(size, tail, where="", encrypted_ok=False):
    """(offset, length) of the footer of a file of ``size`` bytes ending in ``tail``.

    Parameters
    ----------
    size : int
        The file's size in bytes.
    tail : bytes
        The file's last bytes, at least the last 8 (or the whole file, when shorter).
    where : str
        The file's name for messages, or "".
    encrypted_ok : bool
        Locate an encrypted footer (``PARE``: FileCryptoMetaData and the footer's
        module) instead of refusing it.

    Raises
    ------
    CorruptFileError
        Fewer than 12 bytes, a trailing magic other than ``PAR1``, or a footer length
        reaching into the leading magic.
    EncryptedFileError
        The footer is encrypted (``PARE``) and ``encrypted_ok`` is False.
    """
    if size < MIN_FILE_SIZE:
        raise CorruptFileError(_at(where, f"file of {size} bytes is too small to be Parquet "
                                          f"(at least {MIN_FILE_SIZE})"))
    magic = bytes(tail[-4:])
    if magic == MAGIC_ENCRYPTED and not encrypted_ok:
        raise EncryptedFileError(_at(where, "the file is encrypted (footer magic 'PARE'): "
                                            "read it with its keys; file surgery does not "
                                            "rewrite encrypted files"))
    if magic not in (MAGIC, MAGIC_ENCRYPTED):
        raise CorruptFileError(_at(where, f"bad magic {magic!r} at offset {size - 4}: not a "
                                          "Parquet file (expected b'PAR1')"))
    length = struct.unpack("<I", bytes(tail[-TAIL_SIZE:-4]))[0]
    offset = size - TAIL_SIZE - length
    if offset < len(MAGIC):
        raise CorruptFileError(_at(where, f"footer length {length} (at offset "
                                          f"{size - TAIL_SIZE}) exceeds the file of {size} "
                                          "bytes"))
    return offset, length


def check_head(head, where="", magic=MAGIC):
    """Raise CorruptFileError unless ``head``, a file's first 4 bytes, is ``magic``
    (``PAR1``, or ``PARE`` for a file with an encrypted footer)."""
    if bytes(head) != magic:
        raise CorruptFileError(_at(where, f"bad magic {bytes(head)!r} at offset 0 "
                                          f"(expected {magic!r})"))


def tail_bytes(footer_length, magic=MAGIC):
    """The 8 bytes that end a file whose footer has ``footer_length`` bytes (``magic``:
    ``PARE`` after an encrypted footer)."""
    return struct.pack("<I", footer_length) + magic
