"""Issue 32: datasets of encrypted data files and the ``_metadata`` summary.

A summary is one footer for every live file, but each encrypted file's column metadata is
bound to its own keys and file AAD, so no summary can describe encrypted files: an
encrypted write to a dataset that keeps a summary is refused before anything is staged,
and publish leaves the summary out when a live file is encrypted (e.g. the summary was
switched on later), instead of failing after the commit.
"""
import os

import pytest

import pqkit
import pqkit.dataset as pds
from pqkit.dataset.pqds.paths import RootPaths
from pqkit.encryption import EncryptionConfiguration, InMemoryKms
from pqkit.errors import UnsupportedFeature

KMS = InMemoryKms({"kf": b"0123456789012345", "kc1": b"1234567890123450"})
ALWAYS = {"summary.metadata": "always"}


def _config(plaintext_footer=False):
    return EncryptionConfiguration(footer_key="kf", column_keys={"kc1": ["x"]},
                                   plaintext_footer=plaintext_footer)


def test_encrypted_write_to_a_new_dataset_with_a_summary_is_refused(tmp_path):
    root = str(tmp_path / "ds")
    with pytest.raises(UnsupportedFeature, match="summary.metadata='always'"):
        pds.write(root, {"x": [1, 2]}, encryption=_config(), kms_client=KMS,
                  properties=ALWAYS)
    assert not os.path.exists(root) or not os.listdir(root)


def test_encrypted_append_to_a_dataset_keeping_a_summary_is_refused(tmp_path):
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [1, 2]}, properties=ALWAYS)
    with pytest.raises(UnsupportedFeature, match="summary"):
        pds.write(root, {"x": [3]}, options=pqkit.WriteOptions(encryption=_config()),
                  kms_client=KMS)
    assert pds.open(root).version == 0


@pytest.mark.parametrize("plaintext_footer", [False, True],
                         ids=["encrypted-footer", "plaintext-footer"])
def test_publish_leaves_the_summary_out_when_a_file_is_encrypted(tmp_path, plaintext_footer):
    root = str(tmp_path / "ds")
    pds.write(root, {"x": [1, 2]}, encryption=_config(plaintext_footer), kms_client=KMS)
    # switching the summary on later: the publish completes, without a summary
    assert pds.write(root, {"x": [3]}, properties=ALWAYS) == 1
    paths = RootPaths(root)
    assert os.path.exists(paths.success)
    assert not os.path.exists(paths.summary_metadata)
    state = pds.publish_state(root)
    assert (state["published_version"], state["state"]) == (1, "published")
