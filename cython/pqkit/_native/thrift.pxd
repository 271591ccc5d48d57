# Thrift compact protocol primitives shared by the generated struct codecs
# (cython/pqkit/format/_structs.pyx). Reading goes through the bounds-checked
# Cursor of buffer.pxd; writing appends to a growable CompactWriter buffer.
from cpython.bytes cimport PyBytes_FromStringAndSize
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint64_t
from libc.string cimport memcpy
from pqkit._native.buffer cimport Cursor, VARINT_OK, decode_uvarint, varint_error

cdef enum:
    CT_STOP = 0
    CT_BOOL_TRUE = 1
    CT_BOOL_FALSE = 2
    CT_BYTE = 3
    CT_I16 = 4
    CT_I32 = 5
    CT_I64 = 6
    CT_DOUBLE = 7
    CT_BINARY = 8
    CT_LIST = 9
    CT_SET = 10
    CT_MAP = 11
    CT_STRUCT = 12
    CT_UUID = 13
    UUID_SIZE = 16
    MAX_DEPTH = 64

ctypedef object (*struct_reader)(Cursor* c, int depth)

cdef int thrift_fail(const Cursor* c, str message) except -1
cdef int read_list_header(Cursor* c, uint8_t* etype, Py_ssize_t* size) except -1
cdef object read_string(Cursor* c)
cdef object read_string_list(Cursor* c, int depth)

# The hot scalar readers are inline so the generated struct codecs compile
# them in place; errors go through thrift_fail (defined in thrift.pyx).

cdef inline bint valid_type(uint8_t t) noexcept nogil:
    # 13 is UUID (16 raw bytes), added to the protocol in Thrift 0.19. Parquet
    # declares no UUID field, but Apache Thrift's C++ reader (pyarrow) and the
    # Python thrift package skip one in an unknown field; so do we. No Parquet
    # writer is known to emit it.
    return 1 <= t <= 13

cdef inline int t_byte(Cursor* c, uint8_t* out) except -1:
    if c.pos >= c.size:
        return thrift_fail(c, "unexpected end of data")
    out[0] = c.data[c.pos]
    c.pos += 1
    return 0

cdef inline int t_uvarint(Cursor* c, uint64_t* out) except -1:
    cdef int code = decode_uvarint(c, out)
    if code != VARINT_OK:
        return thrift_fail(c, varint_error(code))
    return 0

cdef inline int t_zigzag(Cursor* c, int64_t* out) except -1:
    cdef uint64_t u
    t_uvarint(c, &u)
    out[0] = <int64_t>((u >> 1) ^ (<uint64_t>0 - (u & 1)))
    return 0

cdef inline int read_field_header(Cursor* c, int16_t* fid, uint8_t* ctype) except -1:
    cdef uint8_t b
    cdef int64_t v
    t_byte(c, &b)
    ctype[0] = b & 0x0F
    if ctype[0] == CT_STOP:
        # A type nibble of 0 ends the struct whatever the delta nibble holds:
        # Apache Thrift's C++ and Python readers look at the low nibble only.
        # No writer is known to set the delta on a stop byte.
        return 0
    if not valid_type(ctype[0]):
        c.pos -= 1
        return thrift_fail(c, f"invalid compact type id {ctype[0]} in field header")
    if b >> 4:
        fid[0] = <int16_t>(fid[0] + (b >> 4))
    else:
        t_zigzag(c, &v)
        if v < -32768 or v > 32767:
            return thrift_fail(c, f"field id {v} does not fit in i16")
        fid[0] = <int16_t>v
    return 0

cdef inline object read_i8(Cursor* c):
    cdef uint8_t b
    t_byte(c, &b)
    return <int8_t>b

cdef inline object read_i16(Cursor* c):
    cdef int64_t v
    t_zigzag(c, &v)
    if v < -32768 or v > 32767:
        thrift_fail(c, f"i16 value {v} out of range")
    return <int16_t>v

cdef inline object read_i32(Cursor* c):
    cdef int64_t v
    t_zigzag(c, &v)
    if v < -2147483648 or v > 2147483647:
        thrift_fail(c, f"i32 value {v} out of range")
    return <int32_t>v

cdef inline object read_i64(Cursor* c):
    cdef int64_t v
    t_zigzag(c, &v)
    return v

cdef inline object read_double(Cursor* c):
    cdef double d
    if c.size - c.pos < 8:
        thrift_fail(c, "truncated double")
    memcpy(&d, c.data + c.pos, 8)   # little-endian hosts only (checked at import)
    c.pos += 8
    return d

cdef inline int read_len(Cursor* c, Py_ssize_t* n) except -1:
    cdef uint64_t u
    t_uvarint(c, &u)
    if u > <uint64_t>(c.size - c.pos):
        return thrift_fail(c, f"binary length {u} exceeds the {c.size - c.pos} bytes remaining")
    if u > <uint64_t>c.max_binary:
        return limit_fail(c, <Py_ssize_t>u, "bytes of a thrift string",
                          "max_thrift_string_size", c.max_binary)
    n[0] = <Py_ssize_t>u
    return 0

cdef inline object read_binary(Cursor* c):
    cdef Py_ssize_t n
    read_len(c, &n)
    c.pos += n
    return PyBytes_FromStringAndSize(<const char*>(c.data + c.pos - n), n)
cdef int skip_value(Cursor* c, uint8_t ctype, int depth) except -1
cdef int skip_list_elements(Cursor* c, uint8_t etype, Py_ssize_t size, int depth) except -1
cdef object read_list_of(Cursor* c, uint8_t want, int depth)
cdef object read_struct_list(Cursor* c, struct_reader reader, int depth)
cdef int check_depth(Cursor* c, int depth) except -1
cdef int limit_fail(const Cursor* c, Py_ssize_t value, str what, str option,
                    Py_ssize_t limit) except -1

cdef class CompactWriter:
    cdef char* buf
    cdef Py_ssize_t size
    cdef Py_ssize_t capacity
    cdef int reserve(self, Py_ssize_t extra) except -1
    cdef int write_byte(self, uint8_t b) except -1
    cdef int write_uvarint(self, uint64_t v) except -1
    cdef int write_zigzag(self, int64_t v) except -1
    cdef int16_t field(self, int16_t last, int16_t fid, uint8_t ctype) except? -32768
    cdef int write_i8(self, object v) except -1
    cdef int write_i16(self, object v) except -1
    cdef int write_i32(self, object v) except -1
    cdef int write_i64(self, object v) except -1
    cdef int write_double(self, object v) except -1
    cdef int write_binary(self, object v) except -1
    cdef int write_string(self, object v) except -1
    cdef int write_list_header(self, uint8_t etype, Py_ssize_t size) except -1
    cdef int write_list_of(self, uint8_t etype, object values) except -1
    cdef bytes getvalue(self)

cdef class LazyStructList:
    cdef object owner                 # keeps the buffer alive
    cdef const uint8_t* base
    cdef Py_ssize_t size
    cdef Py_ssize_t origin
    cdef Py_ssize_t max_binary        # the decode's limits, for elements decoded later
    cdef Py_ssize_t max_container
    cdef int max_depth
    cdef struct_reader reader
    cdef list starts                  # start offset of each element within base
    cdef list cache
    cdef object item(self, Py_ssize_t i)

cdef object read_lazy_struct_list(Cursor* c, struct_reader reader, int depth, object owner)
