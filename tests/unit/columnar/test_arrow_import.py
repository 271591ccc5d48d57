"""pqkit.columnar.arrow_import: Arrow arrays taken in through the C Data Interface. (Most
of the import is tested round trip, in tests/interop/test_arrow_exchange.py.)"""
import io

import pyarrow as pa

import pqkit
from pqkit.columnar.table import Table


def test_a_null_in_an_arrow_dictionary_is_a_null_row_written_as_null():
    """Issue 31, class 4: rows pointing at a null of the dictionary are null rows, so a
    write keeps them null instead of writing the value's zero ("")."""
    arr = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, None, 1], pa.int32()),
                                         pa.array(["a", None, "c"]))
    t = Table.from_arrow(pa.table({"d": arr}))
    col = t.column("d")
    assert col.null_count == 3
    assert col.to_pylist() == ["a", None, "c", None, None]
    out = io.BytesIO()
    pqkit.write_table(t, out)
    assert pqkit.read_table(out.getvalue()).column("d").to_pylist() == \
        ["a", None, "c", None, None]
    assert pa.table(t).column("d").to_pylist() == ["a", None, "c", None, None]
