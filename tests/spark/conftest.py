"""Spark fixtures: one local SparkSession for the whole test run (DESIGN.md §9).

Outside CI the tests are skipped when pyspark cannot be imported; with CI set a
missing pyspark is a failure, as a missing corpus is.
"""
import importlib.util
import os
import socket
import sys

import pytest

if importlib.util.find_spec("pyspark") is None:
    if os.environ.get("CI"):
        raise ImportError("CI needs pyspark for tests/spark: pip install -e '.[test]'") from None
    pytest.skip("pyspark is not installed (pip install 'pqkit[spark]')", allow_module_level=True)


SESSION_FIXTURES = {"spark", "spark_connect", "any_spark"}


def pytest_collection_modifyitems(config, items):
    """The tests on the shared session share one xdist worker (``--dist loadgroup``), so a
    parallel run starts that JVM once, not once per worker. The rest of tests/spark (type
    mappings, planning, streaming offsets, and the jobs that start their own JVM: a killed
    query, a local cluster, encryption) runs on whichever worker is free, beside them."""
    for item in items:
        if "tests/spark/" in item.nodeid and SESSION_FIXTURES & set(item.fixturenames):
            item.add_marker(pytest.mark.xdist_group("spark"))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_CONNECT_PORT = _free_port()


@pytest.fixture(scope="session")
def spark():
    """A local[2] session, UI off, session time zone UTC. Its JVM also serves Spark Connect
    (the plugin that ``SparkSession.builder.remote("local[2]")`` starts), so the Connect
    fixture needs no second JVM."""
    # The Python workers must be this interpreter, or they lack pandas and pqkit.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master("local[2]").appName("pqkit-spark-tests")
               .config("spark.plugins", "org.apache.spark.sql.connect.SparkConnectPlugin")
               .config("spark.connect.grpc.binding.port", str(_CONNECT_PORT))
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "4")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="session")
def spark_connect(spark):
    """A Spark Connect session on the ``spark`` fixture's server, session time zone UTC."""
    # pyspark's generic builder refuses a remote session next to a classic one in the same
    # process; the Connect client's own builder does not.
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession
    session = RemoteSparkSession.builder.remote(f"sc://127.0.0.1:{_CONNECT_PORT}").getOrCreate()
    session.conf.set("spark.sql.session.timeZone", "UTC")
    session.conf.set("spark.sql.shuffle.partitions", "4")
    yield session
    session.stop()


@pytest.fixture(params=["classic", "connect"])
def any_spark(request):
    """Each test runs on the classic session and on the Connect session."""
    return request.getfixturevalue("spark" if request.param == "classic" else "spark_connect")
