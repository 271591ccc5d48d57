"""Key material JSON: its fields, internal or by reference, and what it refuses."""
import json

import pytest

import pqkit
from pqkit.crypto.key_material import KeyMaterial, external_path, key_metadata, parse_key_metadata

FOOTER = KeyMaterial(True, "kf", "d2Vk", True, "a2Vr", "d2tlaw==", "DEFAULT", "DEFAULT")


def test_internal_material_is_the_key_metadata():
    fields = json.loads(key_metadata(FOOTER))
    assert fields == {"keyMaterialType": "PKMT1", "internalStorage": True,
                      "isFooterKey": True, "kmsInstanceID": "DEFAULT",
                      "kmsInstanceURL": "DEFAULT", "masterKeyID": "kf", "wrappedDEK": "d2Vk",
                      "doubleWrapping": True, "keyEncryptionKeyID": "a2Vr",
                      "wrappedKEK": "d2tlaw=="}
    assert parse_key_metadata(key_metadata(FOOTER), "f") == (FOOTER, None)


def test_external_material_is_a_reference_beside_the_file():
    assert parse_key_metadata(key_metadata(FOOTER, "columnKey3"), "f") == (None, "columnKey3")
    assert external_path("/d/part.parquet") == "/d/_KEY_MATERIAL_FOR_part.parquet.json"
    column = KeyMaterial(False, "kc1", "d2Vk", False)
    assert "kmsInstanceID" not in column.to_json(internal=False)
    assert KeyMaterial.from_json(column.to_json(internal=False), "f") == column


@pytest.mark.parametrize("metadata, match", [(b"kf", "not key material JSON"),
                                             (b'{"keyMaterialType": "X"}', "not PKMT1"),
                                             (b'{"keyMaterialType": "PKMT1"}', "lacks")])
def test_other_key_metadata_is_refused(metadata, match):
    with pytest.raises(pqkit.CorruptFileError, match=match):
        parse_key_metadata(metadata, "f")
