"""Running pqinspect in-process for the CLI tests, and damaging a file's footer."""
import pqkit
from pqkit import format as fmt
from pqkit.cli.main import main


def run(capsys, *argv):
    """(exit code, stdout, stderr) of ``pqinspect *argv``; arguments may be paths."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def dataset_doc(capsys, *argv, code=0, common=()):
    """The ``--json`` document of ``pqinspect dataset *argv``, its exit code and the
    keys in ``common`` checked."""
    import json
    got, out, err = run(capsys, "dataset", *argv, "--json")
    assert got == code, err
    doc = json.loads(out)
    assert set(common) <= set(doc) and doc["exit_code"] == code and doc["schema_version"] == 1
    return doc


def rewrite_footer(src, dst, edit):
    """Copy `src` to `dst` (a pathlib.Path) with edit(FileMetaData) applied to its footer;
    returns `dst` as a string."""
    md = pqkit.read_metadata(src)
    edit(md.raw)
    body = open(src, "rb").read()[:md.footer_offset]
    footer = fmt.encode(md.raw)
    dst.write_bytes(body + footer + len(footer).to_bytes(4, "little") + b"PAR1")
    return str(dst)
