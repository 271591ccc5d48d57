"""How much traced memory a repeated call leaves behind (for release-callback tests)."""
import gc
import tracemalloc


def traced_growth(fn, times=1000, warm=20):
    """Bytes of Python-traced memory still held after calling ``fn`` ``times`` times,
    after ``warm`` calls that fill caches and free lists first."""
    for _ in range(warm):
        fn()
    gc.collect()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for _ in range(times):
            fn()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
