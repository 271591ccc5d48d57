"""The caller's keys: what a read may decrypt with, and how a write encrypts.

Keys are bytes of 16, 24 or 32 bytes (AES-128/192/256). Columns are named by their
dotted path (``"a.b"``) or a tuple of path parts. Example::

    DecryptionProperties(footer_key=b"0123456789012345",
                         column_keys={"double_field": b"1234567890123450"})
    EncryptionProperties(footer_key=k, column_keys={"ssn": k2}, plaintext_footer=True)
"""
from dataclasses import dataclass, field

from pqkit.errors import ArgumentError

__all__ = ["ALGORITHMS", "DecryptionProperties", "EncryptionProperties", "column_name",
           "check_key"]

ALGORITHMS = ("AES_GCM_V1", "AES_GCM_CTR_V1")
_KEY_SIZES = (16, 24, 32)


def check_key(key, what):
    """``key`` as bytes, or ArgumentError naming ``what`` (never the key itself)."""
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise ArgumentError(f"{what} must be bytes of 16, 24 or 32 bytes, not "
                            f"{type(key).__name__}")
    key = bytes(key)
    if len(key) not in _KEY_SIZES:
        raise ArgumentError(f"{what} has {len(key)} bytes; AES keys have 16, 24 or 32")
    return key


def column_name(path):
    """The dotted name of a column given as ``"a.b"`` or ``("a", "b")``."""
    if isinstance(path, str):
        return path
    if isinstance(path, (tuple, list)) and all(isinstance(p, str) for p in path):
        return ".".join(path)
    raise ArgumentError(f"a column is named by a dotted path or a tuple of names, "
                        f"not {path!r}")


def _column_keys(keys, what):
    if keys is None:
        return {}
    if not isinstance(keys, dict):
        raise ArgumentError(f"{what} must be a dict {{column path: key}}")
    return {column_name(p): check_key(k, f"{what}[{column_name(p)!r}]")
            for p, k in keys.items()}


def _optional_bytes(value, what):
    if value is None:
        return None
    if isinstance(value, str):
        return value.encode()
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise ArgumentError(f"{what} must be bytes, not {type(value).__name__}")
    return bytes(value)


@dataclass(frozen=True, repr=False)
class DecryptionProperties:
    """Keys a read decrypts with (``ReadOptions(decryption=...)``).

    Parameters
    ----------
    footer_key : bytes, optional
        Decrypts an encrypted footer, verifies a plaintext footer's signature, and
        decrypts the columns encrypted with the footer key.
    column_keys : dict, optional
        ``{column path: key}`` of columns encrypted with keys of their own.
    key_retriever : callable, optional
        ``key_retriever(key_metadata: bytes) -> bytes``: the key of a footer or column
        whose explicit key is not given, from the key metadata the file stores.
    aad_prefix : bytes, optional
        The AAD prefix of a file written without storing it (must equal the stored
        one otherwise).
    check_footer_integrity : bool, default True
        Verify a plaintext footer's signature (needs the footer key).
    """
    footer_key: bytes = None
    column_keys: dict = field(default_factory=dict)
    key_retriever: object = None
    aad_prefix: bytes = None
    check_footer_integrity: bool = True

    def __post_init__(self):
        if self.footer_key is not None:
            object.__setattr__(self, "footer_key", check_key(self.footer_key, "footer_key"))
        object.__setattr__(self, "column_keys", _column_keys(self.column_keys,
                                                             "column_keys"))
        object.__setattr__(self, "aad_prefix", _optional_bytes(self.aad_prefix,
                                                               "aad_prefix"))
        if self.key_retriever is not None and not callable(self.key_retriever):
            raise ArgumentError("key_retriever must be a callable taking key metadata "
                                "(bytes) and returning the key")

    def __repr__(self):       # never shows a key
        return (f"DecryptionProperties(footer_key={'set' if self.footer_key else None}, "
                f"columns={sorted(self.column_keys)}, "
                f"key_retriever={self.key_retriever is not None}, "
                f"aad_prefix={'set' if self.aad_prefix is not None else None})")


@dataclass(frozen=True, repr=False)
class EncryptionProperties:
    """How a write encrypts (``WriteOptions(encryption=...)``).

    Parameters
    ----------
    footer_key : bytes
        Encrypts (or signs, with ``plaintext_footer``) the footer; with no
        ``column_keys`` it also encrypts every column (uniform encryption).
    column_keys : dict, optional
        ``{column path: key}``: only these columns are encrypted, each with its key;
        the others stay plaintext.
    algorithm : {"AES_GCM_V1", "AES_GCM_CTR_V1"}
    plaintext_footer : bool, default False
        Leave the footer readable (signed), so that readers without keys read the
        plaintext columns.
    aad_prefix : bytes, optional
        Binds the file to a name the reader checks; stored in the file unless
        ``store_aad_prefix`` is False (readers must then supply it).
    footer_key_metadata, column_key_metadata : bytes, dict, optional
        Key metadata stored with the footer key and with each column key (e.g. a key
        id a reader's ``key_retriever`` maps to the key).
    """
    footer_key: bytes
    column_keys: dict = None
    algorithm: str = "AES_GCM_V1"
    plaintext_footer: bool = False
    aad_prefix: bytes = None
    store_aad_prefix: bool = True
    footer_key_metadata: bytes = None
    column_key_metadata: dict = None

    def __post_init__(self):
        object.__setattr__(self, "footer_key", check_key(self.footer_key, "footer_key"))
        if self.column_keys is not None:
            keys = _column_keys(self.column_keys, "column_keys")
            if not keys:
                raise ArgumentError("column_keys is empty: give None for uniform "
                                    "encryption")
            object.__setattr__(self, "column_keys", keys)
        if self.algorithm not in ALGORITHMS:
            raise ArgumentError(f"algorithm must be one of {ALGORITHMS}, not "
                                f"{self.algorithm!r}")
        object.__setattr__(self, "aad_prefix", _optional_bytes(self.aad_prefix,
                                                               "aad_prefix"))
        object.__setattr__(self, "footer_key_metadata", _optional_bytes(
            self.footer_key_metadata, "footer_key_metadata"))
        metadata = {column_name(p): _optional_bytes(m, f"column_key_metadata[{p!r}]")
                    for p, m in (self.column_key_metadata or {}).items()}
        unknown = set(metadata) - set(self.column_keys or ())
        if unknown:
            raise ArgumentError(f"column_key_metadata names columns without a key: "
                                f"{sorted(unknown)}")
        object.__setattr__(self, "column_key_metadata", metadata)

    @property
    def uniform(self):
        """Whether every column is encrypted with the footer key."""
        return self.column_keys is None

    def __repr__(self):       # never shows a key
        return (f"EncryptionProperties(algorithm={self.algorithm!r}, "
                f"plaintext_footer={self.plaintext_footer}, "
                f"columns={'all' if self.uniform else sorted(self.column_keys)}, "
                f"aad_prefix={'stored' if self.aad_prefix and self.store_aad_prefix else ('supplied' if self.aad_prefix else None)})")
