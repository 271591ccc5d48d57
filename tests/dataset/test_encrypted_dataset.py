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
from pqkit.errors import EncryptedFileError, UnsupportedFeature

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


# --- reading datasets of encrypted files: open(root, <the keys ParquetFile takes>) ---

ROWS = {"p": [1, 1, 2, 2, 2], "x": [10, 11, 12, 13, 14], "s": ["a", "b", None, "d", "e"]}


def _sorted_rows(table):
    d = table.to_pydict()
    return sorted(zip(*(d[c] for c in ("p", "x", "s"))))


EXPECTED = sorted(zip(ROWS["p"], ROWS["x"], ROWS["s"]))


def test_an_encrypted_pqds_dataset_reads_with_a_kms_client(store):
    pds.write(store.root, ROWS, partition_by=["p"], encryption=_config(), kms_client=KMS,
              storage_options=store.options)
    ds = store.open(kms_client=KMS)
    assert _sorted_rows(ds.read()) == EXPECTED
    assert ds.read(columns=["x"], filters=[("x", ">=", 13)]).to_pydict() == {"x": [13, 14]}
    assert ds.verify(level="footer").ok
    with pytest.raises(EncryptedFileError):
        store.open().read()


def test_an_encrypted_pqds_dataset_reads_with_explicit_keys(tmp_path):
    root = str(tmp_path / "ds")
    keys = dict(footer_key=b"0123456789012345", column_keys={"x": b"1234567890123450"})
    pds.write(root, ROWS, partition_by=["p"],
              encryption=pqkit.EncryptionProperties(**keys))
    assert _sorted_rows(pds.open(root, **keys).read()) == EXPECTED
    with pytest.raises(EncryptedFileError):
        pds.open(root, footer_key=keys["footer_key"]).read(columns=["x"])


def test_a_hive_directory_of_encrypted_files_reads_with_a_kms_client(tmp_path):
    root = tmp_path / "hive"
    for p in (1, 2):
        os.makedirs(root / f"p={p}")
        rows = {c: [v for v, q in zip(ROWS[c], ROWS["p"]) if q == p] for c in ("x", "s")}
        pqkit.write_table(rows, str(root / f"p={p}" / "part-0.parquet"),
                          encryption=_config(), kms_client=KMS)
    assert _sorted_rows(pds.open(str(root), kms_client=KMS).read()) == EXPECTED
    with pytest.raises(EncryptedFileError):
        pds.open(str(root))            # the footers are read when the directory is listed
