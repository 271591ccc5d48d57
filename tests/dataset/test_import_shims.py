"""The dataset modules that moved when dataset/ was laid out by format keep their old
import names for one release: the old name is the new module, with a DeprecationWarning."""
import importlib
import sys

import pytest

SHIMS = {
    "pqkit.dataset.storage": "pqkit.dataset.core.storage",
    "pqkit.dataset.canonical": "pqkit.dataset.core.canonical",
    "pqkit.dataset.kartothek_import": "pqkit.dataset.kartothek.import_table",
    "pqkit.dataset.layouts": "pqkit.dataset.detect",
}


@pytest.mark.parametrize("old,new", sorted(SHIMS.items()))
def test_old_module_name_is_the_moved_module_and_warns(old, new):
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        shim = importlib.import_module(old)
    assert shim is importlib.import_module(new)


def test_names_imported_from_old_modules_are_the_new_objects():
    for old in SHIMS:
        sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning):
        from pqkit.dataset.kartothek_import import import_kartothek
        from pqkit.dataset.layouts import detect_layout
        from pqkit.dataset.storage import ObjectStorage
    import pqkit.dataset as pds
    from pqkit.dataset.core.storage import ObjectStorage as moved
    assert import_kartothek is pds.import_kartothek
    assert detect_layout is pds.detect_layout
    assert ObjectStorage is moved


def test_the_public_name_of_root_paths_stays_layout():
    import pqkit.dataset as pds
    from pqkit.dataset.pqds.paths import RootPaths
    assert pds.Layout is RootPaths
    assert pds.Layout("/x").version_path(3).endswith("_00000000000000000003.json")
