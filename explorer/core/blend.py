"""Scope blending: a memory from higher up the scope hierarchy is worth less.

A memory in the query's own scope (or below it) keeps its whole relevance; one ``d`` levels up
keeps ``decay ** d`` of it; one more than ``max_levels`` up, or on another branch of the
hierarchy, is out of reach (the scope gate drops it). Also computes the scope a store search must
cover to see every memory within reach. Imports only the standard library and core.
"""

from __future__ import annotations

from explorer.core.models import SCOPE_SEPARATOR, scope_distance, scope_parts
from explorer.core.policy import ScopeBlend


def scope_factor(distance: int, blend: ScopeBlend) -> float:
    """The share of relevance kept by a memory ``distance`` levels above the query's scope."""
    if distance <= 0:
        return 1.0
    return float(blend.decay**distance)


def within_reach(memory_scope: str, query_scope: str, blend: ScopeBlend) -> int | None:
    """The memory's distance when it may be recalled at all, else ``None``."""
    distance = scope_distance(memory_scope, query_scope)
    if distance is None or distance > blend.max_levels:
        return None
    return distance


def reach_scopes(query_scope: str, blend: ScopeBlend) -> tuple[str, ...]:
    """The scopes to search (each with everything below it) to see every memory within reach.

    The query's own scope first; then, when blending may climb, the highest ancestor within
    ``max_levels``. That ancestor's subtree also holds sibling branches, which the scope gate
    then drops and records, so the price of looking up is visible in the ledger.
    """
    parts = scope_parts(query_scope)
    own = SCOPE_SEPARATOR.join(parts)
    if blend.max_levels <= 0 or len(parts) <= 1:
        return (own,)
    top = parts[: max(1, len(parts) - blend.max_levels)]
    return (own, SCOPE_SEPARATOR.join(top))
