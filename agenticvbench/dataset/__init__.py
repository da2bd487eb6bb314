"""The benchmark's tasks: loading from the Hub, a mirror or a parquet, typed tasks, archives, task selection."""
