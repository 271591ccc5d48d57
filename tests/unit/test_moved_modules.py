"""Modules users import that moved keep their old import path for one release."""
import importlib

import pytest

# old path -> (new path, names users take from it)
ALIASES = {
    "pqkit.read.metadata": ("pqkit.read.fetch.metadata",
                            ["RowGroupMetaData", "ColumnChunkMetaData", "Statistics",
                             "SortingColumn"]),
    "pqkit.spark.source": ("pqkit.spark.datasource.source",
                           ["PqkitDataSource", "register", "PUSHDOWN_CONF"]),
    "pqkit.write.concat": ("pqkit.write.surgery.concat", ["concat", "ConcatResult"]),
    "pqkit.write.recover": ("pqkit.write.surgery.recover", ["recover", "RecoverResult"]),
}


@pytest.mark.parametrize("old", sorted(ALIASES))
def test_old_path_hands_on_the_moved_objects(old):
    new, names = ALIASES[old]
    alias, moved = importlib.import_module(old), importlib.import_module(new)
    for name in names:
        assert getattr(alias, name) is getattr(moved, name)
    assert sorted(alias.__all__) == sorted(names)
