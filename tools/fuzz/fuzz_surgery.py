"""Fuzz file surgery: ``pqkit.concat``, ``pqkit.append`` and ``pqkit.edit_metadata`` on
fuzzed files.

Input: 1 control byte (the operation and its variant), then the file, written to a
scratch directory. A :class:`pqkit.ParquetError` must leave the target byte-identical
(concat's target holds earlier bytes, append and edit change the file itself) and no
temporary file behind. A success on a file pqkit reads must keep its rows: concat of
the file with itself reads as its rows twice, append as its rows and the appended
ones, edit as its rows. Anything else is a finding.

Usage: python tools/fuzz/fuzz_surgery.py -max_total_time=20 [corpus dir ...]
"""
import os
import shutil

import atheris
import known
import same
import seeds

with atheris.instrument_imports():
    import pqkit

CONTROL = 1
SCRATCH = seeds.scratch_dir("surgery")
EARLIER = b"the target's earlier bytes"


def _rows(path):
    table = known.attempt(pqkit.read_table, path)
    return None if table is known.FAILED else same.rows_of(table)


def _concat(path, variant):
    target = os.path.join(SCRATCH, "target.parquet")
    with open(target, "wb") as f:
        f.write(EARLIER)
    sources = [path] * (1 + variant % 2)
    before = _rows(path)
    done = known.attempt(pqkit.concat, sources, target,
                         row_group_size=None if variant < 2 else 1 << 20)
    if done is known.FAILED:
        with open(target, "rb") as f:
            assert f.read() == EARLIER, "a failed concat changed its target"
        return
    after = _rows(target)
    if before is not None:
        want = {k: v * len(sources) for k, v in before.items()}
        assert after is not None and same.same(after, want), "concat changed the rows"


def _append(path, variant):
    table = known.attempt(pqkit.read_table, path)
    if table is known.FAILED:
        data = {"x": [1, 2]}
    else:
        data = table.slice(0, min(table.num_rows, 1 + variant))
    before = None if table is known.FAILED else same.rows_of(table)
    added = None if table is known.FAILED else same.rows_of(data)
    with open(path, "rb") as f:
        original = f.read()
    if known.attempt(pqkit.append, path, data) is known.FAILED:
        with open(path, "rb") as f:
            assert f.read() == original, "a failed append changed its target"
        return
    if before is not None and added is not None:
        want = {k: v + added[k] for k, v in before.items()}
        assert same.same(_rows(path), want), "append lost or changed rows"


def _edit(path, variant):
    settings = ({"key_value_metadata": {"fuzz": "yes"}}, {"created_by": "fuzz"},
                {"column_orders": "type_defined"}, {"key_value_metadata": None})[variant]
    before = _rows(path)
    with open(path, "rb") as f:
        original = f.read()
    if known.attempt(pqkit.edit_metadata, path, **settings) is known.FAILED:
        with open(path, "rb") as f:
            assert f.read() == original, "a failed edit_metadata changed its target"
        return
    if before is not None:
        assert same.same(_rows(path), before), f"edit_metadata({settings}) changed the rows"


def test_one(data):
    if len(data) < CONTROL:
        return
    op, variant = data[0] % 3, data[0] // 3 % 4
    path = os.path.join(SCRATCH, "file.parquet")
    with open(path, "wb") as f:
        f.write(data[CONTROL:])
    (_concat, _append, _edit)[op](path, variant)
    left = sorted(os.listdir(SCRATCH))
    assert set(left) <= {"file.parquet", "target.parquet"}, f"left behind: {left}"


if __name__ == "__main__":
    try:
        seeds.fuzz("surgery", test_one, transform=seeds.led_by(CONTROL))
    finally:
        shutil.rmtree(SCRATCH, ignore_errors=True)
