"""Kartothek v4 datasets: finding and checking the metadata (``metadata``), reading one
table read-only (``source``), and registering it in place as a PQDS/1 dataset
(``import_table``)."""
from pqkit.dataset.kartothek.import_table import import_kartothek, open_kartothek
from pqkit.dataset.kartothek.metadata import locate
from pqkit.dataset.kartothek.source import KartothekSource
