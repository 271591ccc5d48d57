"""Moved to :mod:`pqkit.write.surgery.concat`; this alias goes away in the next release.

``ConcatResult`` is what :func:`pqkit.concat` returns, and users import it from here.
"""
from pqkit.write.surgery.concat import ConcatResult, concat

__all__ = ["concat", "ConcatResult"]
