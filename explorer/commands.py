"""The bodies of the headless commands, each taking settings and parsed arguments.

Kept apart from ``cli.py`` so the parser stays cheap to import and each command is callable from
tests. Every memory is opened by the composition root (``explorer.compose``). Every command
returns an exit status; user-caused failures raise ``ExplorerError``, which the CLI prints as one
line.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from explorer.compose import embedded_servers, make_embedder, open_memory
from explorer.core.codec import indented_json
from explorer.core.errors import ExplorerError, InvalidArgument
from explorer.core.policy import RetrievalPolicy
from explorer.settings import Settings
from explorer.tools import CORE_MEMORY, ToolContext


def _print_json(value: Any) -> None:
    print(indented_json(value))


def servers(settings: Settings, action: str, idle: float | None = None) -> int:
    """``servers start|stop|status|watch`` for the embedded stores."""
    if not settings.embedded:
        raise ExplorerError("both stores are external (settings); there is nothing to manage")
    manager = embedded_servers(settings)
    if action == "watch":
        manager.watch(idle if idle is not None else settings.idle_timeout)
        return 0
    if action == "start":
        statuses = manager.start()
    elif action == "stop":
        manager.stop()
        statuses = manager.status()
    else:
        statuses = manager.status()
    for status in statuses:
        state = "running" if status.running else "stopped"
        pid = f" pid {status.pid}" if status.pid else ""
        version = f" {status.version}" if status.version else ""
        detail = f" ({status.detail})" if status.detail else ""
        print(f"{status.name}: {state}{pid}{version} {status.address}{detail}")
    users = manager.holders()
    kept = "kept running until servers stop" if manager.persistent else "stopped when unused"
    print(f"in use by {len(users)} process{'es' if len(users) != 1 else ''}; {kept}")
    return 0


def _policy(args: argparse.Namespace, base: RetrievalPolicy) -> RetrievalPolicy:
    """The retrieval policy the query flags ask for, on top of a preset or the default."""
    from dataclasses import replace

    from explorer.core.models import MemoryLayer
    from explorer.core.policy import load_presets, preset

    policy = base
    if args.preset:
        if args.preset_file:
            presets = load_presets(args.preset_file)
            if args.preset not in presets:
                raise InvalidArgument(f"no preset {args.preset!r} in {args.preset_file}")
            policy = presets[args.preset]
        else:
            policy = preset(args.preset)
    changes: dict[str, Any] = {}
    if args.layers:
        try:
            changes["enabled_layers"] = frozenset(
                MemoryLayer(name.strip()) for name in args.layers.split(",") if name.strip()
            )
        except ValueError:
            known = ", ".join(layer.value for layer in MemoryLayer)
            raise InvalidArgument(f"--layers takes names from: {known}") from None
    if args.min_relevance is not None:
        changes["min_relevance"] = args.min_relevance
    if args.min_salience is not None:
        changes["min_salience"] = args.min_salience
    if args.hops is not None or args.no_activation:
        activation = policy.activation
        if args.hops is not None:
            activation = replace(activation, hops=args.hops)
        if args.no_activation:
            activation = replace(activation, enabled=False)
        changes["activation"] = activation
    return replace(policy, **changes) if changes else policy


async def query(settings: Settings, args: argparse.Namespace) -> int:
    """``query TEXT``: scour's JSON on stdout; non-zero with one line when it fails."""
    from explorer.tools.scour import run

    scope = settings.default_scope if args.scope is None else args.scope
    async with open_memory(settings) as memory:
        if settings.load_demo:
            await memory.ensure_demo()
        ctx = ToolContext(
            user_id=args.user,
            privileges=CORE_MEMORY,
            memory=memory,
            scope=scope,
            policy=_policy(args, memory.policy),
        )
        answer = await run(
            args.text,
            n_chunks=args.n_chunks,
            kg_top_k=args.kg_top_k,
            domain=args.domain,
            temporal=args.temporal,
            explain=args.explain,
            ctx=ctx,
        )
        parsed = json.loads(answer)
        # Nothing found in a scope nothing is stored under is a typo, not an empty answer.
        unknown = (
            parsed.get("success") is True
            and not parsed.get("kg_count")
            and not parsed.get("chunk_count")
            and scope.strip("/")
            and _unknown_scope(await memory.overview(), scope)
        )
    print(answer)
    if not parsed.get("success"):
        print(f"scour-explorer: {parsed.get('error', 'scour failed')}", file=sys.stderr)
        return 1
    if unknown:
        print(
            f"scour-explorer: no memory is stored under scope {scope!r} "
            "(`scour-explorer stats` lists the scopes)",
            file=sys.stderr,
        )
        return 1
    return 0


def _unknown_scope(overview: Any, scope: str) -> bool:
    """Whether both stores answered and neither holds anything under ``scope``."""
    return not overview.errors and overview.scopes.find(scope) is None


async def mcp(settings: Settings) -> int:
    """``mcp``: the memory's tools for an agent over the Model Context Protocol on stdio."""
    from explorer.mcp_server import serve_stdio

    return await serve_stdio(settings)


