"""The ``scour-explorer`` command: the app by default, and the headless commands.

Parses arguments, reads settings once (file, environment, flags) and dispatches. Heavy modules are
imported inside each command so ``--help`` and ``query`` stay quick. Every failure the user can
cause ends as one line on stderr and a non-zero exit status, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import re
import signal
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

from explorer import __version__
from explorer.core.errors import ExplorerError
from explorer.settings import Settings, load_settings

log = logging.getLogger("explorer")


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {
        "data_dir": args.data_dir,
        "falkordb_url": args.falkordb_url,
        "postgres_dsn": args.postgres_dsn,
        "embedder": args.embedder,
        "graphiti_graph": args.graphiti,
    }
    return load_settings(file=args.settings, env=os.environ, overrides=overrides)


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size must look like 1400x900, not {text!r}") from None
    if not (200 <= width <= 8000 and 150 <= height <= 8000):
        raise argparse.ArgumentTypeError("size must be between 200x150 and 8000x8000")
    return width, height


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="scour-explorer",
        description="Explore an AI agent's memory: a knowledge graph beside the verbatim chunks.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--data-dir", type=Path, help="where the embedded stores keep their data")
    parser.add_argument("--settings", type=Path, help="a settings.toml file")
    parser.add_argument("--falkordb-url", help="an external FalkorDB (redis:// or rediss://)")
    parser.add_argument("--postgres-dsn", help="an external PostgreSQL with pgvector")
    parser.add_argument("--embedder", choices=["local", "gemini"], help="embedding model")
    parser.add_argument(
        "--graphiti", metavar="GRAPH", help="open the graphiti graph GRAPH (read-only)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log at debug level")
    parser.add_argument("--screenshot", type=Path, metavar="OUT.png", help="save the window, exit")
    parser.add_argument(
        "--query",
        action="append",
        help="with --screenshot: a query to run first (repeat to run several, one after another)",
    )
    parser.add_argument(
        "--scene-json",
        type=Path,
        metavar="SCENE.json",
        help="with --screenshot: also write what the graph shows (nodes, labels, legend, edges)",
    )
    parser.add_argument(
        "--select",
        metavar="NAME",
        help="with --screenshot: after the queries, select the entity of this name",
    )
    parser.add_argument("--size", type=_size, default=(1400, 900), help="with --screenshot: WxH")
    sub = parser.add_subparsers(dest="command")

    query = sub.add_parser("query", help="run scour and print its JSON")
    query.add_argument("text")
    query.add_argument("--n-chunks", type=int, default=3)
    query.add_argument("--kg-top-k", type=int, default=5)
    query.add_argument("--domain")
    query.add_argument("--temporal")
    query.add_argument("--user", default="cli", help="user id recorded in the audit log")
    query.add_argument("--scope", help="scope path to recall from (default: the whole memory)")
    query.add_argument("--preset", help="a named retrieval preset")
    query.add_argument("--preset-file", type=Path, help="a JSON file of named presets")
    query.add_argument("--layers", help="comma-separated layers to search")
    query.add_argument("--min-relevance", type=float)
    query.add_argument("--min-salience", type=float)
    query.add_argument("--hops", type=int, help="spreading-activation hops")
    query.add_argument("--no-activation", action="store_true")
    query.add_argument(
        "--explain", action="store_true", help="the full trace: ledger, activation, breakdowns"
    )

    sub.add_parser("mcp", help="serve scour and memory_stats to an agent over MCP (stdio)")

    servers = sub.add_parser("servers", help="start, stop or show the embedded stores")
    servers.add_argument(
        "action",
        choices=["start", "stop", "status", "watch"],
        help="start: keep them running until stop; watch: stop them once unused (internal)",
    )
    servers.add_argument("--idle", type=float, help="with watch: seconds unused before stopping")

    ingest = sub.add_parser("ingest", help="import conversations")
    ingest.add_argument("path", type=Path)
    ingest.add_argument("--format", required=True, choices=["locomo", "jsonl", "chatgpt"])
    ingest.add_argument(
        "--scope", help="where the conversations go (default: the file's name, as in the window)"
    )
    ingest.add_argument("--skip-bad", action="store_true", help="import good records, report bad")

    stats = sub.add_parser("stats", help="counts by layer, type, scope and domain")
    stats.add_argument("--json", action="store_true")

    demo = sub.add_parser("demo", help="load the demo memory")
    demo.add_argument("--reset", action="store_true", help="remove it and load it again")

    forget = sub.add_parser(
        "forget", help="delete a scope and every scope below it from both stores"
    )
    forget.add_argument("scope", help="the scope path, e.g. 'demo' or 'friends/chat'")
    forget.add_argument("--yes", action="store_true", help="do it (without: say what would go)")

    generate = sub.add_parser("generate", help="write a synthetic memory of the seed's size")
    generate.add_argument("--entities", type=int, default=45_000)
    generate.add_argument("--edges", type=int, default=140_000)
    generate.add_argument("--chunks", type=int, default=53_000)
    generate.add_argument("--seed", type=int, default=0)

    sub.add_parser(
        "reembed", help="re-embed every chunk and entity name with the configured embedder"
    )

    evaluate = sub.add_parser(
        "eval", help="retrieval quality on a public benchmark, or extraction against a gold file"
    )
    evaluate.add_argument("benchmark", choices=["locomo", "extraction"])
    evaluate.add_argument("path", type=Path)
    evaluate.add_argument("--k", default="5,10,25,50")
    evaluate.add_argument("--json", type=Path, dest="json_out")
    evaluate.add_argument("--configs", default="lexical,vector,hybrid,full")
    evaluate.add_argument(
        "--preset-file", type=Path, help="a JSON file of named presets the configs may name"
    )
    evaluate.add_argument(
        "--cross-validate",
        action="store_true",
        help="choose the full preset's weights per fold on the other conversations (locomo)",
    )
    evaluate.add_argument(
        "--folds", type=int, help="folds for --cross-validate (default: one per conversation)"
    )

    bench = sub.add_parser("bench", help="speed at the seed system's scale")
    bench.add_argument("--scale", choices=["seed", "small"], default="seed")
    bench.add_argument("--json", type=Path, dest="json_out")
    bench.add_argument("--queries", type=int, default=200)
    return parser


def _run(coro_factory: Callable[[], Coroutine[Any, Any, int]]) -> int:
    async def command() -> int:
        # SIGTERM cancels the command like Ctrl+C, so it closes the memory (and stops the
        # servers it was the last to use) instead of dying with them still running.
        task = asyncio.current_task()
        if task is not None and hasattr(signal, "SIGTERM"):
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        try:
            return await coro_factory()
        except asyncio.CancelledError:
            print("scour-explorer: terminated", file=sys.stderr)
            return 143  # 128 + SIGTERM

    return asyncio.run(command())


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    if not args.verbose:
        # asyncpg logs a traceback each time a pool cannot refill while its server restarts;
        # the half's error already says so in one line.
        logging.getLogger("asyncpg.pool").setLevel(logging.ERROR)
    try:
        settings = _settings(args)
        return _dispatch(args, settings)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except ExplorerError as exc:
        print(f"scour-explorer: {_one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:
        # Anything the system refused (a read-only or full data dir, a permission) that no
        # adapter put in words: still one line, never a traceback.
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"scour-explorer: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("scour-explorer: interrupted", file=sys.stderr)
        return 130


def _one_line(error: BaseException) -> str:
    """The first line of an error's message (a server log's tail stays in the log)."""
    text = str(error).strip()
    if not text:
        return type(error).__name__
    first, _, rest = text.partition("\n")
    log_file = re.search(r"--- last lines of (.+) ---", rest)
    return f"{first} (see {log_file.group(1)})" if log_file else first


def _quiet_broken_pipe() -> int:
    """The reader went away (``query … | head``): stop quietly, as a shell tool does.

    stdout is pointed at /dev/null so the interpreter's last flush cannot fail again.
    """
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 141  # 128 + SIGPIPE, what a shell reports for a program ended by a closed pipe


def _dispatch(args: argparse.Namespace, settings: Settings) -> int:
    from explorer import commands

    if args.command is None:
        if args.screenshot is not None:
            from explorer.app import run_screenshot

            return run_screenshot(
                args.screenshot,
                args.query,
                args.size,
                settings,
                scene=args.scene_json,
                select=args.select,
            )
        from explorer.app import run_app

        return run_app(settings)
    if args.command == "servers":
        return commands.servers(settings, args.action, idle=args.idle)
    handlers: dict[str, Callable[[], Coroutine[Any, Any, int]]] = {
        "query": lambda: commands.query(settings, args),
        "mcp": lambda: commands.mcp(settings),
        "ingest": lambda: commands.ingest(settings, args),
        "stats": lambda: commands.stats(settings, as_json=args.json),
        "demo": lambda: commands.demo(settings, reset=args.reset),
        "forget": lambda: commands.forget(settings, args.scope, yes=args.yes),
        "generate": lambda: commands.generate(settings, args),
        "reembed": lambda: commands.reembed(settings),
        "eval": lambda: commands.evaluate(settings, args),
        "bench": lambda: commands.bench(settings, args),
    }
    return _run(handlers[args.command])


if __name__ == "__main__":
    sys.exit(main())
