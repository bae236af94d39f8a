"""Permissions for the unprivileged account PostgreSQL runs under when the app runs as root:
search access granted by POSIX ACL (or the world search bit) on the directories it must reach.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import stat
import struct
import subprocess
from pathlib import Path

from explorer.adapters.embedded.common import _PG_EXE, _PG_SYSTEM_USER, _run, _RunAs
from explorer.core.errors import StoreUnavailable

with contextlib.suppress(ImportError):  # Windows: see common.UNSUPPORTED
    import pwd


_log = logging.getLogger(__name__)

_ACL_XATTR = "system.posix_acl_access"
_ACL_VERSION = 2
_ACL_USER_OBJ = 0x01
_ACL_USER = 0x02
_ACL_GROUP_OBJ = 0x04
_ACL_GROUP = 0x08
_ACL_MASK = 0x10
_ACL_OTHER = 0x20
_ACL_UNDEFINED_ID = 0xFFFFFFFF
_ACL_ENTRY = struct.Struct("<HHI")


def _read_acl(path: Path) -> list[tuple[int, int, int]] | None:
    try:
        raw = os.getxattr(path, _ACL_XATTR)
    except OSError as exc:
        if exc.errno in (errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP):
            return None
        raise
    if len(raw) < 4 or struct.unpack_from("<I", raw)[0] != _ACL_VERSION:
        return None
    return [
        (tag, perm, ident)
        for tag, perm, ident in (
            _ACL_ENTRY.unpack_from(raw, off) for off in range(4, len(raw), _ACL_ENTRY.size)
        )
    ]


def _may_search(path: Path, uid: int, gid: int) -> bool:
    """Whether ``uid`` (with ``gid`` as its only group) may traverse the directory ``path``."""
    st = os.stat(path)
    if st.st_uid == uid:
        return bool(st.st_mode & stat.S_IXUSR)
    acl = _read_acl(path)
    if acl is None:
        if st.st_gid == gid:
            return bool(st.st_mode & stat.S_IXGRP)
        return bool(st.st_mode & stat.S_IXOTH)
    mask = next((perm for tag, perm, _ in acl if tag == _ACL_MASK), 0o7)
    for tag, perm, ident in acl:
        if tag == _ACL_USER and ident == uid:
            return bool(perm & mask & 0o1)
    groups = [
        perm
        for tag, perm, ident in acl
        if (tag == _ACL_GROUP_OBJ and st.st_gid == gid) or (tag == _ACL_GROUP and ident == gid)
    ]
    if groups:
        return any(perm & mask & 0o1 for perm in groups)
    return bool(st.st_mode & stat.S_IXOTH)


def _grant_search(path: Path, uid: int) -> str:
    """Let ``uid`` traverse ``path`` and nothing more; returns how it was done.

    A POSIX ACL entry reaches that one account only; where the filesystem has no ACLs we fall back
    to the world search bit, which still reveals no names since read permission is not added.
    """
    st = os.stat(path)
    acl = _read_acl(path)
    if acl is None:
        acl = [
            (_ACL_USER_OBJ, (st.st_mode >> 6) & 0o7, _ACL_UNDEFINED_ID),
            (_ACL_GROUP_OBJ, (st.st_mode >> 3) & 0o7, _ACL_UNDEFINED_ID),
            (_ACL_OTHER, st.st_mode & 0o7, _ACL_UNDEFINED_ID),
        ]
    group_obj = next(perm for tag, perm, _ in acl if tag == _ACL_GROUP_OBJ)
    old_mask = next((perm for tag, perm, _ in acl if tag == _ACL_MASK), None)
    # Widening the mask by the search bit alone leaves every group's effective rights as they were.
    mask = (group_obj if old_mask is None else old_mask) | 0o1
    entries = [e for e in acl if e[0] != _ACL_MASK and not (e[0] == _ACL_USER and e[2] == uid)]
    user_perm = next((p for t, p, i in acl if t == _ACL_USER and i == uid), 0) | 0o1
    entries += [(_ACL_USER, user_perm, uid), (_ACL_MASK, mask, _ACL_UNDEFINED_ID)]
    entries.sort(key=lambda e: (e[0], e[2]))
    blob = struct.pack("<I", _ACL_VERSION) + b"".join(_ACL_ENTRY.pack(*e) for e in entries)
    try:
        os.setxattr(path, _ACL_XATTR, blob)
        return "acl"
    except OSError as exc:
        if exc.errno not in (errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
    os.chmod(path, stat.S_IMODE(st.st_mode) | stat.S_IXOTH)
    return "o+x"


def _ensure_reachable(path: Path, run_as: _RunAs) -> list[str]:
    """Grant ``run_as`` search permission on every ancestor of ``path`` that denies it."""
    granted = []
    for directory in reversed(path.parents):
        if not _may_search(directory, run_as.uid, run_as.gid):
            how = _grant_search(directory, run_as.uid)
            _log.info("granted %s search access to %s (%s)", run_as.name, directory, how)
            granted.append(f"{directory} ({how})")
    return granted


def _ensure_world_readable_tree(root: Path) -> None:
    """Make the installed PostgreSQL tree readable by the server account, as pgserver does."""
    probe = [root / "bin" / _PG_EXE, root / "lib" / "postgresql", root / "share" / "postgresql"]
    if all(p.exists() and p.stat().st_mode & stat.S_IXOTH for p in probe):
        return
    for dirpath, _dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        d.chmod(stat.S_IMODE(d.stat().st_mode) | 0o055)
        for name in filenames:
            f = d / name
            mode = stat.S_IMODE(f.lstat().st_mode)
            extra = 0o044 | (0o011 if mode & stat.S_IXUSR else 0)
            if not f.is_symlink():
                f.chmod(mode | extra)


def _pg_account() -> _RunAs:
    try:
        entry = pwd.getpwnam(_PG_SYSTEM_USER)
    except KeyError:
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        nologin = shutil.which("nologin") or "/usr/sbin/nologin"
        argv = [
            useradd,
            "--system",
            "--user-group",
            "--no-create-home",
            "--home-dir",
            "/nonexistent",
            "--shell",
            nologin,
            _PG_SYSTEM_USER,
        ]
        try:
            result = _run(argv, timeout=30.0)
        except (OSError, subprocess.SubprocessError) as exc:
            raise StoreUnavailable(f"cannot create system user {_PG_SYSTEM_USER}: {exc}") from exc
        try:
            entry = pwd.getpwnam(_PG_SYSTEM_USER)
        except KeyError:
            raise StoreUnavailable(
                f"cannot create system user {_PG_SYSTEM_USER} to run PostgreSQL as root: "
                f"{result.stderr.strip()}"
            ) from None
    return _RunAs(entry.pw_name, entry.pw_uid, entry.pw_gid)
