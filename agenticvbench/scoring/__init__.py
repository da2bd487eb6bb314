"""The engine: jobs, executors (serial, pool, Dask), deadlines, and writing results."""
