"""Kartothek v4 datasets: finding and checking the metadata (``metadata``), reading one
table read-only (``source``), and registering it in place as a PQDS/1 dataset
(``import_table``)."""
