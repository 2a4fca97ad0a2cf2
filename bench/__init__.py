"""papertalk's benchmarks: run them with `python -m bench.<name>`; results are recorded in docs/benchmarks.md."""
