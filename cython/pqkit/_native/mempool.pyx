# cython: language_level=3, boundscheck=False, wraparound=False
"""A numpy data allocator (NEP 49) that keeps large freed buffers for reuse.

Reading a column allocates its output buffers afresh each time, and on Linux a
fresh multi-megabyte block costs a page fault and a zeroed page per 4 KiB when
first written -- about 0.5 ms per MB, more than decoding it. Arrow avoids this
with its jemalloc/mimalloc pool; pqkit installs this handler while it decodes
and converts, so buffers freed by earlier reads are handed out again.

Blocks of at least ``POOL_MIN`` bytes are rounded up to one of eight size
classes per power of two (at most 12.5% slack) and, when freed, kept on their
class's free list; when the cached total would pass the limit, the blocks
freed longest ago (of any class) go back to the system first, so the cache
follows the sizes a workload uses now rather than the first ones it saw. Smaller blocks pass straight to malloc. Every block
carries a small header in front of the pointer numpy sees, so ``free`` and
``realloc`` know how a block was made without trusting the size numpy passes.
Arrays made under the handler keep it for life (numpy stores it per array), so
they are freed through it whatever context frees them.
"""
from cpython.pycapsule cimport PyCapsule_New
from libc.stdint cimport uint8_t, uint64_t
from libc.stdlib cimport malloc, free, realloc, calloc
from libc.string cimport memcpy, memset, strncpy

cdef extern from *:
    """
    #include <stddef.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* Ask for transparent huge pages on a fresh large block, as numpy's own
       allocator does: far fewer page faults when it is first written. */
    static void pqkit_advise_huge(void *p, size_t n) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (n >= ((size_t)1 << 22)) {
            size_t skip = 4096u - ((size_t)p % 4096u);
            madvise((char *)p + skip, n - skip, MADV_HUGEPAGE);
        }
    #else
        (void)p; (void)n;
    #endif
    }
    """
    void pqkit_advise_huge(void *p, size_t n) nogil


cdef extern from *:
    """
    #include <pthread.h>
    /* The pool's lock is a plain mutex, handled around fork() at the C level:
       prepare takes it (so the free lists are consistent when copied), the parent
       releases it, and the child gets it unlocked. Python's own after-fork hooks
       come too late: before they run, CPython's child clears the other threads'
       states, which frees their arrays back into this pool. */
    static pthread_mutex_t pqkit_pool_mutex = PTHREAD_MUTEX_INITIALIZER;
    static void pqkit_pool_lock(void) { pthread_mutex_lock(&pqkit_pool_mutex); }
    static void pqkit_pool_unlock(void) { pthread_mutex_unlock(&pqkit_pool_mutex); }
    static void pqkit_pool_child(void) { pthread_mutex_init(&pqkit_pool_mutex, NULL); }
    static int pqkit_pool_watch_fork(void) {
        return pthread_atfork(pqkit_pool_lock, pqkit_pool_unlock, pqkit_pool_child);
    }
    """
    void pqkit_pool_lock() nogil
    void pqkit_pool_unlock() nogil
    int pqkit_pool_watch_fork()

cdef extern from "numpy/arrayobject.h":
    ctypedef struct PyDataMemAllocator:
        void *ctx
        void* (*malloc)(void *ctx, size_t size) noexcept nogil
        void* (*calloc)(void *ctx, size_t nelem, size_t elsize) noexcept nogil
        void* (*realloc)(void *ctx, void *ptr, size_t new_size) noexcept nogil
        void (*free)(void *ctx, void *ptr, size_t size) noexcept nogil
    ctypedef struct PyDataMem_Handler:
        char name[127]
        uint8_t version
        PyDataMemAllocator allocator
    object PyDataMem_SetHandler(object handler)
    int _import_array() except -1

_import_array()

cdef enum:
    SUBCLASSES = 8                       # size classes per power of two
    MIN_SHIFT = 18                       # POOL_MIN == 1 << MIN_SHIFT
    MAX_SHIFT = 40                       # blocks of 512 GiB and more are never pooled
    NCLASSES = (MAX_SHIFT - MIN_SHIFT) * SUBCLASSES

cdef uint64_t SMALL_MAGIC = 0x5351504b4c4c4d53     # identifies a small (malloc) block
cdef uint64_t POOL_MAGIC = 0x5351504b4c4f4f50      # identifies a pooled block

cdef size_t POOL_MIN_C = (<size_t>1) << MIN_SHIFT
POOL_MIN = POOL_MIN_C

ctypedef struct SmallHeader:      # 16 bytes just before the user pointer
    size_t size
    uint64_t magic

ctypedef struct PoolHeader:       # 64 bytes just before the user pointer
    PoolHeader *next                # class free list (cached blocks only)
    size_t capacity                 # usable bytes after the header
    size_t size                     # bytes last asked for (realloc copies these)
    Py_ssize_t cls
    PoolHeader *prev                # class free list, backwards
    PoolHeader *newer               # all cached blocks, by the time they were freed
    PoolHeader *older
    uint64_t magic                  # last, so it sits where SmallHeader.magic does

