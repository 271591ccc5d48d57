"""pqinspect on URLs (issue 28, item 4): every reading command takes an ``s3://`` URL,
with the endpoint and credentials from the usual environment variables or from
``--storage-option``; a prefix or a missing key is named as such; a network or
credential error is one line with the URL and the server's code, exit 2."""
import json
import os
import socket
import time
import uuid
from pathlib import Path

import pytest

import pqkit.dataset as pds
from pqkit.cli.main import main as pqinspect
from s3server import BUCKET, KEY, REGION, SECRET, upload_published

SAMPLE = Path(__file__).resolve().parents[2] / "fixtures" / "sample.parquet"


@pytest.fixture(scope="module")
def store(s3, tmp_path_factory):
    """URLs of the sample file, a published PQDS/1 dataset and a scratch prefix."""
    prefix = f"cli-{uuid.uuid4().hex[:8]}"
    client = s3.boto3_client()
    client.put_object(Bucket=BUCKET, Key=f"{prefix}/sample.parquet", Body=SAMPLE.read_bytes())
    root = str(tmp_path_factory.mktemp("cli_urls") / "sales")
    os.environ["PQKIT_DATASET_FSYNC"] = "0"
    try:
        for i in range(2):
            pds.write(root, {"order_id": [2 * i, 2 * i + 1], "region": ["north", "south"]},
                      partition_by=["region"])
    finally:
        del os.environ["PQKIT_DATASET_FSYNC"]
    upload_published(client, root, f"{prefix}/sales/")
    base = f"s3://{BUCKET}/{prefix}"
    return {"file": f"{base}/sample.parquet", "dataset": f"{base}/sales", "base": base,
            "prefix": prefix, "root": root}


