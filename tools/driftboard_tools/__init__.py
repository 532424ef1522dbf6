"""Benchmarks: they print measured figures and ratios against a baseline timed in the same run."""
