"""Agent cost: usage from harness records, prices, cost tables and columns."""
