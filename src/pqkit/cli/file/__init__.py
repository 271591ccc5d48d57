"""pqinspect's commands that look into Parquet files rather than list their rows: the
footer (schema, meta, diff), the bytes (pages, index, layout, dictionary, bloom;
chunk_walk walks a chunk's pages for three of them), the format's rules (verify), and
what a read or a rewrite would do (explain, advise)."""
