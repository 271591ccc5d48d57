"""Fixtures of the object-store tests: one local S3 server (moto) per session.

The server listens on 127.0.0.1 only and is stopped after the session; its
request log counts the GETs each operation makes.
"""
import os

import pytest

from s3server import BUCKET, CountingS3Server


@pytest.fixture(scope="session")
def s3():
    server = CountingS3Server()
    server.start()
    server.boto3_client().create_bucket(Bucket=BUCKET)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def s3fs_options(s3):
    return s3.storage_options()


@pytest.fixture(scope="session")
def s3_fs(s3fs_options):
    import s3fs
    return s3fs.S3FileSystem(skip_instance_cache=True, **s3fs_options)


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/remote/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.remote)
