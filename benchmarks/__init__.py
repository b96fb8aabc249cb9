"""Benchmarks: each figure beside a baseline measured in the same run. Run `python -m benchmarks`."""
