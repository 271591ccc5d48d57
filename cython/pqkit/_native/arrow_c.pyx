# cython: language_level=3
"""The Arrow C Data and C Stream interfaces: C structures in and out of PyCapsules.

An Arrow array crosses a library boundary as two C structures, an
``ArrowSchema`` (a format string such as ``"l"`` for int64 or ``"+l"`` for a
list, a name, binary metadata, flags, child schemas, a dictionary schema) and
an ``ArrowArray`` (length, null count, offset in slots, buffer pointers, child
arrays, a dictionary array), each with a ``release`` callback the consumer
calls once it is done. A stream (``ArrowArrayStream``) hands out one schema and
then arrays until an empty one (``release == NULL``) marks the end. Python
libraries pass these structures in capsules named ``arrow_schema``,
``arrow_array`` and ``arrow_array_stream``.

This module knows only the structures, not pqkit's types. Python code
(:mod:`pqkit.columnar.arrow_export`) describes what to export as nested
tuples, and gets the same kind of tuples back from an import:

* schema node: ``(format, name, metadata, flags, children, dictionary)``, with
  ``format``/``name`` bytes on export, str on import, and ``metadata`` the
  spec's binary key/value encoding (bytes) or None;
* array node: ``(length, null_count, offset, buffers, children, dictionary)``.
  On export ``buffers`` are objects with the buffer protocol (or None for a
  NULL pointer); on import they are addresses (int, 0 for NULL), read through
  :func:`foreign_buffer`, which keeps the imported array alive.

Lifetime on export: every array node gets its own holder object in
``private_data`` with the Py_buffer views of its buffers, so a consumer that
moves a child out and releases it separately frees that child's references
only; the release callback takes the GIL (consumers such as DuckDB call it
from their own threads) and drops the holder. For the schema ``{"a": [1, 2]}``
as a struct of one int64 field::

    ArrowSchema  format "+s", 1 child -> format "l", name "a", flags NULLABLE
    ArrowArray   length 2, buffers [NULL], 1 child -> length 2, buffers [NULL, values]
"""
cimport cython
from cpython.buffer cimport PyBUF_ANY_CONTIGUOUS, PyBuffer_FillInfo, PyBuffer_Release, PyObject_GetBuffer
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid, PyCapsule_New
from cpython.ref cimport Py_DECREF, Py_INCREF, PyObject
from libc.errno cimport EINVAL, EIO, ENOMEM
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset, strlen

import numpy as np

from pqkit.errors import AllocationLimitError, ParquetError, SchemaError

# Deeper nesting than this is refused on import (and never produced on export).
cdef int MAX_DEPTH = 64
# A producer's metadata holding more pairs or longer strings than this is refused.
cdef int64_t MAX_METADATA_ITEMS = 1 << 20
cdef int64_t MAX_METADATA_STRING = 1 << 30
# Buffers or children per array node beyond this are refused (a view array of
# many variadic buffers is the largest honest case).
cdef int64_t MAX_NODE_ENTRIES = 1 << 20

cdef char _EMPTY_BYTE = 0


# ------------------------------------------------------------------ export: holders

cdef class _Holder:
    """The Python references of one exported array node (freed by its release callback)."""

    def __cinit__(self, Py_ssize_t capacity, object keep):
        # views[:n_views] are the buffers acquired so far, each released exactly once.
        self.views = <Py_buffer*>calloc(capacity if capacity > 0 else 1, sizeof(Py_buffer))
        if self.views == NULL:
            raise MemoryError()
        self.n_views = 0
        self.keep = keep

    cdef int hold(self, object buf, const void** slot) except -1:
        PyObject_GetBuffer(buf, &self.views[self.n_views], PyBUF_ANY_CONTIGUOUS)
        self.n_views += 1
        cdef const void* p = self.views[self.n_views - 1].buf
        slot[0] = p if p != NULL else <const void*>&_EMPTY_BYTE
        return 0

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.views != NULL:
            for i in range(self.n_views):
                PyBuffer_Release(&self.views[i])
            free(self.views)