async def ingest(settings: Settings, args: argparse.Namespace) -> int:
    """``ingest PATH --format F``: import conversations with a progress bar."""
    from explorer.ingest.importers import suggest_scope
    from explorer.ingest.pipeline import ingest_file
    from explorer.ingest.progress import ProgressBar

    # The window's default too: a file imported from either lands in the same scope.
    scope = args.scope if args.scope is not None else suggest_scope(args.path)
    async with open_memory(settings) as memory:
        report = await ingest_file(
            memory,
            args.path,
            args.format,
            scope=scope,
            skip_bad=args.skip_bad,
            progress=ProgressBar(),
        )
    print(report.summary())
    return 0 if report.ok else 1


async def stats(settings: Settings, *, as_json: bool) -> int:
    """``stats``: counts by layer, type, scope and domain; the embedding model; versions."""
    from explorer.ingest.stats import COUNTS_OF, answered, memory_stats

    async with open_memory(settings) as memory:
        figures = await memory_stats(memory)
    if as_json:
        _print_json(figures)
    else:
        errors = figures.get("errors")
        unanswered = set(errors) if isinstance(errors, dict) else set()
        for key, value in figures.items():
            lost = value is None and COUNTS_OF.get(key) in unanswered
            print(f"{key}: {'unknown (its store did not answer)' if lost else value}")
    if not answered(figures):
        print("scour-explorer: neither store answered; nothing was counted", file=sys.stderr)
        return 1
    return 0


async def demo(settings: Settings, *, reset: bool) -> int:
    """``demo [--reset]``: load the demo memory (again)."""
    from explorer.ingest.progress import ProgressBar

    async with open_memory(settings) as memory:
        loaded = await memory.ensure_demo(progress=ProgressBar(), reset=reset)
    print(
        "demo memory loaded"
        if loaded
        else "demo memory not loaded: it is there already, or this memory holds other "
        "conversations or forgot it (--reset loads it)"
    )
    return 0


async def forget(settings: Settings, scope: str, *, yes: bool) -> int:
    """``forget SCOPE [--yes]``: delete a scope and every scope below it from both halves;
    without ``--yes`` it only says what would go."""
    from explorer.core.models import scope_distance
    from explorer.core.validate import forgettable_scope
    from explorer.ingest.stats import memory_stats

    plain = forgettable_scope(scope)
    async with open_memory(settings) as memory:
        if not yes:
            by_scope = (await memory_stats(memory)).get("chunks_by_scope")
            if not isinstance(by_scope, dict):
                raise ExplorerError("the chunk store did not answer: nothing was looked at")
            inside = {n: c for n, c in by_scope.items() if scope_distance(n, plain) == 0}
            if not inside:
                print(f"no chunks are stored under {plain!r}; --yes forgets its entities if any")
            for name, count in sorted(inside.items()):
                print(f"{name}: {count:,} chunks")
            print(f"run again with --yes to forget {plain!r} and every scope below it")
            return 1
        forgotten = await memory.forget_scope(plain)
    if not (forgotten.chunks or forgotten.entities or forgotten.concepts):
        print(f"scour-explorer: nothing is stored under {plain!r}", file=sys.stderr)
        return 1
    print(forgotten.describe())
    return 0


async def generate(settings: Settings, args: argparse.Namespace) -> int:
    """``generate``: a synthetic memory of the seed system's size."""
    from explorer.ingest.generate import generate as write_synthetic
    from explorer.ingest.progress import ProgressBar

    async with open_memory(settings) as memory:
        graph, chunks, concepts = memory.require_stores()
        report = await write_synthetic(
            graph,
            chunks,
            concepts,
            memory.embedder,
            entities=args.entities,
            edges=args.edges,
            chunks_n=args.chunks,
            seed=args.seed,
            progress=ProgressBar(),
        )
    print(report)
    return 0


async def reembed(settings: Settings) -> int:
    """``reembed``: re-embed every chunk and entity name with the configured embedder."""
    from explorer.ingest.pipeline import reembed_all
    from explorer.ingest.progress import ProgressBar

    async with open_memory(settings) as memory:
        report = await reembed_all(memory, progress=ProgressBar())
    print(report.summary())
    return 0


async def evaluate(settings: Settings, args: argparse.Namespace) -> int:
    """``eval locomo PATH``: evidence recall@k per configuration; ``eval extraction GOLD``."""
    from explorer.core.policy import load_presets
    from explorer.eval.locomo import run_eval_command

    if args.benchmark == "extraction":
        from explorer.eval import extraction

        # Extraction needs the embedder (near-duplicate names) but no store.
        return await extraction.run_eval_command(args.path, make_embedder(settings), args.json_out)

    try:
        ks = tuple(int(k) for k in args.k.split(","))
    except ValueError:
        raise InvalidArgument(f"--k takes comma-separated integers, not {args.k!r}") from None
    configs = tuple(name.strip() for name in args.configs.split(",") if name.strip())
    presets = load_presets(args.preset_file) if args.preset_file else {}
    async with open_memory(settings) as memory:
        if args.cross_validate:
            from explorer.eval.crossval import run_cross_validation

            return await run_cross_validation(memory, args.path, ks, args.folds, args.json_out)
        return await run_eval_command(memory, args.path, ks, configs, args.json_out, presets)


async def bench(settings: Settings, args: argparse.Namespace) -> int:
    """``bench``: speed at the seed system's scale against the stores' own floor."""
    from explorer.bench.seed import run_bench

    return await run_bench(settings, scale=args.scale, json_out=args.json_out, queries=args.queries)
