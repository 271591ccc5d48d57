"""Systematic mutation sweep: every single-byte flip and many truncations of a file,
each read in a child process, which must give a result or a ``pqkit.ParquetError``.

    python tools/fuzz/sweep.py FILE... [--truncations 1000] [--no-flips] [--footer-key HEX]
    python tools/fuzz/sweep.py FILE... --roads [--flips 3000] --truncations 0

A child (``--worker``) reads one base file and a list of mutations from stdin and
reads each mutated copy with ``pqkit.read_table(...).to_pydict()`` (with
``--footer-key``, the key of a uniformly encrypted file), writing one JSON line per
input: the outcome (``ok``, or the exception's class and whether it is a
ParquetError), whether a read gave the unmutated file's values, and the CPU seconds
it took. The child runs under an
address-space limit, so an allocation in step with a size the file merely claims
shows as a MemoryError. A signal or a silent child ends the batch: the input it
was on is the culprit (its lines came before), it is recorded and the batch
resumes after it, so one crash does not hide the rest.

A flip XORs a byte with 0xFF; a truncation keeps the first ``n`` bytes, for ``n``
spread evenly over the file (every length when the file is shorter).

With ``--roads`` the child also runs the partial roads of each mutated copy (``take``
of fixed rows and filtered reads, ``roads.py``) and compares each result with the
full read: a mismatch is a failure, except rows a filter leaves out when the mutation
changed only min/max bounds (counted as omissions). ``--flips N`` flips N bytes
instead of every byte: every byte of the footer, then the page indexes, page headers
and the rest evenly (:func:`sampled_flips`).
"""
import argparse
import json
import os
import pathlib
import resource
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass, field

CPU_LIMIT = 1.0          # seconds of CPU per input: more is a hang
WALL_LIMIT = 60.0        # seconds without a line from the child: a stall
CHILD_EXTRA = 2 << 30    # address space a child may map beyond what it has at start


@dataclass
class SweepResult:
    inputs: int = 0
    ok: int = 0
    parquet_errors: dict = field(default_factory=dict)   # class name -> count
    failures: list = field(default_factory=list)        # (mutation, what happened)
    errors: dict = field(default_factory=dict)          # mutation -> ParquetError class name
    changed: list = field(default_factory=list)         # mutations read as other values
    road_errors: dict = field(default_factory=dict)     # ParquetError class -> roads raising it
    mismatches: list = field(default_factory=list)      # (mutation, road that gave wrong rows)
    omissions: int = 0                                  # filters leaving rows out by a bound

    def summary(self):
        errors = sum(self.parquet_errors.values())
        return (f"{self.inputs} inputs: {self.ok} read, {errors} ParquetError "
                f"({', '.join(f'{k} {v}' for k, v in sorted(self.parquet_errors.items()))}), "
                f"{len(self.failures)} failures")

    def roads_summary(self):
        errors = sum(self.road_errors.values())
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.road_errors.items()))
        return (f"roads: {errors} ParquetError ({kinds}), {len(self.mismatches)} "
                f"mismatches, {self.omissions} bound omissions")


