"""The checks of footer metadata that reading depends on, made once where it is first used.

A decoded footer is only what the bytes said: a Thrift-required field may be
missing and a count or offset may be anything an i32/i64 holds. Readers rely on
the fields below, so they are checked here, before any of them is used, and a
failure names the field by its path in the footer and gives its value::

    row_groups[3].columns[7].meta_data.data_page_offset is missing

Two passes, so that opening a file stays as fast as decoding its footer:
:func:`check_file` runs on open (the FileMetaData fields and the schema
elements), :func:`check_row_group` when a reader first uses a row group
(its chunks' metadata; row groups are decoded lazily). Where a chunk's pages
lie, and whether that range fits before the footer, is
:mod:`pqkit.chunk_range`'s rule, applied when the chunk is read.

Inspection tools (``pqinspect``, ``verify``) read the raw metadata without
these checks, to report every problem rather than stop at the first.
"""
from pqkit.errors import CorruptFileError
from pqkit.format import Type

__all__ = ["check_file", "check_row_group"]

_FILE_REQUIRED = ("version", "schema", "num_rows", "row_groups")
# ColumnMetaData fields a reader uses (all Thrift-required).
_CHUNK_REQUIRED = ("codec", "num_values", "total_compressed_size", "data_page_offset")


def _bad(path, what, origin):
    return CorruptFileError(f"{path} {what} (footer at offset {origin})")


def check_file(raw, origin):
    """Check the FileMetaData fields and schema elements readers depend on.

    Parameters
    ----------
    raw : pqkit.format.FileMetaData
    origin : int
        File offset of the footer, named in errors.

    Raises
    ------
    CorruptFileError
        A required field is missing, a count is negative, or a FIXED_LEN_BYTE_ARRAY
        column has no positive width.
    """
    for name in _FILE_REQUIRED:
        if getattr(raw, name) is None:
            raise _bad(name, "is missing (a required field of FileMetaData)", origin)
    if not raw.schema:
        raise _bad("schema", "is empty", origin)
    if raw.num_rows < 0:
        raise _bad("num_rows", f"is {raw.num_rows}, a negative count", origin)
    for i, element in enumerate(raw.schema):
        if element.name is None:
            raise _bad(f"schema[{i}].name", "is missing", origin)
        if element.num_children is not None and element.num_children < 0:
            raise _bad(f"schema[{i}].num_children", f"is {element.num_children}", origin)
        if element.type == Type.FIXED_LEN_BYTE_ARRAY and (
                element.type_length is None or element.type_length <= 0):
            raise _bad(f"schema[{i}].type_length",
                       f"is {element.type_length}: column {element.name!r} is "
                       "FIXED_LEN_BYTE_ARRAY and needs a positive width", origin)


def check_row_group(rg, g, num_leaves, origin):
    """Check row group ``g``'s fields and its column chunks' metadata.

    Parameters
    ----------
    rg : pqkit.format.RowGroup
    g : int
        Its index, for the field paths in errors.
    num_leaves : int
        Leaf columns of the schema: the row group holds one chunk for each.
    origin : int
        File offset of the footer, named in errors.

    Raises
    ------
    CorruptFileError
        A required field is missing, a count is negative, the chunks do not match
        the schema's leaves.
    """
    at = f"row_groups[{g}]"
    if rg.columns is None:
        raise _bad(f"{at}.columns", "is missing (a required field of RowGroup)", origin)
    if len(rg.columns) != num_leaves:
        raise _bad(f"{at}.columns", f"holds {len(rg.columns)} column chunks, the schema "
                   f"has {num_leaves} leaf columns", origin)
    if rg.num_rows is None or rg.num_rows < 0:
        raise _bad(f"{at}.num_rows", f"is {rg.num_rows}", origin)
    for c, chunk in enumerate(rg.columns):
        if chunk.crypto_metadata is not None:
            continue            # an encrypted column: the reader refuses it by name
        meta = chunk.meta_data
        where = f"{at}.columns[{c}].meta_data"
        if meta is None:
            raise _bad(where, "is missing", origin)
        for name in _CHUNK_REQUIRED:
            value = getattr(meta, name)
            if value is None:
                raise _bad(f"{where}.{name}", "is missing (a required field of "
                           "ColumnMetaData)", origin)
            if value < 0:
                raise _bad(f"{where}.{name}", f"is {value}, a negative value", origin)
