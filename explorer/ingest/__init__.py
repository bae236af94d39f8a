"""Ingest: conversations turned into chunks, entities, relations, provenance and concepts.

``importers`` read LoCoMo, JSONL and ChatGPT-export files into turns (strict, or skipping bad
records); ``chunking`` cuts turns into verbatim chunks with offsets; ``extractor`` finds entities
and relations (the offline rules by default, any ``Extractor`` in its place); ``aliases`` and
``evidence`` merge and score them; ``concepts`` builds the term-scan records; ``pipeline`` writes
all of it to the stores in a crash-safe order and reconciles interrupted imports; ``demo`` loads
the shipped demo memory; ``progress`` reports on all of it. Nothing here imports Qt; the stores
come in through ``explorer.core.ports``.
"""
