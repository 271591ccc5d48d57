"""Spark fixtures: one local SparkSession for the whole test run (DESIGN.md §9).

Outside CI the tests are skipped when pyspark cannot be imported; with CI set a
missing pyspark is a failure, as a missing corpus is.
"""
import importlib.util
import os
import sys

import pytest

if importlib.util.find_spec("pyspark") is None:
    if os.environ.get("CI"):
        raise ImportError("CI needs pyspark for tests/spark: pip install -e '.[test]'") from None
    pytest.skip("pyspark is not installed (pip install 'pqkit[spark]')", allow_module_level=True)


def pytest_collection_modifyitems(config, items):
    """Spark tests share one xdist worker (``--dist loadgroup``), so a parallel run starts
    one JVM, not one per worker."""
    for item in items:
        if "tests/spark/" in item.nodeid:
            item.add_marker(pytest.mark.xdist_group("spark"))


@pytest.fixture(scope="session")
def spark():
    """A local[2] session, UI off, session time zone UTC."""
    # The Python workers must be this interpreter, or they lack pandas and pqkit.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession
    session = (SparkSession.builder.master("local[2]").appName("pqkit-spark-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "4")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
