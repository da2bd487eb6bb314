"""AgenticVBench as a Harbor dataset: gold (oracle) outputs, task export, job import.

Harbor itself (PyPI `harbor`, Python >= 3.12) is never imported by this package: export writes plain files
Harbor reads, import reads the files a Harbor job leaves behind. See `docs/harbor.md`.
"""
