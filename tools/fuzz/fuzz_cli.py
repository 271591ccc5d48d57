"""Fuzz pqinspect's file commands in-process: ``index``, ``layout``, ``advise``,
``explain``, ``dictionary``, ``bloom`` and ``take``, through ``pqkit.cli.main.main``.

Input: 2 control bytes (the command, ``--json`` or the rich view, and the rows,
column or filter the command is given), then the file, written to a scratch file.
The command's output is captured. It must return exit code 0, 1 or 2 (2: a
:class:`pqkit.ParquetError` it reported in one line); an exception escaping ``main``
(a traceback for the user) is a finding.

Usage: python tools/fuzz/fuzz_cli.py -max_total_time=20 [corpus dir ...]
"""
import contextlib
import functools
import io
import os

import atheris
import same
import seeds

with atheris.instrument_imports():
    import pqkit
    from pqkit.cli import main as cli_main
    from pqkit.cli.main import main

# main() builds its argparse parser anew on each call, 90% of a small file's time;
# one parser serves every input (parse_args keeps nothing between calls).
cli_main.build_parser = functools.cache(cli_main.build_parser)

CONTROL = 2
COMMANDS = ("index", "layout", "advise", "explain", "dictionary", "bloom", "take")
SCRATCH = os.path.join(seeds.scratch_dir("cli"), "file.parquet")
OPS = ("=", "!=", "<", ">=", "in", "not in")


def _leaf(blob, rng):
    """A leaf column's dotted path, or a made-up one when the footer does not read."""
    try:
        leaves = pqkit.read_metadata(blob).schema.columns
    except pqkit.ParquetError:
        return "x"
    return rng.choice(leaves).dotted_path if leaves else "x"


def arguments(command, rng, blob):
    column = _leaf(blob, rng)
    if command == "advise":
        return ["--codec", "zstd", "--sample-rows", str(rng.choice((1, 16)))]
    if command == "explain":
        op = rng.choice(OPS)
        value = rng.choice(("1", "'a'", "0.5", "date '2024-01-01'"))
        where = f"{column} {op} ({value})" if "in" in op else f"{column} {op} {value}"
        return ["--where", where]
    if command == "bloom":
        return ["--column", column] + rng.sample(["1", "a", "-7", "2024-01-01"], rng.randrange(3))
    if command == "take":
        return [str(rng.randrange(-1, 40)) for _ in range(rng.randrange(1, 4))] + \
            rng.choice(([], ["--column", column]))
    if command == "dictionary":
        return rng.choice(([], ["--column", column]))
    return []


def test_one(data):
    rng, blob = same.split(data, CONTROL)
    if rng is None:
        return
    command = COMMANDS[data[0] % len(COMMANDS)]
    with open(SCRATCH, "wb") as f:
        f.write(blob)
    argv = [command, SCRATCH] + arguments(command, rng, blob)
    if data[1] & 1:
        argv.append("--json")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(argv)
        except SystemExit as exc:           # argparse refusing the arguments
            code = exc.code
    assert code in (0, 1, 2), f"pqinspect {' '.join(argv)} exited {code}"


if __name__ == "__main__":
    seeds.fuzz("cli", test_one, transform=seeds.led_by(CONTROL, variants=len(COMMANDS)))
