"""The knowledge graph in FalkorDB, by job: ``store`` (``FalkorGraphStore``, the ``GraphStore``),
``connection`` (the bounded pool, reads and writes), ``schema`` (the indexes), ``cypher`` (every
statement), ``codec`` (models to parameter rows, compact replies to models) and ``errors`` (driver
errors to the project's own). Imports only its own modules.
"""

from explorer.adapters.falkor.store import FalkorGraphStore

__all__ = ["FalkorGraphStore"]
