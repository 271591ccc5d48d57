"""src/pqkit/format/ is generated from parquet.thrift and must be up to date."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_generated_format_package_is_current():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "gen_thrift.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_every_struct_and_enum_is_generated():
    from pqkit import format as fmt
    text = (ROOT / "parquet.thrift").read_text()
    import re
    names = re.findall(r"^(?:struct|union|enum)\s+(\w+)", text, re.M)
    assert len(names) > 60
    for name in names:
        assert hasattr(fmt, name), name
