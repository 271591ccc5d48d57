"""PQDS/1, pqkit's own format: versioned snapshots committed with put-if-absent.

Paths under the root (``paths``), the commit loop (``commit``), the conflict table
(``operations``), staging data files (``staging``), writes (``write``), the
plain-reader view (``publishing``), garbage collection and recovery (``vacuuming``),
inverted indices (``index_segments``, ``index_build``), the Parquet copy of a
version's file list (``file_list``), where versions and files come from
(``sources``), reading a snapshot (``reader``), maintenance (delete, compact, restore,
tags, renaming and dropping columns) and ``merge``.
"""
from pqkit.dataset.pqds.index_build import build_index, optimize_index
from pqkit.dataset.pqds.index_segments import KIND, ValueMap, indexed_field, write_segment
from pqkit.dataset.pqds.maintenance import (
    compact,
    compact_plan,
    delete,
    drop_column,
    rename_column,
    restore,
    tag,
    untag,
)
from pqkit.dataset.pqds.merging import merge, merge_plan
from pqkit.dataset.pqds.paths import RootPaths
from pqkit.dataset.pqds.publishing import publish, published_version, try_publish
from pqkit.dataset.pqds.reader import DataFile, Dataset, VerifyReport, open_snapshot
from pqkit.dataset.pqds.sources import ManifestSource, ObjectManifestSource
from pqkit.dataset.pqds.staging import discard_staged, stage_file
from pqkit.dataset.pqds.vacuuming import repair, vacuum
from pqkit.dataset.pqds.write import MODES
from pqkit.dataset.pqds.version_schema import checked_manifest
