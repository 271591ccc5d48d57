"""Encrypting one file as it is written: pages, page headers, indexes, bloom filters, the
columns' metadata and the footer (encrypted, or plaintext and signed).

:class:`FileEncryptor` draws the file's random ``aad_file_unique``, decides which
columns are encrypted with which key, and hands the writer one :class:`ChunkEncryptor`
per encrypted column chunk. At the end it seals each chunk's ``ColumnMetaData``
(:meth:`FileEncryptor.seal_column`) and the footer (:meth:`FileEncryptor.footer`).
"""
import os

from pqkit import format as fmt
from pqkit.crypto.ciphers import NONCE_SIZE, ctr_seal, gcm_seal, gcm_tag
from pqkit.crypto.modules import ModuleType, module_aad
from pqkit.format import PageType

__all__ = ["FileEncryptor", "ChunkEncryptor"]

FILE_UNIQUE_SIZE = 8
_HEADER_TYPES = {PageType.DICTIONARY_PAGE: ModuleType.DICTIONARY_PAGE_HEADER}
_PAGE_TYPES = {PageType.DICTIONARY_PAGE: ModuleType.DICTIONARY_PAGE}


class FileEncryptor:
    """The encryption state of one file being written.

    Parameters
    ----------
    properties : pqkit.EncryptionProperties
    leaves : list of str
        The dotted paths of the schema's leaves, in column order.
    """

    def __init__(self, properties, leaves):
        self.properties = properties
        unique = os.urandom(FILE_UNIQUE_SIZE)
        prefix = properties.aad_prefix
        self.file_aad = (prefix or b"") + unique
        stored = prefix is not None and properties.store_aad_prefix
        params = dict(aad_prefix=prefix if stored else None, aad_file_unique=unique,
                      supply_aad_prefix=True if prefix is not None and not stored else None)
        self.ctr_pages = properties.algorithm == "AES_GCM_CTR_V1"
        self.algorithm = fmt.EncryptionAlgorithm(
            AES_GCM_CTR_V1=fmt.AesGcmCtrV1(**params)) if self.ctr_pages else \
            fmt.EncryptionAlgorithm(AES_GCM_V1=fmt.AesGcmV1(**params))
        self.column_keys = [self._key_of(path) for path in leaves]

    def _key_of(self, path):
        """The key of leaf ``path`` (None: written in plaintext), given by its own path or
        by its top-level column's name."""
        props = self.properties
        if props.uniform:
            return props.footer_key
        for name in (path, path.split(".")[0]):
            if name in props.column_keys:
                return props.column_keys[name]
        return None

    def _own_key_metadata(self, path):
        metadata = self.properties.column_key_metadata
        return metadata.get(path, metadata.get(path.split(".")[0]))

    def chunk(self, g, c):
        """The :class:`ChunkEncryptor` of column ``c`` in row group ``g``, or None when
        the column is written in plaintext."""
        key = self.column_keys[c]
        return None if key is None else ChunkEncryptor(key, self.file_aad, self.ctr_pages,
                                                       g, c)

    def seal_column(self, chunk, g, c):
        """Set ColumnChunk ``chunk``'s crypto metadata and seal its ColumnMetaData with the
        column's key: kept in the clear only for a footer-key column of an encrypted
        footer, and in a plaintext footer kept without its statistics for old readers."""
        key = self.column_keys[c]
        if key is None:
            return
        meta = chunk.meta_data
        path = ".".join(meta.path_in_schema)
        if self.properties.uniform:
            chunk.crypto_metadata = fmt.ColumnCryptoMetaData(
                ENCRYPTION_WITH_FOOTER_KEY=fmt.EncryptionWithFooterKey())
            if not self.properties.plaintext_footer:
                return
        else:
            chunk.crypto_metadata = fmt.ColumnCryptoMetaData(
                ENCRYPTION_WITH_COLUMN_KEY=fmt.EncryptionWithColumnKey(
                    path_in_schema=list(meta.path_in_schema),
                    key_metadata=self._own_key_metadata(path)))
        chunk.encrypted_column_metadata = gcm_seal(
            key, fmt.encode(meta), module_aad(self.file_aad, ModuleType.COLUMN_META_DATA, g, c))
        if self.properties.plaintext_footer:
            meta.statistics = meta.encoding_stats = meta.size_statistics = None
        else:
            chunk.meta_data = None

    def footer(self, meta):
        """(bytes after the last data, before the length, and the trailing magic) of the
        footer ``meta`` (a FileMetaData): FileCryptoMetaData and the sealed footer, or the
        plaintext footer and its signature."""
        props = self.properties
        aad = module_aad(self.file_aad, ModuleType.FOOTER)
        if props.plaintext_footer:
            meta.encryption_algorithm = self.algorithm
            meta.footer_signing_key_metadata = props.footer_key_metadata
            plain = fmt.encode(meta)
            nonce = os.urandom(NONCE_SIZE)
            return plain + nonce + gcm_tag(props.footer_key, plain, aad, nonce)
        crypto = fmt.FileCryptoMetaData(encryption_algorithm=self.algorithm,
                                        key_metadata=props.footer_key_metadata)
        return fmt.encode(crypto) + gcm_seal(props.footer_key, fmt.encode(meta), aad)


class ChunkEncryptor:
    """Seals the modules of one column chunk; data pages count their ordinal."""

    def __init__(self, key, file_aad, ctr_pages, row_group, column):
        self.key = key
        self.file_aad = file_aad
        self.ctr_pages = ctr_pages
        self.row_group = row_group
        self.column = column
        self.ordinal = 0            # of the next data page

    def _aad(self, module_type, page=None):
        return module_aad(self.file_aad, module_type, self.row_group, self.column, page)

    def page(self, page_type, payload):
        """The sealed page ``payload`` (page type ``page_type``)."""
        if self.ctr_pages:
            return ctr_seal(self.key, payload)
        module_type = _PAGE_TYPES.get(page_type, ModuleType.DATA_PAGE)
        ordinal = None if page_type == PageType.DICTIONARY_PAGE else self.ordinal
        return gcm_seal(self.key, payload, self._aad(module_type, ordinal))

    def header(self, page_type, header_bytes):
        """The sealed page header; a data page's header ends its page (the next data page
        takes the next ordinal)."""
        if page_type == PageType.DICTIONARY_PAGE:
            return gcm_seal(self.key, header_bytes,
                            self._aad(ModuleType.DICTIONARY_PAGE_HEADER))
        sealed = gcm_seal(self.key, header_bytes,
                          self._aad(ModuleType.DATA_PAGE_HEADER, self.ordinal))
        self.ordinal += 1
        return sealed

    def module(self, module_type, data):
        """A sealed ColumnIndex, OffsetIndex, bloom filter header or bitset."""
        return gcm_seal(self.key, data, self._aad(module_type))
