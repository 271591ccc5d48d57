"""The README's Spark examples (``<!-- test: spark -->`` blocks, see tests/doc_examples.py)
run as written; ``SparkSession.builder.getOrCreate()`` in a block returns the test session."""
import pytest

import doc_examples

SPARK_EXAMPLES = [pytest.param(e, id=e.id) for e in doc_examples.all_examples()
                  if e.need == "spark"]


@pytest.mark.parametrize("example", SPARK_EXAMPLES)
def test_spark_example_runs(example, spark, tmp_path):
    doc_examples.with_fixtures(tmp_path)
    doc_examples.run(example, tmp_path)
