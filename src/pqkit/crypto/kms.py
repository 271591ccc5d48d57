"""The KMS client interface of the key tools, and an in-memory KMS for tests.

A :class:`KmsClient` wraps a data key (or a key-encryption key) with a master key that
stays in the KMS, and unwraps it again; the method names and meaning are pyarrow's
``pyarrow.parquet.encryption.KmsClient``, so a client written for pyarrow works here by
subclassing this class (or by passing any object with the two methods).
"""
from dataclasses import dataclass, field

from pqkit.crypto.key_wrapping import unwrap_locally, wrap_locally
from pqkit.crypto.properties import check_key
from pqkit.errors import MissingKeyError

__all__ = ["KmsClient", "KmsConnectionConfig", "InMemoryKms"]


@dataclass
class KmsConnectionConfig:
    """Where the KMS is and how to reach it (pyarrow's fields); recorded in the footer
    key's material so that readers can find the same KMS."""
    kms_instance_id: str = "DEFAULT"
    kms_instance_url: str = "DEFAULT"
    key_access_token: str = "DEFAULT"
    custom_kms_conf: dict = field(default_factory=dict)


class KmsClient:
    """A key management service: subclass and implement both methods."""

    def wrap_key(self, key_bytes, master_key_identifier):
        """``key_bytes`` wrapped with master key ``master_key_identifier``, as text."""
        raise NotImplementedError

    def unwrap_key(self, wrapped_key, master_key_identifier):
        """The key bytes ``wrap_key`` wrapped."""
        raise NotImplementedError


class InMemoryKms(KmsClient):
    """A KMS whose master keys are given in code: FOR TESTS AND EXAMPLES ONLY, never
    for data that needs protecting (the master keys live in the process).

    It wraps as parquet-java's test ``InMemoryKMS`` and parquet-cpp's
    ``TestOnlyInServerWrapKms`` do (AES-GCM, the master key's id as AAD), so files
    those wrote with the same master keys read here.

    Parameters
    ----------
    master_keys : dict
        ``{master key id: key bytes}``.
    """

    def __init__(self, master_keys):
        self.master_keys = {str(k): check_key(v, f"master key {k!r}")
                            for k, v in master_keys.items()}

    def _master(self, identifier):
        try:
            return self.master_keys[identifier]
        except KeyError:
            raise MissingKeyError(f"the in-memory KMS has no master key "
                                  f"{identifier!r}") from None

    def wrap_key(self, key_bytes, master_key_identifier):
        return wrap_locally(key_bytes, self._master(master_key_identifier),
                            master_key_identifier.encode())

    def unwrap_key(self, wrapped_key, master_key_identifier):
        return unwrap_locally(wrapped_key, self._master(master_key_identifier),
                              master_key_identifier.encode(),
                              f"a key wrapped with master key {master_key_identifier!r}")
