"""The pyarrow-shaped metadata API against pyarrow's own: ``to_dict()`` field by field.

Over every corpus file pyarrow reads and over a pqkit-written table of every type,
``pqkit.read_metadata(f).to_dict()`` must equal ``pq.read_metadata(f).to_dict()``
except where pqkit differs on purpose (``KNOWN``): each entry names the field and
why, and the test fails when a listed difference no longer occurs.
"""
import datetime
import io
import math

import pyarrow.parquet as pq
import pytest

import pqkit
from corpus import entries, path_of
from interop.readers_matrix import SOURCE

# pyarrow 26 does not know the IEEE 754 total order: it ignores min_value/max_value
# under it and reports no bounds; pqkit gives them.
TOTAL_ORDER_FILES = {"data/floating_orders_nan_count.parquet"}
# parquet-mr before 1.10 ordered binary bounds as signed bytes. pyarrow hides such a
# chunk's statistics altogether (null count included); pqkit keeps the counts and
# drops only the untrusted bounds (has_min_max False unless min == max), as its
# filters do. For FIXED_LEN_BYTE_ARRAY decimals pyarrow trusts them; pqkit does not.
OLD_PARQUET_MR_FILES = {"data/datapage_v2.snappy.parquet", "data/nested_lists.snappy.parquet",
                        "data/nested_maps.snappy.parquet", "data/nonnullable.impala.parquet",
                        "data/nullable.impala.parquet", "data/fixed_length_decimal.parquet",
                        "data/fixed_length_decimal_legacy.parquet"}
# The Hadoop-framed LZ4 codec: pyarrow 26 says "UNKNOWN", pqkit says "LZ4_HADOOP"
# (its writer option for that codec).
HADOOP_LZ4_FILES = {"data/hadoop_lz4_compressed.parquet",
                    "data/hadoop_lz4_compressed_larger.parquet",
                    "data/non_hadoop_lz4_compressed.parquet"}


def _same(ours, theirs):
    if isinstance(ours, float) and isinstance(theirs, float) and math.isnan(ours):
        return math.isnan(theirs)
    if hasattr(theirs, "value") and hasattr(theirs, "nanosecond") and isinstance(ours, int):
        return ours == theirs.value     # pandas Timestamp (pyarrow's ns bound) vs int ns
    return type(ours) is type(theirs) and ours == theirs or \
        isinstance(ours, datetime.datetime) and isinstance(theirs, datetime.datetime) \
        and ours == theirs and (ours.tzinfo is None) == (theirs.tzinfo is None)


def differences(ours, theirs, path=()):
    """(path, ours, theirs) of every leaf value that differs."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        out = []
        for key in theirs:
            if key == "geo_statistics":     # not part of pqkit's to_dict
                continue
            out += differences(ours.get(key, "<missing>"), theirs[key], path + (key,))
        out += [(path + (k,), ours[k], "<missing>") for k in ours if k not in theirs]
        return out
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        return [d for i, (a, b) in enumerate(zip(ours, theirs))
                for d in differences(a, b, path + (i,))]
    return [] if _same(ours, theirs) else [(path, ours, theirs)]


def _absent(value):
    return value is None or value is False


def _expected(name, path, ours, theirs):
    """Whether a difference is one of the listed, deliberate ones."""
    field = path[-1]
    if name in HADOOP_LZ4_FILES and field == "compression":
        return ours == "LZ4_HADOOP" and theirs == "UNKNOWN"
    if name in TOTAL_ORDER_FILES and field in ("has_min_max", "min", "max"):
        return _absent(theirs) and not _absent(ours)
    if name in OLD_PARQUET_MR_FILES:
        if field == "is_stats_set":
            return ours is True and theirs is False
        if field == "statistics":
            return theirs is None and isinstance(ours, dict)
        if field in ("has_min_max", "min", "max"):
            return _absent(ours) and not _absent(theirs)
    return False


def _pyarrow_reads(entry):
    try:
        pq.read_metadata(path_of(entry))
    except Exception:       # pyarrow's verdict decides which files are compared
        return False
    return True


CORPUS = [p for p in entries(lambda e: e["readable"]) if _pyarrow_reads(p.values[0])]


@pytest.mark.corpus
@pytest.mark.parametrize("entry", CORPUS)
def test_to_dict_matches_pyarrow_on_corpus(entry):
    name = entry["path"]
    ours = pqkit.read_metadata(path_of(entry)).to_dict()
    theirs = pq.read_metadata(path_of(entry)).to_dict()
    if ours["created_by"] is None:
        assert theirs["created_by"] == ""           # pyarrow shows an absent one as ""
        ours["created_by"] = ""
    unexpected = [d for d in differences(ours, theirs) if not _expected(name, *d)]
    assert unexpected == []


@pytest.mark.corpus
def test_every_listed_difference_still_occurs():
    listed = TOTAL_ORDER_FILES | OLD_PARQUET_MR_FILES | HADOOP_LZ4_FILES
    for name in sorted(listed):
        path = path_of({"path": name})
        found = differences(pqkit.read_metadata(path).to_dict(),
                            pq.read_metadata(path).to_dict())
        assert found, f"{name} now matches pyarrow: remove it from the list"
        assert all(_expected(name, *d) for d in found)


@pytest.fixture(scope="module")
def full_type_file():
    buf = io.BytesIO()
    pqkit.write_table(SOURCE, buf, row_group_size=50)
    return buf.getvalue()


def test_to_dict_matches_pyarrow_on_full_type_table(full_type_file):
    ours = pqkit.read_metadata(full_type_file)
    theirs = pq.read_metadata(io.BytesIO(full_type_file))
    assert ours.num_row_groups == 3 and ours.num_columns == theirs.num_columns > 40
    assert differences(ours.to_dict(), theirs.to_dict()) == []
    assert ours.metadata == theirs.metadata
    assert ours.serialized_size == theirs.serialized_size
    assert ours.format_version == theirs.format_version == "2.6"


def test_typed_statistics_match_pyarrow_per_column(full_type_file):
    """min/max under each logical type, with the Python types pyarrow gives."""
    ours = pqkit.read_metadata(full_type_file)
    theirs = pq.read_metadata(io.BytesIO(full_type_file))
    checked = 0
    for g in range(ours.num_row_groups):
        for j in range(ours.num_columns):
            a = ours.row_group(g).column(j).statistics
            b = theirs.row_group(g).column(j).statistics
            assert (a is None) == (b is None)
            if a is None or not b.has_min_max:
                continue
            for field in ("min", "max", "null_count", "distinct_count", "num_values",
                          "has_null_count", "has_distinct_count", "physical_type",
                          "converted_type", "min_raw", "max_raw"):
                mine, ref = getattr(a, field), getattr(b, field)
                assert _same(mine, ref), (ours.row_group(g).column(j).path_in_schema, field)
            checked += 1
    assert checked > 100
