"""An existing file as file surgery sees it, and the crash-safe switch to a new tail.

Append and in-place footer edits never move a byte of the old file. They add a
new tail after the old one and make it the file's tail last::

    before:  PAR1 | data | old footer | old len | PAR1                (size S)
    after:   PAR1 | data | old footer | old len | PAR1 | new data | new footer | new len | PAR1
                           `------------ dead bytes -----------'

The steps, and what a crash (SIGKILL, power loss) after each one leaves:

1. ``journal``: write ``<path>.pqkit-journal`` (the old size S and the CRC-32
   of the old footer and tail), fsync it and its folder. The file is untouched.
2. ``body``: write the new data, page indexes and bloom filters at S..
   (``partial``: after the first piece of it). The file ends in bytes that are
   not a Parquet tail: every reader refuses it (bad magic), none reads wrong
   values.
3. ``footer``: write the new footer, fsync the file. Same as 2.
4. ``tail``: write the last 8 bytes (footer length and ``PAR1``) and fsync:
   this is the commit. From here readers see the new content.
5. ``done``: remove the journal.

:func:`finish_interrupted` (run by every append and edit before it reads the file, and
by ``pqkit.finish_interrupted``) settles a file left between steps 1 and 5: if
the file ends in a valid tail whose footer starts at or after S, the change
committed and only the journal goes; otherwise the file is truncated back to S
and the old tail's CRC is checked, which gives back the old file byte for byte.
So after a crash, and once the journal is settled, a reader sees exactly the
old content or exactly the new content.

For tests, ``PQKIT_SURGERY_KILL_AT=<step>`` makes the process kill itself
with SIGKILL right after the named step.
"""
import json
import os
import signal
import zlib
from dataclasses import dataclass

from pqkit import format as fmt
from pqkit.errors import CorruptFileError, EncryptedFileError, ParquetError, SchemaError
from pqkit.filesystems import open_binary
from pqkit.schema.logical import leaf_type
from pqkit.schema.tree import Schema
from pqkit.tail import TAIL_SIZE, check_head, footer_location, tail_bytes

JOURNAL_SUFFIX = ".pqkit-journal"
KILL_ENV = "PQKIT_SURGERY_KILL_AT"
STEPS = ("journal", "partial", "body", "footer", "tail", "done")


@dataclass
class ExistingFile:
    """A Parquet file's footer and where it lies.

    Attributes
    ----------
    path : str
    size, footer_offset, footer_length : int
    meta : pqkit.format.FileMetaData
    schema : pqkit.Schema
    """
    path: str
    size: int
    footer_offset: int
    footer_length: int
    meta: object
    schema: Schema

    @property
    def data_end(self):
        """Where the bytes before the footer end."""
        return self.footer_offset


def read_existing(path):
    """Read and decode the footer of the Parquet file at ``path``.

    Raises
    ------
    CorruptFileError
        Too small, bad magic, footer length past the file, undecodable footer.
    EncryptedFileError
        The file is encrypted (its footer, or its columns under a signed plaintext
        footer): rewriting it would break the signature and the AADs that bind its
        modules to their row groups.
    """
    with open_binary(path) as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - TAIL_SIZE))
        try:
            offset, footer_len = footer_location(size, f.read(TAIL_SIZE), path)
            f.seek(0)
            check_head(f.read(4), path)
        except EncryptedFileError:
            raise
        except CorruptFileError as exc:     # a writer that crashed leaves such a tail
            raise CorruptFileError(f"{exc}; pqkit.recover may save its row groups") from None
        f.seek(offset)
        buf = f.read(footer_len)
    meta, _ = fmt.decode(fmt.FileMetaData, buf, 0, len(buf), offset)
    if meta.encryption_algorithm is not None:
        raise EncryptedFileError(f"{path}: the file is encrypted (a signed plaintext "
                                 "footer): file surgery does not rewrite encrypted files")
    if meta.schema is None or meta.row_groups is None or meta.num_rows is None:
        raise CorruptFileError(f"{path}: footer at offset {offset} lacks schema, row_groups "
                               "or num_rows")
    return ExistingFile(path, size, offset, footer_len, meta, Schema(meta.schema))


_ELEMENT_FIELDS = ("name", "type", "repetition_type", "num_children", "type_length",
                   "converted_type", "scale", "precision", "field_id", "logicalType")


def schema_difference(first, second, exact=True):
    """The first difference between two lists of SchemaElements as text, or None.

    Of the root only ``num_children`` is compared: its name and repetition mean
    nothing to readers and writers differ there (pyarrow writes "schema" and no
    repetition, Spark "spark_schema"). With ``exact=False`` the annotations of a
    leaf may differ where they give the same data type (pyarrow writes int64
    without annotation, pqkit with INT(64, signed)): the values mean the same.
    """
    fields = _ELEMENT_FIELDS if exact else _ELEMENT_FIELDS[:5]
    for i, (x, y) in enumerate(zip(first, second)):
        for name in fields if i else ("num_children",):
            if getattr(x, name) != getattr(y, name):
                return (f"schema element {i} ({x.name!r}) has {name} {getattr(x, name)!r} "
                        f"in the first, {getattr(y, name)!r} in the second")
    if len(first) != len(second):
        return f"the schemas have {len(first)} and {len(second)} elements"
    if not exact:
        for a, b in zip(Schema(first).columns, Schema(second).columns):
            if leaf_type(a) != leaf_type(b):
                return (f"column {a.dotted_path} is {leaf_type(a)} in the first, "
                        f"{leaf_type(b)} in the second")
    return None


