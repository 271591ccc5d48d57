"""pqkit.inspect.verify.decoded: a page over ReadOptions' size caps is reported unchecked by
--deep, not corrupt."""
from verify_files import findings

import pqkit
from pqkit.inspect.verify import verify_file


def test_a_page_over_the_read_limit_is_not_checked_not_an_error(base, monkeypatch):
    """A dictionary or page that decompresses beyond ReadOptions' cap may be legal (the
    corpus' 1 GiB map dictionary): --deep reports it unchecked (info), not corrupt."""
    from functools import partial

    from pqkit.inspect.verify import decoded
    small = pqkit.ReadOptions(max_page_size=64, max_dictionary_size=64)
    monkeypatch.setattr(decoded, "ColumnChunkReader",
                        partial(decoded.ColumnChunkReader, options=small))
    report = verify_file(base, deep=True)
    skipped = findings(report, "PQ-DEEP-009")
    assert {f.column for f in skipped} == {"x", "f", "s"}
    assert {f.severity for f in skipped} == {"info"} and report.exit_code == 0
    assert "exceed ReadOptions.max_" in skipped[0].message
    assert not findings(report, "PQ-DEEP-001")
