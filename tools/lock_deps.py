"""Write constraints/test.txt: the exact versions the test install resolves to today.

The README's test command and .ci/run install with ``-c constraints/test.txt``, so a
release elsewhere (a new boto3 that aiobotocore forbids, say) cannot turn the install
into minutes of pip backtracking and a ``ResolutionImpossible``. Run this by hand to move
the pins forward; it resolves every extra together in a throwaway venv and fails, naming
the packages pip backtracked over, if the unpinned resolve is no longer clean.

    python tools/lock_deps.py            # rewrite constraints/test.txt
    python tools/lock_deps.py --check    # resolve only; exit 1 on backtracking or > 120 s
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "constraints" / "test.txt"
EXTRAS = "test,spark,s3,gcs,azure,http,kartothek,pandas,encryption"
RESOLVE_LIMIT_S = 120.0
BACKTRACK = re.compile(r"pip is looking at multiple versions of (\S+)")


def resolve(constraints: Path | None, python: str | None = None) -> tuple[dict, float, list[str]]:
    """Dry-run the editable install of every extra in an empty venv.

    Returns pip's install report, the seconds the resolve took and the packages pip
    backtracked over (empty when the resolve was clean).
    """
    with tempfile.TemporaryDirectory() as tmp:
        env_dir = Path(tmp) / "venv"
        if python:
            subprocess.run([python, "-m", "venv", str(env_dir)], check=True)
        else:
            venv.create(env_dir, with_pip=True)
        pip = [str(env_dir / "bin" / "python"), "-m", "pip"]
        subprocess.run(pip + ["install", "-q", "--upgrade", "pip"], check=True)
        report = Path(tmp) / "report.json"
        cmd = pip + ["install", "--dry-run", "--ignore-installed", "--report", str(report),
                     "-e", f"{ROOT}[{EXTRAS}]"]
        if constraints is not None:
            cmd += ["-c", str(constraints)]
        start = time.monotonic()
        run = subprocess.run(cmd, capture_output=True, text=True)
        seconds = time.monotonic() - start
        fights = sorted(set(BACKTRACK.findall(run.stdout + run.stderr)))
        if run.returncode != 0:
            sys.stderr.write(run.stdout[-4000:] + run.stderr[-4000:])
            raise SystemExit(f"the resolve failed after {seconds:.0f} s; "
                             f"pip backtracked over: {', '.join(fights) or 'nothing'}")
        return json.loads(report.read_text()), seconds, fights


def pins(report: dict) -> list[str]:
    """``name==version`` for every package of the report but pqkit itself."""
    found = {}
    for item in report["install"]:
        meta = item["metadata"]
        name = meta["name"].lower().replace("_", "-")
        if name != "pqkit":
            found[name] = meta["version"]
    return [f"{name}=={found[name]}" for name in sorted(found)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="resolve against the lock; fail on backtracking or a slow resolve")
    parser.add_argument("--python", help="the interpreter whose venv resolves (default: this one)")
    args = parser.parse_args(argv)

    report, seconds, fights = resolve(LOCK if args.check else None, args.python)
    print(f"resolved {len(report['install'])} packages in {seconds:.1f} s")
    if fights:
        print(f"pip backtracked over: {', '.join(fights)}", file=sys.stderr)
        return 1
    if seconds > RESOLVE_LIMIT_S:
        print(f"the resolve took {seconds:.0f} s, over the {RESOLVE_LIMIT_S:.0f} s limit",
              file=sys.stderr)
        return 1
    if args.check:
        return 0
    py = report.get("environment", {}).get("python_full_version", "?")
    header = [
        "# Exact versions of every package the extras install, resolved together on",
        f"# Python {py} by tools/lock_deps.py on {time.strftime('%Y-%m-%d')}.",
        "# Used as: pip install -e \".[test]\" -c constraints/test.txt",
        "# Regenerate with: python tools/lock_deps.py",
    ]
    LOCK.parent.mkdir(exist_ok=True)
    LOCK.write_text("\n".join(header + pins(report)) + "\n")
    print(f"wrote {LOCK.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
