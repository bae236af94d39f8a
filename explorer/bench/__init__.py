"""Benchmarks the project ships: each module has a ``main()`` printing a markdown table."""
