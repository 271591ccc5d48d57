"""Comparing fuzzed results with the values they must equal."""
import random

try:    # imported by pqkit on the first value that needs it: not inside a timed input
    import pandas  # noqa: F401
except ImportError:
    pass


def rows_of(table):
    """A table's values as ``{column: [value, ...]}``; None when they cannot be
    converted (a :class:`pqkit.ParquetError`, e.g. a decimal too wide for Python)."""
    import pqkit
    try:
        return table.to_pydict()
    except pqkit.ParquetError:
        return None


def same(a, b):
    """Equal values, NaN equal to NaN (the reprs of floats, datetimes, decimals and
    containers are exact)."""
    return repr(a) == repr(b)


def chooser(control):
    """A random source seeded by the input's control bytes, so an input replays."""
    return random.Random(bytes(control))


def split(data, width):
    """(random source seeded by the first ``width`` bytes, the rest), or (None, None)
    when the input is shorter."""
    if len(data) < width:
        return None, None
    return chooser(data[:width]), data[width:]
