"""Running pqinspect in-process for the CLI tests."""
from pqkit.cli.main import main


def run(capsys, *argv):
    """(exit code, stdout, stderr) of ``pqinspect *argv``; arguments may be paths."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err
