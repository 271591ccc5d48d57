"""Plain Hive-partitioned directories (Spark, Hive, pyarrow, DuckDB output), read-only."""