cdef PoolHeader *free_lists[NCLASSES]
cdef PoolHeader *newest = NULL      # the cached block freed last
cdef PoolHeader *oldest = NULL      # and the one freed first: evicted first
cdef size_t cached_bytes = 0
cdef size_t cache_limit = 128 << 20
cdef size_t hits = 0
cdef size_t misses = 0
cdef size_t in_use_bytes = 0
cdef PyDataMem_Handler handler


cdef inline Py_ssize_t size_class(size_t n, size_t *capacity) noexcept nogil:
    """The class of a request of n >= POOL_MIN bytes and that class's capacity, or
    -1 when n is too large to pool."""
    cdef int shift = 63
    cdef size_t step, cap
    while shift > 0 and not (n >> shift):
        shift -= 1
    if shift >= MAX_SHIFT - 1:
        return -1
    step = (<size_t>1 << shift) // SUBCLASSES
    cap = (n + step - 1) // step * step
    capacity[0] = cap
    # (cap / step) runs from SUBCLASSES (exact power of two) to 2 * SUBCLASSES.
    return (shift - MIN_SHIFT) * SUBCLASSES + <Py_ssize_t>(cap // step - SUBCLASSES)


cdef void cache_insert(PoolHeader *h) noexcept nogil:
    # Under the pool lock: h becomes the newest cached block of its class and of all.
    global cached_bytes, newest, oldest
    h.prev = NULL
    h.next = free_lists[h.cls]
    if h.next != NULL:
        h.next.prev = h
    free_lists[h.cls] = h
    h.older = newest
    h.newer = NULL
    if newest != NULL:
        newest.newer = h
    newest = h
    if oldest == NULL:
        oldest = h
    cached_bytes += h.capacity


cdef void cache_remove(PoolHeader *h) noexcept nogil:
    # Under the pool lock: take cached block h out of both lists.
    global cached_bytes, newest, oldest
    if h.prev != NULL:
        h.prev.next = h.next
    else:
        free_lists[h.cls] = h.next
    if h.next != NULL:
        h.next.prev = h.prev
    if h.newer != NULL:
        h.newer.older = h.older
    else:
        newest = h.older
    if h.older != NULL:
        h.older.newer = h.newer
    else:
        oldest = h.newer
    h.next = h.prev = h.newer = h.older = NULL
    cached_bytes -= h.capacity


cdef PoolHeader *evict_until(size_t keep) noexcept nogil:
    # Under the pool lock: remove the oldest cached blocks until at most `keep` bytes
    # stay cached; returns them chained by `next`, for the caller to free unlocked.
    cdef PoolHeader *doomed = NULL
    cdef PoolHeader *h
    while cached_bytes > keep and oldest != NULL:
        h = oldest
        cache_remove(h)
        h.next = doomed
        doomed = h
    return doomed


cdef void free_chain(PoolHeader *h) noexcept nogil:
    cdef PoolHeader *nxt
    while h != NULL:
        nxt = h.next
        free(h)
        h = nxt


cdef void *small_alloc(size_t size, bint zero) noexcept nogil:
    cdef SmallHeader *h
    if size > (<size_t>-1) - sizeof(SmallHeader):
        return NULL
    if zero:
        h = <SmallHeader *>calloc(1, size + sizeof(SmallHeader))
    else:
        h = <SmallHeader *>malloc(size + sizeof(SmallHeader))
    if h == NULL:
        return NULL
    h.size = size
    h.magic = SMALL_MAGIC
    return <void *>(h + 1)


cdef void *pool_alloc(size_t size, bint zero) noexcept nogil:
    global cached_bytes, hits, misses, in_use_bytes
    cdef size_t capacity = 0
    cdef Py_ssize_t cls = size_class(size, &capacity)
    cdef PoolHeader *h = NULL
    if cls < 0:
        return small_alloc(size, zero)
    pqkit_pool_lock()
    h = free_lists[cls]
    if h != NULL:
        cache_remove(h)
        hits += 1
    else:
        misses += 1
    in_use_bytes += capacity
    pqkit_pool_unlock()
    if h != NULL:
        if zero:
            memset(<void *>(h + 1), 0, size)
    else:
        if zero:
            h = <PoolHeader *>calloc(1, capacity + sizeof(PoolHeader))
        else:
            h = <PoolHeader *>malloc(capacity + sizeof(PoolHeader))
        if h == NULL:
            pqkit_pool_lock()
            in_use_bytes -= capacity
            pqkit_pool_unlock()
            return NULL
        if not zero:
            pqkit_advise_huge(<void *>(h + 1), capacity)
        h.capacity = capacity
        h.cls = cls
        h.magic = POOL_MAGIC
    h.next = NULL
    h.size = size
    return <void *>(h + 1)


cdef void pool_release(PoolHeader *h) noexcept nogil:
    global in_use_bytes
    cdef bint keep
    cdef PoolHeader *doomed = NULL
    pqkit_pool_lock()
    in_use_bytes -= h.capacity
    keep = h.capacity <= cache_limit
    if keep:
        doomed = evict_until(cache_limit - h.capacity)
        cache_insert(h)
    pqkit_pool_unlock()
    free_chain(doomed)
    if not keep:
        free(h)


cdef inline uint64_t magic_of(void *ptr) noexcept nogil:
    return (<uint64_t *>ptr - 1)[0]


cdef void *h_malloc(void *ctx, size_t size) noexcept nogil:
    if size >= POOL_MIN_C:
        return pool_alloc(size, False)
    return small_alloc(size, False)


cdef void *h_calloc(void *ctx, size_t nelem, size_t elsize) noexcept nogil:
    if elsize and nelem > (<size_t>-1) // elsize:
        return NULL
    if nelem * elsize >= POOL_MIN_C:
        return pool_alloc(nelem * elsize, True)
    return small_alloc(nelem * elsize, True)


cdef void h_free(void *ctx, void *ptr, size_t size) noexcept nogil:
    if ptr == NULL:
        return
    if magic_of(ptr) == POOL_MAGIC:
        pool_release((<PoolHeader *>ptr) - 1)
    else:
        free((<SmallHeader *>ptr) - 1)


cdef void *h_realloc(void *ctx, void *ptr, size_t new_size) noexcept nogil:
    cdef PoolHeader *p
    cdef SmallHeader *s
    cdef void *fresh
    cdef size_t old_size
    if ptr == NULL:
        return h_malloc(ctx, new_size)
    if magic_of(ptr) == POOL_MAGIC:
        p = (<PoolHeader *>ptr) - 1
        # Shrinking a little (numpy trims decoded buffers this way) keeps the block.
        if new_size <= p.capacity and new_size >= p.capacity // 2:
            p.size = new_size
            return ptr
        old_size = p.size
    else:
        s = (<SmallHeader *>ptr) - 1
        if new_size < POOL_MIN_C:
            if new_size > (<size_t>-1) - sizeof(SmallHeader):
                return NULL
            s = <SmallHeader *>realloc(<void *>s, new_size + sizeof(SmallHeader))
            if s == NULL:
                return NULL
            s.size = new_size
            return <void *>(s + 1)
        old_size = s.size
    fresh = h_malloc(ctx, new_size)
    if fresh == NULL:
        return NULL
    memcpy(fresh, ptr, old_size if old_size < new_size else new_size)
    h_free(ctx, ptr, old_size)
    return fresh


strncpy(handler.name, b"pqkit_pool", 127)
handler.version = 1
handler.allocator.ctx = NULL
handler.allocator.malloc = h_malloc
handler.allocator.calloc = h_calloc
handler.allocator.realloc = h_realloc
handler.allocator.free = h_free

_capsule = PyCapsule_New(<void *>&handler, b"mem_handler", NULL)


def install():
    """Make the pool numpy's data allocator in the current context; returns the
    previous handler, to be passed to :func:`restore`."""
    return PyDataMem_SetHandler(_capsule)


def restore(previous):
    """Put back the handler :func:`install` returned."""
    PyDataMem_SetHandler(previous)


def set_limit(size_t nbytes):
    """Keep at most ``nbytes`` of freed blocks for reuse (0 turns caching off and
    releases what is cached)."""
    global cache_limit
    pqkit_pool_lock()
    cache_limit = nbytes
    pqkit_pool_unlock()
    _trim(nbytes)


def release():
    """Return every cached block to the system."""
    _trim(0)


cdef void _trim(size_t keep) noexcept nogil:
    cdef PoolHeader *doomed
    pqkit_pool_lock()
    doomed = evict_until(keep)
    pqkit_pool_unlock()
    free_chain(doomed)


def stats():
    """Counters: bytes cached, bytes in pooled blocks in use, the limit, and the
    pooled allocations served from the cache (hits) or the system (misses)."""
    pqkit_pool_lock()
    out = {"cached_bytes": cached_bytes, "in_use_bytes": in_use_bytes,
           "limit_bytes": cache_limit, "hits": hits, "misses": misses}
    pqkit_pool_unlock()
    return out


def class_capacity(size_t nbytes):
    """The capacity a pooled request of ``nbytes`` gets (``nbytes`` itself below
    POOL_MIN or above the largest class); exposed for tests."""
    cdef size_t capacity = nbytes
    if nbytes >= POOL_MIN:
        size_class(nbytes, &capacity)
    return capacity


if pqkit_pool_watch_fork() != 0:
    raise ImportError("pqkit's buffer pool could not register its fork handlers")
