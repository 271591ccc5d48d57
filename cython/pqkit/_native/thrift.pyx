# cython: language_level=3
"""Thrift compact protocol: the primitives under the generated struct codecs.

Grammar (all integers little-endian or ULEB128 varints):

    struct  := field* STOP(0x00)
    field   := header value
    header  := (delta << 4 | type)            if 1 <= delta <= 15
             | type, zigzag-varint(i16 id)    otherwise ("long form")
    bool    := no payload; type 1 = true, 2 = false
    i8      := one byte; i16/i32/i64 := zigzag varint; double := 8 bytes LE
    binary  := varint length, bytes
    uuid    := 16 bytes
    list    := (size << 4 | elem_type)        if size < 15
             | (0xF0 | elem_type), varint size
    map     := varint size, [key_type << 4 | value_type if size > 0]

Example: a struct {1: i32 = 3, 2: string = "a"} is 15 06 18 01 61 00.

Every container size is checked against the bytes left before anything is
allocated (each element takes at least one byte), and nesting is capped, so
hostile input can neither allocate more than its own size nor recurse without
bound. On top of that the cursor carries configurable limits (set by
``pqkit.format.decode`` from ``pqkit.ReadOptions``): a string or binary longer
than ``max_binary``, a container of more than ``max_container`` elements or
nesting deeper than ``max_depth`` raises AllocationLimitError, even where the
bytes would hold it.

Where Apache Thrift's C++ TCompactProtocol (the reader behind pyarrow) accepts
bytes that the grammar above does not produce, and a writer in use emits them,
we accept them too; each such place carries a comment naming the writer. What
the C++ reader accepts only by truncating (a size or i32 varint wider than 32
bits, a field id outside i16) stays an error here.
"""
cimport cython
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.mem cimport PyMem_Realloc, PyMem_Free
from cpython.unicode cimport PyUnicode_DecodeUTF8
from libc.string cimport memcpy

from pqkit._native.buffer cimport Cursor, cursor_fail

from pqkit.errors import AllocationLimitError, ThriftDecodeError


cdef int thrift_fail(const Cursor* c, str message) except -1:
    cursor_fail(c, ThriftDecodeError, message)


cdef int limit_fail(const Cursor* c, Py_ssize_t value, str what, str option,
                    Py_ssize_t limit) except -1:
    cursor_fail(c, AllocationLimitError,
                f"{value} {what} exceed ReadOptions.{option} = {limit} (read with "
                f"pqkit.ReadOptions({option}=...) to allow more)")


cdef int check_depth(Cursor* c, int depth) except -1:
    if depth > c.max_depth:
        limit_fail(c, depth, "levels of nested thrift structures", "max_thrift_depth",
                   c.max_depth)
    return 0


cdef int check_container(Cursor* c, uint64_t n, str kind) except -1:
    # Every element needs at least one byte, which bounds the allocation.
    if n > <uint64_t>(c.size - c.pos):
        thrift_fail(c, f"{kind} claims {n} elements but only {c.size - c.pos} bytes remain")
    if n > <uint64_t>c.max_container:
        limit_fail(c, <Py_ssize_t>n, "thrift container elements",
                   "max_thrift_container_size", c.max_container)
    return 0


cdef int read_list_header(Cursor* c, uint8_t* etype, Py_ssize_t* size) except -1:
    cdef uint8_t b
    cdef uint64_t n
    t_byte(c, &b)
    etype[0] = b & 0x0F
    n = b >> 4
    if n == 15:
        t_uvarint(c, &n)
    # An empty list's element type is never used. fastparquet (2026.9) writes an
    # empty list as the single byte 0x00, element type 0; the C++ and Python
    # thrift readers take 0 (their STOP type) as an element type, so an empty
    # list with type 0 is accepted. Types 14 and 15 stay refused, as there.
    if not valid_type(etype[0]) and not (n == 0 and etype[0] == CT_STOP):
        thrift_fail(c, f"invalid compact element type id {etype[0]} in list header")
    check_container(c, n, "list")
    size[0] = <Py_ssize_t>n
    return 0


