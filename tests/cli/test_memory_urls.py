"""pqinspect on memory:// URLs (fsspec's in-process file system): the reading commands
that used to take any argument as a local path open URLs, without a server."""
import json
import uuid
from pathlib import Path

import pytest

from cli_run import run

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample.parquet"


@pytest.fixture
def url():
    import fsspec
    fs = fsspec.filesystem("memory")
    base = f"/pqinspect-{uuid.uuid4().hex[:8]}"
    fs.pipe(f"{base}/sample.parquet", SAMPLE.read_bytes())
    yield f"memory://{base}"
    fs.rm(base, recursive=True)


@pytest.mark.parametrize("argv, shows", [
    (["verify", "{u}/sample.parquet", "--json"], '"status": "ok"'),
    (["verify", "{u}", "--json"], "sample.parquet"),
    (["advise", "{u}/sample.parquet", "--codec", "zstd", "--json"], '"projected_bytes"'),
    (["concat", "{u}/sample.parquet", "{u}/sample.parquet", "-o", "{t}/both.parquet",
      "--json"], '"num_rows": 24'),
    (["convert", "{u}/sample.parquet", "{u}/sample.csv"], "Converted"),
    (["meta", "{u}", "--json"], '"num_rows": 12'),
], ids=["verify", "verify-prefix", "advise", "concat", "convert", "meta-prefix"])
def test_memory_urls(capsys, url, tmp_path, argv, shows):
    code, out, err = run(capsys, *[a.format(u=url, t=tmp_path) for a in argv])
    assert code == 0, err
    assert shows in out


def test_convert_round_trip_through_memory(capsys, url):
    assert run(capsys, "convert", f"{url}/sample.parquet", f"{url}/s.jsonl")[0] == 0
    assert run(capsys, "convert", f"{url}/s.jsonl", f"{url}/back.parquet")[0] == 0
    code, out, _ = run(capsys, "meta", f"{url}/back.parquet", "--json")
    assert code == 0 and json.loads(out)["file"]["num_rows"] == 12


def test_missing_memory_object(capsys, url):
    code, _, err = run(capsys, "advise", f"{url}/nope.parquet")
    assert code == 2
    assert err == f"pqinspect advise: no object and no prefix named {url}/nope.parquet\n"
