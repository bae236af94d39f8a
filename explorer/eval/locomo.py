"""LoCoMo evidence recall@k through the real scour path, per retrieval configuration.

The benchmark file (a list of conversations with questions, as published by the LoCoMo authors)
is read from the path given; each conversation is ingested into its own scope
(``locomo/<sample_id>``, the locomo importer's) unless the chunk store already holds all of its
chunks. Every question of categories 1-4 is then asked through ``MemoryService.scour``
restricted to its conversation's scope under each configuration's policy preset, and the
retrieved chunks are mapped back to the turns they came from (several chunks of one turn count
once). Evidence recall at k is the share of a question's evidence turns among its first k
retrieved turns, averaged over questions, overall and per category. Category 5 (adversarial, no
evidence) is left out, as in the published numbers. Imports the standard library, the core, the
ingest importers and chunking, and the ingest pipeline (lazily, only when something must be
loaded).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from explorer.core.errors import ExplorerError, InvalidArgument, MemoryUnavailable
from explorer.core.layers import GRAPH_LAYERS
from explorer.core.policy import RetrievalPolicy, preset
from explorer.core.ports import ChunkStore
from explorer.core.scour import ScourRequest, ScourResult
from explorer.eval import write_report
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.importers.base import ImportLimits, join_scope
from explorer.ingest.importers.locomo import read_locomo

DEFAULT_KS = (5, 10, 25, 50)
DEFAULT_CONFIGS = ("lexical", "vector", "hybrid", "full")
#: Question categories with evidence (5, adversarial, has none and is left out).
CATEGORIES: Mapping[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
MULTI_HOP = 1
#: Graph memories asked for alongside the chunks when a configuration searches the graph.
GRAPH_TOP_K = 10
#: Questions in flight at once; the stores and the embedder are shared, so a few suffice.
CONCURRENCY = 4
SCOPE_PREFIX = "locomo"


@dataclass(frozen=True, slots=True)
class Reference:
    """A published result printed beside ours: recall@k overall and on multi-hop questions."""

    name: str
    recall: Mapping[int, float]
    multi_hop: Mapping[int, float]


#: LoCoMo paper (Maharana et al., ACL 2024), Table 3: the DRAGON retriever over dialogue turns.
PUBLISHED = Reference(
    name="DRAGON (LoCoMo paper, Table 3)",
    recall={5: 0.567, 10: 0.662, 25: 0.767, 50: 0.827},
    multi_hop={5: 0.354, 10: 0.466},
)

Progress = Callable[[str, int, int], None]


class EvalMemory(Protocol):
    """What the evaluation needs from an open memory (``memory.StoreMemoryService`` has it)."""

    @property
    def chunks(self) -> ChunkStore | None: ...

    async def scour(
        self, request: ScourRequest, policy: RetrievalPolicy | None = None
    ) -> ScourResult: ...


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    scope: str
    questions: tuple[Question, ...]


def parse_evidence(entries: object) -> tuple[str, ...]:
    """Evidence turn ids, de-duplicated in order; "D8:6; D9:17" in one entry counts as two."""
    if isinstance(entries, str):
        entries = [entries]
    if not isinstance(entries, list):
        return ()
    found: dict[str, None] = {}
    for entry in entries:
        if not isinstance(entry, str):
            continue
        for part in entry.split(";"):
            turn_id = part.strip()
            if turn_id:
                found[turn_id] = None
    return tuple(found)


def conversation_scope(sample_id: str) -> str:
    """The scope a conversation is ingested into (the locomo importer's own choice)."""
    return join_scope(None, f"{SCOPE_PREFIX}/{sample_id}")


def read_questions(path: Path) -> list[Conversation]:
    """The conversations' questions of categories 1-4 that name evidence."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise InvalidArgument(f"{path}: cannot read the LoCoMo file: {error}") from error
    except json.JSONDecodeError as error:
        raise InvalidArgument(f"{path}: not valid JSON: {error}") from error
    if not isinstance(document, list):
        raise InvalidArgument(f"{path}: expected a list of LoCoMo conversations")
    conversations: list[Conversation] = []
    for index, sample in enumerate(document):
        if not isinstance(sample, dict) or not isinstance(sample.get("sample_id"), str | int):
            raise InvalidArgument(f"{path}: sample {index} has no sample_id")
        sample_id = str(sample["sample_id"]).strip()
        questions: list[Question] = []
        for item in sample.get("qa") or []:
            if not isinstance(item, dict):
                continue
            category = item.get("category")
            question = item.get("question")
            if category not in CATEGORIES or not isinstance(question, str) or not question.strip():
                continue
            evidence = parse_evidence(item.get("evidence"))
            if evidence:
                questions.append(Question(question.strip(), int(str(category)), evidence))
        conversations.append(
            Conversation(sample_id, conversation_scope(sample_id), tuple(questions))
        )
    return conversations


def ranked_turns(result: ScourResult) -> list[str]:
    """The turns of the recalled chunks in rank order, each turn once."""
    turns: dict[str, None] = {}
    for memory in result.chunks:
        record = memory.candidate.record
        turn_id = getattr(record, "turn_id", "") or memory.candidate.id
        turns.setdefault(turn_id, None)
    return list(turns)


def recall_at(ranked: Sequence[str], evidence: Iterable[str], k: int) -> float:
    """The share of ``evidence`` among the first ``k`` of ``ranked`` (0 for no evidence)."""
    wanted = set(evidence)
    if not wanted:
        return 0.0
    return len(wanted.intersection(ranked[:k])) / len(wanted)


@dataclass
class RecallTally:
    """Running sums of recall@k, overall and per category, for one configuration."""

    ks: tuple[int, ...]
    questions: int = 0
    sums: dict[int, float] = field(default_factory=dict)
    per_category: dict[int, dict[int, float]] = field(default_factory=dict)
    category_counts: Counter[int] = field(default_factory=Counter)

    def add(self, category: int, ranked: Sequence[str], evidence: Sequence[str]) -> None:
        self.questions += 1
        self.category_counts[category] += 1
        sums = self.per_category.setdefault(category, {})
        for k in self.ks:
            value = recall_at(ranked, evidence, k)
            self.sums[k] = self.sums.get(k, 0.0) + value
            sums[k] = sums.get(k, 0.0) + value

    def to_dict(self) -> dict[str, Any]:
        def mean(total: float, count: int) -> float:
            return round(total / count, 6) if count else 0.0

        return {
            "questions": self.questions,
            "recall": {str(k): mean(self.sums.get(k, 0.0), self.questions) for k in self.ks},
            "recall_by_category": {
                str(category): {
                    str(k): mean(
                        self.per_category[category].get(k, 0.0), self.category_counts[category]
                    )
                    for k in self.ks
                }
                for category in sorted(self.per_category)
            },
        }


def expected_chunks(path: Path) -> dict[str, int]:
    """How many chunks each conversation's scope holds once ingested, from the file itself."""
    imported = read_locomo(Path(path), None, ImportLimits())
    counts: Counter[str] = Counter(chunk.scope for chunk in chunk_turns(imported.turns))
    return dict(counts)


async def missing_scopes(memory: EvalMemory, expected: Mapping[str, int]) -> list[str]:
    """Scopes whose chunks are not all in the store yet."""
    if memory.chunks is None:
        raise MemoryUnavailable("the chunk store is not connected; the evaluation needs it")
    counts = await memory.chunks.counts()
    return [
        scope for scope, wanted in expected.items() if int(counts.get(f"scope:{scope}", 0)) < wanted
    ]


async def ensure_ingested(
    memory: EvalMemory, path: Path, progress: Progress | None = None
) -> list[str]:
    """Load the conversations the store does not fully hold yet; returns the scopes loaded."""
    expected = expected_chunks(path)
    missing = await missing_scopes(memory, expected)
    if not missing:
        return []
    from explorer.ingest.pipeline import ingest_file

    if progress is not None:
        progress("ingest", 0, len(missing))
    # Ingest is idempotent (chunks by id, graph merges by id), so loading the file again only
    # adds what is missing; conversations already complete cost a lookup each.
    report = await ingest_file(memory, Path(path), "locomo", scope=None)  # type: ignore[arg-type]
    if not getattr(report, "ok", True):
        summary = getattr(report, "summary", None)
        detail = summary() if callable(summary) else str(report)
        raise ExplorerError(f"{path}: the LoCoMo conversations could not be ingested: {detail}")
    still = await missing_scopes(memory, expected)
    if still:
        raise ExplorerError(f"after ingest, these scopes are still incomplete: {', '.join(still)}")
    if progress is not None:
        progress("ingest", len(missing), len(missing))
    return missing


def _policy(name: str, presets: Mapping[str, RetrievalPolicy]) -> RetrievalPolicy:
    if name in presets:
        return presets[name]
    try:
        return preset(name)
    except InvalidArgument as error:
        raise InvalidArgument(f"unknown evaluation configuration {name!r}: {error}") from None


def _request(question: Question, scope: str, k: int, policy: RetrievalPolicy) -> ScourRequest:
    graph_k = GRAPH_TOP_K if policy.enabled_layers & GRAPH_LAYERS else 0
    return ScourRequest(query=question.text, n_chunks=k, kg_top_k=graph_k, scope=scope)


async def rank_questions(
    memory: EvalMemory,
    conversations: Sequence[Conversation],
    policy: RetrievalPolicy,
    k: int,
    on_done: Callable[[], None] | None = None,
) -> list[list[str]]:
    """The ranked turns of every question, in the conversations' order, under ``policy``."""
    gate = asyncio.Semaphore(CONCURRENCY)

    async def ask(conversation: Conversation, question: Question) -> list[str]:
        async with gate:
            result = await memory.scour(_request(question, conversation.scope, k, policy), policy)
        if result.chunks_error is not None:
            raise MemoryUnavailable(
                f"scour failed on {conversation.sample_id}: {result.chunks_error}"
            )
        if on_done is not None:
            on_done()
        return ranked_turns(result)

    pairs = [(conversation, q) for conversation in conversations for q in conversation.questions]
    return list(await asyncio.gather(*(ask(conversation, q) for conversation, q in pairs)))


async def _ask_all(
    memory: EvalMemory,
    conversations: Sequence[Conversation],
    policy: RetrievalPolicy,
    k: int,
    tally: RecallTally,
    on_done: Callable[[], None],
) -> None:
    ranked = await rank_questions(memory, conversations, policy, k, on_done)
    questions = [q for conversation in conversations for q in conversation.questions]
    for question, turns in zip(questions, ranked, strict=True):
        tally.add(question.category, turns, question.evidence)


async def evaluate_locomo(
    memory: EvalMemory,
    path: Path | str,
    *,
    ks: Sequence[int] = DEFAULT_KS,
    configs: Sequence[str] = DEFAULT_CONFIGS,
    progress: Progress | None = None,
    presets: Mapping[str, RetrievalPolicy] | None = None,
) -> dict[str, Any]:
    """Evidence recall@k per configuration: ``{config: {questions, recall, recall_by_category}}``.

    A configuration is a named preset: one of ``presets`` (say, read from a preset file, for an
    ablation), else a built-in one. ``progress(stage, done, total)`` is called as conversations
    load and questions are answered.
    """
    path = Path(path)
    ks = tuple(sorted(set(ks)))
    if not ks or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 for k in ks):
        raise InvalidArgument(f"k values must be positive integers, not {list(ks)!r}")
    if max(ks) > 100:
        raise InvalidArgument("k values above 100 are not supported (scour returns at most 100)")
    if not configs:
        raise InvalidArgument("name at least one configuration")
    policies = {name: _policy(name, presets or {}) for name in configs}
    conversations = read_questions(path)
    await ensure_ingested(memory, path, progress)
    total = sum(len(c.questions) for c in conversations)
    results: dict[str, Any] = {}
    for name, policy in policies.items():
        tally = RecallTally(ks)
        done = 0

        def step(name: str = name) -> None:
            nonlocal done
            done += 1
            if progress is not None:
                progress(name, done, total)

        await _ask_all(memory, conversations, policy, max(ks), tally, step)
        results[name] = tally.to_dict()
    return results


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100.0 * value:.1f}"


