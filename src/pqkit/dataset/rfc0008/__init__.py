"""RFC-0008 single-manifest datasets: ``<key>/`` with its parts, ``manifest.json`` and
``_SUCCESS`` (DATASET.md §3.13): reading and checking them (``manifest``), the
``schema_hash`` (``schema_hash``), writing and repairing them (``write``) and the
RFC's store API (``store``)."""
