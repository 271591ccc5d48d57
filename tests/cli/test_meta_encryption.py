"""Issue 32: pqinspect meta shows an encrypted file's layout without keys, and its whole
footer with them (schema too), and pages walks encrypted chunks with their keys; keys are given in an
explicit form and never printed."""
import json
import os

import pytest
from cli_run import run

from corpus_location import corpus_root
from pqkit.cli.keys import parse_key
from pqkit.errors import ArgumentError

pytestmark = pytest.mark.corpus

FOOTER, DOUBLE = "text:0123456789012345", "hex:" + b"1234567890123450".hex()


def corpus_file(name):
    root = corpus_root()
    if root is None:
        pytest.skip("the parquet-testing corpus is not available")
    return os.path.join(root, "data", name)


def test_a_plaintext_footer_shows_which_columns_are_encrypted(capsys):
    path = corpus_file("encrypt_columns_plaintext_footer.parquet.encrypted")
    code, out, _ = run(capsys, "meta", path, "--json")
    assert code == 0
    doc = json.loads(out)
    assert doc["file"]["encryption"] == {"algorithm": "AES_GCM_V1",
                                         "footer": "plaintext (signed)", "aad_prefix": None,
                                         "footer_key_metadata": "kf"}
    keyed = {c["path"]: c["encryption"] for c in doc["row_groups"][0]["columns"]}
    assert keyed["double_field"] == {"key": "column", "key_metadata": "kc1"}
    assert keyed["float_field"] == {"key": "column", "key_metadata": "kc2"}
    assert keyed["int32_field"] is None
    code, human, _ = run(capsys, "meta", path)
    assert code == 0 and "Encrypted columns" in human and "kc2" in human


def test_an_encrypted_footer_needs_the_key_and_then_shows_everything(capsys):
    path = corpus_file("encrypt_columns_and_footer.parquet.encrypted")
    code, out, err = run(capsys, "meta", path, "--json")
    assert code == 2 and not out
    assert "AES_GCM_V1, footer key metadata 'kf'" in err
    code, out, err = run(capsys, "meta", path, "--json", "--footer-key", FOOTER,
                         "--column-key", f"double_field={DOUBLE}")
    assert code == 0
    doc = json.loads(out)
    assert doc["file"]["encryption"]["footer"] == "encrypted"
    chunks = {c["path"]: c for c in doc["row_groups"][0]["columns"]}
    assert chunks["double_field"]["statistics"]["max"] == pytest.approx(49 * 1.1111111)
    assert chunks["float_field"]["meta_data"] is None        # its key was not given
    assert "0123456789012345" not in out + err


def test_the_environment_gives_the_footer_key(capsys, monkeypatch):
    path = corpus_file("uniform_encryption.parquet.encrypted")
    monkeypatch.setenv("PQKIT_FOOTER_KEY", FOOTER)
    code, out, _ = run(capsys, "meta", path, "--json")
    assert code == 0 and json.loads(out)["file"]["num_rows"] == 50


@pytest.mark.parametrize("text, key", [("hex:3031", b"01"), ("base64:MDE=", b"01"),
                                       ("text:01", b"01")])
def test_keys_are_written_with_their_form(text, key):
    assert parse_key(text, "k") == key


@pytest.mark.parametrize("text, match", [("0123456789012345", "must start with"),
                                         ("hex:zz-secret", "not valid hex")])
def test_a_bad_key_is_refused_without_echoing_it(text, match):
    with pytest.raises(ArgumentError, match=match) as info:
        parse_key(text, "the footer key")
    assert "secret" not in str(info.value) and "0123" not in str(info.value)


def test_pages_walks_encrypted_chunks_with_their_keys(capsys):
    """parquet-mr's v2 pages carry CRCs of the encrypted page: they check."""
    path = corpus_file("encrypt_columns_and_footer_bloom_filter.parquet.encrypted")
    keys = ["--footer-key", FOOTER, "--column-key", f"double_field={DOUBLE}",
            "--column-key", "float_field=text:1234567890123451"]
    code, out, _ = run(capsys, "pages", path, "--json", *keys)
    assert code == 0
    doc = json.loads(out)
    assert doc["summary"]["pages_with_crc"] == doc["summary"]["pages"] == 11
    assert doc["summary"]["crc_mismatches"] == 0
    first = doc["chunks"][0]["pages"][0]
    assert first["encrypted_size"] > first["compressed_size"]
    code, out, _ = run(capsys, "pages", path, "--json", *keys[:4])
    assert code == 1
    assert [p["column"] for p in json.loads(out)["problems"]] == ["float_field"]


def test_schema_of_an_encrypted_footer_needs_the_footer_key(capsys):
    path = corpus_file("encrypt_columns_and_footer_ctr.parquet.encrypted")
    assert run(capsys, "schema", path, "--json")[0] == 2
    code, out, _ = run(capsys, "schema", path, "--json", "--footer-key", FOOTER)
    assert code == 0 and json.loads(out)["num_columns"] == 8
