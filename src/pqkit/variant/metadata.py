"""The Variant metadata: the dictionary of field names a variant's objects refer to.

Layout (parquet-format VariantEncoding.md), every integer unsigned little-endian
of ``offset_size`` bytes::

    header            1 byte: version (bits 0-3, must be 1), sorted_strings (bit 4),
                      offset_size - 1 (bits 6-7); bit 5 is reserved and ignored
    dictionary_size   number of names
    offsets           dictionary_size + 1 of them, relative to the name bytes;
                      the last one is the length of the name bytes
    name bytes        UTF-8 names, back to back

For example ``11 02 00 01 03 61 62 63`` is version 1, sorted, 1-byte offsets,
two names at offsets 0, 1, 3 of ``abc``: ``["a", "bc"]``.
"""
from pqkit.errors import VariantError

__all__ = ["VariantMetadata", "read_uint"]

SUPPORTED_VERSION = 1


def read_uint(buf, pos, width, end, what):
    """The unsigned little-endian integer of ``width`` bytes at ``pos``, which must end by
    ``end``."""
    if pos + width > end:
        raise VariantError(f"{what} at byte {pos} needs {width} bytes, only "
                           f"{max(0, end - pos)} remain")
    return int.from_bytes(buf[pos:pos + width], "little")


class VariantMetadata:
    """A parsed variant metadata dictionary.

    Parameters
    ----------
    data : bytes-like
        The metadata bytes; bytes after the dictionary are ignored (see ``nbytes``).

    Attributes
    ----------
    names : list of str
        The dictionary; a field id indexes it.
    sorted_strings : bool
        The writer's claim that ``names`` are unique and sorted.
    nbytes : int
        How many bytes of ``data`` the metadata occupies.
    """

    __slots__ = ("_ids", "names", "nbytes", "sorted_strings")

    def __init__(self, data):
        buf = memoryview(data).cast("B")
        end = len(buf)
        if end == 0:
            raise VariantError("variant metadata is empty: it needs at least a header byte")
        header = buf[0]
        version = header & 0x0F
        if version != SUPPORTED_VERSION:
            raise VariantError(f"variant metadata version {version} (header byte "
                               f"0x{header:02x}): only version {SUPPORTED_VERSION} is supported")
        self.sorted_strings = bool(header & 0x10)
        width = (header >> 6) + 1
        size = read_uint(buf, 1, width, end, "metadata dictionary_size")
        offsets_at = 1 + width
        names_at = offsets_at + (size + 1) * width
        if names_at > end:       # checked before anything of that size is built
            raise VariantError(f"metadata dictionary_size {size} needs {names_at} bytes of "
                               f"header and offsets, the metadata has {end}")
        names = []
        start = read_uint(buf, offsets_at, width, end, "metadata offset")
        if start != 0:
            raise VariantError(f"metadata offset 0 is {start}: the first name must start at 0")
        for i in range(size):
            stop = read_uint(buf, offsets_at + (i + 1) * width, width, end, "metadata offset")
            if stop < start or names_at + stop > end:
                raise VariantError(f"metadata offset {i + 1} is {stop}: names span only "
                                   f"{end - names_at} bytes and offsets cannot decrease "
                                   f"(previous {start})")
            try:
                names.append(str(buf[names_at + start:names_at + stop], "utf-8"))
            except UnicodeDecodeError as e:
                raise VariantError(f"metadata name {i} at byte {names_at + start} is not "
                                   f"UTF-8: {e.reason}") from None
            start = stop
        self.names = names
        self.nbytes = names_at + start
        self._ids = None

    def __len__(self):
        return len(self.names)

    def name(self, field_id, where):
        """The name of ``field_id``; ``where`` locates the id for the error message."""
        if field_id >= len(self.names):
            raise VariantError(f"field id {field_id} {where} is outside the metadata "
                               f"dictionary of {len(self.names)} names")
        return self.names[field_id]

    def field_id(self, name):
        """The first id of ``name`` in the dictionary, or None."""
        if self._ids is None:
            ids = {}
            for i, n in enumerate(self.names):
                ids.setdefault(n, i)
            self._ids = ids
        return self._ids.get(name)

    def __repr__(self):
        return f"VariantMetadata({self.names!r}, sorted_strings={self.sorted_strings})"
