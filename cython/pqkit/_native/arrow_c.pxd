# The Arrow C Data Interface and C Stream Interface structures (ABI-stable, as the
# Arrow specification defines them) and the module's fill/convert helpers.
from libc.stdint cimport int64_t, uint8_t
from cpython.buffer cimport Py_buffer

cdef extern from *:
    """
    #ifndef ARROW_C_DATA_INTERFACE
    #define ARROW_C_DATA_INTERFACE
    #define ARROW_FLAG_DICTIONARY_ORDERED 1
    #define ARROW_FLAG_NULLABLE 2
    #define ARROW_FLAG_MAP_KEYS_SORTED 4
    struct ArrowSchema {
      const char* format;
      const char* name;
      const char* metadata;
      int64_t flags;
      int64_t n_children;
      struct ArrowSchema** children;
      struct ArrowSchema* dictionary;
      void (*release)(struct ArrowSchema*);
      void* private_data;
    };
    struct ArrowArray {
      int64_t length;
      int64_t null_count;
      int64_t offset;
      int64_t n_buffers;
      int64_t n_children;
      const void** buffers;
      struct ArrowArray** children;
      struct ArrowArray* dictionary;
      void (*release)(struct ArrowArray*);
      void* private_data;
    };
    #endif
    #ifndef ARROW_C_STREAM_INTERFACE
    #define ARROW_C_STREAM_INTERFACE
    struct ArrowArrayStream {
      int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
      int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
      const char* (*get_last_error)(struct ArrowArrayStream*);
      void (*release)(struct ArrowArrayStream*);
      void* private_data;
    };
    #endif
    """
    struct ArrowSchema:
        const char* format
        const char* name
        const char* metadata
        int64_t flags
        int64_t n_children
        ArrowSchema** children
        ArrowSchema* dictionary
        void (*release)(ArrowSchema*) noexcept nogil
        void* private_data

    struct ArrowArray:
        int64_t length
        int64_t null_count
        int64_t offset
        int64_t n_buffers
        int64_t n_children
        const void** buffers
        ArrowArray** children
        ArrowArray* dictionary
        void (*release)(ArrowArray*) noexcept nogil
        void* private_data

    struct ArrowArrayStream:
        int (*get_schema)(ArrowArrayStream*, ArrowSchema*) noexcept nogil
        int (*get_next)(ArrowArrayStream*, ArrowArray*) noexcept nogil
        const char* (*get_last_error)(ArrowArrayStream*) noexcept nogil
        void (*release)(ArrowArrayStream*) noexcept nogil
        void* private_data


# Keeps the Python buffers of one exported array node alive until its release.
cdef class _Holder:
    cdef Py_buffer* views
    cdef Py_ssize_t n_views
    cdef object keep
    cdef int hold(self, object buf, const void** slot) except -1


# What a stream's private_data points to: the batches still to come and the last error
# (its message for any consumer, the exception itself for pqkit's own StreamReader).
cdef class _StreamState:
    cdef object schema_node
    cdef object batches
    cdef bytes last_error
    cdef object last_exception


# An imported ArrowArray moved out of its capsule or stream; released when dropped.
cdef class ImportedArray:
    cdef ArrowArray array


# Module-local helpers (declared for their exception specs; not for cimport).
cdef int _fill_schema(ArrowSchema* out, object node, int depth) except -1
cdef int _fill_array(ArrowArray* out, object node, int depth) except -1
cdef object _schema_node(const ArrowSchema* s, int depth)
cdef object _array_node(const ArrowArray* a, int depth)
cdef char* _copy_cstring(bytes value) except NULL
cdef int _fail(_StreamState state, BaseException exc) noexcept
cdef void* _capsule_pointer(object capsule, const char* name) except NULL
cdef object _metadata_bytes(const char* md)
cdef void _gather_views(const uint8_t* views, int64_t n, const uint8_t** bufs,
                        uint8_t* out) noexcept nogil
