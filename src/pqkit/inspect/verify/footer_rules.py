"""File-level rules: magic, footer length and decoding, and what the footer says of itself.

The tail of a file is ``FileMetaData | footer length (u32 LE) | "PAR1"`` and
its head is ``"PAR1"``. :func:`read_footer` checks these in order and stops
at the first one that makes the file unusable (no trailing magic, a length
beyond the file, a footer that does not decode): later checks need the
footer. :func:`check_file` then checks the footer against itself: row counts,
one column chunk per leaf, column orders, paths and types of the chunks.

Example: a 1,000-byte file ending in ``2c 01 00 00 50 41 52 31`` has a
300-byte footer at offset 692; one ending in ``ff ff 00 00 50 41 52 31``
claims 65,535 bytes and breaks PQ-FOOTER-001.
"""
import struct

from pqkit import format as fmt
from pqkit.errors import ParquetError
from pqkit.inspect.verify.findings import Where
from pqkit.inspect.verify.ordering import (
    INT96_ORDER,
    TOTAL_ORDER,
    column_order_name,
    is_floating_column,
)
from pqkit.read.fetch.footer import FileMetadata
from pqkit.tail import MAGIC, MAGIC_ENCRYPTED

# Required fields the checks of a row group and of a column chunk's bytes rely on.
_ROW_GROUP_REQUIRED = ("columns", "total_byte_size", "num_rows")
_CHUNK_REQUIRED = ("type", "encodings", "codec", "num_values", "total_uncompressed_size",
                   "total_compressed_size", "data_page_offset")
# A plaintext footer signed for encrypted columns is followed by a 12-byte nonce and a
# 16-byte GCM tag inside the footer length.
SIGNATURE_BYTES = 28


def read_footer(src, findings):
    """Read and decode the footer of ``src``, recording what is wrong.

    Returns
    -------
    pqkit.FileMetadata or None
        None when the file is unusable (the finding says why).
    """
    size = src.size
    if size < 12:
        findings.add("PQ-FILE-001", f"the file has {size} bytes; a Parquet file has at least "
                     "12 (magic, footer length, magic)", 0)
        return None
    tail = src.read(size - 8, 8)
    magic = tail[4:]
    if magic == MAGIC_ENCRYPTED:
        findings.add("PQ-FILE-004", f"the file ends in 'PARE' at offset {size - 4}: its "
                     "footer is encrypted and verify does not decrypt it", size - 4)
        return None
    if magic != MAGIC:
        findings.add("PQ-FILE-003", f"the file ends in {bytes(magic)!r} at offset {size - 4}, "
                     "not b'PAR1': not a Parquet file, or a truncated one", size - 4)
        return None
    head = src.read(0, 4)
    if head != MAGIC:
        findings.add("PQ-FILE-002", f"the file starts with {bytes(head)!r} at offset 0, "
                     "not b'PAR1'", 0)
    footer_len = struct.unpack("<I", tail[:4])[0]
    footer_offset = size - 8 - footer_len
    if footer_offset < 4:
        findings.add("PQ-FOOTER-001", f"the footer length {footer_len} at offset {size - 8} "
                     f"points before the start of the data (file of {size} bytes)", size - 8)
        return None
    buf = src.read(footer_offset, footer_len)
    try:
        raw, used = fmt.decode(fmt.FileMetaData, buf, 0, footer_len, footer_offset)
    except ParquetError as exc:
        findings.add("PQ-FOOTER-002", f"the footer at offset {footer_offset} ({footer_len} "
                     f"bytes) does not decode: {exc}", footer_offset)
        return None
    for name in ("version", "schema", "num_rows", "row_groups"):
        if getattr(raw, name) is None:
            findings.add("PQ-FOOTER-003", f"the footer at offset {footer_offset} lacks the "
                         f"required field FileMetaData.{name}", footer_offset)
            return None
    try:
        md = FileMetadata(raw, size, footer_offset, footer_len)
    except ParquetError as exc:
        findings.add("PQ-FOOTER-003", f"the schema of the footer at offset {footer_offset} is "
                     f"malformed: {exc}", footer_offset)
        return None
    extra = footer_len - used
    expected = SIGNATURE_BYTES if raw.encryption_algorithm is not None else 0
    if extra != expected:
        findings.add("PQ-FOOTER-004", f"the FileMetaData at offset {footer_offset} ends after "
                     f"{used} bytes but the footer length is {footer_len}: {extra} bytes "
                     f"follow it (expected {expected})", footer_offset + used)
    return md


def check_file(ctx, footer_only=False):
    """Footer rules that need no column chunk bytes."""
    md, raw = ctx.md, ctx.md.raw
    at = md.footer_offset
    if raw.version not in (1, 2):
        ctx.add("PQ-FOOTER-006", f"FileMetaData.version is {raw.version} (footer at offset "
                f"{at}); readers accept 1 and 2", at)
    if not raw.created_by:
        ctx.add("PQ-FOOTER-011", f"the footer at offset {at} has no created_by", at)
    _check_rows(ctx)
    _check_column_orders(ctx)
    for g, rg in enumerate(raw.row_groups):
        _check_row_group(ctx, g, rg, footer_only)


