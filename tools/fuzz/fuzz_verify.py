"""Fuzz ``pqinspect verify --deep`` through its library entry,
``pqkit.inspect.verify.runner.verify_file(data, deep=True)``.

verify reports problems as findings, so it should return a report for any input;
an escaping :class:`pqkit.ParquetError` is tolerated (the CLI turns it into exit
code 2), anything else is a finding.

Usage: python tools/fuzz/fuzz_verify.py -max_total_time=20 [corpus dir ...]
"""

import atheris
import seeds

with atheris.instrument_imports():
    import pqkit
    from pqkit.inspect.verify.runner import verify_file


def test_one(data):
    try:
        verify_file(data, deep=True).to_dict()
    except pqkit.ParquetError:
        pass


if __name__ == "__main__":
    seeds.fuzz("verify", test_one)
