"""Paired statistics for comparing two stacks task by task, and power calculations for planning a comparison."""
