"""What results mean: aggregation, the task universe, explanations, comparisons and power."""
