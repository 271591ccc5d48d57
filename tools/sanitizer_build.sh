#!/usr/bin/env bash
# Build a copy of pqkit's Cython extensions with clang for the sanitizer and native-fuzz
# runs, and print two lines: the copy's directory and the runtime library to preload.
#
#   tools/sanitizer_build.sh --asan   # ASan + UBSan + libFuzzer counters (tools/asan.sh,
#                                     # tools/fuzz/native.sh --asan share this one build)
#   tools/sanitizer_build.sh          # libFuzzer counters only (tools/fuzz/native.sh)
#
# One instrumented build serves both the sanitizer tests and the fuzzing: the counters
# cost nothing to code that no fuzzer drives, and a second build of the 25 modules took
# 4 minutes of the CI budget. The copy lives in $PQKIT_SANITIZER_DIR (default
# /tmp/pqkit-sanitized, or /tmp/pqkit-fuzz-native without --asan) and keeps its .c and .so
# files between runs, so only modules whose sources changed are built again.
#
# -O1, not the -O3 of release builds: the sanitizers' own advice, and it halves the build.
# UBSan's pointer-overflow check is off: it flags the zero offset that Cython's generated
# argument parsing adds to a NULL argument array in every vectorcall constructor, which is
# harmless; the out-of-bounds accesses that matter are ASan's to catch.
#
# Needs clang with its libFuzzer runtime (Debian: clang libclang-rt-14-dev) and atheris,
# whose wheel ships libFuzzer linked into the sanitizer runtimes preloaded at run time.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-python}"
ASAN=0
[[ "${1:-}" == "--asan" ]] && ASAN=1
if [[ "$ASAN" -eq 1 ]]; then
    BUILD="${PQKIT_SANITIZER_DIR:-/tmp/pqkit-sanitized}"
else
    BUILD="${PQKIT_SANITIZER_DIR:-/tmp/pqkit-fuzz-native}"
fi

CLANG="${CLANG:-clang}"
command -v "$CLANG" >/dev/null \
    || { echo "sanitizer_build.sh: $CLANG not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2; exit 2; }
[[ -f "$("$CLANG" -print-file-name=libclang_rt.fuzzer_no_main-$(uname -m).a)" ]] \
    || { echo "sanitizer_build.sh: clang has no libFuzzer runtime (Debian: libclang-rt-14-dev)" >&2; exit 2; }
RUNTIME="$("$PYTHON" -c 'import atheris; print(atheris.path())')/$([[ "$ASAN" -eq 1 ]] && echo asan || echo ubsan)_with_fuzzer.so"
[[ -f "$RUNTIME" ]] || { echo "sanitizer_build.sh: atheris has no $RUNTIME" >&2; exit 2; }

mkdir -p "$BUILD"
# The C files that the tree's own build generated come along: Cython's output does not
# depend on the compiler flags, and cythonize translates again only where a .pyx or .pxd
# is newer than its .c, so the sanitized build compiles without translating 27 modules.
tar -C "$ROOT" --exclude='*.so' --exclude='__pycache__' -cf - \
    src cython setup.py pyproject.toml | tar -C "$BUILD" -xf -
# stack-depth tracing wants __sancov_lowest_stack, which the preloaded libFuzzer lacks.
FLAGS="-fsanitize=fuzzer-no-link -fno-sanitize-coverage=stack-depth"
OPT="-O3"
if [[ "$ASAN" -eq 1 ]]; then
    FLAGS="$FLAGS -fsanitize=address,undefined -fno-sanitize=pointer-overflow"
    FLAGS="$FLAGS -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
    OPT="-O1"
fi
(cd "$BUILD" && PQKIT_OPT="$OPT" CC="$CLANG" LDSHARED="$CLANG -shared -pthread" \
    CFLAGS="$FLAGS" LDFLAGS="$FLAGS" \
    "$PYTHON" setup.py -q build_ext --inplace --build-temp "$BUILD/build-temp" \
    >"$BUILD/build.log" 2>&1) || { tail -30 "$BUILD/build.log" >&2; exit 1; }

# A build that silently lost its instrumentation would make every later run meaningless.
probe="$(find "$BUILD/src/pqkit/_native" -name 'buffer*.so' | head -1)"
want="__sanitizer_cov_8bit_counters_init"
[[ "$ASAN" -eq 1 ]] && want="$want __asan_report_load __ubsan_handle_"
symbols="$(nm -D "$probe")"
for symbol in $want; do
    grep -q "$symbol" <<<"$symbols" \
        || { echo "sanitizer_build.sh: $probe has no $symbol: not instrumented" >&2; exit 1; }
done
echo "$BUILD"
echo "$RUNTIME"
