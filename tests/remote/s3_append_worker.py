"""A writer process for the object-store dataset tests: ``count`` appends to one URL.

Usage: ``python s3_append_worker.py URL OPTIONS_JSON WORKER COUNT [READY_FILE]``.
Append ``i`` writes two rows with ids ``WORKER*1000 + 2i`` and ``+ 2i + 1``
(partition ``w`` = WORKER); ``run_id`` makes a retried append a no-op, so a row
is never written twice. READY_FILE is created after the first append (the
SIGKILL test waits for it).
"""
import json
import sys

import pqkit.dataset as pds
from pqkit.errors import CommitConflict


def main(url, options, worker, count, ready=None):
    for i in range(count):
        ids = [worker * 1000 + 2 * i, worker * 1000 + 2 * i + 1]
        for _ in range(20):
            try:
                pds.write(url, {"w": [worker, worker], "id": ids}, mode="append",
                          run_id=f"w{worker}:{i}", storage_options=options)
                break
            except CommitConflict as exc:
                if not exc.retryable:
                    raise
        else:
            raise SystemExit(f"worker {worker}: append {i} never committed")
        if ready and i == 0:
            open(ready, "w").close()


if __name__ == "__main__":
    main(sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]),
         sys.argv[5] if len(sys.argv) > 5 else None)
