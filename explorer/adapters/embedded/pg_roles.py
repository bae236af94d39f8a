"""Least privilege for the embedded PostgreSQL: a password per data dir, an app role that is no
superuser, and password authentication on the socket.

Each data directory gets its own random passwords, kept in ``DATA/postgres.pgpass`` (a libpq
password file, mode 0600, never in a DSN or a log): one for the ``postgres`` superuser, which
only the server manager uses (creating the database and the ``vector`` extension), and one for
the ``scour`` role the app reads and writes through. ``scour`` owns what the app creates (its
schemas, tables, triggers) and may connect to and create in the ``scour`` database, nothing
more. The cluster is made with ``trust`` on its private socket; the first start of this version
sets the passwords, hands the app's objects from ``postgres`` to ``scour`` and switches the
socket to ``scram-sha-256``. Imports only the standard library.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from pathlib import Path

APP_ROLE = "scour"
SUPERUSER = "postgres"
PASSFILE = "postgres.pgpass"
_HBA = (
    "# Written by Scour Explorer: the unix socket only, with this data dir's passwords.\n"
    "local all all scram-sha-256\n"
)


@dataclass(frozen=True)
class Credentials:
    path: Path
    superuser: str
    app: str


def credentials(data_dir: Path) -> Credentials:
    """This data dir's passwords, made (and written 0600) the first time."""
    path = data_dir / PASSFILE
    try:
        found = {}
        for line in path.read_text(encoding="ascii").splitlines():
            parts = line.split(":")
            if len(parts) == 5:
                found[parts[3]] = parts[4]
        if SUPERUSER in found and APP_ROLE in found:
            return Credentials(path, found[SUPERUSER], found[APP_ROLE])
    except FileNotFoundError:
        pass
    made = Credentials(path, secrets.token_urlsafe(32), secrets.token_urlsafe(32))
    text = f"*:*:*:{SUPERUSER}:{made.superuser}\n*:*:*:{APP_ROLE}:{made.app}\n"
    partial = path.with_name(path.name + ".new")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(text)
    os.replace(partial, path)
    return made


def role_script(creds: Credentials, database: str) -> str:
    """psql input (run as the superuser, connected to ``database``) that sets both passwords,
    makes the app role and hands it the app's objects and only the grants it needs."""
    return f"""
SELECT 'CREATE ROLE {APP_ROLE}' WHERE NOT EXISTS
  (SELECT FROM pg_roles WHERE rolname = '{APP_ROLE}')\\gexec
ALTER ROLE {APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  PASSWORD '{creds.app}';
ALTER ROLE {SUPERUSER} PASSWORD '{creds.superuser}';
REVOKE ALL ON DATABASE {database} FROM PUBLIC;
GRANT CONNECT, TEMPORARY, CREATE ON DATABASE {database} TO {APP_ROLE};
GRANT USAGE, CREATE ON SCHEMA public TO {APP_ROLE};
DO $$
DECLARE item record;
BEGIN
  FOR item IN SELECT nspname FROM pg_namespace
      WHERE nspowner = '{SUPERUSER}'::regrole
        AND nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' LOOP
    EXECUTE format('ALTER SCHEMA %I OWNER TO {APP_ROLE}', item.nspname);
  END LOOP;
  -- Tables, views and free sequences (a table's own sequences and indexes follow it); the
  -- vector extension's members stay the superuser's.
  FOR item IN SELECT c.oid::regclass AS name FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.relowner = '{SUPERUSER}'::regrole AND c.relkind IN ('r', 'p', 'v', 'm', 'S', 'f')
        AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
        AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass
                        AND d.objid = c.oid AND d.deptype IN ('e', 'a', 'i')) LOOP
    EXECUTE format('ALTER TABLE %s OWNER TO {APP_ROLE}', item.name);
  END LOOP;
  FOR item IN SELECT p.oid::regprocedure AS name FROM pg_proc p
      JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE p.proowner = '{SUPERUSER}'::regrole
        AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'
        AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                        AND d.objid = p.oid AND d.deptype = 'e') LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO {APP_ROLE}', item.name);
  END LOOP;
END $$;
"""


def hba_private(pgdata: Path) -> bool:
    """Whether the cluster already asks for passwords (this module's pg_hba.conf)."""
    try:
        return (pgdata / "pg_hba.conf").read_text(encoding="utf-8") == _HBA
    except OSError:
        return False


def write_hba(pgdata: Path) -> None:
    """Replace ``trust`` by ``scram-sha-256``; the server takes it on ``pg_reload_conf()``."""
    # Written in place: the file keeps its owner (the server's account when run as root).
    with (pgdata / "pg_hba.conf").open("w", encoding="utf-8") as handle:
        handle.write(_HBA)
