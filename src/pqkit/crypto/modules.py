"""Module types and the AAD that binds an encrypted module to its place in the file.

A module's AAD is ``file AAD | module type | row group | column | page``: the file AAD
is the AAD prefix (the caller's name for the file, optional) followed by the file's
random ``aad_file_unique``; the module type is one byte; the ordinals are 2-byte
little-endian shorts, the row group and column for every module but the footer, the
page only for data pages and their headers. Example: the header of data page 3 of
column 1 in row group 0 of a file whose AAD is ``b"F"`` has the AAD
``b"F" + b"\\x04" + b"\\x00\\x00" + b"\\x01\\x00" + b"\\x03\\x00"``.
"""
import enum
import struct

from pqkit.errors import UnsupportedFeatureError

__all__ = ["ModuleType", "module_aad"]

_MAX_ORDINAL = (1 << 15) - 1     # ordinals are signed 16-bit in the AAD


class ModuleType(enum.IntEnum):
    FOOTER = 0
    COLUMN_META_DATA = 1
    DATA_PAGE = 2
    DICTIONARY_PAGE = 3
    DATA_PAGE_HEADER = 4
    DICTIONARY_PAGE_HEADER = 5
    COLUMN_INDEX = 6
    OFFSET_INDEX = 7
    BLOOM_FILTER_HEADER = 8
    BLOOM_FILTER_BITSET = 9


def _ordinal(value, what):
    if not 0 <= value <= _MAX_ORDINAL:
        raise UnsupportedFeatureError(f"{what} ordinal {value} does not fit the 16 bits "
                                      "an encrypted module's AAD gives it")
    return struct.pack("<h", value)


def module_aad(file_aad, module_type, row_group=None, column=None, page=None):
    """The AAD of one module (see the module docstring)."""
    aad = file_aad + bytes((module_type,))
    if module_type == ModuleType.FOOTER:
        return aad
    aad += _ordinal(row_group, "row group") + _ordinal(column, "column")
    if page is not None:
        aad += _ordinal(page, "page")
    return aad
