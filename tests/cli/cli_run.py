"""Running pqinspect in-process for the CLI tests."""
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
