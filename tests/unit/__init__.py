"""Unit tests, laid out as src/pqkit is: tests/unit/<package>/test_<module>.py.

Each directory here is a package so that test files of the same name in different
packages (read/test_chunk.py, write/test_chunk.py) import as different modules;
tests/ itself stays on sys.path (tests/conftest.py's directory), so the shared helpers
there (corpus, arrow_bridge, verify_files, ...) import by name from any depth.
tests/INDEX.md says where a module without a test file of its own name is tested.
"""