def mutations(size, flips=True, truncations=1000):
    """The mutations of a file of ``size`` bytes: ("flip", i) and ("cut", n)."""
    out = [("flip", i) for i in range(size)] if flips else []
    count = min(truncations, size)
    out += [("cut", size * k // count) for k in range(count)]
    return out


def sampled_flips(data, count):
    """``count`` single-byte flips of a Parquet file: every footer byte first, then
    the ColumnIndex/OffsetIndex bytes, the first 24 bytes of each page (its header)
    and the remaining bytes, each stratum sampled evenly, in that order of priority."""
    import pqkit
    size = len(data)
    md = pqkit.read_metadata(data)
    footer = range(md.footer_offset, size - 8)
    indexes, headers = set(), set()
    for rg in md.raw.row_groups:
        for chunk in rg.columns:
            for kind in ("column_index", "offset_index"):
                at, length = getattr(chunk, kind + "_offset"), getattr(chunk, kind + "_length")
                if at is not None and length:
                    indexes.update(range(at, at + length))
            for at in _page_offsets(data, chunk):
                headers.update(range(at, min(at + 24, size)))
    headers -= indexes
    rest = set(range(4, md.footer_offset)) - indexes - headers
    picked = list(footer)[:count]
    for stratum, share in ((indexes, 0.5), (headers, 0.7), (rest, 1.0)):
        want = int((count - len(picked)) * share) if share < 1 else count - len(picked)
        ordered = sorted(stratum)
        step = max(1, len(ordered) / want) if want > 0 else None
        if step is not None:
            picked += [ordered[int(k * step)] for k in range(min(want, len(ordered)))]
    return [("flip", i) for i in sorted(set(picked))]


def _page_offsets(data, chunk):
    """The offsets of a chunk's pages from its OffsetIndex and dictionary page."""
    import pqkit.format as fmt
    out = []
    md = chunk.meta_data
    if md is not None and md.dictionary_page_offset:
        out.append(md.dictionary_page_offset)
    if chunk.offset_index_offset is not None and chunk.offset_index_length:
        at = chunk.offset_index_offset
        oi, _ = fmt.decode(fmt.OffsetIndex, data[at:at + chunk.offset_index_length])
        out += [loc.offset for loc in oi.page_locations]
    elif md is not None:
        out.append(md.data_page_offset)
    return out


def apply(data, mutation):
    kind, at = mutation
    if kind == "flip":
        return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1:]
    return data[:at]


def sweep(path, muts, python=sys.executable, batch=2000, footer_key=None, roads=False):
    """Read every mutation of the file at ``path`` in child processes (``footer_key``:
    the bytes of the key of a uniformly encrypted file; ``roads``: check take and
    filtered reads too)."""
    result = SweepResult()
    pending = list(muts)
    extra = [] if footer_key is None else ["--footer-key", footer_key.hex()]
    extra += ["--roads"] if roads else []
    while pending:
        chunk, pending = pending[:batch], pending[batch:]
        done, failure = _run_batch(python, path, chunk, result, extra)
        if failure is not None:
            result.failures.append((chunk[done], failure))
            result.inputs += 1
            pending = chunk[done + 1:] + pending
    return result


def _run_batch(python, path, chunk, result, extra=()):
    """(inputs finished, failure text or None); a failure is the input after them."""
    proc = subprocess.Popen([python, __file__, "--worker", str(path), *extra],
                            stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdin.write(json.dumps(chunk))
    proc.stdin.close()
    done = 0
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    while done < len(chunk):
        if not sel.select(WALL_LIMIT):
            proc.kill()
            proc.wait()
            return done, f"no result within {WALL_LIMIT} s (a hang)"
        line = proc.stdout.readline()
        if not line:
            break
        outcome = json.loads(line)
        result.inputs += 1
        if outcome["cpu"] > CPU_LIMIT * (1 + 6 * ("roads" in outcome)):
            result.failures.append((chunk[done], f"took {outcome['cpu']:.2f} s of CPU"))
        if outcome["error"] is None:
            result.ok += 1
            if not outcome.get("same", True):     # a stand-in worker may not say
                result.changed.append(tuple(chunk[done]))
        elif outcome["parquet"]:
            result.errors[tuple(chunk[done])] = outcome["error"]
            result.parquet_errors[outcome["error"]] = result.parquet_errors.get(
                outcome["error"], 0) + 1
        else:
            result.failures.append((chunk[done], f"{outcome['error']}: {outcome['message']}"))
        _count_roads(result, tuple(chunk[done]), outcome.get("roads"))
        done += 1
    proc.wait()
    if done == len(chunk) and proc.returncode == 0:
        return done, None
    return done, (f"child ended with code {proc.returncode}: "
                  f"{proc.stderr.read()[-2000:].strip()}")


def _count_roads(result, mutation, roads):
    if roads is None:
        return
    for name in roads["errors"].values():
        result.road_errors[name] = result.road_errors.get(name, 0) + 1
    result.mismatches += [(mutation, what) for what in roads["mismatches"]]
    result.omissions += roads["omissions"]


def worker(path, footer_key=None, roads=False):
    """The child: read each mutation of ``path`` given on stdin, one line per input."""
    import pqkit
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
    resource.setrlimit(resource.RLIMIT_AS, (vm + CHILD_EXTRA, resource.RLIM_INFINITY))
    data = pathlib.Path(path).read_bytes()
    keys = {} if footer_key is None else {"footer_key": bytes.fromhex(footer_key)}

    def read(blob):
        return pqkit.read_table(blob, **keys).to_pydict()

    try:
        expected = read(data)
    except pqkit.ParquetError:
        expected = None
    if roads:
        import roads as road_checks
        reference = road_checks.Reference(data)
    for mutation in json.load(sys.stdin):
        blob = apply(data, mutation)
        error = message = None
        parquet = same = False
        checked = None
        start = time.process_time()
        try:
            same = read(blob) == expected
        except pqkit.ParquetError as exc:
            error, parquet = type(exc).__name__, True
        except Exception as exc:  # noqa: BLE001 -- the finding this sweep looks for
            error, message = type(exc).__name__, str(exc)[:500]
        if roads and message is None:
            try:
                mismatches, omissions, errors = road_checks.check(blob, reference)
                checked = {"mismatches": mismatches, "omissions": omissions,
                           "errors": errors}
            except Exception as exc:  # noqa: BLE001 -- the finding this sweep looks for
                error, parquet, message = type(exc).__name__, False, str(exc)[:500]
        cpu = time.process_time() - start
        outcome = {"error": error, "parquet": parquet, "message": message,
                   "same": same, "cpu": round(cpu, 4)}
        if checked is not None:
            outcome["roads"] = checked
        print(json.dumps(outcome), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--truncations", type=int, default=1000)
    parser.add_argument("--no-flips", action="store_true")
    parser.add_argument("--footer-key", help="hex of the key of uniformly encrypted files")
    parser.add_argument("--roads", action="store_true",
                        help="also check take and filtered reads against the full read")
    parser.add_argument("--flips", type=int, help="flip this many bytes, not every byte")
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.files[0], args.footer_key, args.roads)
        return 0
    failed = 0
    for path in args.files:
        size = os.path.getsize(path)
        key = None if args.footer_key is None else bytes.fromhex(args.footer_key)
        muts = mutations(size, not args.no_flips and args.flips is None, args.truncations)
        if args.flips is not None and not args.no_flips:
            muts = sampled_flips(pathlib.Path(path).read_bytes(), args.flips) + muts
        start = time.time()
        res = sweep(path, muts, footer_key=key, roads=args.roads)
        print(f"{path}: {res.summary()} [{time.time() - start:.0f} s]", flush=True)
        if args.roads:
            print(f"  {res.roads_summary()}", flush=True)
        for mutation, what in res.failures + res.mismatches:
            print(f"  {mutation}: {what}")
        failed += len(res.failures) + len(res.mismatches)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
