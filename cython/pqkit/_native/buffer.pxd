# The one bounds-checked byte cursor every Cython reader goes through.
#
# A Cursor views bytes owned by a Python object that the caller keeps alive.
# Every read checks the bytes that remain first; a failure raises the given
# pqkit error class with the absolute file offset (origin + pos).
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int16_t, int32_t, int64_t
from libc.string cimport memcpy
from cpython.pyport cimport PY_SSIZE_T_MAX

cdef struct Cursor:
    const uint8_t* data
    Py_ssize_t pos
    Py_ssize_t size
    Py_ssize_t origin       # file offset of data[0], used in error messages
    # Limits of the Thrift decoder (pqkit.format.decode sets them from ReadOptions);
    # cursor_init sets no size limit and depth 0, which no other reader looks at.
    Py_ssize_t max_binary   # bytes of one string or binary
    Py_ssize_t max_container    # elements of one list, set or map
    int max_depth           # struct and container nesting

cdef int cursor_fail(const Cursor* c, object exc_class, str message) except -1

cdef inline void cursor_init(Cursor* c, const uint8_t* data, Py_ssize_t size,
                             Py_ssize_t origin) noexcept nogil:
    c.data = data
    c.pos = 0
    c.size = size
    c.origin = origin
    c.max_binary = PY_SSIZE_T_MAX
    c.max_container = PY_SSIZE_T_MAX
    c.max_depth = 0

cdef inline Py_ssize_t cursor_remaining(const Cursor* c) noexcept nogil:
    return c.size - c.pos

cdef inline int cursor_need(const Cursor* c, Py_ssize_t n, object exc_class) except -1:
    if n < 0 or n > c.size - c.pos:
        cursor_fail(c, exc_class, f"need {n} bytes but only {c.size - c.pos} remain")
    return 0

cdef inline int read_u8(Cursor* c, uint8_t* out, object exc_class) except -1:
    if c.pos >= c.size:
        cursor_fail(c, exc_class, "unexpected end of data")
    out[0] = c.data[c.pos]
    c.pos += 1
    return 0

cdef enum:
    VARINT_OK = 0
    VARINT_TRUNCATED = 1
    VARINT_OVERFLOW = 2
    VARINT_TOO_LONG = 3

cdef inline int decode_uvarint(Cursor* c, uint64_t* out) noexcept nogil:
    """ULEB128, at most 10 bytes and 64 significant bits: VARINT_OK, or an error code
    with the cursor left where the varint starts. The one varint decoder (the Thrift
    codec's readers call it too)."""
    cdef uint64_t result = 0
    cdef int shift = 0
    cdef uint8_t b
    cdef Py_ssize_t start = c.pos
    while True:
        if c.pos >= c.size:
            c.pos = start
            return VARINT_TRUNCATED
        b = c.data[c.pos]
        c.pos += 1
        if shift == 63 and (b & 0x7E):
            c.pos = start
            return VARINT_OVERFLOW
        result |= (<uint64_t>(b & 0x7F)) << shift
        if not (b & 0x80):
            out[0] = result
            return VARINT_OK
        shift += 7
        if shift > 63:
            c.pos = start
            return VARINT_TOO_LONG

cdef inline str varint_error(int code):
    if code == VARINT_TRUNCATED:
        return "truncated varint"
    if code == VARINT_OVERFLOW:
        return "varint overflows 64 bits"
    return "varint longer than 10 bytes"

cdef inline int read_uvarint(Cursor* c, uint64_t* out, object exc_class) except -1:
    cdef int code = decode_uvarint(c, out)
    if code != VARINT_OK:
        cursor_fail(c, exc_class, varint_error(code))
    return 0

cdef inline int read_zigzag(Cursor* c, int64_t* out, object exc_class) except -1:
    cdef uint64_t u
    read_uvarint(c, &u, exc_class)
    out[0] = <int64_t>((u >> 1) ^ (<uint64_t>0 - (u & 1)))
    return 0

cdef inline int read_bytes(Cursor* c, Py_ssize_t n, const uint8_t** out,
                           object exc_class) except -1:
    """Point *out at the next n bytes and advance past them."""
    cursor_need(c, n, exc_class)
    out[0] = c.data + c.pos
    c.pos += n
    return 0

cdef inline int read_le_u32(Cursor* c, uint32_t* out, object exc_class) except -1:
    cursor_need(c, 4, exc_class)
    out[0] = (<uint32_t>c.data[c.pos] | (<uint32_t>c.data[c.pos + 1] << 8) |
              (<uint32_t>c.data[c.pos + 2] << 16) | (<uint32_t>c.data[c.pos + 3] << 24))
    c.pos += 4
    return 0
