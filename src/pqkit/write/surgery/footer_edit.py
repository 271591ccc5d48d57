"""Changing a file's footer metadata without touching its data: ``pqkit.edit_metadata``.

Only the FileMetaData is re-encoded; every offset in it stays valid because no
data byte moves. In place, the new footer is added after the old one through
the crash-safe tail switch of :mod:`pqkit.write.existing` (the old footer
remains as dead bytes; ``pqkit.concat`` of the file alone drops them). To a
new file, the data bytes are copied and the new footer written after them.
"""
import os
import shutil

from pqkit import format as fmt
from pqkit.errors import ArgumentError, SchemaError
from pqkit.tail import tail_bytes
from pqkit.write.existing import TailSwitch, finish_interrupted, read_existing

_KEEP = object()


def edit_metadata(path, *, key_value_metadata=_KEEP, replace=False, created_by=_KEEP,
                  column_orders=_KEEP, dest=None):
    """Rewrite only the footer of a Parquet file.

    Parameters
    ----------
    path : str or os.PathLike
    key_value_metadata : dict or None, optional
        Entries to set (a value may be None to store a key without value): they are
        merged into the file's entries, which are kept (``ARROW:schema``, ``pandas``,
        ...) unless ``replace`` is true; ``None`` removes every entry. Omitted:
        unchanged. Spark 4.x cannot
        read a file with a key without value (a NullPointerException in its vectorized
        reader, which copies the values into ``Set.of``): store ``""`` for Spark's sake.
    replace : bool, default False
        True: ``key_value_metadata`` becomes the whole set, dropping the entries it does
        not name (to drop one key: pass the others, ``replace=True``).
    created_by : str or None, optional
        The new writer string. Readers use it to decide which statistics to trust, so
        change it only knowingly. Omitted: unchanged.
    column_orders : list of pqkit.format.ColumnOrder, "type_defined" or None, optional
        One per leaf column; ``"type_defined"`` sets TYPE_DEFINED_ORDER for every
        leaf; None removes them. Omitted: unchanged.
    dest : path, optional
        Write the result there (data copied, source untouched) instead of in place.

    Returns
    -------
    int
        The size of the new footer in bytes.

    Raises
    ------
    SchemaError
        ``column_orders`` of the wrong length.
    CorruptFileError, EncryptedFileError
        The file has no readable footer.
    """
    finish_interrupted(path)
    existing = read_existing(path)
    meta = existing.meta
    if key_value_metadata is not _KEEP:
        meta.key_value_metadata = _key_values(meta.key_value_metadata, key_value_metadata,
                                              replace)
    if created_by is not _KEEP:
        meta.created_by = created_by
    if column_orders is not _KEEP:
        meta.column_orders = _column_orders(column_orders, len(existing.schema.columns))
    footer = fmt.encode(meta)
    if dest is None:
        switch = TailSwitch(existing).begin()
        try:
            switch.commit(footer)
        except BaseException:
            switch.abort()
            raise
        return len(footer)
    tmp = os.fspath(dest) + ".pqkit-tmp"
    shutil.copyfile(path, tmp)
    with open(tmp, "r+b") as out:
        out.truncate(existing.footer_offset)
        out.seek(existing.footer_offset)
        out.write(footer + tail_bytes(len(footer)))
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, dest)
    return len(footer)


def _key_values(current, new, replace):
    """The footer's KeyValue list after setting ``new`` (a mapping or None) on ``current``."""
    if new is None:
        return None
    if not hasattr(new, "items"):
        raise ArgumentError(f"key_value_metadata must be a dict (or None), got "
                          f"{type(new).__name__}")
    merged = {} if replace else {kv.key: kv.value for kv in current or []}
    merged.update((str(k), None if v is None else str(v)) for k, v in new.items())
    return [fmt.KeyValue(key=k, value=v) for k, v in merged.items()] or None


def _column_orders(value, leaves):
    if value is None:
        return None
    if value == "type_defined":
        return [fmt.ColumnOrder(TYPE_ORDER=fmt.TypeDefinedOrder()) for _ in range(leaves)]
    value = list(value)
    if len(value) != leaves:
        raise SchemaError(f"column_orders has {len(value)} entries, the schema {leaves} "
                          "leaf columns")
    return value


__all__ = ["edit_metadata"]
