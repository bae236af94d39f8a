"""How the demo memory's edges split by type: the share of weak co-occurrence against typed facts.

``relation_shares`` counts an extraction's relations by type; ``demo_edge_shares`` extracts the
demo conversations the way an import into an empty memory does (chunked, one extraction per
conversation, near-duplicates and short names merged) and counts those. ``python -m
explorer.ingest.edge_shares`` prints the figures with the local embedder, so the CO_OCCURS share
quoted in the README can be reproduced. Imports the standard library, core ports and ingest
modules; the local embedder only when run as a command.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterable

from explorer.core.models import WEAK_RELATIONS, Relation
from explorer.core.ports import Embedder
from explorer.ingest.demo import demo_turns


def relation_shares(relations: Iterable[Relation]) -> dict[str, object]:
    """Counts by type, the total, the CO_OCCURS share of all edges and of the drawn ones.

    Drawn edges are every relation except MENTIONS (a speaker naming something, kept for
    retrieval and not drawn as an edge between two things).
    """
    counts = Counter(relation.type for relation in relations)
    total = sum(counts.values())
    drawn = total - counts["MENTIONS"]
    co_occurs = counts["CO_OCCURS"]
    typed = total - sum(counts[kind] for kind in WEAK_RELATIONS)
    return {
        "total": total,
        "drawn": drawn,
        "typed_facts": typed,
        "co_occurs": co_occurs,
        "co_occurs_share_of_all": round(co_occurs / total, 4) if total else 0.0,
        "co_occurs_share_of_drawn": round(co_occurs / drawn, 4) if drawn else 0.0,
        "by_type": dict(sorted(counts.items(), key=lambda item: (-item[1], item[0]))),
    }


async def demo_edge_shares(embedder: Embedder) -> dict[str, object]:
    """``relation_shares`` of the demo memory's graph as an import into an empty memory makes it."""
    from explorer.eval.extraction import extract_as_imported

    turns = await asyncio.to_thread(demo_turns)
    _chunks, extraction = await extract_as_imported(turns, embedder)
    return relation_shares(extraction.relations)


def main() -> None:
    from explorer.adapters.local_embedder import LocalEmbedder

    print(json.dumps(asyncio.run(demo_edge_shares(LocalEmbedder())), indent=2))


if __name__ == "__main__":
    main()