cdef char* _copy_cstring(bytes value) except NULL:
    # NUL-terminated copy; metadata is binary, so the length comes from `value`.
    cdef Py_ssize_t n = len(value)
    cdef char* out = <char*>malloc(n + 1)
    if out == NULL:
        raise MemoryError()
    memcpy(out, <const char*>value, n)
    out[n] = 0
    return out


# ------------------------------------------------------------------ export: schemas

cdef void _release_schema(ArrowSchema* s) noexcept nogil:
    cdef int64_t i
    cdef ArrowSchema* c
    if s.children != NULL:
        for i in range(s.n_children):
            c = s.children[i]
            if c != NULL:
                if c.release != NULL:
                    c.release(c)
                free(c)
        free(s.children)
    if s.dictionary != NULL:
        if s.dictionary.release != NULL:
            s.dictionary.release(s.dictionary)
        free(s.dictionary)
    free(<void*>s.format)
    free(<void*>s.name)
    free(<void*>s.metadata)
    s.release = NULL


cdef int _fill_schema(ArrowSchema* out, object node, int depth) except -1:
    # On failure `out` stays releasable: release is set before anything is allocated.
    if depth > MAX_DEPTH:
        raise SchemaError(f"Arrow export: type nesting deeper than {MAX_DEPTH} levels")
    fmt, name, metadata, flags, children, dictionary = node
    memset(out, 0, sizeof(ArrowSchema))
    out.release = _release_schema
    out.format = _copy_cstring(fmt)
    out.name = _copy_cstring(name)
    if metadata is not None:
        out.metadata = _copy_cstring(metadata)
    out.flags = flags
    cdef Py_ssize_t i, n = len(children)
    if n:
        out.children = <ArrowSchema**>calloc(n, sizeof(ArrowSchema*))
        if out.children == NULL:
            raise MemoryError()
        out.n_children = n
        for i in range(n):
            out.children[i] = <ArrowSchema*>calloc(1, sizeof(ArrowSchema))
            if out.children[i] == NULL:
                raise MemoryError()
            _fill_schema(out.children[i], children[i], depth + 1)
    if dictionary is not None:
        out.dictionary = <ArrowSchema*>calloc(1, sizeof(ArrowSchema))
        if out.dictionary == NULL:
            raise MemoryError()
        _fill_schema(out.dictionary, dictionary, depth + 1)
    return 0


cdef void _free_schema_capsule(object capsule) noexcept:
    cdef ArrowSchema* s = <ArrowSchema*>PyCapsule_GetPointer(capsule, b"arrow_schema")
    if s == NULL:
        return
    if s.release != NULL:
        s.release(s)
    free(s)


def export_schema(node):
    """An ``arrow_schema`` capsule for a schema node (see the module docstring)."""
    cdef ArrowSchema* s = <ArrowSchema*>calloc(1, sizeof(ArrowSchema))
    if s == NULL:
        raise MemoryError()
    try:
        _fill_schema(s, node, 0)
    except BaseException:
        if s.release != NULL:
            s.release(s)
        free(s)
        raise
    return PyCapsule_New(s, b"arrow_schema", _free_schema_capsule)


# ------------------------------------------------------------------ export: arrays

cdef void _release_array(ArrowArray* a) noexcept with gil:
    cdef int64_t i
    cdef ArrowArray* c
    if a.children != NULL:
        for i in range(a.n_children):
            c = a.children[i]
            if c != NULL:
                if c.release != NULL:
                    c.release(c)
                free(c)
        free(a.children)
    if a.dictionary != NULL:
        if a.dictionary.release != NULL:
            a.dictionary.release(a.dictionary)
        free(a.dictionary)
    free(a.buffers)
    if a.private_data != NULL:
        Py_DECREF(<object>a.private_data)
    a.private_data = NULL
    a.release = NULL


