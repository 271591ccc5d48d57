"""The exception tree of pqkit.

Every error raised for bad input is a :class:`ParquetError`. Messages say what
is wrong and where (file offset, row group, column path, page) so that a user
can find the bytes in ``pqinspect layout``.
"""


class ParquetError(Exception):
    """Root of every error pqkit raises for a file, a dataset or an argument."""


class CorruptFileError(ParquetError, ValueError):
    """The bytes do not follow the Parquet format."""


class ThriftDecodeError(CorruptFileError):
    """Compact-protocol metadata (footer, page header, index) could not be decoded."""


class EncodingError(CorruptFileError):
    """Encoded values or levels are malformed (bad bit width, truncated run, ...)."""


class ChecksumError(CorruptFileError):
    """A page's CRC32 does not match its bytes."""


class EncryptedFileError(ParquetError, NotImplementedError):
    """The file uses Parquet modular encryption, which pqkit cannot decrypt."""


class UnsupportedFeatureError(ParquetError, NotImplementedError):
    """The file uses a valid feature pqkit does not implement (LZO, ...)."""


class MissingCodecError(ParquetError, ImportError):
    """The Python package behind a compression codec is not installed."""


class AllocationLimitError(CorruptFileError):
    """A size read from the file exceeds the bytes available or a configured cap."""


class SchemaError(ParquetError, ValueError):
    """The schema is malformed, or data does not fit the schema."""


__all__ = [
    "ParquetError",
    "CorruptFileError",
    "ThriftDecodeError",
    "EncodingError",
    "ChecksumError",
    "EncryptedFileError",
    "UnsupportedFeatureError",
    "MissingCodecError",
    "AllocationLimitError",
    "SchemaError",
]
