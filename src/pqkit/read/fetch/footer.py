"""The file tail: magic, footer length and the FileMetaData footer.

Layout of a plain Parquet file::

    "PAR1" | column chunks ... | [indexes, bloom filters] | FileMetaData | len (u32 LE) | "PAR1"

A file with an encrypted footer ends in "PARE" instead, its footer region holding
``FileCryptoMetaData | encrypted FileMetaData``; a plaintext footer of an encrypted
file is followed by its 28-byte signature. Both are opened with the keys of
``ReadOptions.decryption`` (:mod:`pqkit.crypto`). The footer is read
with one speculative read of the last 64 KiB; a larger footer costs one more
read. Row groups are decoded lazily: the whole footer is validated on open,
but the Python objects of a row group are built when it is first used.
"""
import dataclasses
import gc

from pqkit import format as fmt
from pqkit.crypto.decryptor import FileDecryptor
from pqkit.errors import ArgumentIndexError, EncryptedFileError, ParquetError, SchemaError
from pqkit.read.fetch.metadata import (
    LeafViews,
    RowGroupMetaData,
    declares_order,
    format_version_name,
    key_values,
)
from pqkit.read.fetch.remote import open_source
from pqkit.read.fetch.validate import check_file, check_row_group
from pqkit.read.options import DEFAULT_OPTIONS
from pqkit.schema.tree import Schema
from pqkit.tail import MAGIC, MAGIC_ENCRYPTED, MIN_FILE_SIZE, check_head, footer_location


class FileMetadata:
    """The decoded footer of a Parquet file plus where it was found.

    Shaped as pyarrow's ``FileMetaData`` (``pqkit.FileMetaData`` is the same
    class): ``row_group(i).column(j).statistics`` and ``to_dict()`` give the
    names and values pyarrow gives, over the Thrift structs, which stay
    reachable as ``.thrift`` at each level. Two deviations: ``created_by`` is
    None (not "") when the footer has none, and ``schema`` is the
    :class:`pqkit.Schema` tree.

    Attributes
    ----------
    raw, thrift : pqkit.format.FileMetaData
        The Thrift struct as stored.
    schema : pqkit.Schema
        The schema tree with column paths and levels.
    file_size, footer_offset, footer_length : int
        Byte positions of the footer, for layout views and verification.
    decryptor : pqkit.crypto.FileDecryptor or None
        The file's decryption state when it is encrypted.
    """

    def __init__(self, raw, file_size, footer_offset, footer_length, decryptor=None):
        self.raw = raw
        self.decryptor = decryptor
        self.file_size = file_size
        self.footer_offset = footer_offset
        self.footer_length = footer_length
        self._checked = set()       # row groups that passed check_row_group
        self._leaf_views = None     # what the chunks of each leaf share, on first use
        try:
            self.schema = Schema(raw.schema)
        except SchemaError as exc:
            # A schema element has no offset of its own: name the footer's bytes.
            raise SchemaError(f"{exc} (in the footer of {footer_length} bytes at offset "
                              f"{footer_offset})") from None

    @property
    def num_rows(self):
        return self.raw.num_rows

    @property
    def num_row_groups(self):
        return len(self.raw.row_groups)

    @property
    def num_columns(self):
        return len(self.schema.columns)

    @property
    def created_by(self):
        return self.raw.created_by

    @property
    def version(self):
        """The footer's version field as stored (1 or 2)."""
        return self.raw.version

    @property
    def thrift(self):
        return self.raw

    @property
    def format_version(self):
        """The format version as pyarrow names it: "1.0" or "2.6"."""
        return format_version_name(self.raw.version)

    @property
    def serialized_size(self):
        """Bytes of the Thrift-encoded footer."""
        return self.footer_length

    @property
    def metadata(self):
        """Key/value metadata as ``{bytes: bytes}`` as in pyarrow, or None."""
        return key_values(self.raw.key_value_metadata)

    @property
    def key_value_metadata(self):
        """Key/value metadata as a dict (a value may be None)."""
        return {kv.key: kv.value for kv in (self.raw.key_value_metadata or [])}

    def row_group(self, i):
        """Row group `i` as a :class:`pqkit.read.fetch.metadata.RowGroupMetaData`
        (its Thrift struct is ``.thrift``, also ``raw.row_groups[i]``)."""
        if not -self.num_row_groups <= i < self.num_row_groups:
            raise ArgumentIndexError(f"row group index {i} out of range for a file of "
                                     f"{self.num_row_groups} row groups")
        if self._leaf_views is None:
            self._leaf_views = LeafViews(self.schema, self.raw.column_orders)
        return RowGroupMetaData(self.raw.row_groups[i], self.schema, self.raw.column_orders,
                                self._leaf_views)

    def to_dict(self):
        """The keys pyarrow's ``FileMetaData.to_dict`` gives."""
        return {"created_by": self.created_by, "num_columns": self.num_columns,
                "num_rows": self.num_rows, "num_row_groups": self.num_row_groups,
                "row_groups": [self.row_group(i).to_dict() for i in range(self.num_row_groups)],
                "format_version": self.format_version, "serialized_size": self.serialized_size}

    def equals(self, other):
        """Whether two footers describe the same file contents (``to_dict`` equal)."""
        return isinstance(other, FileMetadata) and self.to_dict() == other.to_dict()

    __eq__ = equals

    def declares_order(self, i):
        """Whether the footer declares a sort order for leaf ``i``: without one its
        min_value/max_value and ColumnIndex bounds mean nothing (see
        :func:`pqkit.read.fetch.metadata.declares_order`)."""
        return declares_order(self.raw.column_orders, i)

    def checked_row_group(self, i):
        """The Thrift RowGroup `i`, its chunks' metadata checked for reading
        (:func:`pqkit.read.fetch.validate.check_row_group`, once per row group)."""
        rg = self.raw.row_groups[i]
        if i not in self._checked:
            check_row_group(rg, i, len(self.schema.columns), self.footer_offset)
            self._checked.add(i)
        return rg

    @property
    def encryption(self):
        """The file's encryption layout without keys (algorithm, footer mode, AAD prefix,
        footer key metadata), or None for a plaintext file."""
        return None if self.decryptor is None else self.decryptor.describe()

    def chunk_decryptor(self, g, column, where):
        """The :class:`pqkit.crypto.ChunkDecryptor` of leaf ``column`` in row group ``g``,
        or None when that chunk is not encrypted.

        Raises
        ------
        pqkit.MissingKeyError
            The chunk is encrypted and the read was given no key for it.
        """
        if self.decryptor is None:
            return None
        return self.decryptor.chunk(self.raw.row_groups[g], g, column, where)

    def column_chunk(self, row_group, column):
        """The Thrift ColumnChunk of leaf `column` (index) in `row_group`."""
        return self.raw.row_groups[row_group].columns[column]

    def __repr__(self):
        return (f"<pqkit.FileMetadata rows={self.num_rows} row_groups={self.num_row_groups} "
                f"columns={self.num_columns} created_by={self.created_by!r}>")