cdef int _fill_array(ArrowArray* out, object node, int depth) except -1:
    if depth > MAX_DEPTH:
        raise SchemaError(f"Arrow export: nesting deeper than {MAX_DEPTH} levels")
    length, null_count, offset, buffers, children, dictionary = node
    memset(out, 0, sizeof(ArrowArray))
    out.release = _release_array
    cdef Py_ssize_t i, nb = len(buffers), nc = len(children)
    cdef _Holder holder = _Holder(nb, node)
    Py_INCREF(holder)
    out.private_data = <void*>holder
    out.length = length
    out.null_count = null_count
    out.offset = offset
    if nb:
        out.buffers = <const void**>calloc(nb, sizeof(void*))
        if out.buffers == NULL:
            raise MemoryError()
        out.n_buffers = nb
        for i in range(nb):
            if buffers[i] is not None:
                holder.hold(buffers[i], &out.buffers[i])
    if nc:
        out.children = <ArrowArray**>calloc(nc, sizeof(ArrowArray*))
        if out.children == NULL:
            raise MemoryError()
        out.n_children = nc
        for i in range(nc):
            out.children[i] = <ArrowArray*>calloc(1, sizeof(ArrowArray))
            if out.children[i] == NULL:
                raise MemoryError()
            _fill_array(out.children[i], children[i], depth + 1)
    if dictionary is not None:
        out.dictionary = <ArrowArray*>calloc(1, sizeof(ArrowArray))
        if out.dictionary == NULL:
            raise MemoryError()
        _fill_array(out.dictionary, dictionary, depth + 1)
    return 0


cdef void _free_array_capsule(object capsule) noexcept:
    cdef ArrowArray* a = <ArrowArray*>PyCapsule_GetPointer(capsule, b"arrow_array")
    if a == NULL:
        return
    if a.release != NULL:
        a.release(a)
    free(a)


def export_array(node):
    """An ``arrow_array`` capsule for an array node (see the module docstring)."""
    cdef ArrowArray* a = <ArrowArray*>calloc(1, sizeof(ArrowArray))
    if a == NULL:
        raise MemoryError()
    try:
        _fill_array(a, node, 0)
    except BaseException:
        if a.release != NULL:
            a.release(a)
        free(a)
        raise
    return PyCapsule_New(a, b"arrow_array", _free_array_capsule)


# ------------------------------------------------------------------ export: streams

cdef class _StreamState:
    def __cinit__(self, schema_node, batches):
        self.schema_node = schema_node
        self.batches = iter(batches)
        self.last_error = None
        self.last_exception = None


cdef int _fail(_StreamState state, BaseException exc) noexcept:
    """Keep ``exc`` for get_last_error and return the errno that tells consumers its
    kind: EINVAL for bad data (a ParquetError: pyarrow raises ArrowInvalid with the
    message), ENOMEM for a memory limit, EIO for anything else."""
    state.last_exception = exc
    try:
        state.last_error = f"{type(exc).__name__}: {exc}".encode("utf-8", "replace")
    except BaseException:
        state.last_error = b"pqkit: error while producing an Arrow stream"
    if isinstance(exc, (MemoryError, AllocationLimitError)):
        return ENOMEM
    return EINVAL if isinstance(exc, ParquetError) else EIO


cdef int _stream_get_schema(ArrowArrayStream* st, ArrowSchema* out) noexcept with gil:
    cdef _StreamState state = <_StreamState>st.private_data
    try:
        _fill_schema(out, state.schema_node, 0)
    except BaseException as exc:
        if out.release != NULL:
            out.release(out)
        return _fail(state, exc)
    return 0


cdef int _stream_get_next(ArrowArrayStream* st, ArrowArray* out) noexcept with gil:
    cdef _StreamState state = <_StreamState>st.private_data
    memset(out, 0, sizeof(ArrowArray))
    try:
        node = next(state.batches, None)
        if node is None:
            return 0                        # release stays NULL: the end of the stream
        _fill_array(out, node, 0)
    except BaseException as exc:
        if out.release != NULL:
            out.release(out)
        return _fail(state, exc)
    return 0


