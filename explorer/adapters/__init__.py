"""Adapters: one module per external system, each implementing a port from ``explorer.core.ports``.

Cypher, SQL, vector codecs and driver calls live here and only here. Every adapter returns core
types, translates its driver's errors into ``explorer.core.errors`` and bounds every call with a
deadline. Adapters may import the core, the standard library and their own driver; never Qt, the
GUI, ingest or tools.
"""
