"""The ``pandas`` metadata entry parsed (pqkit.columnar.pandas_metadata), from pyarrow's
entries and malformed ones; building it is tested in tests/unit/convert/test_pandas_metadata.py."""
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import pqkit
from pqkit import datatypes as T
from pqkit.columnar.column import PrimitiveColumn
from pqkit.columnar.pandas_metadata import (
    RangeDescriptor,
    generated_index_name,
    is_generated_index_name,
    parse_pandas_metadata,
)
from pqkit.columnar.table import Table
from unit.convert.test_pandas_metadata import FRAMES


def test_parse_a_pyarrow_entry():
    df = FRAMES["multi"].copy()
    df.index = df.index.set_levels([pd.Index([1, 2]), pd.Index(["a", "b"])])
    text = json.dumps(pa.Table.from_pandas(df).schema.pandas_metadata)
    meta = parse_pandas_metadata(text)
    assert meta.index == ["i", "__index_level_1__"]
    assert meta.index_name("i") == "i" and meta.index_name("__index_level_1__") is None
    assert meta.columns["a"].numpy_type == "int64"
    ranged = parse_pandas_metadata(json.dumps(
        pa.Table.from_pandas(FRAMES["range"]).schema.pandas_metadata))
    assert ranged.index == [RangeDescriptor(None, 5, 11, 2)]


def test_generated_names():
    assert generated_index_name(3) == "__index_level_3__"
    assert is_generated_index_name("__index_level_12__")
    assert not is_generated_index_name("__index_level_x__") and not is_generated_index_name(None)


@pytest.mark.parametrize("text, message", [
    ("{", "not JSON"),
    ("[1]", "a JSON list, not an object"),
    ('{"index_columns": {}}', "index_columns is {}, not a list"),
    ('{"index_columns": [3]}', r"index_columns\[0\] is 3"),
    ('{"index_columns": [{"kind": "range", "start": 0, "stop": 3, "step": 0}]}',
     r"index_columns\[0\].step is 0"),
    ('{"index_columns": [{"kind": "range", "start": "0", "stop": 3, "step": 1}]}',
     r"index_columns\[0\].start is '0'"),
    ('{"index_columns": [{"kind": "interval"}]}', "expected a column name or a range"),
    ('{"columns": ["a"]}', r"columns\[0\] is 'a', not an object"),
    ('{"columns": [{"name": "a", "metadata": 5}]}', r"columns\[0\].metadata is 5"),
    ('{"columns": [{"name": "a", "numpy_type": 5}]}', r"columns\[0\].numpy_type is 5"),
])
def test_malformed_entries_raise_schema_error(text, message):
    with pytest.raises(pqkit.SchemaError, match=message):
        parse_pandas_metadata(text)
    table = Table({"a": PrimitiveColumn(T.int64(), np.arange(3))}, metadata={"pandas": text})
    with pytest.raises(pqkit.SchemaError, match="'pandas' key/value metadata"):
        table.to_pandas()
    assert table.to_pandas(ignore_metadata=True)["a"].tolist() == [0, 1, 2]


def test_entries_for_absent_columns_are_skipped():
    text = json.dumps({"index_columns": ["gone", {"kind": "range", "name": None, "start": 0,
                                                  "stop": 9, "step": 1}],
                       "columns": [{"name": "x", "field_name": "a", "pandas_type": "int64",
                                    "numpy_type": "Int64", "metadata": None},
                                   {"name": "gone", "field_name": "gone",
                                    "pandas_type": "int64", "numpy_type": "int64",
                                    "metadata": None}]})
    table = Table({"a": PrimitiveColumn(T.int64(), np.arange(3))}, metadata={"pandas": text})
    df = table.to_pandas()
    assert list(df.columns) == ["x"] and str(df["x"].dtype) == "Int64"
    assert isinstance(df.index, pd.RangeIndex) and len(df.index) == 3
