"""Run every fuzz harness in turn for a fixed time; exit 1 on any finding.

    python tools/fuzz/run_all.py --seconds 15            # the CI smoke
    python tools/fuzz/run_all.py --seconds 600 --only pages,levels
    python tools/fuzz/run_all.py --seconds 5 --jobs 2     # two harnesses at a time

Each harness runs in its own process (``--jobs`` at a time, one by default), with libFuzzer's default
flags from seeds.py (an input over 2 s is a hang, over 1 GiB resident an
unbounded allocation) and its corpus under ``$PQKIT_FUZZ_DIR``. A crash input is
written to ``--artifacts`` (``crash-*``, ``timeout-*``, ``oom-*``); the line per
harness gives executions, executions per second and coverage (libFuzzer's
``cov``: Python branches seen by atheris' instrumentation).
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
HARNESSES = ("thrift", "metadata", "pages", "levels", "read_table", "iter_batches", "verify",
             "text", "manifest", "encrypted", "take", "filtered", "arrow_export", "from_arrow",
             "surgery", "cli", "dataset_meta")


def run(name, seconds, artifacts):
    """(ok, execs, exec/s, cov, output tail) of one harness run."""
    cmd = [sys.executable, str(HERE / f"fuzz_{name}.py"), f"-max_total_time={seconds}",
           "-print_final_stats=1", f"-artifact_prefix={artifacts}/{name}-"]
    start = time.monotonic()
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              check=False, timeout=seconds * 3 + 300)
    except subprocess.TimeoutExpired as exc:
        # libFuzzer stops a slow input itself; a whole run this late is a hang outside it.
        tail = (exc.stdout or b"").decode("utf-8", "replace").splitlines()[-40:]
        return (False, 0, 0, 0, "\n".join(tail + [f"{name}: no end after {exc.timeout} s"]),
                time.monotonic() - start)
    out = proc.stdout.decode("utf-8", "replace")

    def stat(pattern):
        found = re.findall(pattern, out)
        return int(found[-1]) if found else 0
    return (proc.returncode == 0, stat(r"stat::number_of_executed_units:\s+(\d+)"),
            stat(r"stat::average_exec_per_sec:\s+(\d+)"), stat(r"cov: (\d+)"),
            "\n".join(out.splitlines()[-40:]), time.monotonic() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--only", help="comma-separated harness names")
    parser.add_argument("--jobs", type=int, default=1, help="harnesses run at once")
    parser.add_argument("--skip", help="comma-separated harness names to leave out")
    parser.add_argument("--artifacts", default=os.environ.get("PQKIT_FUZZ_ARTIFACTS",
                                                              "/tmp/pqkit-fuzz-artifacts"))
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else HARNESSES
    skipped = set(args.skip.split(",")) if args.skip else set()
    names = [n for n in names if n not in skipped]
    os.makedirs(args.artifacts, exist_ok=True)
    failed = []
    pool = concurrent.futures.ThreadPoolExecutor(max(1, args.jobs))
    runs = [pool.submit(run, name, args.seconds, args.artifacts) for name in names]
    for name, result in zip(names, runs):
        ok, execs, rate, cov, tail, took = result.result()
        print(f"{name:14s} {'ok' if ok else 'FINDING':8s} execs {execs:>10,d}  "
              f"exec/s {rate:>7,d}  cov {cov:>5d}  {took:5.0f} s", flush=True)
        if not ok:
            failed.append(name)
            print(tail, file=sys.stderr)
    if failed:
        print(f"findings in {', '.join(failed)}; inputs under {args.artifacts}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
