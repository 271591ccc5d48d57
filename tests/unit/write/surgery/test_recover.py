"""recover (write/surgery/recover.py): what it saves of a damaged file, where it stops, and
what it refuses."""
import pyarrow.parquet as pq
import pytest

import pqkit
from unit.write.test_existing import OLD


def test_recover_of_garbage_saves_nothing_and_says_where_it_stopped(tmp_path):
    import random
    rng = random.Random(7)
    for i in range(30):
        path = tmp_path / f"g{i}.parquet"
        path.write_bytes(b"PAR1" + bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 400))))
        result = pqkit.recover(path, tmp_path / "out.parquet",
                               schema=[pqkit.datatypes.Field("id", pqkit.datatypes.int64())])
        assert (result.row_groups, result.num_rows) == (0, 0)
        assert result.stop_reason
        assert pq.read_table(tmp_path / "out.parquet").num_rows == 0


def test_recover_refuses_a_file_without_leading_magic_and_a_missing_schema(tmp_path):
    path = tmp_path / "x.parquet"
    path.write_bytes(b"NOPE" + bytes(100))
    with pytest.raises(pqkit.CorruptFileError, match="does not start with b'PAR1'"):
        pqkit.recover(path, tmp_path / "out.parquet",
                      schema=[pqkit.datatypes.Field("id", pqkit.datatypes.int64())])
    path.write_bytes(b"PAR1" + bytes(100))
    with pytest.raises(pqkit.SchemaError, match="recover needs a schema"):
        pqkit.recover(path, tmp_path / "out.parquet")


def test_recover_with_a_pqkit_schema_of_fields(tmp_path):
    path = tmp_path / "f.parquet"
    pqkit.write_table(OLD, path, row_group_size=10)
    fourth = pq.ParquetFile(path).metadata.row_group(3).column(1)
    cut = fourth.dictionary_page_offset + 3             # inside row group 3's second chunk
    (tmp_path / "cut.parquet").write_bytes(path.read_bytes()[:cut])
    schema = pqkit.read_table(path).schema
    result = pqkit.recover(tmp_path / "cut.parquet", tmp_path / "out.parquet", schema=schema)
    assert (result.row_groups, result.num_rows, result.pages_lost) == (3, 30, 2)
    assert pq.read_table(tmp_path / "out.parquet").column("id").to_pylist() == OLD["id"][:30]
