"""pqinspect dataset: the actions that look into a dataset directory (dataset_cmd), those
that change a PQDS/1 dataset (dataset_maintenance) and merge's --from file (merge_source)."""
