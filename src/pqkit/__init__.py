"""pqkit: a from-scratch Parquet toolkit."""
from .errors import *  # noqa: F401,F403
from .errors import __all__ as _error_names

__version__ = "0.1.0"
__all__ = list(_error_names)
