"""Key material: how a wrapped data key is written down (the ``PKMT1`` JSON).

A footer or column key's metadata in the file is either the key material itself
(``"internalStorage": true``) or a reference into a separate JSON file next to the
Parquet file, ``_KEY_MATERIAL_FOR_<file name>.json``, which maps each reference
(``footerKey``, ``columnKey0``, ...) to the key material text. The key material names
the master key, the wrapped data key, and with double wrapping the key-encryption
key's id and its wrapped form; a footer key's also names the KMS instance.
"""
import json
import os
from dataclasses import dataclass

from pqkit.errors import CorruptFileError

__all__ = ["KeyMaterial", "key_metadata", "parse_key_metadata", "external_path",
           "MATERIAL_TYPE"]

MATERIAL_TYPE = "PKMT1"
EXTERNAL_PREFIX = "_KEY_MATERIAL_FOR_"


@dataclass
class KeyMaterial:
    """One wrapped data key as the key tools store it."""
    is_footer_key: bool
    master_key_id: str
    wrapped_dek: str
    double_wrapping: bool
    kek_id: str = None                 # base64 of the KEK's random id (double wrapping)
    wrapped_kek: str = None
    kms_instance_id: str = None        # footer keys only
    kms_instance_url: str = None

    def to_json(self, internal):
        """The material as JSON text (``internal``: it is the key metadata itself)."""
        out = {"keyMaterialType": MATERIAL_TYPE}
        if internal:
            out["internalStorage"] = True
        out["isFooterKey"] = self.is_footer_key
        if self.is_footer_key:
            out["kmsInstanceID"] = self.kms_instance_id
            out["kmsInstanceURL"] = self.kms_instance_url
        out.update(masterKeyID=self.master_key_id, wrappedDEK=self.wrapped_dek,
                   doubleWrapping=self.double_wrapping)
        if self.double_wrapping:
            out.update(keyEncryptionKeyID=self.kek_id, wrappedKEK=self.wrapped_kek)
        return json.dumps(out, separators=(",", ":"))

    @classmethod
    def from_json(cls, text, where):
        fields = _object(text, where)
        try:
            double = bool(fields["doubleWrapping"])
            return cls(bool(fields.get("isFooterKey", False)), fields["masterKeyID"],
                       fields["wrappedDEK"], double,
                       fields["keyEncryptionKeyID"] if double else None,
                       fields["wrappedKEK"] if double else None,
                       fields.get("kmsInstanceID"), fields.get("kmsInstanceURL"))
        except KeyError as exc:
            raise CorruptFileError(f"{where}: key material lacks {exc.args[0]}") from None


def _object(text, where):
    try:
        fields = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        raise CorruptFileError(f"{where}: key metadata is not key material JSON") from None
    if not isinstance(fields, dict) or fields.get("keyMaterialType") != MATERIAL_TYPE:
        raise CorruptFileError(f"{where}: key metadata is not {MATERIAL_TYPE} key material")
    return fields


def key_metadata(material, reference=None):
    """The key metadata written in the file: the material (``reference`` None) or a
    reference into the external key material file."""
    if reference is None:
        return material.to_json(internal=True).encode()
    return json.dumps({"keyMaterialType": MATERIAL_TYPE, "internalStorage": False,
                       "keyReference": reference}, separators=(",", ":")).encode()


def parse_key_metadata(metadata, where):
    """(KeyMaterial, None) of internal key metadata, or (None, reference) of external."""
    fields = _object(bytes(metadata).decode("utf-8", "replace"), where)
    if fields.get("internalStorage", True):
        return KeyMaterial.from_json(bytes(metadata).decode(), where), None
    if "keyReference" not in fields:
        raise CorruptFileError(f"{where}: external key metadata lacks keyReference")
    return None, fields["keyReference"]


def external_path(parquet_path):
    """Where the external key material of the Parquet file at ``parquet_path`` lies."""
    folder, name = os.path.split(os.fspath(parquet_path))
    return os.path.join(folder, f"{EXTERNAL_PREFIX}{name}.json")
