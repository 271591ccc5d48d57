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

The Thrift decoder of footers and page headers has limits of its own: a string,
a list or map, and nesting. Their defaults are those of Arrow C++ (100 MB
strings, a million elements), so a file pqkit refuses is one pyarrow refuses
too; nesting stops at 64 levels. A page that decompresses to more than its
header declares is cut at the declared size and reported as corrupt.
"""
import os
from dataclasses import dataclass, replace

from pqkit.crypto.key_tools import CryptoFactory
from pqkit.crypto.properties import DecryptionProperties
from pqkit.errors import AllocationLimitError, ArgumentError
from pqkit.read.fetch.coalesce import CoalescePolicy

__all__ = ["DEFAULT_OPTIONS", "ReadOptions"]

TAIL_READ = 64 * 1024     # bytes read speculatively from a file's end: most footers fit
_FLAGS = frozenset({"strings_as_binary"})      # the fields that are bools, not limits


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
    max_thrift_string_size : int, default 100,000,000
        Bytes of one Thrift string or binary in the footer or a page header (e.g. a
        statistics value or a key/value metadata entry).
    max_thrift_container_size : int, default 1,000,000
        Elements of one Thrift list or map (e.g. row groups, schema elements, the
        columns of a row group).
    max_thrift_depth : int, default 64
        Nesting of Thrift structures and containers.
    decryption : pqkit.DecryptionProperties, optional
        The keys an encrypted file is read with (``read_table``'s ``footer_key=``,
        ``column_keys=``, ``key_retriever=`` and ``aad_prefix=`` build it).
    budget_ratio : int, default 1000
    budget_floor : int, default 1 GiB
        The budget of one read (:mod:`pqkit.read.budget`): the bytes it allocates in
        total (pages decompressed, levels and values decoded, byte arrays expanded
        from dictionaries, text given to pandas) may not exceed the larger of
        ``budget_floor`` and ``budget_ratio`` times the bytes it reads from the file.
        Real files stay far below (see the module); a file made to expand beyond it
        raises :class:`pqkit.AllocationLimitError` instead of exhausting memory.
    strings_as_binary : bool, default False
        Read STRING, JSON and ENUM columns as binary, their bytes unchecked. By
        default every text value read is checked to be UTF-8 (as the format requires
        and Arrow's ``string`` type promises), and a value that is not raises
        :class:`pqkit.InvalidStringError`; this option reads such a file anyway.

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
    max_thrift_string_size: int = 100_000_000
    max_thrift_container_size: int = 1_000_000
    max_thrift_depth: int = 64
    tail_read: int = TAIL_READ
    hole_size: int = 1 << 20
    max_range_size: int = 32 << 20
    max_concurrency: int = 8
    decryption: DecryptionProperties = None
    budget_ratio: int = 1000
    budget_floor: int = 1 << 30
    strings_as_binary: bool = False

    def __post_init__(self):
        if self.decryption is not None and not isinstance(self.decryption,
                                                          DecryptionProperties):
            raise ArgumentError("ReadOptions(decryption=...) must be a "
                                "pqkit.DecryptionProperties")
        for name, value in vars(self).items():
            if name == "decryption":
                continue
            if name in _FLAGS:
                if not isinstance(value, bool):
                    raise ArgumentError(f"ReadOptions({name}=...) must be a bool, "
                                        f"got {value!r}")
            elif isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ArgumentError(f"ReadOptions({name}=...) must be an int >= 0, "
                                    f"got {value!r}")

    @property
    def coalesce_policy(self):
        """The :class:`pqkit.read.fetch.coalesce.CoalescePolicy` of the remote-read fields."""
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

    def with_keys(self, footer_key=None, column_keys=None, key_retriever=None,
                  aad_prefix=None, kms_client=None, path=None):
        """These options with the keys of the keyword arguments readers take; the
        options themselves when none is given. ``kms_client`` unwraps the keys the
        file's key material names (its external material found beside ``path``)."""
        if kms_client is not None:
            if key_retriever is not None:
                raise ArgumentError("give key_retriever or kms_client, not both")
            unwrapped = CryptoFactory(kms_client).file_decryption_properties(
                path if isinstance(path, (str, os.PathLike)) else None)
            key_retriever = unwrapped.key_retriever
        if footer_key is None and not column_keys and key_retriever is None and \
                aad_prefix is None:
            return self
        keys = DecryptionProperties(footer_key, column_keys or {}, key_retriever,
                                    aad_prefix)
        return replace(self, decryption=keys)

    def thrift_limits(self):
        """The Thrift limits as keyword arguments of :func:`pqkit.format.decode`."""
        return {"max_string_size": self.max_thrift_string_size,
                "max_container_size": self.max_thrift_container_size,
                "max_depth": self.max_thrift_depth}


DEFAULT_OPTIONS = ReadOptions()
