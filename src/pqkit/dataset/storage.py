"""Moved to :mod:`pqkit.dataset.core.storage`; this import shim goes away in the next release."""
import sys
import warnings

from pqkit.dataset.core import storage as _moved

warnings.warn(f"{__name__} moved to {_moved.__name__}; the old name goes away in the next "
              "release", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = _moved
