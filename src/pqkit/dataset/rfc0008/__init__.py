"""RFC-0008 single-manifest datasets: ``<key>/`` with its parts, ``manifest.json`` and
``_SUCCESS`` (DATASET.md §3.13): reading and checking them (``manifest``), the
``schema_hash`` (``schema_hash``), writing and repairing them (``writing``) and the
RFC's store API (``store``)."""
from pqkit.dataset.rfc0008.manifest import SUCCESS, RfcManifestSource, manifest_path
from pqkit.dataset.rfc0008.store import (
    DatasetManifest,
    ParquetDatasetStore,
    dataset_exists,
    delete_dataset,
)
from pqkit.dataset.rfc0008.writing import repair, write
