"""Dictionary pages read on their own: header, sizes, CRC and the typed dictionary values.

A dictionary-encoded column chunk starts with its dictionary page::

    chunk start --> PageHeader{type=DICTIONARY_PAGE, compressed_page_size, crc,
                               dictionary_page_header{num_values, encoding, is_sorted}}
                    payload: num_values PLAIN values, compressed with the chunk's codec
                    data pages ...

The chunk starts at ``dictionary_page_offset`` when that is valid and before
``data_page_offset``, else at ``data_page_offset`` (some writers store 0 for
the offset they do not use, others point ``data_page_offset`` at the
dictionary page). Which page is the dictionary is decided by the first page's
header type, never by the offsets alone. Only that one page is read from the
file: its header through a bounded window, then exactly its payload.

For example a ``string`` column written by pyarrow with the values
``["b", "a", "b"]`` has a dictionary page of 2 PLAIN values ``"b", "a"``
(first-seen order), and :func:`read_dictionary_page` returns them as a
string column ``["b", "a"]``.
"""
from dataclasses import dataclass
from typing import Optional

from pqkit import format as fmt
from pqkit.columnar.column import Column
from pqkit.encodings.plain import decode_plain
from pqkit.errors import CorruptFileError, EncodingError, EncryptedFileError
from pqkit.format import Encoding, PageType, Type
from pqkit.page import RawPage, crc32_signed, decompress_page
from pqkit.read.decode import values as V
from pqkit.chunk_range import chunk_range, dictionary_header_padding
from pqkit.read.decode.leaf import leaf_column
from pqkit.schema.logical import leaf_type

__all__ = ["DictionaryPage", "read_dictionary_page"]

# A dictionary page header is a few dozen bytes (more with statistics, which
# writers do not put there); a window this large never cuts a real one short.
HEADER_WINDOW = 64 * 1024


@dataclass
class DictionaryPage:
    """One column chunk's dictionary page.

    Attributes
    ----------
    offset : int
        File offset of the page header.
    header_size, compressed_size, uncompressed_size : int
        Bytes of the header, of the stored payload and of the payload once
        decompressed.
    encoding : int
        ``DictionaryPageHeader.encoding`` (PLAIN, or the legacy PLAIN_DICTIONARY).
    num_values : int
        Entries in the dictionary.
    is_sorted : bool or None
    crc : int or None
        The stored CRC-32 (signed, as in the header).
    crc_ok : bool or None
        Whether the CRC matches the payload; None when no CRC is stored.
    values : pqkit.columnar.column.Column
        The entries, typed with the column's logical type (strings, decimals,
        timestamps ...), in dictionary order.
    """
    offset: int
    header_size: int
    compressed_size: int
    uncompressed_size: int
    encoding: int
    num_values: int
    is_sorted: Optional[bool]
    crc: Optional[int]
    crc_ok: Optional[bool]
    values: Column


def read_dictionary_page(parquet_file, column, row_group):
    """Read the dictionary page of one column chunk, or None when it has none.

    Parameters
    ----------
    parquet_file : pqkit.ParquetFile
    column : str, tuple or int
        Dotted path, path tuple or leaf index.
    row_group : int

    Returns
    -------
    DictionaryPage or None
        None when the chunk's first page is not a dictionary page.

    Raises
    ------
    CorruptFileError, EncodingError, ThriftDecodeError
        Naming the offset of the bad header, payload or value.
    AllocationLimitError
        The page decompresses to more than the file's ``ReadOptions.max_dictionary_size``.
    EncryptedFileError
        The chunk is encrypted.
    """
    md = parquet_file.metadata
    node = parquet_file.schema.column(column)
    if not 0 <= row_group < md.num_row_groups:
        raise IndexError(f"row group {row_group} out of range (file has {md.num_row_groups})")
    chunks = md.row_group(row_group).thrift.columns or []
    where = f"column {node.dotted_path}, row group {row_group}"
    if node.column_index >= len(chunks):
        raise CorruptFileError(f"{where}: the row group has only {len(chunks)} column chunks "
                               f"(footer at offset {md.footer_offset})")
    chunk = chunks[node.column_index]
    if chunk.crypto_metadata is not None:
        raise EncryptedFileError(f"{where}: the column chunk is encrypted (chunk file_offset "
                                 f"{chunk.file_offset}); this command does not decrypt it")
    cmd = chunk.meta_data
    if cmd is None:
        raise CorruptFileError(f"{where}: the column chunk has no meta_data (chunk "
                               f"file_offset {chunk.file_offset})")
    start, length = chunk_range(chunk, md.footer_offset, where,
                                dictionary_header_padding(md.created_by))
    if length == 0:
        return None
    read = parquet_file.read_bytes
    window = read(start, min(length, HEADER_WINDOW))
    header, header_size = fmt.decode(fmt.PageHeader, window, 0, len(window), start)
    if header.type != PageType.DICTIONARY_PAGE:
        return None
    return _read_page(read, node, cmd.codec, header, start, header_size, start + length,
                      where, parquet_file.row_group_reader.options)


