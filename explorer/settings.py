"""Settings: where the stores live, which embedder and extractor to use, and the deadlines.

Read once, at start, by the composition root (``app.py``/``cli.py``) from, in rising priority, a
TOML settings file, environment variables and command-line flags; then passed down as a frozen
value. Nothing else in the project reads the environment. Imports only the standard library and
platformdirs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import getpass
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w

from explorer.core.errors import InvalidArgument

APP_NAME = "scour-explorer"
SETTINGS_FILE = "settings.toml"
# The OS keyring entry that holds the Gemini key.
KEYRING_SERVICE = APP_NAME
KEYRING_USER = "gemini"

# Environment variable → settings field.
ENV_VARS = {
    "SCOUR_DATA_DIR": "data_dir",
    "SCOUR_FALKORDB_URL": "falkordb_url",
    "SCOUR_POSTGRES_DSN": "postgres_dsn",
    "SCOUR_GRAPH": "graph_name",
    "SCOUR_EMBEDDER": "embedder",
    "SCOUR_EXTRACTOR": "extractor",
    "SCOUR_GEMINI_MODEL": "gemini_model",
    "SCOUR_SCOPE": "default_scope",
    "SCOUR_MCP_USER": "mcp_user",
    "SCOUR_MCP_PRIVILEGES": "mcp_privileges",
    "SCOUR_GRAPHITI_GRAPH": "graphiti_graph",
    "SCOUR_GRAPHITI_MODEL": "graphiti_embedding_model",
}


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def _login_name() -> str:
    try:
        return getpass.getuser() or "local"
    except (OSError, KeyError):
        return "local"


@dataclass(frozen=True)
class Settings:
    """Everything configurable, validated on construction."""

    data_dir: Path = field(default_factory=default_data_dir)
    # External servers; None means the embedded default under data_dir.
    falkordb_url: str | None = None
    postgres_dsn: str | None = None
    graph_name: str = "scour"
    embedder: str = "local"  # "local" (WordLlama, offline) or "gemini"
    extractor: str = "offline"  # "offline" or "gemini"
    gemini_model: str = "gemini-embedding-001"
    gemini_dimension: int = 768
    gemini_extract_model: str = "gemini-2.5-flash"
    gemini_api_key: str | None = field(default=None, repr=False)
    # The root: a query sees every memory unless the user narrows it.
    default_scope: str = ""
    load_demo: bool = True
    connect_timeout: float = 5.0
    query_timeout: float = 10.0
    start_timeout: float = 60.0
    # Seconds the embedded servers outlive the last process using them when it was killed.
    idle_timeout: float = 30.0
    # The MCP server's caller and its privileges (comma-separated names, or "none"): set here,
    # never taken from the client.
    mcp_user: str = field(default_factory=_login_name)
    mcp_privileges: str = "CORE_MEMORY"
    # The recall journal keeps the agent calls of the last days, and at most this many.
    journal_keep_days: int = 30
    journal_keep_calls: int = 1000
    # A graphiti graph on the configured FalkorDB to open read-only instead of the explorer's
    # own stores, and the embedding model its vectors came from (graphiti does not record it).
    graphiti_graph: str | None = None
    graphiti_embedding_model: str | None = None
    # Where these settings were read from (and where the window writes changes back).
    file: Path | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        # Accept a plain string path from scripts; everything downstream expects a Path.
        object.__setattr__(self, "data_dir", Path(self.data_dir).expanduser())
        if self.embedder not in ("local", "gemini"):
            raise InvalidArgument(f"embedder must be 'local' or 'gemini', not {self.embedder!r}")
        if self.extractor not in ("offline", "gemini"):
            raise InvalidArgument(
                f"extractor must be 'offline' or 'gemini', not {self.extractor!r}"
            )
        if self.falkordb_url is not None and not self.falkordb_url.startswith(
            ("redis://", "rediss://", "unix://")
        ):
            raise InvalidArgument("falkordb_url must start with redis://, rediss:// or unix://")
        if self.postgres_dsn is not None and not self.postgres_dsn.startswith(
            ("postgres://", "postgresql://")
        ):
            raise InvalidArgument("postgres_dsn must start with postgresql:// or postgres://")
        for name in ("connect_timeout", "query_timeout", "start_timeout", "idle_timeout"):
            value = getattr(self, name)
            if not 0 < value <= 600:
                raise InvalidArgument(f"{name} must be between 0 and 600 seconds, not {value}")
        if not self.mcp_user.strip():
            raise InvalidArgument("mcp_user must name the MCP server's caller")
        if not 1 <= self.journal_keep_days <= 3650:
            raise InvalidArgument("journal_keep_days must be within 1..3650")
        if not 1 <= self.journal_keep_calls <= 1_000_000:
            raise InvalidArgument("journal_keep_calls must be within 1..1000000")
        if self.graphiti_graph is not None and not str(self.graphiti_graph).strip():
            raise InvalidArgument("graphiti_graph must name a graph")

    @property
    def embedded(self) -> bool:
        """True when at least one store is the embedded default."""
        return self.falkordb_url is None or self.postgres_dsn is None


def _coerce(name: str, value: Any) -> Any:
    kind = {f.name: f.type for f in dataclasses.fields(Settings)}[name]
    if name == "data_dir":
        return Path(str(value)).expanduser()
    if "float" in str(kind):
        return float(value)
    if "int" in str(kind):
        return int(value)
    if "bool" in str(kind):
        return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes")
    return value


def load_settings(
    *,
    file: Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build settings from a TOML file, environment and flags (later ones win).

    The file defaults to ``settings.toml`` in the data directory chosen by the environment or
    flags, else in the user's config directory; a missing file is fine, a broken one is an error.
    """
    env = env or {}
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    from_env = {field_: env[var] for var, field_ in ENV_VARS.items() if env.get(var)}
    if env.get("GEMINI_API_KEY"):
        from_env["gemini_api_key"] = env["GEMINI_API_KEY"]
    data_dir = overrides.get("data_dir") or from_env.get("data_dir")
    if file is None:
        base = Path(data_dir) if data_dir else Path(platformdirs.user_config_dir(APP_NAME))
        file = base / SETTINGS_FILE
    from_file = read_settings_file(file)
    known = set(FILE_FIELDS)
    unknown = sorted(set(from_file) - known)
    if unknown:
        raise InvalidArgument(f"{file}: unknown settings {', '.join(unknown)}")
    merged = {**from_file, **from_env, **overrides}
    try:
        values = {name: _coerce(name, value) for name, value in merged.items() if name in known}
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(f"bad setting value: {exc}") from None
    return Settings(**values, file=file)


