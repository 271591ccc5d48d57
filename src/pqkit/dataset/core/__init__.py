"""What every dataset format shares: file operations, the snapshot, partitions, planning.

A root of any format is read as one *snapshot* (:class:`~.snapshot.Manifest`, the
form of a PQDS/1 version file) listing file entries; these modules know nothing of
where a format keeps its snapshot. Nothing here imports a format package.
"""
