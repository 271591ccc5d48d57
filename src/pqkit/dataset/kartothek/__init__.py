"""Kartothek v4 datasets: finding and checking the metadata (``metadata``), reading one
table (``source``; on an object store ``object_source``), writing one (``writing``, with
its index files in ``index_files`` and the store's keys and writer lock in
``store_access``), and registering it in place as a PQDS/1 dataset (``import_table``)."""
from pqkit.dataset.kartothek.import_table import import_kartothek, open_kartothek
from pqkit.dataset.kartothek.metadata import locate
from pqkit.dataset.kartothek.object_source import ObjectKartothekSource
from pqkit.dataset.kartothek.source import KartothekSource
from pqkit.dataset.kartothek.writing import KartothekWriter
