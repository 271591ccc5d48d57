"""The format with real executors: ``local-cluster[2,1,1024]`` starts two executor JVMs
here, in a process of its own (one SparkContext per process)."""
import json
import os
import subprocess
import sys


def test_read_and_write_on_local_cluster(tmp_path):
    here = os.path.dirname(__file__)
    src = os.path.join(here, "..", "..", "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (os.path.abspath(src), os.environ.get("PYTHONPATH")) if p)}
    run = subprocess.run([sys.executable, os.path.join(here, "cluster_job.py"), str(tmp_path)],
                         capture_output=True, text=True, timeout=600, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen == {"executors": 2, "same_rows": True, "where": ["r77"], "failed": True,
                    "unchanged": True}
