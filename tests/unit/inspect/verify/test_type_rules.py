"""pqkit.inspect.verify.type_rules: type annotations illegal on their physical type."""
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from verify_files import findings, rewrite_footer

from pqkit import format as fmt
from pqkit.inspect.verify import verify_file


def _logical(**member):
    return fmt.LogicalType(**member)


@pytest.mark.parametrize("leaf, change, rule", [
    (0, {"logicalType": _logical(STRING=fmt.StringType()), "converted_type": None},
     "PQ-TYPE-001"),
    (0, {"logicalType": _logical(DECIMAL=fmt.DecimalType(scale=2, precision=20)),
         "converted_type": None}, "PQ-TYPE-002"),
    (0, {"logicalType": _logical(INTEGER=fmt.IntType(bitWidth=32, isSigned=True)),
         "converted_type": None}, "PQ-TYPE-003"),
    (0, {"logicalType": _logical(INTEGER=fmt.IntType(bitWidth=12, isSigned=True)),
         "converted_type": None}, "PQ-TYPE-003"),
    (1, {"logicalType": _logical(UUID=fmt.UUIDType()), "converted_type": None},
     "PQ-TYPE-001"),
    (0, {"logicalType": _logical(DATE=fmt.DateType()), "converted_type": None},
     "PQ-TYPE-001"),
    (2, {"logicalType": _logical(FLOAT16=fmt.Float16Type()), "converted_type": None},
     "PQ-TYPE-001"),
    (2, {"converted_type": fmt.ConvertedType.INT_32}, "PQ-TYPE-001"),
    (2, {"converted_type": fmt.ConvertedType.ENUM}, "PQ-TYPE-004"),
    (0, {"logicalType": _logical(LIST=fmt.ListType()), "converted_type": None},
     "PQ-TYPE-008"),
])
def test_illegal_type_annotations(base, tmp_path, leaf, change, rule):
    def edit(raw, _):
        for k, v in change.items():
            setattr(raw.schema[leaf + 1], k, v)

    report = verify_file(rewrite_footer(base, tmp_path / "types.parquet", edit))
    hits = findings(report, rule)
    assert hits and hits[0].column == ["x", "f", "s"][leaf], [f.message for f in report.findings]


def test_timestamp_needs_int64(tmp_path):
    path = str(tmp_path / "ts.parquet")
    pq.write_table(pa.table({"t": pa.array([1, 2], pa.int32())}), path)

    def edit(raw, _):
        raw.schema[1].logicalType = _logical(TIMESTAMP=fmt.TimestampType(
            isAdjustedToUTC=True, unit=fmt.TimeUnit(MILLIS=fmt.MilliSeconds())))
        raw.schema[1].converted_type = None

    report = verify_file(rewrite_footer(path, tmp_path / "ts2.parquet", edit))
    assert "TIMESTAMP(MILLIS) on INT32" in findings(report, "PQ-TYPE-001")[0].message
