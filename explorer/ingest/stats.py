"""Statistics of an open memory for ``scour-explorer stats`` and the GUI's status view.

Counts of chunks, pending chunks, entities, relations and mentions; entities by type, chunks by
scope and domain, concepts by scope and everything by layer; the stored and the configured
embedding model (and, for a store that can tell, whether vector search is on and why not); the
servers' versions when the memory runs embedded ones. A store that fails
to answer is listed under ``errors`` instead of failing the whole report, and its counts are
``None``. Imports the standard
library, core errors and ingest helpers; the stores come in through the ports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from explorer.core.errors import ExplorerError
from explorer.core.overview import prefixed_counts
from explorer.ingest.concepts import concept_agent
from explorer.ingest.stores import MemoryStores


async def memory_stats(memory: MemoryStores) -> dict[str, object]:
    """Counts by layer, type, scope and domain, the embedding model, and store versions."""
    figures: dict[str, object] = {}
    errors: dict[str, str] = dict(getattr(memory, "errors", None) or {})
    chunk_counts: Mapping[str, int] = {}
    graph_counts: Mapping[str, int] = {}
    if memory.chunks is not None:
        try:
            chunk_counts = await memory.chunks.counts()
            stored_spec = await memory.chunks.embedding_spec()
            figures["embedding"] = (
                None
                if stored_spec is None
                else {"model": stored_spec.model, "dimension": stored_spec.dimension}
            )
        except ExplorerError as error:
            errors["chunks"] = str(error)
    if memory.graph is not None:
        try:
            graph_counts = await memory.graph.counts()
        except ExplorerError as error:
            errors["graph"] = str(error)
    spec = memory.embedder.spec
    figures["embedder"] = {"model": spec.model, "dimension": spec.dimension}
    # A store that can tell its vectors apart from the embedder's (a graphiti graph) says so.
    refusal = getattr(memory.chunks, "vector_refusal", None)
    if callable(refusal):
        try:
            figures["vector_search"] = (await refusal(spec)) or "on"
        except ExplorerError as error:
            errors["chunks"] = str(error)
    # A store that did not answer has no count: ``None``, never a zero that reads as empty.
    chunks_read = memory.chunks is not None and "chunks" not in errors
    graph_read = memory.graph is not None and "graph" not in errors

    def counted(read: bool, value: object) -> object:
        return value if read else None

    figures["chunks"] = counted(chunks_read, chunk_counts.get("chunks", 0))
    figures["pending"] = counted(chunks_read, chunk_counts.get("pending", 0))
    figures["entities"] = counted(graph_read, graph_counts.get("entities", 0))
    figures["relations"] = counted(graph_read, graph_counts.get("relations", 0))
    figures["mentions"] = counted(graph_read, graph_counts.get("mentions", 0))
    by_type = prefixed_counts(graph_counts, "type:")
    figures["entities_by_type"] = counted(graph_read, by_type)
    scopes = prefixed_counts(chunk_counts, "scope:")
    figures["chunks_by_scope"] = counted(chunks_read, scopes)
    figures["chunks_by_domain"] = counted(chunks_read, prefixed_counts(chunk_counts, "domain:"))
    concepts_by_scope: dict[str, int] = {}
    if memory.concepts is not None:
        try:
            agents = set(await memory.concepts.agents())
            # Scopes that hold chunks are listed even when none of their concepts is written yet.
            agents.update(concept_agent(scope) for scope in scopes)
            for agent in sorted(agents):
                concepts_by_scope[agent] = len(await memory.concepts.names(agent))
        except ExplorerError as error:
            errors["concepts"] = str(error)
    concepts_read = memory.concepts is not None and "concepts" not in errors
    figures["concepts"] = counted(concepts_read, sum(concepts_by_scope.values()))
    figures["concepts_by_scope"] = counted(concepts_read, concepts_by_scope)
    profile = by_type.get("person", 0)
    figures["by_layer"] = {
        "episodic": figures["chunks"],
        "semantic": counted(graph_read, max(int(graph_counts.get("entities", 0)) - profile, 0)),
        "profile": counted(graph_read, profile),
        "concept": figures["concepts"],
    }
    figures["versions"] = _versions(memory)
    if errors:
        figures["errors"] = errors
    return figures


stats = memory_stats


#: The counts each store gives (``None`` when it did not answer), by the store's half.
COUNTS_OF = {
    **dict.fromkeys(("chunks", "pending", "chunks_by_scope", "chunks_by_domain"), "chunks"),
    **dict.fromkeys(("entities", "relations", "mentions", "entities_by_type"), "graph"),
    **dict.fromkeys(("concepts", "concepts_by_scope"), "concepts"),
}


def answered(figures: Mapping[str, object]) -> bool:
    """Whether a ``memory_stats`` report counted anything (one store at least answered)."""
    return figures.get("chunks") is not None or figures.get("entities") is not None


def _versions(memory: object) -> dict[str, str]:
    servers = getattr(memory, "servers", None)
    status = getattr(servers, "status", None)
    if not callable(status):
        return {}
    try:
        found = status()
    except (ExplorerError, OSError):
        return {}
    if isinstance(found, Mapping):
        found = found.values()
    versions: dict[str, str] = {}
    for item in found if isinstance(found, Iterable) else ():
        name, version = getattr(item, "name", None), getattr(item, "version", None)
        if name and version:
            versions[str(name)] = str(version)
    return versions
