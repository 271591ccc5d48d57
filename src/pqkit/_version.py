"""The package version (one place, imported by the package and the writer)."""
__version__ = "0.1.0"
