"""Parquet modular encryption, the public names (pyarrow's ``pyarrow.parquet.encryption``
shapes): explicit keys (:class:`DecryptionProperties`, :class:`EncryptionProperties`) and
the KMS key tools (:class:`KmsClient`, :class:`CryptoFactory`, the configurations, and
:class:`InMemoryKms` for tests and examples only).

>>> kms = InMemoryKms({"kf": b"0123456789012345", "kc1": b"1234567890123450"})
>>> config = EncryptionConfiguration(footer_key="kf", column_keys={"kc1": ["id"]})
>>> pqkit.write_table({"id": [1, 2]}, "f.parquet", encryption=config, kms_client=kms)
... # doctest: +SKIP
>>> pqkit.read_table("f.parquet", kms_client=kms)            # doctest: +SKIP
"""
from pqkit.crypto.key_tools import CryptoFactory, DecryptionConfiguration, EncryptionConfiguration
from pqkit.crypto.kms import InMemoryKms, KmsClient, KmsConnectionConfig
from pqkit.crypto.properties import DecryptionProperties, EncryptionProperties

__all__ = ["CryptoFactory", "DecryptionConfiguration", "DecryptionProperties",
           "EncryptionConfiguration", "EncryptionProperties", "InMemoryKms", "KmsClient",
           "KmsConnectionConfig"]