cdef const char* _stream_last_error(ArrowArrayStream* st) noexcept with gil:
    cdef _StreamState state = <_StreamState>st.private_data
    if state.last_error is None:
        return NULL
    return <const char*>state.last_error


cdef void _stream_release(ArrowArrayStream* st) noexcept with gil:
    if st.private_data != NULL:
        Py_DECREF(<object>st.private_data)
    st.private_data = NULL
    st.release = NULL


cdef void _free_stream_capsule(object capsule) noexcept:
    cdef ArrowArrayStream* st = <ArrowArrayStream*>PyCapsule_GetPointer(
        capsule, b"arrow_array_stream")
    if st == NULL:
        return
    if st.release != NULL:
        st.release(st)
    free(st)


def export_stream(schema_node, batches):
    """An ``arrow_array_stream`` capsule: ``schema_node``, then one array per batch node.

    ``batches`` is iterated lazily, from whichever thread calls ``get_next``.
    """
    cdef ArrowArrayStream* st = <ArrowArrayStream*>calloc(1, sizeof(ArrowArrayStream))
    if st == NULL:
        raise MemoryError()
    state = _StreamState(schema_node, batches)
    Py_INCREF(state)
    st.private_data = <void*>state
    st.get_schema = _stream_get_schema
    st.get_next = _stream_get_next
    st.get_last_error = _stream_last_error
    st.release = _stream_release
    return PyCapsule_New(st, b"arrow_array_stream", _free_stream_capsule)


# ------------------------------------------------------------------ import: schemas

cdef void* _capsule_pointer(object capsule, const char* name) except NULL:
    if not PyCapsule_IsValid(capsule, name):
        raise SchemaError(f"expected a PyCapsule named {name.decode()!r}, got {capsule!r}")
    return PyCapsule_GetPointer(capsule, name)


cdef object _metadata_bytes(const char* md):
    # Layout: int32 count, then per pair int32 length + key bytes, int32 length + value bytes.
    if md == NULL:
        return None
    cdef int32_t count, size
    cdef int64_t pos = 4, i, k
    memcpy(&count, md, 4)
    if count < 0 or count > MAX_METADATA_ITEMS:
        raise SchemaError(f"Arrow schema metadata declares {count} entries")
    for i in range(count):
        for k in range(2):
            memcpy(&size, md + pos, 4)
            if size < 0 or size > MAX_METADATA_STRING:
                raise SchemaError(f"Arrow schema metadata string of {size} bytes")
            pos += 4 + size
    return (<const char*>md)[:pos]


cdef object _schema_node(const ArrowSchema* s, int depth):
    if depth > MAX_DEPTH:
        raise SchemaError(f"Arrow schema nests deeper than {MAX_DEPTH} levels")
    if s.release == NULL:
        raise SchemaError("Arrow schema was already released")
    if s.format == NULL:
        raise SchemaError("Arrow schema has no format string")
    if s.n_children < 0 or s.n_children > MAX_NODE_ENTRIES or \
            (s.n_children > 0 and s.children == NULL):
        raise SchemaError(f"Arrow schema declares {s.n_children} children")
    cdef int64_t i
    children = []
    for i in range(s.n_children):
        if s.children[i] == NULL:
            raise SchemaError(f"Arrow schema child {i} is NULL")
        children.append(_schema_node(s.children[i], depth + 1))
    dictionary = None if s.dictionary == NULL else _schema_node(s.dictionary, depth + 1)
    name = "" if s.name == NULL else (<bytes>s.name).decode("utf-8", "replace")
    return ((<bytes>s.format).decode("utf-8", "replace"), name,
            _metadata_bytes(s.metadata), s.flags, tuple(children), dictionary)


def schema_from_capsule(capsule):
    """The schema node of an ``arrow_schema`` capsule (the capsule keeps ownership)."""
    return _schema_node(<ArrowSchema*>_capsule_pointer(capsule, b"arrow_schema"), 0)


# ------------------------------------------------------------------ import: arrays

