"""Envelope encryption through a KMS, as pyarrow's and parquet-java's key tools do it.

Every file gets fresh random data keys (one for the footer, one per encrypted column).
Each is wrapped by the KMS with a master key that never leaves it -- or, with double
wrapping (the default), wrapped locally with a key-encryption key (KEK) that the KMS
wraps, so one KMS call serves many data keys. The wrapped keys are written as key
material (:mod:`pqkit.crypto.key_material`) into the file's key metadata or into a
separate JSON file. :class:`CryptoFactory` turns an :class:`EncryptionConfiguration`
into :class:`~pqkit.crypto.properties.EncryptionProperties` and a file's key metadata
back into keys (a ``key_retriever``).

Example::

    kms = InMemoryKms({"kf": b"0123456789012345", "kc1": b"1234567890123450"})
    config = EncryptionConfiguration(footer_key="kf", column_keys={"kc1": ["ssn"]})
    props = CryptoFactory(kms).file_encryption_properties(config)
    pqkit.write_table(table, "f.parquet", encryption=props)
    pqkit.read_table("f.parquet", kms_client=kms)
"""
import base64
import datetime
import json
import os
import threading
import time
from dataclasses import dataclass, field

from pqkit.crypto.key_material import (
    KeyMaterial, external_path, key_metadata, parse_key_metadata)
from pqkit.crypto.key_wrapping import unwrap_locally, wrap_locally
from pqkit.crypto.kms import KmsConnectionConfig
from pqkit.crypto.properties import ALGORITHMS, DecryptionProperties, EncryptionProperties
from pqkit.errors import ArgumentError, CorruptFileError, MissingKeyError

__all__ = ["EncryptionConfiguration", "DecryptionConfiguration", "CryptoFactory"]

_DEFAULT_LIFETIME = datetime.timedelta(minutes=10)
_KEK_ID_SIZE = 16


@dataclass
class EncryptionConfiguration:
    """How :class:`CryptoFactory` encrypts a file; fields and defaults as pyarrow's.

    Parameters
    ----------
    footer_key : str
        Id of the master key of the footer key.
    column_keys : dict, optional
        ``{master key id: [column paths]}``: columns encrypted, each with a data key of
        its own wrapped with that master key. Without it, ``uniform_encryption`` must
        be True.
    encryption_algorithm : {"AES_GCM_V1", "AES_GCM_CTR_V1"}
    plaintext_footer : bool, default False
    double_wrapping : bool, default True
        Wrap data keys with local KEKs that the KMS wraps (one KMS call per master key
        and cache lifetime).
    cache_lifetime : datetime.timedelta, default 10 minutes
        How long a KEK is reused for new files.
    internal_key_material : bool, default True
        Key material in the file; False writes it to ``_KEY_MATERIAL_FOR_<name>.json``
        beside the file (the file's path must then be given).
    data_key_length_bits : {128, 192, 256}, default 128
    uniform_encryption : bool, default False
        Encrypt every column with the footer key.
    """
    footer_key: str
    column_keys: dict = None
    encryption_algorithm: str = "AES_GCM_V1"
    plaintext_footer: bool = False
    double_wrapping: bool = True
    cache_lifetime: datetime.timedelta = _DEFAULT_LIFETIME
    internal_key_material: bool = True
    data_key_length_bits: int = 128
    uniform_encryption: bool = False

    def __post_init__(self):
        if self.encryption_algorithm not in ALGORITHMS:
            raise ArgumentError(f"encryption_algorithm must be one of {ALGORITHMS}, not "
                                f"{self.encryption_algorithm!r}")
        if self.data_key_length_bits not in (128, 192, 256):
            raise ArgumentError("data_key_length_bits must be 128, 192 or 256")
        if bool(self.column_keys) == bool(self.uniform_encryption):
            raise ArgumentError("give column_keys or uniform_encryption=True (not both)")


@dataclass
class DecryptionConfiguration:
    """How long unwrapped KEKs are cached while reading (pyarrow's field)."""
    cache_lifetime: datetime.timedelta = _DEFAULT_LIFETIME


@dataclass
class _Kek:
    kek: bytes
    kek_id: str
    wrapped: str
    created: float = field(default=0.0)


