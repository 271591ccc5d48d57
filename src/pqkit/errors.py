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


class InvalidStringError(CorruptFileError):
    """A STRING (or JSON, ENUM) value is not valid UTF-8. The format requires text
    columns to hold UTF-8, so the file is corrupt; read with
    ``ReadOptions(strings_as_binary=True)`` to get the bytes as binary instead."""


class ChecksumError(CorruptFileError):
    """A page's CRC32 does not match its bytes."""


class EncryptedFileError(ParquetError, NotImplementedError):
    """The file uses Parquet modular encryption and was read without the keys (or
    without the ``cryptography`` package) its encrypted parts need."""


class MissingKeyError(EncryptedFileError):
    """An encrypted footer or column was asked for, but no key for it was given (the
    message names the column and its key metadata, never a key)."""


class DecryptionError(CorruptFileError):
    """An encrypted module failed authentication or framing: a wrong key or AAD
    prefix, or bytes changed, moved or cut off; the message names the module."""


class UnsupportedFeatureError(ParquetError, NotImplementedError):
    """The file uses a valid feature pqkit does not implement (LZO, ...)."""


class MissingDependencyError(ParquetError, ImportError):
    """An optional package a feature needs is not installed; the message is one line
    naming the pqkit extra that installs it."""


class MissingCodecError(MissingDependencyError):
    """The Python package behind a compression codec is not installed."""


def require(module, extra, feature):
    """Import and return optional module ``module``, or raise
    :class:`MissingDependencyError` saying that ``feature`` needs ``pip install
    'pqkit[extra]'``."""
    import importlib
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingDependencyError(
            f"{feature} needs the {module.split('.')[0]!r} package: "
            f"pip install 'pqkit[{extra}]'") from None


class AllocationLimitError(ParquetError, ValueError):
    """Reading would allocate more than a limit of :class:`pqkit.ReadOptions` allows (a
    page, a chunk, a Thrift string, the read's total budget); the message names the
    limit. Not a :class:`CorruptFileError`: a valid file can be over a limit, and
    raising the limit reads it. Still a ValueError, as it was when it was one."""


class SchemaError(ParquetError, ValueError):
    """The schema is malformed, or data does not fit the schema."""


class ArgumentError(ParquetError, ValueError, TypeError):
    """A caller's argument pqkit cannot use; the message names the argument. Also a
    ValueError and a TypeError, so code that caught either before keeps working."""


class ArgumentIndexError(ArgumentError, IndexError):
    """An index argument past the end (row group, row number); also an IndexError."""


class ArgumentKeyError(ArgumentError, KeyError):
    """A name argument that names nothing (a column, a field); also a KeyError."""

    __str__ = BaseException.__str__      # the message as given, not KeyError's repr of it


class VariantError(CorruptFileError):
    """A VARIANT value's bytes, or its shredding into typed columns, break the Variant spec."""


class GeometryError(SchemaError):
    """A GEOMETRY or GEOGRAPHY value is not valid WKB, or a box given for one holds NaN."""


class DatasetError(ParquetError):
    """Root of the errors of the dataset layer (:mod:`pqkit.dataset`)."""


class DatasetNotFound(DatasetError, FileNotFoundError):
    """The root holds no PQDS/1 dataset (no committed version)."""


class DatasetExists(DatasetError, FileExistsError):
    """A create found the dataset already committed by another transaction."""


class AlreadyExists(DatasetExists):
    """RFC-0008's name: ``write_dataset`` without ``overwrite`` found a completed dataset."""


class DatasetIncomplete(DatasetError):
    """A file a version lists is missing (vacuumed or deleted outside pqkit)."""


class ManifestCorrupted(DatasetError, ValueError):
    """A version file is unparsable, or disagrees with itself or with the files on disk."""


class UnsupportedFeature(DatasetError, UnsupportedFeatureError):
    """A version file needs a reader or writer feature this pqkit does not implement."""


class CommitConflict(DatasetError):
    """A commit collided with a version committed since the operation read the dataset.

    Attributes
    ----------
    retryable : bool
        True when re-running the whole operation (re-reading the dataset) may succeed.
    conflicting_version : int or None
        The intervening version that conflicts.
    reason : str
        Which rule of the conflict table applied.
    """

    def __init__(self, message, *, retryable, conflicting_version=None, reason=""):
        super().__init__(message)
        self.retryable = bool(retryable)
        self.conflicting_version = conflicting_version
        self.reason = reason


__all__ = [
    "ParquetError",
    "CorruptFileError",
    "ThriftDecodeError",
    "EncodingError",
    "VariantError",
    "GeometryError",
    "ChecksumError",
    "InvalidStringError",
    "EncryptedFileError",
    "MissingKeyError",
    "DecryptionError",
    "UnsupportedFeatureError",
    "MissingCodecError",
    "MissingDependencyError",
    "AllocationLimitError",
    "SchemaError",
    "ArgumentError",
    "ArgumentIndexError",
    "ArgumentKeyError",
    "DatasetError",
    "AlreadyExists",
    "DatasetNotFound",
    "DatasetExists",
    "DatasetIncomplete",
    "ManifestCorrupted",
    "UnsupportedFeature",
    "CommitConflict",
]