cdef class ImportedArray:
    """An ArrowArray moved out of a capsule or stream; released when this object is dropped."""

    def __dealloc__(self):
        if self.array.release != NULL:
            self.array.release(&self.array)

    def node(self):
        """The array node: lengths, buffer addresses, children, dictionary."""
        return _array_node(&self.array, 0)


cdef object _array_node(const ArrowArray* a, int depth):
    if depth > MAX_DEPTH:
        raise SchemaError(f"Arrow array nests deeper than {MAX_DEPTH} levels")
    if a.length < 0 or a.offset < 0:
        raise SchemaError(f"Arrow array has length {a.length} and offset {a.offset}")
    if a.n_buffers < 0 or a.n_buffers > MAX_NODE_ENTRIES or \
            (a.n_buffers > 0 and a.buffers == NULL):
        raise SchemaError(f"Arrow array declares {a.n_buffers} buffers")
    if a.n_children < 0 or a.n_children > MAX_NODE_ENTRIES or \
            (a.n_children > 0 and a.children == NULL):
        raise SchemaError(f"Arrow array declares {a.n_children} children")
    cdef int64_t i
    buffers = tuple(<size_t>a.buffers[i] for i in range(a.n_buffers))
    children = []
    for i in range(a.n_children):
        if a.children[i] == NULL:
            raise SchemaError(f"Arrow array child {i} is NULL")
        children.append(_array_node(a.children[i], depth + 1))
    dictionary = None if a.dictionary == NULL else _array_node(a.dictionary, depth + 1)
    return (a.length, a.null_count, a.offset, buffers, tuple(children), dictionary)


def array_from_capsule(capsule):
    """Move the ArrowArray out of an ``arrow_array`` capsule into an :class:`ImportedArray`."""
    cdef ArrowArray* src = <ArrowArray*>_capsule_pointer(capsule, b"arrow_array")
    if src.release == NULL:
        raise SchemaError("Arrow array capsule was already consumed")
    out = ImportedArray()
    memcpy(&out.array, src, sizeof(ArrowArray))
    src.release = NULL
    return out


cdef class _ForeignBuffer:
    """``size`` bytes at an imported address, readable through the buffer protocol; holds
    the array (and so its memory) alive as long as a numpy view of it exists."""

    cdef object owner
    cdef const void* ptr
    cdef Py_ssize_t size

    def __getbuffer__(self, Py_buffer* view, int flags):
        PyBuffer_FillInfo(view, self, <void*>self.ptr, self.size, 1, flags)

    def __releasebuffer__(self, Py_buffer* view):
        pass


def foreign_buffer(owner, size_t address, Py_ssize_t size):
    """A read-only buffer of ``size`` bytes at ``address`` that keeps ``owner`` alive."""
    if size < 0:
        raise SchemaError(f"Arrow buffer of negative size {size}")
    if address == 0 and size > 0:
        raise SchemaError(f"Arrow buffer of {size} bytes has a NULL pointer")
    cdef _ForeignBuffer out = _ForeignBuffer.__new__(_ForeignBuffer)
    out.owner = owner
    out.ptr = <const void*>address if address else <const void*>&_EMPTY_BYTE
    out.size = size
    return out


# ------------------------------------------------------------------ import: streams

cdef class StreamReader:
    """Consumer side of an ``arrow_array_stream`` capsule (the capsule keeps ownership)."""

    cdef object capsule
    cdef ArrowArrayStream* stream

    def __cinit__(self, capsule):
        self.stream = <ArrowArrayStream*>_capsule_pointer(capsule, b"arrow_array_stream")
        if self.stream.release == NULL:
            raise SchemaError("Arrow stream capsule was already released")
        self.capsule = capsule

    cdef _error(self, int code, what):
        if self.stream.get_next == _stream_get_next:     # pqkit's own producer
            own = (<_StreamState>self.stream.private_data).last_exception
            if isinstance(own, ParquetError):
                raise own
        cdef const char* msg = self.stream.get_last_error(self.stream)
        detail = (<bytes>msg).decode("utf-8", "replace") if msg != NULL else f"errno {code}"
        raise SchemaError(f"Arrow stream producer failed in {what}: {detail}")

    def schema(self):
        """The stream's schema node."""
        cdef ArrowSchema s
        memset(&s, 0, sizeof(ArrowSchema))
        cdef int code = self.stream.get_schema(self.stream, &s)
        if code != 0:
            self._error(code, "get_schema")
        try:
            return _schema_node(&s, 0)
        finally:
            if s.release != NULL:
                s.release(&s)

    def next_array(self):
        """The next :class:`ImportedArray`, or None at the end of the stream."""
        out = ImportedArray()
        cdef int code = self.stream.get_next(self.stream, &out.array)
        if code != 0:
            self._error(code, "get_next")
        if out.array.release == NULL:
            return None
        return out