class CryptoFactory:
    """Makes the keys of files to write, and finds the keys of files to read.

    Parameters
    ----------
    kms_client : KmsClient or callable
        The KMS client, or (as pyarrow's ``kms_client_factory``) a callable taking a
        :class:`KmsConnectionConfig` and returning one.
    """

    def __init__(self, kms_client):
        self._kms = kms_client
        self._lock = threading.Lock()
        self._write_keks = {}           # master key id -> _Kek
        self._read_keks = {}            # (master key id, kek id) -> (kek, expiry)

    def _client(self, config):
        kms = self._kms
        if not hasattr(kms, "unwrap_key") and callable(kms):
            kms = kms(config)
        return kms

    # --- writing ----------------------------------------------------------------------
    def file_encryption_properties(self, encryption_config, parquet_file_path=None,
                                   kms_connection_config=None):
        """The :class:`EncryptionProperties` of one new file (fresh data keys).

        With ``internal_key_material=False`` the key material is written now, to the
        JSON file beside ``parquet_file_path`` (a local path).
        """
        config = encryption_config
        conn = kms_connection_config or KmsConnectionConfig()
        if not config.internal_key_material and parquet_file_path is None:
            raise ArgumentError("internal_key_material=False writes the key material "
                                "beside the file: give parquet_file_path")
        kms = self._client(conn)
        size = config.data_key_length_bits // 8
        external = {} if not config.internal_key_material else None

        def wrapped(master_id, is_footer, reference):
            dek = os.urandom(size)
            material = self._wrap(kms, dek, master_id, config)
            material.is_footer_key = is_footer
            if is_footer:
                material.kms_instance_id = conn.kms_instance_id
                material.kms_instance_url = conn.kms_instance_url
            if external is None:
                return dek, key_metadata(material)
            external[reference] = material.to_json(internal=False)
            return dek, key_metadata(material, reference)

        footer_key, footer_metadata = wrapped(config.footer_key, True, "footerKey")
        column_keys, column_metadata = None, None
        if not config.uniform_encryption:
            column_keys, column_metadata = {}, {}
            n = 0
            for master_id, columns in config.column_keys.items():
                for column in columns:
                    if column in column_keys:
                        raise ArgumentError(f"column {column!r} is named under two "
                                            "master keys")
                    column_keys[column], column_metadata[column] = wrapped(
                        master_id, False, f"columnKey{n}")
                    n += 1
        if external is not None:
            with open(external_path(parquet_file_path), "w", encoding="utf-8") as f:
                json.dump(external, f)
        return EncryptionProperties(
            footer_key, column_keys, config.encryption_algorithm, config.plaintext_footer,
            footer_key_metadata=footer_metadata, column_key_metadata=column_metadata)

    def _wrap(self, kms, dek, master_id, config):
        if not config.double_wrapping:
            return KeyMaterial(False, master_id, kms.wrap_key(dek, master_id), False)
        with self._lock:
            kek = self._write_keks.get(master_id)
            if kek is None or time.monotonic() - kek.created >= \
                    config.cache_lifetime.total_seconds():
                raw, kek_id = os.urandom(16), os.urandom(_KEK_ID_SIZE)
                kek = self._write_keks[master_id] = _Kek(
                    raw, base64.b64encode(kek_id).decode("ascii"),
                    kms.wrap_key(raw, master_id), time.monotonic())
        wrapped_dek = wrap_locally(dek, kek.kek, base64.b64decode(kek.kek_id))
        return KeyMaterial(False, master_id, wrapped_dek, True, kek.kek_id, kek.wrapped)

    # --- reading ----------------------------------------------------------------------
    def file_decryption_properties(self, parquet_file_path=None, decryption_config=None,
                                   kms_connection_config=None, aad_prefix=None):
        """The :class:`DecryptionProperties` of one file: a key retriever that unwraps
        the data keys its key metadata (or its external key material) names."""
        lifetime = (decryption_config or DecryptionConfiguration()).cache_lifetime
        retriever = _Unwrapper(self, self._client(kms_connection_config or
                                                  KmsConnectionConfig()),
                               parquet_file_path, lifetime.total_seconds())
        return DecryptionProperties(key_retriever=retriever, aad_prefix=aad_prefix)

    def _kek(self, kms, material, lifetime):
        cache_key = (material.master_key_id, material.kek_id)
        with self._lock:
            found = self._read_keks.get(cache_key)
        if found is not None and found[1] >= time.monotonic():
            return found[0]
        kek = kms.unwrap_key(material.wrapped_kek, material.master_key_id)
        with self._lock:
            self._read_keks[cache_key] = (kek, time.monotonic() + lifetime)
        return kek


class _Unwrapper:
    """The key retriever of one file: key metadata -> data key."""

    def __init__(self, factory, kms, parquet_file_path, lifetime):
        self.factory = factory
        self.kms = kms
        self.path = parquet_file_path
        self.lifetime = lifetime
        self._external = None

    def _external_material(self, reference):
        if self.path is None:
            raise MissingKeyError("the key material is stored outside the file: give the "
                                  "file's path to find _KEY_MATERIAL_FOR_<name>.json")
        if self._external is None:
            where = external_path(self.path)
            try:
                with open(where, encoding="utf-8") as f:
                    self._external = json.load(f)
            except OSError as exc:
                raise MissingKeyError(f"cannot read the external key material {where}: "
                                      f"{exc.strerror}") from None
            except ValueError:
                raise CorruptFileError(f"{where} is not JSON") from None
        try:
            return KeyMaterial.from_json(self._external[reference], reference)
        except KeyError:
            raise CorruptFileError(f"the external key material has no {reference!r}") \
                from None

    def __call__(self, metadata):
        material, reference = parse_key_metadata(metadata, "key metadata")
        if material is None:
            material = self._external_material(reference)
        if not material.double_wrapping:
            return self.kms.unwrap_key(material.wrapped_dek, material.master_key_id)
        kek = self.factory._kek(self.kms, material, self.lifetime)
        return unwrap_locally(material.wrapped_dek, kek, base64.b64decode(material.kek_id),
                              f"the data key of master key {material.master_key_id!r}")
