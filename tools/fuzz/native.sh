#!/usr/bin/env bash
# Fuzz with coverage from the Cython kernels too, not only from the Python around them.
#
#   tools/fuzz/native.sh --seconds 15                   # every harness (run_all.py)
#   tools/fuzz/native.sh --asan --seconds 5 --only pages,levels
#   tools/fuzz/native.sh --harness verify -runs=2000000 # one harness, libFuzzer flags after
#
# The extensions are built by tools/sanitizer_build.sh (clang, -fsanitize=fuzzer-no-link,
# in a copy of the tree; with --asan the same ASan/UBSan build tools/asan.sh tests, so CI
# builds once). The inline counters this instrumentation adds need libFuzzer's callbacks
# in the global namespace: atheris' wheel ships libFuzzer linked into sanitizer runtimes
# (ubsan_with_fuzzer.so, asan_with_fuzzer.so), and preloading one makes atheris run on
# that libFuzzer ("Using preloaded libfuzzer") instead of its private copy.
#
# Needs clang and its libFuzzer runtime (Debian: clang libclang-rt-14-dev).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PYTHON="${PYTHON:-python}"
ASAN=0
HARNESS=""
RUN_ARGS=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --asan) ASAN=1; shift ;;
        --harness) HARNESS="$2"; shift 2; RUN_ARGS+=("$@"); break ;;
        *) RUN_ARGS+=("$1"); shift ;;
    esac
done
# 1. The instrumented copy (kept between runs, so only changed modules are built again).
built="$("$ROOT/tools/sanitizer_build.sh" $([[ "$ASAN" -eq 1 ]] && echo --asan))"
BUILD="$(sed -n 1p <<<"$built")"
RUNTIME="$(sed -n 2p <<<"$built")"

# 2. Run on the preloaded libFuzzer, with the instrumented copy first on the path.
export LD_PRELOAD="$RUNTIME"
export PYTHONPATH="$BUILD/src${PYTHONPATH:+:$PYTHONPATH}"
if [[ "$ASAN" -eq 1 ]]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}"
    export PYTHONMALLOC=malloc   # red zones around every buffer, not pymalloc arenas
    export PQKIT_FUZZ_RSS_MB="${PQKIT_FUZZ_RSS_MB:-4096}"
    # ASan at -O1 and malloc for every Python object: inputs run several times slower.
    export PQKIT_FUZZ_TIMEOUT_S="${PQKIT_FUZZ_TIMEOUT_S:-10}"
fi
cd "$ROOT"
where="$("$PYTHON" -c 'import pqkit._native.buffer as b; print(b.__file__)')"
[[ "$where" == "$BUILD"/* ]] || { echo "native.sh: pqkit came from $where" >&2; exit 1; }

# One execution proves that the kernels' counters reached libFuzzer; without them
# this would silently be plain Python-coverage fuzzing.
mkdir -p "$BUILD/probe-corpus"
probe="$("$PYTHON" tools/fuzz/fuzz_thrift.py -runs=1 "$BUILD/probe-corpus" 2>&1 || true)"
counters="$(grep -oE 'Loaded [0-9]+ modules +\([0-9]+ inline 8-bit counters\)' <<<"$probe" | head -1)"
if ! grep -q 'Using preloaded libfuzzer' <<<"$probe" || [[ -z "$counters" ]]; then
    echo "$probe" | grep -v '^INFO: Instrumenting' | tail -20 >&2
    echo "native.sh: the kernels' coverage did not reach libFuzzer" >&2
    exit 1
fi
echo "native.sh: $counters from the Cython kernels"

if [[ -n "$HARNESS" ]]; then
    exec "$PYTHON" "tools/fuzz/fuzz_$HARNESS.py" "${RUN_ARGS[@]}"
fi
exec "$PYTHON" tools/fuzz/run_all.py "${RUN_ARGS[@]}"
