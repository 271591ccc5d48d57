#!/usr/bin/env python3
"""Write manifest.json for a parquet-testing checkout: each file and whether pyarrow reads it.

Usage: python tools/corpus_manifest.py CORPUS_DIR

pyarrow runs in a child process per file because a few encrypted files abort
it. The tests use `path`, `readable`, `error` and `encrypted`.
"""
import json
import os
import subprocess
import sys

PROBE = r"""
import json, sys
import pyarrow.parquet as pq
path = sys.argv[1]
out = {}
try:
    md = pq.read_metadata(path)
    out.update(num_rows=md.num_rows, num_row_groups=md.num_row_groups,
               num_columns=md.num_columns, created_by=md.created_by)
    pq.read_table(path)
    out["readable"] = True
except Exception as exc:
    out.update(readable=False, error=f"{type(exc).__name__}: {exc}"[:300])
print(json.dumps(out))
"""


def probe(path):
    proc = subprocess.run([sys.executable, "-c", PROBE, path], capture_output=True, text=True)
    if proc.returncode != 0:
        return {"readable": False, "error": f"child process died (rc={proc.returncode})"}
    return json.loads(proc.stdout)


def main(root):
    entries = []
    for dirpath, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if not name.endswith((".parquet", ".parquet.encrypted")):
                continue
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            entry = {"path": rel, "size_bytes": os.path.getsize(full),
                     "encrypted": name.endswith(".encrypted"), "error": None}
            entry.update(probe(full))
            entries.append(entry)
            print(rel, entry["readable"], file=sys.stderr)
    with open(os.path.join(root, "manifest.json"), "w") as fh:
        json.dump(entries, fh, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
