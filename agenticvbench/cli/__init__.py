"""The `agenticvbench` / `avb` command line: a thin shell over the Python API, one module per command group."""
