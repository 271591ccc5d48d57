# Thrift compact protocol primitives shared by the generated struct codecs
# (src/pqkit/format/_structs.pyx). Reading goes through the bounds-checked
# Cursor of buffer.pxd; writing appends to a growable CompactWriter buffer.
from libc.stdint cimport uint8_t, int8_t, int16_t, int32_t, int64_t, uint64_t
from pqkit._native.buffer cimport Cursor

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
    MAX_DEPTH = 64

ctypedef object (*struct_reader)(Cursor* c, int depth)

cdef int thrift_fail(const Cursor* c, str message) except -1
cdef int read_field_header(Cursor* c, int16_t* fid, uint8_t* ctype) except -1
cdef int read_list_header(Cursor* c, uint8_t* etype, Py_ssize_t* size) except -1
cdef object read_i8(Cursor* c)
cdef object read_i16(Cursor* c)
cdef object read_i32(Cursor* c)
cdef object read_i64(Cursor* c)
cdef object read_double(Cursor* c)
cdef object read_binary(Cursor* c)
cdef object read_string(Cursor* c)
cdef int skip_value(Cursor* c, uint8_t ctype, int depth) except -1
cdef int skip_list_elements(Cursor* c, uint8_t etype, Py_ssize_t size, int depth) except -1
cdef object read_list_of(Cursor* c, uint8_t want, int depth)
cdef object read_struct_list(Cursor* c, struct_reader reader, int depth)
cdef int check_depth(Cursor* c, int depth) except -1

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
    cdef struct_reader reader
    cdef list starts                  # start offset of each element within base
    cdef list cache
    cdef object item(self, Py_ssize_t i)

cdef object read_lazy_struct_list(Cursor* c, struct_reader reader, int depth, object owner)
