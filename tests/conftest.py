"""Shared fixtures: the parquet-testing corpus lookup; a local S3 server (moto)."""
import os

import pytest

from corpus_location import MISSING_CORPUS, corpus_root


def _require_corpus():
    """The corpus root; without it a skip that says how to get it, or a failure under CI."""
    root = corpus_root()
    if root is None:
        if os.environ.get("CI"):
            pytest.fail(MISSING_CORPUS)
        pytest.skip(MISSING_CORPUS)
    return root


@pytest.fixture(scope="session")
def corpus():
    return _require_corpus()


def pytest_runtest_setup(item):
    """Every test marked ``corpus`` needs the corpus, whether or not it asks for the
    fixture: without it the test skips (fails under CI) before its body can run."""
    if item.get_closest_marker("corpus") is not None:
        _require_corpus()


@pytest.fixture(scope="session")
def s3():
    """moto's S3 server on 127.0.0.1 with a request log (tests/s3server.py), one bucket;
    stopped after the session."""
    from s3server import BUCKET, CountingS3Server
    server = CountingS3Server()
    server.start()
    server.boto3_client().create_bucket(Bucket=BUCKET)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def s3fs_options(s3):
    """fsspec ``storage_options`` pointing s3fs at the server."""
    return s3.storage_options()


@pytest.fixture(scope="session")
def s3_fs(s3fs_options):
    import s3fs
    return s3fs.S3FileSystem(skip_instance_cache=True, **s3fs_options)
