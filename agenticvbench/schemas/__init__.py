"""JSON Schemas shipped with the package (package data): `result.schema.json` for per-task result files."""