cdef object read_string(Cursor* c):
    # surrogateescape keeps invalid UTF-8 (seen in the wild in key/value
    # metadata) so that re-encoding reproduces the original bytes.
    cdef Py_ssize_t n
    read_len(c, &n)
    c.pos += n
    return PyUnicode_DecodeUTF8(<const char*>(c.data + c.pos - n), n, "surrogateescape")


cdef object read_string_list(Cursor* c, int depth):
    """A list<string>; None (and skipped) when its elements are not binary."""
    cdef uint8_t etype
    cdef Py_ssize_t size, i
    read_list_header(c, &etype, &size)
    if size and etype != CT_BINARY:
        skip_list_elements(c, etype, size, depth)
        return None
    out = [None] * size
    for i in range(size):
        out[i] = read_string(c)
    return out


cdef int skip_list_elements(Cursor* c, uint8_t etype, Py_ssize_t size, int depth) except -1:
    cdef Py_ssize_t i
    cdef uint8_t b
    for i in range(size):
        if etype == CT_BOOL_TRUE or etype == CT_BOOL_FALSE:
            t_byte(c, &b)
        else:
            skip_value(c, etype, depth)
    return 0


cdef int skip_value(Cursor* c, uint8_t ctype, int depth) except -1:
    cdef uint64_t u
    cdef int64_t v
    cdef uint8_t b, kt, vt
    cdef int16_t fid = 0
    cdef Py_ssize_t n
    check_depth(c, depth)
    if ctype == CT_BOOL_TRUE or ctype == CT_BOOL_FALSE:
        return 0                       # value lives in the header nibble
    elif ctype == CT_BYTE:
        t_byte(c, &b)
    elif ctype == CT_I16 or ctype == CT_I32 or ctype == CT_I64:
        t_uvarint(c, &u)
    elif ctype == CT_DOUBLE:
        if c.size - c.pos < 8:
            thrift_fail(c, "truncated double")
        c.pos += 8
    elif ctype == CT_BINARY:
        read_len(c, &n)
        c.pos += n
    elif ctype == CT_UUID:
        if c.size - c.pos < UUID_SIZE:
            thrift_fail(c, "truncated uuid")
        c.pos += UUID_SIZE
    elif ctype == CT_LIST or ctype == CT_SET:
        read_list_header(c, &b, &n)
        skip_list_elements(c, b, n, depth + 1)
    elif ctype == CT_MAP:
        t_uvarint(c, &u)
        check_container(c, u, "map")
        if u:
            t_byte(c, &b)
            kt = b >> 4
            vt = b & 0x0F
            if not valid_type(kt) or not valid_type(vt):
                thrift_fail(c, f"invalid compact map types {kt}/{vt}")
            for _ in range(<Py_ssize_t>u):
                skip_list_elements(c, kt, 1, depth + 1)
                skip_list_elements(c, vt, 1, depth + 1)
    elif ctype == CT_STRUCT:
        while True:
            read_field_header(c, &fid, &b)
            if b == CT_STOP:
                break
            skip_value(c, b, depth + 1)
    else:
        thrift_fail(c, f"invalid compact type id {ctype}")
    return 0


cdef inline bint is_varint_type(uint8_t t) noexcept nogil:
    return t == CT_I16 or t == CT_I32 or t == CT_I64