FileMetaData = FileMetadata     # pyarrow's spelling


def _decode_footer(buf, origin, options):
    """Decode FileMetaData from immutable bytes with the cyclic GC paused.

    A footer builds many small objects at once; letting the collector run in
    the middle of that costs several times the decode itself.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        raw, used = fmt.decode(fmt.FileMetaData, buf, 0, len(buf), origin, lazy=True,
                               **options.thrift_limits())
    finally:
        if was_enabled:
            gc.enable()
    return raw, used


def read_metadata_from(src, options=DEFAULT_OPTIONS):
    """Read the footer of an open source (local or remote), reading the last
    ``options.tail_read`` bytes speculatively, within the Thrift limits of ``options``."""
    size = src.size
    tail_len = min(size, max(options.tail_read, 12))
    tail = src.read(size - tail_len, tail_len) if size >= MIN_FILE_SIZE else b""
    footer_offset, footer_len = footer_location(size, tail, encrypted_ok=True)
    encrypted = bytes(tail[-4:]) == MAGIC_ENCRYPTED
    if footer_len <= tail_len - 8:
        buf = tail[tail_len - 8 - footer_len:tail_len - 8]
    else:
        buf = src.read(footer_offset, footer_len)
    where = src.name or "the file"
    if encrypted and options.decryption is None:
        raise EncryptedFileError(_encrypted_footer_message(buf, footer_offset, options, where))
    # On an object store the leading magic would cost a request of its own; the trailing
    # magic and a footer that decodes and validates are the evidence there (as in Arrow).
    if not src.ranged or tail_len == size:
        check_head(src.read(0, 4), magic=MAGIC_ENCRYPTED if encrypted else MAGIC)
    decryptor = None
    if encrypted:
        decryptor, buf = _open_encrypted_footer(buf, footer_offset, options, where)
    raw, used = _decode_footer(buf, footer_offset, options)
    if raw.encryption_algorithm is not None and decryptor is None:
        decryptor = _check_signed_footer(raw, buf, used, footer_offset, options, where)
    check_file(raw, footer_offset)
    if decryptor is not None:
        decryptor.open_column_metadata(raw.row_groups, options.thrift_limits())
    return FileMetadata(raw, size, footer_offset, footer_len, decryptor)


def _open_encrypted_footer(buf, origin, options, where):
    """(FileDecryptor, plaintext FileMetaData bytes) of a ``PARE`` file's footer region."""
    crypto, used = fmt.decode(fmt.FileCryptoMetaData, buf, 0, len(buf), origin,
                              **options.thrift_limits())
    decryptor = FileDecryptor(crypto.encryption_algorithm, options.decryption,
                              crypto.key_metadata, where)
    return decryptor, decryptor.open_footer(memoryview(buf)[used:], origin + used)