def _check_rows(ctx):
    md, raw = ctx.md, ctx.md.raw
    at = md.footer_offset
    total = 0
    for g, rg in enumerate(raw.row_groups):
        n = rg.num_rows
        if n is None or n < 0:
            ctx.add("PQ-ROWS-003", f"num_rows is {n} (footer at offset {at})", at, Where(g))
            continue
        total += n
    if raw.num_rows != total:
        ctx.add("PQ-ROWS-001", f"FileMetaData.num_rows is {raw.num_rows} but the "
                f"{len(raw.row_groups)} row groups hold {total} rows (footer at offset {at})",
                at)


def _check_column_orders(ctx):
    md, raw = ctx.md, ctx.md.raw
    at = md.footer_offset
    leaves = md.schema.columns
    orders = raw.column_orders
    if orders is None:
        if any(_has_new_bounds(c.meta_data) for rg in raw.row_groups
               for c in (rg.columns or [])):
            ctx.add("PQ-ORDER-003", f"the footer at offset {at} has min_value/max_value "
                    "statistics but no column_orders: readers ignore them (verify checks "
                    "them as TYPE_ORDER)", at)
        return
    if len(orders) != len(leaves):
        ctx.add("PQ-FOOTER-007", f"column_orders has {len(orders)} entries for "
                f"{len(leaves)} leaf columns (footer at offset {at})", at)
        return
    for node, order in zip(leaves, orders):
        name = column_order_name(order)
        where = Where(column=node.dotted_path)
        if name == "UNKNOWN":
            ctx.add("PQ-ORDER-001", f"its ColumnOrder is not one this version knows (footer at "
                    f"offset {at}); readers must ignore its min/max", at, where)
        elif name == TOTAL_ORDER and not is_floating_column(node):
            ctx.add("PQ-ORDER-002", f"IEEE_754_TOTAL_ORDER on a {node.type_str()} column "
                    f"(footer at offset {at}); only FLOAT, DOUBLE and FLOAT16 may have it",
                    at, where)
        elif name == INT96_ORDER and node.physical_type != fmt.Type.INT96:
            ctx.add("PQ-ORDER-002", f"INT96_TIMESTAMP_ORDER on a {node.type_str()} column "
                    f"(footer at offset {at})", at, where)


def _has_new_bounds(cmd):
    st = None if cmd is None else cmd.statistics
    return st is not None and (st.min_value is not None or st.max_value is not None)


def missing_fields(obj, names):
    """The required fields of a Thrift struct that are not set."""
    return [n for n in names if getattr(obj, n) is None]


def usable_row_group(rg):
    return not missing_fields(rg, _ROW_GROUP_REQUIRED)


def usable_chunk(chunk):
    cmd = chunk.meta_data
    return cmd is None or not missing_fields(cmd, _CHUNK_REQUIRED)


def _check_row_group(ctx, g, rg, footer_only):
    md = ctx.md
    at = md.footer_offset
    leaves = md.schema.columns
    chunks = rg.columns or []
    missing = missing_fields(rg, _ROW_GROUP_REQUIRED)
    if missing:
        ctx.add("PQ-FOOTER-014", f"RowGroup lacks {', '.join(missing)} (footer at offset {at}); "
                "its chunks are not checked", at, Where(g))
    if len(chunks) != len(leaves):
        ctx.add("PQ-FOOTER-005", f"{len(chunks)} column chunks for {len(leaves)} leaf columns "
                f"(footer at offset {at}); its chunks are not checked", at, Where(g))
    if rg.ordinal is not None and rg.ordinal != _i16(g):
        ctx.add("PQ-FOOTER-012", f"RowGroup.ordinal is {rg.ordinal} (footer at offset {at})",
                at, Where(g))
    for s in rg.sorting_columns or []:
        if s.column_idx is None or not 0 <= s.column_idx < len(leaves):
            ctx.add("PQ-FOOTER-013", f"a sorting column names column {s.column_idx} of "
                    f"{len(leaves)} (footer at offset {at})", at, Where(g))
    for node, chunk in zip(leaves, chunks):
        cmd = chunk.meta_data
        where = Where(g, node.dotted_path)
        if cmd is None:
            continue
        missing = missing_fields(cmd, _CHUNK_REQUIRED)
        if missing:
            ctx.add("PQ-FOOTER-014", f"ColumnMetaData lacks {', '.join(missing)} (footer at "
                    f"offset {at}); the chunk is not checked", at, where)
        if cmd.path_in_schema is not None and tuple(cmd.path_in_schema) != node.path:
            ctx.add("PQ-FOOTER-008", f"path_in_schema is {'.'.join(cmd.path_in_schema)!r} "
                    f"(footer at offset {at})", at, where)
        if cmd.type is not None and cmd.type != node.physical_type:
            ctx.add("PQ-FOOTER-009", f"ColumnMetaData.type is {_type_name(cmd.type)} but the "
                    f"schema says {node.type_str()} (footer at offset {at})", at, where)
        if chunk.file_path is not None and not footer_only:
            ctx.add("PQ-FOOTER-010", f"the chunk's data is in file {chunk.file_path!r} "
                    f"(footer at offset {at}); it is not checked", at, where)


def _i16(n):
    """``n`` as the i16 RowGroup.ordinal holds it (files may have more than 32767 groups)."""
    n &= 0xFFFF
    return n - 0x10000 if n >= 0x8000 else n


def _type_name(value):
    try:
        return fmt.Type(value).name
    except ValueError:
        return f"UNKNOWN({value})"
