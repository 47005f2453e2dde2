"""All I/O: the data-root layout, atomic Parquet writes, the DuckDB catalog of views, runs and releases."""
