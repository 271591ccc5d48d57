# cython: language_level=3
"""Error reporting for the byte cursor declared in buffer.pxd."""

cdef int cursor_fail(const Cursor* c, object exc_class, str message) except -1:
    raise exc_class(f"{message} at offset {c.origin + c.pos}")