def format_table(results: Mapping[str, Any], reference: Reference = PUBLISHED) -> str:
    """A markdown table of recall@k (percent) per configuration, the published result beneath."""
    ks: list[int] = sorted(
        {int(k) for body in results.values() for k in body.get("recall", {})}
        or set(reference.recall)
    )
    headers = ["config", "questions", *(f"R@{k}" for k in ks)]
    headers += [f"multi-hop R@{k}" for k in ks if k in (5, 10)]
    headers += [f"{CATEGORIES[c]} R@{ks[0]}" for c in (2, 3, 4)]
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    for name, body in results.items():
        recall = body.get("recall", {})
        by_category = body.get("recall_by_category", {})
        multi = by_category.get(str(MULTI_HOP), {})
        row = [name, str(body.get("questions", 0))]
        row += [_percent(recall.get(str(k))) for k in ks]
        row += [_percent(multi.get(str(k))) for k in ks if k in (5, 10)]
        row += [_percent(by_category.get(str(c), {}).get(str(ks[0]))) for c in (2, 3, 4)]
        lines.append("| " + " | ".join(row) + " |")
    published = [reference.name, "–"]
    published += [_percent(reference.recall.get(k)) for k in ks]
    published += [_percent(reference.multi_hop.get(k)) for k in ks if k in (5, 10)]
    published += ["–", "–", "–"]
    lines.append("| " + " | ".join(published) + " |")
    return "\n".join(lines)


def print_progress(stage: str, done: int, total: int) -> None:
    if done == total or done % 50 == 0:
        print(f"\r{stage}: {done}/{total}", end="\n" if done == total else "", flush=True)


async def run_eval_command(
    memory: EvalMemory,
    path: Path | str,
    ks: Sequence[int],
    configs: Sequence[str],
    json_out: Path | str | None,
    presets: Mapping[str, RetrievalPolicy] | None = None,
) -> int:
    """``eval locomo``: run, print the table, write the JSON when asked; the exit status."""
    started = time.perf_counter()
    results = await evaluate_locomo(
        memory, path, ks=ks, configs=configs, progress=print_progress, presets=presets
    )
    print(format_table(results))
    print(f"({time.perf_counter() - started:.0f} s)")
    if json_out is not None:
        await write_report(json_out, results)
    return 0
