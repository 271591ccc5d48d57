"""Moved to :mod:`pqkit.write.surgery.recover`; this alias goes away in the next release.

``RecoverResult`` is what :func:`pqkit.recover` returns, and users import it from here.
"""
from pqkit.write.surgery.recover import RecoverResult, recover

__all__ = ["recover", "RecoverResult"]
