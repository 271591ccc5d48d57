"""Every ``--json`` document starts with ``command`` and ``schema_version`` and has the
fields docs/CLI-JSON.md lists for its command, no more (fields whose meaning there
starts with "only" may be absent)."""
import json
import os
import re
import shutil

import pytest
from cli_run import run

import pqkit
import pqkit.dataset as pds

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SAMPLE = os.path.join(ROOT, "fixtures", "sample.parquet")
COMMON = ("command", "schema_version")


def documented():
    """{section title: {field: optional}} from docs/CLI-JSON.md."""
    with open(os.path.join(ROOT, "docs", "CLI-JSON.md"), encoding="utf-8") as f:
        text = f.read()
    sections = {}
    for chunk in text.split("\n## ")[1:]:
        title, _, body = chunk.partition("\n")
        fields = {}
        for line in body.splitlines():
            m = re.match(r"^\| `([^`]+)` \|.*\|(?P<meaning>[^|]*)\|$", line)
            if m:
                fields[m.group(1)] = m.group("meaning").strip().startswith("only")
        sections[title.strip()] = fields
    return sections


DOCUMENTED = documented()


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A directory with the sample, a copy to change, a dataset and a merge source."""
    d = tmp_path_factory.mktemp("json")
    shutil.copy(SAMPLE, d / "s.parquet")
    shutil.copy(SAMPLE, d / "log.parquet")
    data = (d / "s.parquet").read_bytes()
    footer = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    (d / "crashed.parquet").write_bytes(data[:footer])
    os.environ.setdefault("PQKIT_DATASET_FSYNC", "0")
    for i in range(2):
        pds.write(str(d / "ds"), {"id": [i], "p": ["a"], "v": [i]}, partition_by=["p"])
    pqkit.write_table({"id": [0], "v": [5]}, str(d / "chg.parquet"))
    return d


# (section of docs/CLI-JSON.md, the command it names, arguments)
CASES = [
    ("schema", "schema", ["schema", "{d}/s.parquet"]),
    ("meta", "meta", ["meta", "{d}/s.parquet"]),
    ("meta (several files)", "meta", ["meta", "{d}/s.parquet", "{d}/s.parquet"]),
    ("pages", "pages", ["pages", "{d}/s.parquet"]),
    ("index", "index", ["index", "{d}/s.parquet"]),
    ("layout", "layout", ["layout", "{d}/s.parquet"]),
    ("verify", "verify", ["verify", "{d}/s.parquet"]),
    ("verify --list-rules", "verify --list-rules", ["verify", "--list-rules"]),
    ("head", "head", ["head", "{d}/s.parquet"]),
    ("cat", "cat", ["cat", "{d}/s.parquet"]),
    ("take", "take", ["take", "{d}/s.parquet", "1"]),
    ("dictionary", "dictionary", ["dictionary", "{d}/s.parquet", "--column", "city"]),
    ("bloom", "bloom", ["bloom", "{d}/s.parquet", "--column", "city", "Oslo"]),
    ("diff", "diff", ["diff", "{d}/s.parquet", "{d}/s.parquet"]),
    ("explain", "explain", ["explain", "{d}/s.parquet", "--where", "id > 3"]),
    ("advise", "advise", ["advise", "{d}/s.parquet", "--sample-rows", "6"]),
    ("advise", "advise", ["advise", "{d}/s.parquet", "--sample-rows", "6",
                          "--apply", "{d}/advised.parquet"]),
    ("convert", "convert", ["convert", "{d}/s.parquet", "{d}/rows.jsonl"]),
    ("concat", "concat", ["concat", "{d}/s.parquet", "{d}/s.parquet", "-o", "{d}/ab.parquet"]),
    ("append", "append", ["append", "{d}/log.parquet", "{d}/s.parquet"]),
    ("edit", "edit", ["edit", "{d}/log.parquet", "--set", "a=b"]),
    ("recover", "recover", ["recover", "{d}/crashed.parquet", "-o", "{d}/saved.parquet",
                            "--schema-from", "{d}/s.parquet"]),
    ("dataset info", "dataset info", ["dataset", "info", "{d}/ds"]),
    ("dataset versions", "dataset versions", ["dataset", "versions", "{d}/ds"]),
    ("dataset files", "dataset files", ["dataset", "files", "{d}/ds"]),
    ("dataset verify", "dataset verify", ["dataset", "verify", "{d}/ds"]),
    ("dataset repair", "dataset repair", ["dataset", "repair", "{d}/ds"]),
    ("dataset vacuum", "dataset vacuum", ["dataset", "vacuum", "{d}/ds", "--dry-run"]),
    ("dataset compact", "dataset compact", ["dataset", "compact", "{d}/ds", "--dry-run"]),
    ("dataset restore", "dataset restore", ["dataset", "restore", "{d}/ds", "0", "--dry-run"]),
    ("dataset tag", "dataset tag", ["dataset", "tag", "{d}/ds", "t1"]),
    ("dataset tag", "dataset tag", ["dataset", "tag", "{d}/ds", "t1", "--delete"]),
    ("dataset publish", "dataset publish", ["dataset", "publish", "{d}/ds", "--dry-run"]),
    ("dataset index build", "dataset index build",
     ["dataset", "index", "build", "{d}/ds", "id", "--dry-run"]),
    ("dataset merge", "dataset merge", ["dataset", "merge", "{d}/ds", "--from",
                                        "{d}/chg.parquet", "--on", "id",
                                        "--when-not-matched", "ignore", "--dry-run"]),
]


def _document(capsys, place, argv):
    code, out, err = run(capsys, *[a.format(d=place) for a in argv], "--json")
    assert code == 0, err
    # convert writes its document on stdout only when its output is a file
    return json.loads(out)


@pytest.mark.parametrize("section,command,argv", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_document_has_command_version_and_the_documented_fields(capsys, place, section,
                                                                command, argv):
    doc = _document(capsys, place, argv)
    assert list(doc)[:2] == list(COMMON)
    assert doc["command"] == command and doc["schema_version"] == 1
    fields = dict(DOCUMENTED[section])
    if section.startswith("dataset "):
        fields.update(DOCUMENTED["dataset"])
        fields.setdefault("dry_run", False)
    got = set(doc) - set(COMMON)
    assert got - set(fields) == set(), f"fields docs/CLI-JSON.md does not list for {section}"
    missing = {f for f, optional in fields.items() if not optional} - got
    if section.startswith("dataset ") and "dry_run" in missing and section in (
            "dataset info", "dataset versions", "dataset files", "dataset verify",
            "dataset repair"):
        missing.discard("dry_run")
    assert missing == set(), f"documented fields {section} lacks"


def test_every_documented_section_is_tested():
    tested = {c[0] for c in CASES} | {"dataset", "dataset import-kartothek"}
    assert set(DOCUMENTED) == tested


def test_the_common_fields_are_documented_once():
    with open(os.path.join(ROOT, "docs", "CLI-JSON.md"), encoding="utf-8") as f:
        intro = f.read().split("\n## ")[0]
    assert "| `command` | str |" in intro and "| `schema_version` | int |" in intro
