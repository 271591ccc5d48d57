"""Seed corpora for the fuzz harnesses: small parquet-testing files and small pqkit files.

A harness calls :func:`prepare` with its name; unless the command line already
names a corpus directory, one is filled under ``$PQKIT_FUZZ_DIR`` (default
``/tmp/pqkit-fuzz``) and appended to the arguments libFuzzer receives, so a bare
``python tools/fuzz/fuzz_X.py -max_total_time=20`` fuzzes from real files.
"""
import io
import os
import pathlib
import sys

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[2]


def _corpus_root():
    """Where the parquet-testing corpus is, in the tests' order: $PARQUET_TEST_DATA (or
    $PQKIT_TESTING), fixtures/parquet-testing, ../shared/parquet-testing; None if absent."""
    for given in (os.environ.get("PARQUET_TEST_DATA"), os.environ.get("PQKIT_TESTING")):
        if given:
            return pathlib.Path(given)
    for path in (REPO / "fixtures" / "parquet-testing", REPO.parent / "shared" / "parquet-testing"):
        if any(path.rglob("*.parquet")):
            return path
    return None


TESTING = _corpus_root()
MAX_SEED = 16 * 1024          # bytes: small files mutate into interesting ones faster
# What a harness passes to libFuzzer unless told otherwise: an input taking over 2 s is
# a hang, and more than 1 GiB resident is an unbounded allocation.
# PQKIT_FUZZ_RSS_MB raises the memory bound where instrumentation inflates resident
# memory (tools/asan.sh: ASan's shadow memory and quarantine).
# PQKIT_FUZZ_TIMEOUT_S likewise raises the time an input may take before it counts as a
# hang, for runs under the sanitizers (several times slower than a plain build).
DEFAULT_FLAGS = [f"-timeout={int(os.environ.get('PQKIT_FUZZ_TIMEOUT_S', 2))}",
                 f"-rss_limit_mb={int(os.environ.get('PQKIT_FUZZ_RSS_MB', 1024))}"]


def pqkit_files():
    """A handful of small files written by pqkit under different options."""
    import pqkit
    n = 50
    data = {"i": np.arange(n, dtype=np.int64),
            "s": [None if i % 5 == 0 else f"v{i % 7}" for i in range(n)],
            "l": [[i, i + 1] if i % 3 else None for i in range(n)],
            "f": np.linspace(0, 1, n)}
    options = [{}, {"compression": "none"}, {"compression": "snappy", "data_page_version": "2.0"},
               {"use_dictionary": False, "compression": "gzip"},
               {"data_page_size": 64, "write_checksums": True}]
    for opts in options:
        out = io.BytesIO()
        pqkit.write_table(data, out, **opts)
        yield out.getvalue()


def paged_files():
    """Small pqkit files with a page index: several row groups of small pages, over
    flat columns of the common types, a list and a struct."""
    import datetime
    import pqkit
    n = 120
    data = {"i": np.arange(n, dtype=np.int32) * 3 - 50,
            "s": [None if i % 7 == 0 else f"k{i % 11}" for i in range(n)],
            "f": [float("nan") if i % 13 == 0 else i / 8 for i in range(n)],
            "b": [i % 3 == 0 for i in range(n)],
            "d": [datetime.date(2024, 1, 1) + datetime.timedelta(days=i // 5) for i in range(n)],
            "l": [[i] * (i % 3) if i % 4 else None for i in range(n)],
            "st": [{"x": i, "y": str(i % 5)} for i in range(n)]}
    for opts in ({}, {"use_dictionary": False, "data_page_version": "2.0"},
                 {"compression": "none", "write_statistics": False}):
        out = io.BytesIO()
        pqkit.write_table(data, out, row_group_size=50, data_page_size=96, **opts)
        yield out.getvalue()


def led_by(width, variants=3):
    """A transform: each file as ``variants`` seeds, each led by ``width`` control bytes
    (the harness's own choices: rows, a filter, a command)."""
    def transform(blob):
        return [bytes([(v * 37 + k) % 256 for k in range(width)]) + blob
                for v in range(variants)]
    return transform


def testing_files():
    """The small files of the parquet-testing corpus (bad_data included)."""
    if TESTING is None:
        return
    for path in sorted(TESTING.rglob("*.parquet")):
        if path.stat().st_size <= MAX_SEED:
            yield path.read_bytes()


def all_seeds(transform=None, extra=()):
    """The seed files (and the ``extra`` ones), each turned into seeds by ``transform``
    when given."""
    for blob in list(testing_files()) + list(pqkit_files()) + list(extra):
        yield from (transform(blob) if transform else [blob])


def prepare(name, transform=None, seeds_of=None, paged=False):
    """Fill ``name``'s seed directory (once) and append it and the default flags to
    ``sys.argv``; ``transform(file_bytes)`` turns each file into seeds of the harness's
    input kind (e.g. its footer), or ``seeds_of()`` gives the seeds instead of files;
    ``paged`` adds :func:`paged_files` to the files."""
    given = [a for a in sys.argv[1:] if not a.startswith("-")]
    flags = [f for f in DEFAULT_FLAGS if not any(a.startswith(f.split("=")[0] + "=")
                                                 for a in sys.argv[1:])]
    sys.argv[1:1] = flags
    if given:
        return
    root = pathlib.Path(os.environ.get("PQKIT_FUZZ_DIR", "/tmp/pqkit-fuzz")) / name
    if not root.exists():
        root.mkdir(parents=True)
        extra = list(paged_files()) if paged else []
        for count, seed in enumerate(seeds_of() if seeds_of else all_seeds(transform, extra)):
            (root / f"seed-{count:05d}").write_bytes(seed)
    sys.argv.append(str(root))


def scratch_dir(name):
    """A new directory for the files a harness writes per input, in memory where the
    system has /dev/shm (opening and syncing files on disk would dominate each input)."""
    import tempfile
    return tempfile.mkdtemp(prefix=f"pqkit-fuzz-{name}-",
                            dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


def fuzz(name, test_one, **prepare_args):
    """A harness's main: seed its corpus (:func:`prepare`), then run libFuzzer on
    ``test_one``."""
    import atheris
    prepare(name, **prepare_args)
    atheris.Setup(sys.argv, test_one)
    atheris.Fuzz()
