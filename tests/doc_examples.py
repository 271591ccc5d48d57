"""The Python examples of README.md and docs/*.md, as the tests that run them see them.

Every fenced block opened with ```python (or ```py) is an example, run on its own
(a fresh namespace) in a temporary directory that holds a copy of ``fixtures/``.
What a block needs beyond that is said by an HTML comment on the line just before
its fence, which GitHub does not render::

    <!-- test: s3 -->      a local S3 server: the test replaces the endpoint
                           ``http://127.0.0.1:9000`` and the bucket of ``s3://bucket/``
                           with its own (tests/docs/test_doc_examples.py)
    <!-- test: spark -->   a SparkSession: ``SparkSession.builder.getOrCreate()`` in the
                           block returns the test session (tests/spark/test_doc_examples_spark.py)

A block without a comment needs only the fixtures and the test extra's packages.
A comment naming another need fails the run, so a typo cannot turn a block off.
"""
import os
import re
import shutil
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures")
NEEDS = ("plain", "s3", "spark")
# What an s3 block names, for the test to replace with its server's.
S3_ENDPOINT = "http://127.0.0.1:9000"
S3_BUCKET = "s3://bucket/"

_FENCE = re.compile(r"^(?P<indent> {0,3})```(?P<lang>[\w+-]*)\s*$")
_MARK = re.compile(r"^\s*<!--\s*test:\s*(?P<need>[\w-]+)\s*-->\s*$")
_HEADING = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*#*\s*$")


@dataclass
class Example:
    """One Python block: where it is, what it needs and its code."""
    doc: str            # path relative to the repository root
    line: int           # 1-based line of the opening fence
    section: str        # the heading it is under, as an id ("python-api")
    ordinal: int        # its number among the examples of that section, from 1
    need: str           # one of NEEDS
    code: str

    @property
    def id(self):
        return f"{self.doc}:{self.section}-{self.ordinal}"


def documents():
    """README.md and every docs/*.md, relative to the repository root."""
    docs = os.path.join(ROOT, "docs")
    return ["README.md"] + sorted(f"docs/{n}" for n in os.listdir(docs) if n.endswith(".md"))


def _slug(title):
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "top"


def examples_of(doc, text):
    """The Python examples of one Markdown text, in order."""
    out, counts = [], {}
    section, mark, block = "top", None, None
    for number, line in enumerate(text.splitlines(), 1):
        if block is not None:
            if _FENCE.match(line) and not _FENCE.match(line).group("lang"):
                if block["lang"] in ("python", "py"):
                    counts[section] = counts.get(section, 0) + 1
                    out.append(Example(doc, block["line"], section, counts[section],
                                       block["need"], "\n".join(block["lines"]) + "\n"))
                block = None
            else:
                block["lines"].append(line)
            continue
        fence = _FENCE.match(line)
        if fence:
            block = {"lang": fence.group("lang"), "line": number, "need": mark or "plain",
                     "lines": []}
            mark = None
            continue
        heading = _HEADING.match(line)
        if heading:
            section = _slug(heading.group("title"))
        found = _MARK.match(line)
        if found:
            mark = found.group("need")
        elif line.strip():
            mark = None
    if block is not None:
        raise ValueError(f"{doc}:{block['line']}: code block never closed")
    return out


def all_examples():
    found = []
    for doc in documents():
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            found.extend(examples_of(doc, f.read()))
    return found


def with_fixtures(directory):
    """Copy the bundled fixtures (not the corpus checkout) into ``directory``/fixtures."""
    dest = os.path.join(directory, "fixtures")
    os.makedirs(dest, exist_ok=True)
    for name in os.listdir(FIXTURES):
        path = os.path.join(FIXTURES, name)
        if os.path.isfile(path):
            shutil.copy(path, dest)
    return dest


def run(example, directory, replace=()):
    """Run ``example`` with ``directory`` as the working directory, after the
    (old, new) text replacements; errors point at the document's own lines."""
    code = example.code
    for old, new in replace:
        code = code.replace(old, new)
    compiled = compile("\n" * example.line + code, example.doc, "exec")
    before = os.getcwd()
    os.chdir(directory)
    try:
        exec(compiled, {"__name__": "__doc_example__"})
    finally:
        os.chdir(before)
