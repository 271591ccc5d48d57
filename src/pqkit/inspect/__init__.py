"""What pqinspect shows beyond a plain read: ``verify`` (fsck for Parquet) and
the probes of single structures (dictionary pages, bloom filters)."""
