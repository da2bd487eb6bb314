"""The result record: its model and schema, the results folder, signatures, provenance."""