cdef object read_list_of(Cursor* c, uint8_t want, int depth):
    """A list of scalars of compact type `want`; None (and skipped) on a type mismatch."""
    cdef uint8_t etype, b
    cdef Py_ssize_t size, i
    cdef list out
    read_list_header(c, &etype, &size)
    if size == 0:
        return []
    if want == CT_BOOL_TRUE:
        if etype != CT_BOOL_TRUE and etype != CT_BOOL_FALSE:
            skip_list_elements(c, etype, size, depth + 1)
            return None
        out = [None] * size
        for i in range(size):
            t_byte(c, &b)
            out[i] = (b == 1)
        return out
    if etype != want and not (is_varint_type(etype) and is_varint_type(want)):
        skip_list_elements(c, etype, size, depth + 1)
        return None
    # i16/i32/i64 share the zigzag-varint wire form; a writer that declared the
    # wrong width still decodes (as the thrift library does), range-checked.
    out = [None] * size
    for i in range(size):
        if want == CT_I32:
            out[i] = read_i32(c)
        elif want == CT_I64:
            out[i] = read_i64(c)
        elif want == CT_BINARY:
            out[i] = read_binary(c)
        elif want == CT_I16:
            out[i] = read_i16(c)
        elif want == CT_BYTE:
            out[i] = read_i8(c)
        elif want == CT_DOUBLE:
            out[i] = read_double(c)
        else:
            thrift_fail(c, f"unsupported list element type {want}")
    return out


cdef object read_struct_list(Cursor* c, struct_reader reader, int depth):
    cdef uint8_t etype
    cdef Py_ssize_t size, i
    cdef list out
    read_list_header(c, &etype, &size)
    if size and etype != CT_STRUCT:
        skip_list_elements(c, etype, size, depth + 1)
        return None
    out = [None] * size
    for i in range(size):
        out[i] = reader(c, depth + 1)
    return out


@cython.final
cdef class CompactWriter:
    """A growable output buffer with compact-protocol writers."""

    def __cinit__(self):
        self.buf = NULL
        self.size = 0
        self.capacity = 0

    def __dealloc__(self):
        PyMem_Free(self.buf)

    cdef int reserve(self, Py_ssize_t extra) except -1:
        cdef Py_ssize_t cap
        cdef char* nb
        if self.size + extra <= self.capacity:
            return 0
        cap = max(256, self.capacity * 2, self.size + extra)
        nb = <char*>PyMem_Realloc(self.buf, cap)
        if nb == NULL:
            raise MemoryError()
        self.buf = nb
        self.capacity = cap
        return 0

    cdef int write_byte(self, uint8_t b) except -1:
        if self.size >= self.capacity:
            self.reserve(1)
        self.buf[self.size] = <char>b
        self.size += 1
        return 0

    cdef int write_uvarint(self, uint64_t v) except -1:
        self.reserve(10)
        while v >= 0x80:
            self.buf[self.size] = <char>((v & 0x7F) | 0x80)
            self.size += 1
            v >>= 7
        self.buf[self.size] = <char>v
        self.size += 1
        return 0

    cdef int write_zigzag(self, int64_t v) except -1:
        return self.write_uvarint((<uint64_t>v << 1) ^ <uint64_t>(v >> 63))

    cdef int16_t field(self, int16_t last, int16_t fid, uint8_t ctype) except? -32768:
        """Write a field header and return fid (the new 'last id')."""
        cdef int delta = fid - last
        if 0 < delta <= 15:
            self.write_byte(<uint8_t>((delta << 4) | ctype))
        else:
            self.write_byte(ctype)
            self.write_zigzag(fid)
        return fid

    cdef int write_i8(self, object v) except -1:
        cdef int8_t x = v
        return self.write_byte(<uint8_t>x)

    cdef int write_i16(self, object v) except -1:
        cdef int16_t x = v
        return self.write_zigzag(x)

    cdef int write_i32(self, object v) except -1:
        cdef int32_t x = v
        return self.write_zigzag(x)

    cdef int write_i64(self, object v) except -1:
        cdef int64_t x = v
        return self.write_zigzag(x)

    cdef int write_double(self, object v) except -1:
        cdef double d = v
        self.reserve(8)
        memcpy(self.buf + self.size, &d, 8)
        self.size += 8
        return 0

    cdef int write_binary(self, object v) except -1:
        cdef const unsigned char[::1] view = v
        cdef Py_ssize_t n = view.shape[0]
        self.write_uvarint(<uint64_t>n)
        self.reserve(n)
        if n:
            memcpy(self.buf + self.size, &view[0], n)
        self.size += n
        return 0

    cdef int write_string(self, object v) except -1:
        if isinstance(v, str):
            v = (<str>v).encode("utf-8", "surrogateescape")
        return self.write_binary(v)

    cdef int write_list_header(self, uint8_t etype, Py_ssize_t size) except -1:
        if size < 15:
            return self.write_byte(<uint8_t>((size << 4) | etype))
        self.write_byte(0xF0 | etype)
        return self.write_uvarint(<uint64_t>size)

    cdef int write_list_of(self, uint8_t etype, object values) except -1:
        """Write a list of scalars; etype CT_BOOL_TRUE means a list of bools."""
        self.write_list_header(etype, len(values))
        for v in values:
            if etype == CT_BOOL_TRUE:
                self.write_byte(1 if v else 2)
            elif etype == CT_I32:
                self.write_i32(v)
            elif etype == CT_I64:
                self.write_i64(v)
            elif etype == CT_BINARY:
                self.write_string(v)
            elif etype == CT_I16:
                self.write_i16(v)
            elif etype == CT_BYTE:
                self.write_i8(v)
            elif etype == CT_DOUBLE:
                self.write_double(v)
            else:
                raise TypeError(f"unsupported list element type {etype}")
        return 0

    cdef bytes getvalue(self):
        return PyBytes_FromStringAndSize(self.buf, self.size)