# ------------------------------------------------------------------ binary views

@cython.boundscheck(False)
@cython.wraparound(False)
def views_to_binary(size_t views_address, int64_t start, int64_t n, addresses, sizes):
    """Offsets (int64) and data (uint8) for rows ``start:start + n`` of a binary view array.

    A view is 16 bytes: int32 length, then the value itself when it is at most 12
    bytes, else a 4-byte prefix, int32 buffer index and int32 offset into that
    variadic buffer. Every out-of-line view is checked against its buffer's size.
    """
    cdef Py_ssize_t nbuf = len(addresses), i
    if len(sizes) != nbuf:
        raise SchemaError("binary view array: buffer sizes do not match the buffers")
    cdef const uint8_t** bufs = <const uint8_t**>malloc((nbuf + 1) * sizeof(uint8_t*))
    cdef int64_t* lens = <int64_t*>malloc((nbuf + 1) * sizeof(int64_t))
    if bufs == NULL or lens == NULL:
        free(bufs)
        free(lens)
        raise MemoryError()
    cdef const uint8_t* views = <const uint8_t*>views_address
    cdef const uint8_t* v
    cdef int32_t length, index, offset
    cdef int64_t total = 0, row
    offsets = np.empty(n + 1, np.int64)
    cdef int64_t[::1] o = offsets
    cdef uint8_t[::1] d
    try:
        for i in range(nbuf):
            bufs[i] = <const uint8_t*><size_t>addresses[i]
            lens[i] = sizes[i]
            if lens[i] < 0 or (lens[i] > 0 and bufs[i] == NULL):
                raise SchemaError(f"binary view array: variadic buffer {i} of {lens[i]} bytes "
                                  f"is invalid")
        o[0] = 0
        for row in range(n):
            v = views + (start + row) * 16
            memcpy(&length, v, 4)
            if length < 0:
                raise SchemaError(f"binary view at row {row} has length {length}")
            if length > 12:
                memcpy(&index, v + 8, 4)
                memcpy(&offset, v + 12, 4)
                if index < 0 or index >= nbuf or offset < 0 or \
                        <int64_t>offset + length > lens[index]:
                    raise SchemaError(f"binary view at row {row} points to bytes "
                                      f"{offset}..{<int64_t>offset + length} of buffer "
                                      f"{index}, outside the {nbuf} buffers given")
            total += length
            o[row + 1] = total
        data = np.empty(total, np.uint8)
        d = data
        if total:
            _gather_views(views + start * 16, n, bufs, &d[0])
    finally:
        free(bufs)
        free(lens)
    return offsets, data


@cython.boundscheck(False)
@cython.wraparound(False)
cdef void _gather_views(const uint8_t* views, int64_t n, const uint8_t** bufs,
                        uint8_t* out) noexcept nogil:
    # Safety: views_to_binary checked every view's index and range before calling,
    # and sized `out` as the sum of their lengths.
    cdef int64_t row, pos = 0
    cdef int32_t length, index, offset
    cdef const uint8_t* v
    for row in range(n):
        v = views + row * 16
        memcpy(&length, v, 4)
        if length <= 12:
            memcpy(out + pos, v + 4, length)
        else:
            memcpy(&index, v + 8, 4)
            memcpy(&offset, v + 12, 4)
            memcpy(out + pos, bufs[index] + offset, length)
        pos += length
