"""Decrypting one file: its footer, its columns' metadata and each column chunk's modules.

:class:`FileDecryptor` holds a file's algorithm, its file AAD and the caller's
:class:`~pqkit.crypto.properties.DecryptionProperties`; it opens the footer and the
encrypted ``ColumnMetaData`` and hands out one :class:`ChunkDecryptor` per encrypted
column chunk (or raises :class:`~pqkit.errors.MissingKeyError` when the chunk's key is
not given). A :class:`ChunkDecryptor` opens the chunk's page headers and pages
(:meth:`ChunkDecryptor.pages`, which tracks the page ordinals the AADs bind), its
ColumnIndex, OffsetIndex and bloom filter.
"""
from pqkit import format as fmt
from pqkit.crypto.ciphers import SIGNATURE_SIZE, ctr_open, gcm_open, gcm_tag, module_span
from pqkit.crypto.modules import ModuleType, module_aad
from pqkit.crypto.properties import check_key
from pqkit.errors import CorruptFileError, DecryptionError, MissingKeyError, ParquetError
from pqkit.format import PageType

__all__ = ["FileDecryptor", "ChunkDecryptor"]

_DATA_PAGES = (PageType.DATA_PAGE, PageType.DATA_PAGE_V2)


def algorithm_parameters(algorithm, where):
    """(AesGcmV1 or AesGcmCtrV1 struct, whether pages use CTR) of an EncryptionAlgorithm."""
    if algorithm is not None and algorithm.AES_GCM_V1 is not None:
        return algorithm.AES_GCM_V1, False
    if algorithm is not None and algorithm.AES_GCM_CTR_V1 is not None:
        return algorithm.AES_GCM_CTR_V1, True
    raise DecryptionError(f"{where}: unknown encryption algorithm {algorithm!r}")


