"""pqinspect's commands over decoded rows: head and cat (rows_cmd), take, and convert
(CSV / JSON Lines <-> Parquet); row_view shows rows for head and take."""
