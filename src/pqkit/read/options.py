"""Resource limits of a read: how much a file may make pqkit allocate.

Every size a file states is a claim. Claims that bytes on disk must back are
checked against those bytes (a Thrift string or list against the bytes left in
the footer, a chunk's page sizes against the chunk's range, PLAIN values
against the page). What the bytes cannot bound -- a codec may expand a few
bytes into a gigabyte, an RLE run of one byte may stand for 2**31 levels --
is held to the limits of :class:`ReadOptions`, checked on the page headers
before anything is decompressed or allocated. For example a chunk whose one
page header claims ``uncompressed_page_size`` = 2**31 - 1 fails with::

    AllocationLimitError: page at offset 4 in column x, row group 0: 2147483647
    decompressed bytes exceed ReadOptions.max_page_size = 1073741824; read with
    pqkit.ReadOptions(max_page_size=...) to allow more

Fixed limits that need no option: Thrift structures nest at most 64 deep
(``pqkit._native.thrift.MAX_DEPTH``), and a page that decompresses to more than
its header declares is cut at the declared size and reported as corrupt.
"""
from dataclasses import dataclass

from pqkit.errors import AllocationLimitError
from pqkit.read.coalesce import CoalescePolicy
from pqkit.read.footer import TAIL_READ

__all__ = ["DEFAULT_OPTIONS", "ReadOptions"]


@dataclass(frozen=True)
class ReadOptions:
    """Limits on what reading one file may allocate, and how a remote file is fetched.

    Parameters
    ----------
    max_page_size : int, default 1 GiB
        Decompressed bytes of one data page (its ``uncompressed_page_size``).
    max_dictionary_size : int, default 1 GiB
        Decompressed bytes of one dictionary page.
    max_chunk_bytes : int, default 4 GiB
        Bytes of levels and values decoded for one column chunk, reckoned from the
        level entries its page headers claim before any is decoded.

    Raises
    ------
    pqkit.AllocationLimitError
        From a read, when a file claims more than a limit allows; the message names
        the limit and the place.

    Examples
    --------
    >>> pqkit.read_table("big.parquet", options=pqkit.ReadOptions(max_page_size=4 << 30))
    ... # doctest: +SKIP
    """
    max_page_size: int = 1 << 30
    max_dictionary_size: int = 1 << 30
    max_chunk_bytes: int = 4 << 30
    tail_read: int = TAIL_READ
    hole_size: int = 1 << 20
    max_range_size: int = 32 << 20
    max_concurrency: int = 8

    @property
    def coalesce_policy(self):
        """The :class:`pqkit.read.coalesce.CoalescePolicy` of the remote-read fields."""
        return CoalescePolicy(self.hole_size, self.max_range_size, self.max_concurrency)

    def check(self, name, value, what, where):
        """Raise AllocationLimitError when ``value`` exceeds the limit ``name``."""
        limit = getattr(self, name)
        if value > limit:
            exc = AllocationLimitError(
                f"{where}: {value} {what} exceed ReadOptions.{name} = {limit}; read with "
                f"pqkit.ReadOptions({name}=...) to allow more")
            exc.limit = name          # which limit, for callers that tell them apart
            raise exc


DEFAULT_OPTIONS = ReadOptions()