def _encrypted_footer_message(buf, origin, options, where):
    """Why a ``PARE`` file read without keys is refused, naming its algorithm and footer
    key metadata when its FileCryptoMetaData decodes."""
    said = ""
    try:
        crypto, _ = fmt.decode(fmt.FileCryptoMetaData, buf, 0, len(buf), origin,
                               **options.thrift_limits())
        layout = FileDecryptor(crypto.encryption_algorithm, None, crypto.key_metadata,
                               where).describe()
        metadata = layout["footer_key_metadata"]
        said = f", {layout['algorithm']}" + \
            (f", footer key metadata {metadata[:80]!r}" if metadata else "")
    except ParquetError:
        pass
    return (f"{where}: the footer is encrypted (footer magic 'PARE'{said}): read with "
            "footer_key=..., a key_retriever or a kms_client")


def _check_signed_footer(raw, buf, used, origin, options, where):
    """The FileDecryptor of a plaintext-footer encrypted file, its signature verified
    when the read has keys (a read without them sees the plaintext columns only)."""
    decryptor = FileDecryptor(raw.encryption_algorithm, options.decryption,
                              raw.footer_signing_key_metadata, where, encrypted_footer=False)
    if options.decryption is not None and options.decryption.check_footer_integrity:
        decryptor.verify_signature(memoryview(buf)[:used], memoryview(buf)[used:], origin)
    return decryptor


def read_metadata(source, options=None, *, storage_options=None, filesystem=None,
                  tail_read=None, footer_key=None, column_keys=None, key_retriever=None,
                  aad_prefix=None, kms_client=None):
    """Read and validate the footer of a Parquet file.

    Parameters
    ----------
    source : path, URL, bytes-like or seekable binary file object
        Only the tail of the file is read: on an object store one GET of the last
        ``tail_read`` bytes when the footer fits in them.
    options : pqkit.ReadOptions, optional
        Its Thrift limits (string and container sizes, nesting) apply to the footer.
    storage_options : dict, optional
        Options of the URL's fsspec file system (credentials, endpoint), as pandas takes them.
    filesystem : fsspec.AbstractFileSystem, optional
        Read ``source`` as a path on this file system.
    tail_read : int, optional
        Bytes read speculatively from the end of the file (default
        ``options.tail_read``, 64 KiB).
    footer_key, column_keys, key_retriever, aad_prefix, kms_client : optional
        The keys of an encrypted file (see :class:`pqkit.ParquetFile`).

    Returns
    -------
    FileMetadata

    Raises
    ------
    pqkit.CorruptFileError
        Bad magic, truncated file, footer length beyond the file, malformed Thrift.
    pqkit.EncryptedFileError
        The footer is encrypted ("PARE") and ``options.decryption`` is None;
        :class:`pqkit.MissingKeyError` when its key is not among them.
    pqkit.DecryptionError
        The footer fails authentication (a wrong key or AAD prefix, changed bytes).
    """
    options = (options or DEFAULT_OPTIONS).with_keys(footer_key, column_keys, key_retriever,
                                                     aad_prefix, kms_client, source)
    if tail_read is not None:
        options = dataclasses.replace(options, tail_read=tail_read)
    with open_source(source, storage_options, filesystem) as src:
        return read_metadata_from(src, options)
