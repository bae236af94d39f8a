"""Retrieval quality measured on public benchmarks, through the same scour path users get.

Each benchmark module reads its data from a path it is given (nothing is bundled), loads it into
the open memory when needed and reports recall per retrieval configuration. Imports the core, the
ingest pipeline and the memory handle; nothing here is imported by the core or the GUI.
"""
