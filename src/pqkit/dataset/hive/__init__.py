"""Plain Hive-partitioned directories (Spark, Hive, pyarrow, DuckDB output), read-only."""
from pqkit.dataset.hive.source import HiveSource, hidden