@pytest.fixture
def aws_env(s3, monkeypatch):
    """The usual environment variables pointing boto at the local server."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)


def run(capsys, *argv):
    code = pqinspect([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# argv of every reading command (the URL is {file} or {dataset}) and text its output holds
READING = {
    "schema": (["schema", "{file}", "--json"], '"temperature"'),
    "meta": (["meta", "{file}", "--json"], '"num_row_groups"'),
    "pages": (["pages", "{file}", "--json"], '"city"'),
    "index": (["index", "{file}", "--json"], '"city"'),
    "layout": (["layout", "{file}", "--json"], '"city"'),
    "head": (["head", "{file}"], "temperature"),
    "cat": (["cat", "{file}", "--json"], "temperature"),
    "take": (["take", "{file}", "0", "7"], "temperature"),
    "explain": (["explain", "{file}", "--where", "temperature > 20"], "temperature"),
    "dictionary": (["dictionary", "{file}", "--column", "city", "--json"], "city"),
    "bloom": (["bloom", "{file}", "--column", "city", "Oslo", "--json"], "city"),
    "diff": (["diff", "{file}", "{file}", "--json"], "{"),
    "verify": (["verify", "{file}", "--json"], '"status": "ok"'),
    "verify-prefix": (["verify", "{base}", "--json"], '"status": "ok"'),
    "advise": (["advise", "{file}", "--codec", "zstd", "--json"], '"projected_bytes"'),
    "convert": (["convert", "{file}", "{tmp}/sample.csv"], "Converted"),
    "concat": (["concat", "{file}", "{file}", "-o", "{tmp}/twice.parquet", "--json"],
               '"num_rows": 24'),
    "dataset-info": (["dataset", "info", "{dataset}", "--json"], '"state": "published"'),
    "dataset-versions": (["dataset", "versions", "{dataset}", "--json"], '"version": 1'),
    "dataset-files": (["dataset", "files", "{dataset}", "--json"], '"selected_files": 4'),
    "dataset-verify": (["dataset", "verify", "{dataset}", "--level", "sha256", "--json"],
                       '"files_checked": 4'),
}


def _argv(template, store, tmp_path):
    return [a.format(tmp=tmp_path, **store) for a in template]


@pytest.mark.parametrize("command", list(READING))
def test_every_reading_command_takes_a_url(command, store, aws_env, capsys, tmp_path):
    template, shows = READING[command]
    code, out, err = run(capsys, *_argv(template, store, tmp_path))
    assert code == 0, err
    assert shows in out, out[:2000]
    assert "s3:/" not in err and "Traceback" not in err


def test_verify_lists_a_prefix_like_a_directory(store, aws_env, capsys):
    code, out, _ = run(capsys, "verify", store["base"], "--json")
    paths = sorted(f["path"] for f in json.loads(out)["files"])
    assert code == 0
    assert store["file"] in paths
    assert all(p.startswith(store["base"] + "/") for p in paths)
    assert not any("/_pqkit/" in p for p in paths)      # pqkit's own keys stay hidden
    assert sum("/sales/region=" in p for p in paths) == 4


@pytest.mark.parametrize("command", ["verify", "dataset-info", "concat"])
def test_storage_option_flag_instead_of_environment(command, s3, store, capsys, tmp_path,
                                                   monkeypatch):
    for name in ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    template, shows = READING[command]
    code, out, err = run(capsys, *_argv(template, store, tmp_path),
                         "--storage-option", f"endpoint_url={s3.endpoint}",
                         "--storage-option", f"key={KEY}", "--storage-option", f"secret={SECRET}")
    assert code == 0, err
    assert shows in out


def test_storage_option_nested_keys_and_json_values():
    from pqkit.cli.urls import options_dict, storage_option
    pairs = [storage_option(t) for t in ("anon=true", "client_kwargs.region_name=eu-west-1",
                                         "client_kwargs.verify=false", "block_size=65536")]
    assert options_dict(pairs) == {"anon": True, "block_size": 65536, "client_kwargs": {
        "region_name": "eu-west-1", "verify": False}}


def test_storage_option_without_a_url_is_refused(capsys):
    code, _, err = run(capsys, "meta", SAMPLE, "--storage-option", "anon=true")
    assert code == 2
    assert err.strip() == ("pqinspect meta: --storage-option applies to URLs (s3://..., "
                           "gs://...), and no argument is one")


def test_storage_options_last_only_for_the_command(s3, store, capsys, tmp_path):
    from fsspec.config import conf
    before = json.dumps(conf, sort_keys=True, default=str)
    run(capsys, "schema", store["file"], "--storage-option", f"endpoint_url={s3.endpoint}")
    assert json.dumps(conf, sort_keys=True, default=str) == before


# (meta summarises a prefix like a directory: test_meta_on_a_prefix_summarises_its_files)
@pytest.mark.parametrize("command, what", [
    (c, w) for w in ("prefix", "bucket", "nothing")
    for c in ("meta", "schema", "head", "take", "advise", "concat", "convert")
    if not (c == "meta" and w != "nothing")])
def test_a_prefix_or_nothing_is_named(command, what, store, aws_env, capsys, tmp_path):
    url = {"prefix": store["dataset"], "bucket": f"s3://{BUCKET}",
           "nothing": f"{store['base']}/no/such/thing"}[what]
    template = next(t for c, (t, _) in READING.items() if c == command)
    argv = [url if a == "{file}" else a for a in template]
    if command == "convert":                # a suffix-less URL needs its format named
        argv += ["--from", "parquet"]
    code, _, err = run(capsys, *_argv(argv, store, tmp_path))
    assert code == 2
    assert len(err.strip().splitlines()) == 1, err
    if what == "nothing":
        assert f"no object and no prefix named {url}" in err
    else:
        assert f"{url} is a prefix (a directory of objects), not a file" in err
    assert "0 bytes" not in err


def test_missing_key_says_what_is_missing(store, aws_env, capsys):
    url = f"{store['base']}/missing.parquet"
    code, _, err = run(capsys, "meta", url)
    assert code == 2
    assert err == f"pqinspect meta: no object and no prefix named {url}\n"


def test_missing_bucket_gives_the_server_code(aws_env, capsys):
    url = f"s3://no-such-bucket-{uuid.uuid4().hex[:8]}/x.parquet"
    code, _, err = run(capsys, "meta", url)
    assert code == 2
    assert len(err.splitlines()) == 1
    assert url in err and "(NoSuchBucket, HTTP 404)" in err


def test_verify_of_a_missing_key_is_an_unusable_report(store, aws_env, capsys):
    url = f"{store['base']}/missing.parquet"
    code, _, err = run(capsys, "verify", url)
    assert code == 2
    assert f"no object and no prefix named {url}" in err


UNREACHABLE = {
    "meta": ["meta", "{file}"],
    "head": ["head", "{file}"],
    "verify": ["verify", "{file}"],
    "advise": ["advise", "{file}"],
    "convert": ["convert", "{file}", "{tmp}/out.csv"],
    "concat": ["concat", "{file}", "-o", "{tmp}/out.parquet"],
    "dataset-info": ["dataset", "info", "{dataset}"],
    "dataset-versions": ["dataset", "versions", "{dataset}"],
    "dataset-verify": ["dataset", "verify", "{dataset}"],
}


def _dead_endpoint_options():
    return ["--storage-option", f"endpoint_url=http://127.0.0.1:{closed_port()}",
            "--storage-option", "config_kwargs.retries.max_attempts=1",
            "--storage-option", "config_kwargs.connect_timeout=2"]


@pytest.mark.parametrize("command", list(UNREACHABLE))
def test_unreachable_endpoint_is_one_line(command, store, aws_env, capsys, tmp_path):
    argv = _argv(UNREACHABLE[command], store, tmp_path) + _dead_endpoint_options()
    start = time.monotonic()
    code, out, err = run(capsys, *argv)
    assert time.monotonic() - start < 30
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    url = store["dataset"] if command.startswith("dataset") else store["file"]
    assert lines[0].startswith(f"pqinspect {command.split('-')[0]}: cannot connect to the "
                               f"server of {url} (endpoint 127.0.0.1:")
    assert lines[0].endswith("(ECONNREFUSED)")


def test_debug_prints_the_traceback_then_the_line(store, aws_env, capsys):
    code, _, err = run(capsys, "meta", store["file"], "--debug", *_dead_endpoint_options())
    assert code == 2
    assert err.startswith("Traceback (most recent call last):")
    assert "EndpointConnectionError" in err
    assert err.splitlines()[-1].startswith("pqinspect meta: cannot connect to the server of")


def test_debug_reaches_dataset_actions(store, aws_env, capsys):
    code, _, err = run(capsys, "dataset", "info", store["dataset"], "--debug",
                       *_dead_endpoint_options())
    assert code == 2 and "Traceback" in err


def test_dataset_verify_finds_a_missing_and_a_changed_object(s3, store, aws_env, capsys):
    """The snapshot's sizes are not taken on trust: each object is looked up."""
    prefix = f"{store['prefix']}/damaged-{uuid.uuid4().hex[:6]}/"
    client = s3.boto3_client()
    upload_published(client, store["root"], prefix)
    url = f"s3://{BUCKET}/{prefix.rstrip('/')}"
    files = pds.open(store["root"]).manifest.files
    gone, changed = files[0]["path"], files[1]["path"]
    client.delete_object(Bucket=BUCKET, Key=prefix + gone)
    client.put_object(Bucket=BUCKET, Key=prefix + changed, Body=b"PAR1 not the same PAR1")
    code, out, _ = run(capsys, "dataset", "verify", url, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["root"] == url and doc["layout"] == "pqds"
    problems = {p["path"]: p["problem"] for p in doc["problems"]}
    assert set(problems) == {gone, changed}
    assert "missing" in problems[gone]
    assert "bytes on disk but the manifest says" in problems[changed]


def test_missing_credentials_are_one_line(s3, store, monkeypatch, tmp_path, capsys):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3.endpoint)
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    # a fresh file system: a cached one would still hold the credentials of other tests
    code, _, err = run(capsys, "meta", store["file"], "--storage-option",
                       "skip_instance_cache=true")
    assert code == 2
    assert err == (f"pqinspect meta: credentials refused or missing for {store['file']}: "
                   "Unable to locate credentials\n")