class FileDecryptor:
    """The decryption state of one file.

    Parameters
    ----------
    algorithm : pqkit.format.EncryptionAlgorithm
    properties : DecryptionProperties or None
        None reads a plaintext-footer file's plaintext columns only.
    footer_key_metadata : bytes or None
        Key metadata of the footer (signing) key.
    where : str
        The file, for messages.
    encrypted_footer : bool
        Whether the footer is encrypted (``PARE``) or plaintext and signed.
    """

    def __init__(self, algorithm, properties, footer_key_metadata, where,
                 encrypted_footer=True):
        self.where = where
        self.encrypted_footer = encrypted_footer
        self.properties = properties
        self.footer_key_metadata = footer_key_metadata
        params, self.ctr_pages = algorithm_parameters(algorithm, where)
        self.algorithm = "AES_GCM_CTR_V1" if self.ctr_pages else "AES_GCM_V1"
        self.aad_prefix_stored = params.aad_prefix is not None
        given = properties.aad_prefix if properties is not None else None
        if given is not None and params.aad_prefix is not None and \
                given != params.aad_prefix:
            raise DecryptionError(f"{where}: the AAD prefix given differs from the one "
                                  "the file stores")
        prefix = params.aad_prefix if params.aad_prefix is not None else given
        self.aad_prefix_missing = prefix is None and bool(params.supply_aad_prefix)
        self.file_aad = (prefix or b"") + (params.aad_file_unique or b"")
        self._chunks = {}
        self._retrieved = {}            # key metadata -> key: one retrieval per key

    def describe(self):
        """The file's encryption layout, without keys: algorithm, footer mode, where the
        AAD prefix comes from, and the footer key's metadata."""
        return {"algorithm": self.algorithm,
                "footer": "encrypted" if self.encrypted_footer else "plaintext (signed)",
                "aad_prefix": "stored" if self.aad_prefix_stored else
                ("supplied by the reader" if self.aad_prefix_missing or
                 (self.properties is not None and self.properties.aad_prefix is not None)
                 else None),
                "footer_key_metadata": key_metadata_text(self.footer_key_metadata)}

    # --- keys ----------------------------------------------------------------------------
    def _retrieve(self, key_metadata, what):
        retriever = self.properties.key_retriever if self.properties else None
        if retriever is None or key_metadata is None:
            return None
        key_metadata = bytes(key_metadata)
        if key_metadata in self._retrieved:
            return self._retrieved[key_metadata]
        try:
            key = retriever(key_metadata)
        except ParquetError:
            raise
        except Exception as exc:        # the caller's code: say whose key it failed on
            raise MissingKeyError(f"{self.where}: the key retriever failed on the key "
                                  f"metadata of {what}: {type(exc).__name__}: {exc}") \
                from None
        if key is not None:
            key = check_key(key, f"the key the key retriever gave for {what}")
        self._retrieved[key_metadata] = key
        return key

    def footer_key(self):
        """The footer key, or None when neither given nor retrievable."""
        if self.properties is not None and self.properties.footer_key is not None:
            return self.properties.footer_key
        return self._retrieve(self.footer_key_metadata, "the footer")

    def column_key(self, chunk):
        """The key of an encrypted ColumnChunk, or None when not given."""
        crypto = chunk.crypto_metadata
        if crypto.ENCRYPTION_WITH_FOOTER_KEY is not None:
            return self.footer_key()
        own = crypto.ENCRYPTION_WITH_COLUMN_KEY
        if own is None:
            raise CorruptFileError(f"{self.where}: a column chunk's ColumnCryptoMetaData "
                                   "names neither the footer key nor a key of its own")
        name = ".".join(own.path_in_schema or ())
        keys = self.properties.column_keys if self.properties else {}
        if name in keys:
            return keys[name]
        return self._retrieve(own.key_metadata, f"column {name}")

    def _require_prefix(self):
        if self.aad_prefix_missing:
            raise MissingKeyError(f"{self.where}: the file was encrypted with an AAD prefix "
                                  "it does not store: read with aad_prefix=...")

    def _require_footer_key(self):
        key = self.footer_key()
        if key is None:
            raise MissingKeyError(f"{self.where}: the footer key was not given: read with "
                                  "footer_key=... or a key_retriever"
                                  + _metadata_hint(self.footer_key_metadata))
        return key

    # --- footer ----------------------------------------------------------------------------
    def open_footer(self, module, origin):
        """The plaintext FileMetaData bytes of an encrypted footer module."""
        self._require_prefix()
        return gcm_open(self._require_footer_key(), module,
                        module_aad(self.file_aad, ModuleType.FOOTER),
                        f"{self.where}: encrypted footer at offset {origin}")

    def verify_signature(self, footer, signature, origin):
        """Check a plaintext footer's ``nonce | tag`` signature against its bytes."""
        self._require_prefix()
        if len(signature) != SIGNATURE_SIZE:
            raise DecryptionError(f"{self.where}: the plaintext footer at offset {origin} "
                                  f"has a signature of {len(signature)} bytes, not "
                                  f"{SIGNATURE_SIZE}")
        key = self._require_footer_key()
        signature = bytes(signature)
        tag = gcm_tag(key, footer, module_aad(self.file_aad, ModuleType.FOOTER),
                      signature[:12])
        if tag != signature[12:]:
            raise DecryptionError(f"{self.where}: the plaintext footer at offset {origin} "
                                  "fails its signature (a wrong footer key or AAD prefix, "
                                  "or the footer was changed)")

    # --- column chunks -----------------------------------------------------------------------
    def open_column_metadata(self, row_groups, limits):
        """Replace each encrypted chunk's ``meta_data`` by its decrypted ColumnMetaData
        where the chunk's key is given (chunks without a key keep what they have, and
        say why when read)."""
        for g, rg in enumerate(row_groups):
            for c, chunk in enumerate(rg.columns or ()):
                if chunk.crypto_metadata is None or chunk.encrypted_column_metadata is None:
                    continue
                try:
                    key = self.column_key(chunk)
                except MissingKeyError:
                    continue
                if key is None:
                    continue
                self._require_prefix()
                where = f"{self.where}: ColumnMetaData of row group {g}, column {c}"
                plain = gcm_open(key, chunk.encrypted_column_metadata, module_aad(
                    self.file_aad, ModuleType.COLUMN_META_DATA, _ordinal(rg, g), c), where)
                chunk.meta_data, _ = fmt.decode(fmt.ColumnMetaData, plain, 0, len(plain),
                                                0, **limits)

    def chunk(self, row_group, g, c, where):
        """The :class:`ChunkDecryptor` of column ``c`` of row group ``g`` (RowGroup
        ``row_group``), or None when the chunk is not encrypted.

        Raises
        ------
        MissingKeyError
            The chunk is encrypted and its key was not given.
        """
        chunk = row_group.columns[c]
        if chunk.crypto_metadata is None:
            return None
        found = self._chunks.get((g, c))
        if found is None:
            key = self.column_key(chunk)
            if key is None:
                own = chunk.crypto_metadata.ENCRYPTION_WITH_COLUMN_KEY
                hint = _metadata_hint(own.key_metadata if own else self.footer_key_metadata)
                raise MissingKeyError(
                    f"{where}: the column is encrypted with "
                    f"{'its own key' if own else 'the footer key'}, which was not given"
                    + hint)
            self._require_prefix()
            found = self._chunks[(g, c)] = ChunkDecryptor(
                key, self.file_aad, self.ctr_pages, _ordinal(row_group, g), c,
                chunk.meta_data, where)
        return found


def _ordinal(row_group, g):
    return row_group.ordinal if row_group.ordinal is not None else g


def _name(module_type):
    return module_type.name.lower().replace("_", " ")


def key_metadata_text(key_metadata):
    """Key metadata as text when it is printable UTF-8, else as ``hex:...``; None for
    none."""
    if key_metadata is None:
        return None
    raw = bytes(key_metadata)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "hex:" + raw.hex()
    return text if text.isprintable() else "hex:" + raw.hex()


