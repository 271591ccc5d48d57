"""Coalescing byte ranges into few, large requests (as Arrow's pre-buffering does).

On an object store a request costs far more than the bytes it carries, so the
ranges a read needs are merged before they are fetched: two ranges merge when
the hole between them is at most ``hole_size`` bytes; then every merged run
longer than ``max_range_size`` is cut into pieces of that size (a piece may end
inside a column chunk: the reader joins the pieces), which are fetched
concurrently.

Example, with ``hole_size=10`` and ``max_range_size=100``::

    [(0, 20), (25, 20), (200, 30), (300, 250)]
    -> [(0, 45), (200, 30), (300, 100), (400, 100), (500, 50)]

A read of ``B`` selected bytes lying in one run (no hole larger than
``hole_size``) thus costs ``ceil(B' / max_range_size)`` requests, ``B'`` being
``B`` plus the holes read; each further run costs at most one more.
"""
from dataclasses import dataclass

__all__ = ["DEFAULT_POLICY", "CoalescePolicy", "coalesce"]


@dataclass(frozen=True)
class CoalescePolicy:
    """How ranges are merged before fetching.

    Parameters
    ----------
    hole_size : int, default 1 MiB
        Largest gap between two ranges that is read (and thrown away) to save a request.
        The default is what an object store moves in one request's latency (about 10 ms
        to the first byte at about 100 MiB/s), the rule Arrow's
        ``CacheOptions::MakeFromNetworkMetrics`` uses; Arrow's LAN default is 8 KiB.
    max_range_size : int, default 32 MiB
        Largest single request; larger ranges are split.
    max_concurrency : int, default 8
        Requests in flight at once.
    """
    hole_size: int = 1 << 20
    max_range_size: int = 32 << 20
    max_concurrency: int = 8

    def __post_init__(self):
        if self.hole_size < 0 or self.max_range_size <= 0 or self.max_concurrency <= 0:
            raise ValueError(f"invalid {self}: hole_size must be >= 0, max_range_size and "
                             f"max_concurrency > 0")


DEFAULT_POLICY = CoalescePolicy()


def coalesce(ranges, policy=DEFAULT_POLICY):
    """Merge (offset, length) ranges into sorted, non-overlapping requests.

    Parameters
    ----------
    ranges : iterable of (int, int)
        Byte ranges in any order; they may overlap or repeat. Empty ones are dropped.
    policy : CoalescePolicy

    Returns
    -------
    list of (int, int)
        Ranges covering every input byte, each at most ``policy.max_range_size`` long.
    """
    hole = min(policy.hole_size, policy.max_range_size)
    merged = []
    for off, length in sorted((o, n) for o, n in ranges if n > 0):
        end = off + length
        if merged and off <= merged[-1][1] + hole:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((off, end))
    out = []
    step = policy.max_range_size
    for start, end in merged:
        while end - start > step:
            out.append((start, step))
            start += step
        out.append((start, end - start))
    return out
