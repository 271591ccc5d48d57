"""Every Python example of README.md and docs/*.md runs as written (tests/doc_examples.py
says how blocks are found and how a block asks for an S3 server or Spark)."""
import uuid

import pytest

import doc_examples
from doc_examples import NEEDS, S3_BUCKET, S3_ENDPOINT, all_examples, examples_of

EXAMPLES = all_examples()


def _of(need):
    return [pytest.param(e, id=e.id) for e in EXAMPLES if e.need == need]


@pytest.mark.parametrize("example", _of("plain"))
def test_example_runs(example, tmp_path):
    doc_examples.with_fixtures(tmp_path)
    doc_examples.run(example, tmp_path)


@pytest.mark.remote
@pytest.mark.parametrize("example", _of("s3"))
def test_s3_example_runs(example, tmp_path, s3, monkeypatch):
    from s3server import KEY, REGION, SECRET
    bucket = f"readme-{uuid.uuid4().hex[:12]}"
    s3.boto3_client().create_bucket(Bucket=bucket)
    for name, value in (("AWS_ACCESS_KEY_ID", KEY), ("AWS_SECRET_ACCESS_KEY", SECRET),
                        ("AWS_DEFAULT_REGION", REGION)):
        monkeypatch.setenv(name, value)
    doc_examples.with_fixtures(tmp_path)
    doc_examples.run(example, tmp_path, replace=[(S3_ENDPOINT, s3.endpoint),
                                                 (S3_BUCKET, f"s3://{bucket}/")])


def test_every_example_names_a_known_need():
    unknown = [f"{e.id} (line {e.line}): {e.need}" for e in EXAMPLES if e.need not in NEEDS]
    assert not unknown, f"<!-- test: NEED --> must name one of {NEEDS}: {unknown}"


def test_the_readme_sections_with_python_have_examples():
    """Guards the extractor itself: the README's API sections are found."""
    sections = {e.section for e in EXAMPLES if e.doc == "README.md"}
    assert {"python-api", "arrow-exchange", "object-stores", "datasets-pqds-1",
            "spark"} <= sections
    assert any(e.need == "s3" for e in EXAMPLES) and any(e.need == "spark" for e in EXAMPLES)


def test_extractor_reads_marks_sections_and_skips_other_languages():
    text = "\n".join([
        "# Title", "```python", "a = 1", "```",
        "## Remote part", "<!-- test: s3 -->", "```python", "b = 2", "", "c = 3", "```",
        "```", "$ shell, not python", "```",
        "<!-- test: spark -->", "", "text between", "```py", "d = 4", "```"])
    found = examples_of("X.md", text)
    assert [(e.section, e.ordinal, e.need, e.code, e.line) for e in found] == [
        ("title", 1, "plain", "a = 1\n", 2),
        ("remote-part", 1, "s3", "b = 2\n\nc = 3\n", 7),
        ("remote-part", 2, "plain", "d = 4\n", 18)]
    assert found[1].id == "X.md:remote-part-1"


def test_unclosed_block_is_refused():
    with pytest.raises(ValueError, match="X.md:1: code block never closed"):
        examples_of("X.md", "```python\nx = 1\n")


def test_a_failing_example_points_at_the_document_line(tmp_path):
    example = examples_of("X.md", "intro\n\n```python\nx = 1\nraise KeyError('here')\n```\n")[0]
    with pytest.raises(KeyError) as info:
        doc_examples.run(example, tmp_path)
    frame = info.tb
    while frame.tb_next is not None:
        frame = frame.tb_next
    assert (frame.tb_frame.f_code.co_filename, frame.tb_lineno) == ("X.md", 5)