def kill_point(step):
    """SIGKILL this process after ``step`` when the test hook asks for it."""
    if os.environ.get(KILL_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)


def journal_path(path):
    return os.fspath(path) + JOURNAL_SUFFIX


def _fsync_dir(path):
    fd = os.open(os.path.dirname(os.path.abspath(path)) or ".", os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _tail_crc(f, existing):
    f.seek(existing.footer_offset)
    return zlib.crc32(f.read(existing.size - existing.footer_offset))


class TailSwitch:
    """Add a new tail to an existing file, crash-safe (see the module docstring).

    Use: ``begin()``, then ``write`` the body, then ``commit(footer_bytes)``;
    ``abort()`` truncates back to the old file on an error.
    """

    def __init__(self, existing):
        self.existing = existing
        self.path = existing.path
        self.file = None
        self.pos = existing.size
        self.committed = False

    def begin(self):
        self.file = open(self.path, "r+b")
        record = {"size": self.existing.size, "tail_crc": _tail_crc(self.file, self.existing)}
        tmp = journal_path(self.path) + ".tmp"
        with open(tmp, "w") as j:
            json.dump(record, j)
            j.flush()
            os.fsync(j.fileno())
        os.replace(tmp, journal_path(self.path))
        _fsync_dir(self.path)
        kill_point("journal")
        self.file.seek(self.existing.size)
        return self

    def write(self, data):
        self.file.write(data)
        if self.pos == self.existing.size:
            self.file.flush()
            kill_point("partial")
        self.pos += len(data)

    def commit(self, footer):
        kill_point("body")
        self.write(footer)
        self.file.flush()
        os.fsync(self.file.fileno())
        kill_point("footer")
        self.write(tail_bytes(len(footer)))
        self.file.flush()
        os.fsync(self.file.fileno())
        self.file.close()
        self.committed = True
        kill_point("tail")
        os.remove(journal_path(self.path))
        _fsync_dir(self.path)
        kill_point("done")

    def footer_with(self, row_groups, num_rows):
        """The old FileMetaData with ``row_groups`` (of ``num_rows`` rows) added after its
        own; key/value metadata, ``created_by`` and column orders stay the file's."""
        meta = self.existing.meta
        old = list(meta.row_groups)
        for i, rg in enumerate(row_groups):
            rg.ordinal = len(old) + i
        meta.row_groups = old + list(row_groups)
        meta.num_rows += num_rows
        return meta

    def abort(self):
        """Undo an uncommitted switch: truncate back to the old file."""
        if self.file is not None and not self.file.closed:
            self.file.close()
        if not self.committed:
            finish_interrupted(self.path)

    close = abort


def start_append(path, elements):
    """Open the file at ``path`` to add row groups of schema ``elements``: settle any
    interrupted change, check the schema, write the journal.

    Raises
    ------
    SchemaError
        The file's schema differs (the message names the first difference).
    """
    finish_interrupted(path)
    existing = read_existing(path)
    diff = schema_difference(existing.meta.schema, elements, exact=False)
    if diff is not None:
        raise SchemaError(f"cannot append to {path} (first) rows of another schema "
                          f"(second): {diff}")
    return TailSwitch(existing).begin()


def finish_interrupted(path):
    """Settle an append or footer edit that a crash interrupted.

    Returns
    -------
    str
        ``"clean"`` (no journal), ``"committed"`` (the new tail was complete: the
        journal is removed) or ``"rolled back"`` (the file is truncated to its old
        size and equals the old file).

    Raises
    ------
    CorruptFileError
        The journal is unreadable, or after truncation the old tail's CRC differs
        (the file was changed by something else); the journal is kept.
    """
    jpath = journal_path(path)
    if not os.path.exists(jpath):
        return "clean"
    try:
        with open(jpath) as j:
            record = json.load(j)
        old_size, crc = int(record["size"]), int(record["tail_crc"])
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptFileError(f"{jpath}: unreadable journal of an interrupted append or "
                               f"edit ({exc})") from None
    try:
        new = read_existing(path)
        committed = new.footer_offset >= old_size
    except ParquetError:
        committed = False
    if not committed:
        with open(path, "r+b") as f:
            f.truncate(old_size)
            f.flush()
            os.fsync(f.fileno())
        old = read_existing(path)
        with open(path, "rb") as f:
            if _tail_crc(f, old) != crc:
                raise CorruptFileError(f"{path}: after rolling back to {old_size} bytes the "
                                       "footer's CRC differs from the journal's")
    os.remove(jpath)
    _fsync_dir(path)
    return "committed" if committed else "rolled back"


__all__ = ["ExistingFile", "read_existing", "TailSwitch", "start_append", "schema_difference", "finish_interrupted", "STEPS",
           "KILL_ENV", "journal_path"]
