#!/usr/bin/env bash
# Run tests and a fuzz smoke with pqkit's Cython extensions built under AddressSanitizer
# and UndefinedBehaviorSanitizer.
#
#   tools/asan.sh                      # unit, corpus and bad-data tests, 10 s per harness
#   tools/asan.sh --quick              # what CI runs: hostile-input, corpus and CRC tests;
#                                      # the harnesses run after it in tools/fuzz/native.sh
#   tools/asan.sh -- tests/unit/encodings/test_plain.py   # chosen tests
#
# The build is tools/sanitizer_build.sh --asan (clang; a copy of the tree, so the in-place
# extensions of the working tree are left alone), the same build tools/fuzz/native.sh
# --asan fuzzes; the tests of the working tree run with that copy first on PYTHONPATH.
# Python itself is not instrumented, so the sanitizer runtime is preloaded; leak
# detection is off (the interpreter keeps memory until exit). Any ASan report (an
# out-of-bounds read even where it would not crash, a use-after-free) or UBSan report
# aborts the process and fails the run.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python}"
SMOKE=10
TESTS=(tests/unit tests/interop/test_corpus_read.py tests/interop/test_corpus_thrift.py
       tests/interop/test_corpus_metadata.py tests/cli/test_verify_cmd.py)
if [[ "${1:-}" == "--quick" ]]; then
    shift
    SMOKE=0
    TESTS=(tests/unit/test_hostile_input.py tests/unit/_native/test_thrift.py
           tests/unit/read/test_options.py tests/unit/_native/test_hashing.py
           tests/interop/test_corpus_read.py tests/interop/test_corpus_thrift.py)
fi
if [[ "${1:-}" == "--" ]]; then
    shift
    TESTS=("$@")
fi

# 1. The instrumented copy of the extensions.
built="$("$ROOT/tools/sanitizer_build.sh" --asan)"
BUILD="$(sed -n 1p <<<"$built")"
RUNTIME="$(sed -n 2p <<<"$built")"

# 2. Run under the sanitizers. Reports go to files: pytest captures stderr, and a
#    process that ASan aborts would take its report with it.
REPORTS="$BUILD/reports"
rm -rf "$REPORTS"
mkdir -p "$REPORTS"
export LD_PRELOAD="$RUNTIME"
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:log_path=$REPORTS/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$REPORTS/ubsan"
# Python's small-object allocator would hide a read past a short bytes object inside
# its arenas; with malloc, every buffer has ASan's red zones around it.
export PYTHONMALLOC=malloc
# ASan's shadow memory and quarantine multiply what a fuzz input keeps resident; the
# 1 GiB bound of plain fuzzing would stop the smoke on memory ASan itself holds.
export PQKIT_FUZZ_RSS_MB="${PQKIT_FUZZ_RSS_MB:-4096}"
# ASan at -O1 and malloc for every Python object: inputs run several times slower.
export PQKIT_FUZZ_TIMEOUT_S="${PQKIT_FUZZ_TIMEOUT_S:-10}"
export PYTHONPATH="$BUILD/src${PYTHONPATH:+:$PYTHONPATH}"
cd "$ROOT"
where="$("$PYTHON" -c 'import pqkit._native.buffer as b; print(b.__file__)')"
[[ "$where" == "$BUILD"/* ]] || { echo "asan.sh: pqkit came from $where" >&2; exit 1; }
status=0
"$PYTHON" -m pytest -q -n 2 -p no:cacheprovider "${TESTS[@]}" || status=$?
if [[ "$status" -eq 0 && "$SMOKE" -gt 0 ]]; then
    "$PYTHON" tools/fuzz/run_all.py --seconds "$SMOKE" \
        --artifacts "${PQKIT_FUZZ_ARTIFACTS:-$BUILD/fuzz-artifacts}" || status=$?
fi
# A finding is an ASan or UBSan error report. libFuzzer also has ASan print a heap
# profile to the same log when a fuzz input comes near its memory bound: not a finding.
findings="$(grep -lE 'ERROR: AddressSanitizer|runtime error:|SUMMARY: UndefinedBehaviorSanitizer' \
    "$REPORTS"/* 2>/dev/null || true)"
if [[ -n "$findings" ]]; then
    # shellcheck disable=SC2086
    cat $findings >&2
    echo "asan.sh: sanitizer reports above (also in $REPORTS)" >&2
    exit 1
fi
if compgen -G "$REPORTS/*" >/dev/null; then
    echo "asan.sh: heap profiles only (no error reports) in $REPORTS" >&2
fi
[[ "$status" -eq 0 ]] && echo "asan.sh: no sanitizer reports"
exit "$status"