def chunk_encryption(chunk):
    """How a ColumnChunk is encrypted, without keys: None for a plaintext chunk, else
    ``{"key": "footer" or "column", "key_metadata": text or None}``."""
    crypto = chunk.crypto_metadata
    if crypto is None:
        return None
    own = crypto.ENCRYPTION_WITH_COLUMN_KEY
    if own is None:
        return {"key": "footer", "key_metadata": None}
    return {"key": "column", "key_metadata": key_metadata_text(own.key_metadata)}


def _metadata_hint(key_metadata):
    if not key_metadata:
        return ""
    try:
        text = bytes(key_metadata).decode("ascii")
    except UnicodeDecodeError:
        return f" (key metadata of {len(key_metadata)} bytes)"
    return f" (key metadata {text[:80]!r})" if text.isprintable() else ""


class ChunkDecryptor:
    """Opens the modules of one encrypted column chunk.

    ``page_offsets`` are the file offsets of the chunk's data pages in order, once its
    OffsetIndex was read: a walk that starts at a page other than the chunk's first
    learns that page's ordinal from them.
    """

    def __init__(self, key, file_aad, ctr_pages, row_group, column, meta, where):
        self.key = key
        self.file_aad = file_aad
        self.ctr_pages = ctr_pages
        self.row_group = row_group
        self.column = column
        self.where = where
        self.page_offsets = None
        start = None
        self.dictionary_offset = None
        if meta is not None:
            offsets = [o for o in (meta.dictionary_page_offset, meta.data_page_offset)
                       if o is not None and o >= 4]
            start = min(offsets) if offsets else None
            d = meta.dictionary_page_offset
            self.dictionary_offset = d if d is not None and d >= 4 else None
        self.chunk_start = start

    def aad(self, module_type, page=None):
        return module_aad(self.file_aad, module_type, self.row_group, self.column, page)

    def open(self, module_type, module, what):
        """The plaintext of a GCM module of this chunk (not a page)."""
        return gcm_open(self.key, module, self.aad(module_type), f"{what} of {self.where}")

    def open_page(self, module_type, module, ordinal, offset):
        where = f"{_name(module_type)} at offset {offset} in {self.where}"
        if self.ctr_pages:
            return ctr_open(self.key, module, where)
        return gcm_open(self.key, module, self.aad(module_type, ordinal), where)

    def pages(self, offset):
        """A :class:`PageModules` walk starting at file offset ``offset``."""
        if offset == self.chunk_start:
            return PageModules(self, 0)
        if self.page_offsets is None or offset not in self.page_offsets:
            raise DecryptionError(f"{self.where}: the page at offset {offset} is not one "
                                  "the chunk's OffsetIndex lists, so its ordinal is unknown")
        return PageModules(self, self.page_offsets.index(offset))

    def read_modules(self, read, offset, types, what):
        """The plaintexts of consecutive GCM modules at ``offset`` (e.g. a bloom filter's
        header and bitset), read through ``read(offset, length)``."""
        out = []
        for module_type in types:
            size = module_span(read(offset, 4), 0, f"{what} of {self.where}", whole=False)
            module = read(offset, size)
            out.append(self.open(module_type, module, what))
            offset += size
        return out


class PageModules:
    """One walk over consecutive page modules: header, then page, then the next header.

    The first page at the chunk's start is its dictionary page when the chunk has one;
    data pages count their ordinal from 0.
    """

    def __init__(self, chunk, ordinal):
        self.chunk = chunk
        self.ordinal = ordinal
        self._last = None

    def header(self, data, pos, offset, limits):
        """(PageHeader, bytes its module takes) of the header module at ``data[pos:]``
        (file offset ``offset``)."""
        c = self.chunk
        size = module_span(data, pos, f"page header at offset {offset} in {c.where}")
        module = memoryview(data)[pos:pos + size]
        dictionary = offset == c.chunk_start and c.dictionary_offset is not None
        if dictionary:
            module_type, ordinal = ModuleType.DICTIONARY_PAGE_HEADER, None
        else:
            module_type, ordinal = ModuleType.DATA_PAGE_HEADER, self.ordinal
        plain = gcm_open(c.key, module, c.aad(module_type, ordinal),
                         f"{_name(module_type)} at offset {offset} in {c.where}")
        header, _ = fmt.decode(fmt.PageHeader, plain, 0, len(plain), offset, **limits)
        if (header.type == PageType.DICTIONARY_PAGE) != dictionary:
            raise DecryptionError(f"page header at offset {offset} in {c.where}: a "
                                  f"{'dictionary' if dictionary else 'data'} page was "
                                  "expected there")
        self._last = (header, offset)
        return header, size

    def payload(self, module):
        """The plaintext page of the module after the last header; the header's
        ``compressed_page_size`` becomes the plaintext's size."""
        header, offset = self._last
        c = self.chunk
        if header.type == PageType.DICTIONARY_PAGE:
            plain = c.open_page(ModuleType.DICTIONARY_PAGE, module, None, offset)
        else:
            plain = c.open_page(ModuleType.DATA_PAGE, module, self.ordinal, offset)
            if header.type in _DATA_PAGES:
                self.ordinal += 1
        header.compressed_page_size = len(plain)
        return plain
