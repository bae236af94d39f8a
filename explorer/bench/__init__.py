"""Benchmarks the project ships, each printing a markdown table of measured figures and targets.

``seed`` is ``scour-explorer bench``: scour at the seed system's scale against the stores' own
floor (with ``workload``, ``floor``, ``measure`` and ``report`` as its parts); ``coordinator``
times the coordinator's pure work, ``ingest`` a real import and ``gui`` the explorer window. The
benchmarks import whatever they measure; nothing in the application imports them.
"""
