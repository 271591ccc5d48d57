"""Build the Cython extensions of pqkit.

Extensions are listed explicitly. ``PQKIT_DEBUG=1`` builds with annotations,
line tracing and -Wall; ``PQKIT_ONLY=a,b`` builds only the named modules
(handy while working on one kernel).
"""
import os

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# (module name, source file)
EXTENSIONS = [
    ("pqkit._native.buffer", "cython/pqkit/_native/buffer.pyx"),
    ("pqkit._native.thrift", "cython/pqkit/_native/thrift.pyx"),
    ("pqkit.format._structs", "cython/pqkit/format/_structs.pyx"),
    ("pqkit._native.bitpack", "cython/pqkit/_native/bitpack.pyx"),
    ("pqkit._native.hybrid_encode", "cython/pqkit/_native/hybrid_encode.pyx"),
    ("pqkit._native.plain", "cython/pqkit/_native/plain.pyx"),
    ("pqkit._native.take", "cython/pqkit/_native/take.pyx"),
    ("pqkit._native.dict_gather", "cython/pqkit/_native/dict_gather.pyx"),
    ("pqkit._native.place", "cython/pqkit/_native/place.pyx"),
    ("pqkit._native.delta", "cython/pqkit/_native/delta.pyx"),
    ("pqkit._native.delta_encode", "cython/pqkit/_native/delta_encode.pyx"),
    ("pqkit._native.bss", "cython/pqkit/_native/bss.pyx"),
    ("pqkit._native.levels", "cython/pqkit/_native/levels.pyx"),
    ("pqkit._native.shred", "cython/pqkit/_native/shred.pyx"),
    ("pqkit._native.page_bounds", "cython/pqkit/_native/page_bounds.pyx"),
    ("pqkit._native.expand", "cython/pqkit/_native/expand.pyx"),
    ("pqkit._native.hashing", "cython/pqkit/_native/hashing.pyx"),
    ("pqkit._native.dictenc", "cython/pqkit/_native/dictenc.pyx"),
    ("pqkit._native.stats", "cython/pqkit/_native/stats.pyx"),
    ("pqkit._native.pyobjects", "cython/pqkit/_native/pyobjects.pyx"),
    ("pqkit._native.array_rows", "cython/pqkit/_native/array_rows.pyx"),
    ("pqkit._native.zstd_frames", "cython/pqkit/_native/zstd_frames.pyx"),
    ("pqkit._native.mempool", "cython/pqkit/_native/mempool.pyx"),
    ("pqkit._native.arrow_c", "cython/pqkit/_native/arrow_c.pyx"),
    ("pqkit._native.views", "cython/pqkit/_native/views.pyx"),
    ("pqkit._native.decimal_le", "cython/pqkit/_native/decimal_le.pyx"),
    ("pqkit._native.utf8", "cython/pqkit/_native/utf8.pyx"),
]
# Modules that use numpy's C API (the rest use typed memoryviews only).
NUMPY_C_API = {"pqkit._native.mempool", "pqkit._native.array_rows"}

DEBUG = os.environ.get("PQKIT_DEBUG") == "1"
# Cythonizing and compiling both run in parallel; PQKIT_JOBS overrides the core count.
JOBS = int(os.environ.get("PQKIT_JOBS") or os.cpu_count() or 1)
ONLY = {m for m in os.environ.get("PQKIT_ONLY", "").split(",") if m}


def _extensions():
    macros = [("CYTHON_TRACE_NOGIL", "1")] if DEBUG else []
    opt = os.environ.get("PQKIT_OPT", "-O3")  # sanitizer builds compile faster at -O1
    args = [opt, "-Wall"] if DEBUG else [opt]
    exts = []
    for name, source in EXTENSIONS:
        if ONLY and name.rsplit(".", 1)[-1] not in ONLY and name not in ONLY:
            continue
        include, defs = [], list(macros)
        if name in NUMPY_C_API:
            import numpy
            include = [numpy.get_include()]
            defs.append(("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION"))
        exts.append(Extension(name, [source], include_dirs=include, define_macros=defs,
                              extra_compile_args=args))
    directives = {"language_level": "3", "embedsignature": True}
    if DEBUG:
        directives.update(linetrace=True, warn_unused=True)
    return cythonize(exts, include_path=["cython"], compiler_directives=directives,
                     annotate=DEBUG, nthreads=JOBS)


class ParallelBuildExt(build_ext):
    """Compile the extensions on every core (``build_ext --parallel``), not one by one."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = JOBS


setup(ext_modules=_extensions(), cmdclass={"build_ext": ParallelBuildExt})
