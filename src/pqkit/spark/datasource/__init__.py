"""The ``pqkit`` format behind Spark's Python Data Source API: the DataSource class, its
options, batch reads and writes, pushed filters, scan statistics and Structured Streaming
over PQDS/1 datasets."""