def _read_page(read, node, codec, header, offset, header_size, chunk_end, where, options):
    dph = header.dictionary_page_header
    size = header.compressed_page_size
    if dph is None or dph.num_values is None or dph.num_values < 0:
        raise CorruptFileError(f"dictionary page at offset {offset} in {where} has no valid "
                               "dictionary_page_header")
    if size is None or size < 0 or header.uncompressed_page_size is None \
            or header.uncompressed_page_size < 0:
        raise CorruptFileError(f"dictionary page at offset {offset} in {where} has invalid "
                               f"sizes {size} / {header.uncompressed_page_size}")
    # The reader's bound on a dictionary's decompressed size, before decompressing it.
    options.check("max_dictionary_size", header.uncompressed_page_size, "decompressed bytes",
                  f"dictionary page at offset {offset} in {where}")
    payload_offset = offset + header_size
    if payload_offset + size > chunk_end:
        raise CorruptFileError(f"dictionary page at offset {offset} in {where} claims {size} "
                               f"bytes, but the column chunk ends at offset {chunk_end}")
    encoding = Encoding.PLAIN if dph.encoding is None else dph.encoding
    if encoding not in (Encoding.PLAIN, Encoding.PLAIN_DICTIONARY):
        raise EncodingError(f"dictionary page at offset {offset} in {where} uses encoding "
                            f"{_name(Encoding, encoding)}; only PLAIN is valid")
    payload = read(payload_offset, size)
    crc_ok = None if header.crc is None else crc32_signed(payload) == header.crc
    page = RawPage(header, offset, header_size, memoryview(payload))
    body = decompress_page(page, codec, where)
    values = _decode_values(node, body, dph.num_values, payload_offset, offset, where)
    return DictionaryPage(offset=offset, header_size=header_size, compressed_size=size,
                          uncompressed_size=header.uncompressed_page_size, encoding=encoding,
                          num_values=dph.num_values, is_sorted=dph.is_sorted, crc=header.crc,
                          crc_ok=crc_ok, values=values)


def _decode_values(node, body, count, payload_offset, offset, where):
    physical = node.physical_type
    # Every PLAIN value but a boolean takes at least one byte (a BYTE_ARRAY its 4-byte
    # length): refuse an impossible count before allocating for it.
    need_bits = count if physical == Type.BOOLEAN else \
        count * 8 * (4 if physical == Type.BYTE_ARRAY else 1)
    if need_bits > len(body) * 8:
        raise CorruptFileError(f"dictionary page at offset {offset} in {where} claims {count} "
                               f"values in {len(body)} bytes")
    raw, _ = decode_plain(physical, body, 0, count, node.element.type_length, payload_offset)
    values = V.BinaryValues(*raw) if isinstance(raw, tuple) else V.FixedValues(raw)
    return leaf_column(leaf_type(node), physical, values, None, None, count)


def _name(enum_cls, value):
    try:
        return enum_cls(value).name
    except ValueError:
        return f"UNKNOWN({value})"