import sys as _sys
if _sys.byteorder != "little":
    raise ImportError("pqkit's compiled kernels assume a little-endian host")


@cython.final
cdef class LazyStructList:
    """A list of structs decoded on first access of each element.

    Decoding a footer validates the whole byte structure (every element is
    skipped field by field), but builds the Python objects of an element only
    when it is used. A wide file's footer then opens in the time of one pass
    over its bytes. The list keeps a reference to the buffer it reads from.
    """

    def __len__(self):
        return len(self.starts)

    cdef object item(self, Py_ssize_t i):
        cdef Cursor c
        obj = self.cache[i]
        if obj is None:
            c.data = self.base
            c.size = self.size
            c.origin = self.origin
            c.max_binary = self.max_binary
            c.max_container = self.max_container
            c.max_depth = self.max_depth
            c.pos = self.starts[i]
            obj = self.reader(&c, 1)
            self.cache[i] = obj
        return obj

    def __getitem__(self, index):
        cdef Py_ssize_t n = len(self.starts)
        if isinstance(index, slice):
            return [self.item(i) for i in range(*index.indices(n))]
        i = index
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("list index out of range")
        return self.item(i)

    def __iter__(self):
        for i in range(len(self.starts)):
            yield self.item(i)

    def __eq__(self, other):
        if isinstance(other, (list, tuple, LazyStructList)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return repr(list(self))

    def __reduce__(self):
        return (list, (list(self),))


cdef object read_lazy_struct_list(Cursor* c, struct_reader reader, int depth, object owner):
    cdef uint8_t etype
    cdef Py_ssize_t size, i
    cdef LazyStructList out
    if owner is None:
        return read_struct_list(c, reader, depth)
    read_list_header(c, &etype, &size)
    if size and etype != CT_STRUCT:
        skip_list_elements(c, etype, size, depth + 1)
        return None
    out = LazyStructList.__new__(LazyStructList)
    out.owner = owner
    out.base = c.data
    out.size = c.size
    out.origin = c.origin
    out.max_binary = c.max_binary
    out.max_container = c.max_container
    out.max_depth = c.max_depth
    out.reader = reader
    out.starts = [None] * size
    for i in range(size):
        out.starts[i] = c.pos
        skip_value(c, CT_STRUCT, depth + 1)
    out.cache = [None] * size
    return out