#: The settings a file may hold: everything but the key (kept in the OS keyring) and ``file``.
FILE_FIELDS = tuple(
    f.name for f in dataclasses.fields(Settings) if f.name not in ("gemini_api_key", "file")
)


def read_settings_file(file: Path) -> dict[str, Any]:
    """The table in a settings file; ``{}`` when it does not exist, ``InvalidArgument`` when
    it cannot be read."""
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidArgument(f"{file}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise InvalidArgument(f"{file}: cannot be read: {exc.strerror or exc}") from None


def save_settings(settings: Settings, changes: Mapping[str, Any]) -> Settings:
    """Write ``changes`` into the settings file (keeping what else it holds) and return the
    settings with them applied. ``None`` removes a setting (back to its default). The values are
    validated before anything is written; the Gemini key is refused here (``save_gemini_key``).
    """
    bad = sorted(set(changes) - set(FILE_FIELDS))
    if bad:
        raise InvalidArgument(f"not a setting for the file: {', '.join(bad)}")
    file = settings.file or Path(platformdirs.user_config_dir(APP_NAME)) / SETTINGS_FILE
    table = read_settings_file(file)
    for name, value in changes.items():
        if value is None:
            table.pop(name, None)
        else:
            table[name] = str(value) if isinstance(value, Path) else value
    defaults = Settings()
    values: dict[str, Any] = {
        name: getattr(defaults, name) if value is None else _coerce(name, value)
        for name, value in changes.items()
    }
    updated = dataclasses.replace(settings, **values)  # validates before anything is written
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(tomli_w.dumps(table), encoding="utf-8")
    except OSError as exc:
        raise InvalidArgument(f"{file}: cannot be written: {exc.strerror or exc}") from None
    return dataclasses.replace(updated, file=file)


def save_gemini_key(key: str | None) -> None:
    """Store the Gemini key in the OS keyring (``None`` or empty forgets it). Never written to
    a file or a log; ``InvalidArgument`` when no keyring is usable here."""
    import keyring
    import keyring.errors

    try:
        if key:
            keyring.set_password(KEYRING_SERVICE, KEYRING_USER, key)
        else:
            with contextlib.suppress(keyring.errors.PasswordDeleteError):
                keyring.delete_password(KEYRING_SERVICE, KEYRING_USER)
    except keyring.errors.KeyringError as exc:
        raise InvalidArgument(f"the OS keyring cannot store the key: {exc}") from None


def stored_gemini_key() -> str | None:
    """The Gemini key kept in the OS keyring, or ``None`` (also when there is no keyring)."""
    import keyring
    import keyring.errors

    try:
        value = keyring.get_password(KEYRING_SERVICE, KEYRING_USER)
    except keyring.errors.KeyringError:
        # Headless machines often have no secret service; that simply means no stored key.
        return None
    return value if isinstance(value, str) and value.strip() else None
