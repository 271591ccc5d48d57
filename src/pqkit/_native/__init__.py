"""Compiled kernels (built from cython/pqkit/_native/). Import the Python wrappers instead."""
