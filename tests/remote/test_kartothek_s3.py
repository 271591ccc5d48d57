"""Kartothek datasets written by pqkit straight to the local S3 server: a random operation
sequence checked against the oracle after every step, and the writer lock taken with a
conditional PUT.

Each check reads the store by URL (pqkit's Kartothek reader on the object store), then
copies the store's prefix to a local directory (byte-for-byte what S3 holds) for the
checks of index files and unlisted files with pyarrow and the local reader."""
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from kartothek_oracle import TABLE, UUID, check_local_store, check_rows, run_sequence, sequences

import pqkit.dataset as pds
from pqkit.dataset.kartothek.store_access import LOCK_SUFFIX
from pqkit.dataset.kartothek.writing import KartothekWriter
from pqkit.errors import CommitConflict
from s3server import BUCKET


def _copy_down(s3_fs, prefix, local):
    s3_fs.invalidate_cache()
    for key in s3_fs.find(prefix):
        rel = key[len(prefix) + 1:]
        dst = local / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(s3_fs.cat_file(key))


@settings(max_examples=5, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=sequences)
def test_random_sequence_on_s3_reads_back_equal_to_the_oracle(s3_fs, s3fs_options,
                                                              tmp_path_factory, case):
    initial, ops, fmt = case
    prefix = f"{BUCKET}/kartothek-{uuid.uuid4().hex}"

    def check(oracle):
        check_rows(pds.open_kartothek(f"s3://{prefix}", UUID, TABLE,
                                      storage_options=s3fs_options), oracle)
        local = tmp_path_factory.mktemp("copy")
        _copy_down(s3_fs, prefix, local)
        check_local_store(str(local), oracle)
        # no lock and no conditional-put probe stay behind
        assert sorted(p.name for p in local.iterdir()) == sorted(
            [UUID, UUID + ".by-dataset-metadata" + (".json" if fmt == "json"
                                                    else ".msgpack.zstd")])

    run_sequence(f"s3://{prefix}", initial, ops, fmt, check, storage_options=s3fs_options)


def test_second_writer_on_s3_is_refused_by_the_conditional_put(s3_fs, s3fs_options):
    prefix = f"{BUCKET}/kartothek-{uuid.uuid4().hex}"
    w = KartothekWriter(f"s3://{prefix}", "ds", storage_options=s3fs_options)
    w.create({"k": [1], "v": [1]}, partition_on=["k"])
    s3_fs.pipe_file(f"{prefix}/ds{LOCK_SUFFIX}", b"{}")
    with pytest.raises(CommitConflict):
        w.append({"k": [2], "v": [2]})
    s3_fs.rm_file(f"{prefix}/ds{LOCK_SUFFIX}")
    assert w.append({"k": [2], "v": [2]})