@pytest.fixture
def forbidding_server():
    """An HTTP server that answers every request with 403 Forbidden."""
    import http.server
    import threading

    class Forbidden(http.server.BaseHTTPRequestHandler):
        def do_HEAD(self):
            self.send_response(403)
            self.end_headers()

        do_GET = do_HEAD

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Forbidden)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("command", ["meta", "verify"])
def test_access_denied_is_one_line_with_the_status(forbidding_server, capsys, command):
    url = f"{forbidding_server}/data.parquet"
    code, _, err = run(capsys, command, url)
    assert code == 2
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"pqinspect {command}: access denied to {url}: ")
    assert err.rstrip().endswith("(HTTP 403)")


def test_convert_reads_and_writes_urls(s3, store, aws_env, capsys, tmp_path):
    csv_url, parquet_url = f"{store['base']}/conv/weather.csv", f"{store['base']}/conv/w.parquet"
    code, _, err = run(capsys, "convert", store["file"], csv_url)
    assert code == 0, err
    code, _, err = run(capsys, "convert", csv_url, parquet_url)
    assert code == 0, err
    code, out, _ = run(capsys, "head", parquet_url, "--json")
    assert code == 0 and "Paris" in out


def test_failed_convert_leaves_no_object(s3, store, aws_env, capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\n3,x\n")
    url = f"{store['base']}/conv/bad.parquet"
    code, _, err = run(capsys, "convert", bad, url, "--infer-rows", "1")
    assert code == 2 and "does not fit int64" in err
    key = url.split("/", 3)[3]
    listed = s3.boto3_client().list_objects_v2(Bucket=BUCKET, Prefix=key)
    assert listed.get("KeyCount", 0) == 0


def test_meta_on_a_prefix_summarises_its_files(store, aws_env, capsys):
    code, out, _ = run(capsys, "meta", store["dataset"], "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["totals"]["num_rows"] == 4 and doc["totals"]["readable"] == doc["totals"]["files"]
    assert all(f["path"].startswith(store["dataset"] + "/") for f in doc["files"])
