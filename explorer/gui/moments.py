"""Moments as the window shows them: in the user's own time zone, with the zone's name.

Turns are stored in UTC whatever offset their file gave; a reader expects the clock they live
by, and a time without its zone reads as that clock. Imports only the standard library.
"""

from __future__ import annotations

from datetime import datetime


def local_time(moment: datetime, *, seconds: bool = True) -> str:
    """``2026-03-02 18:47:05 BST`` (``seconds=False``: ``2026-03-02 18:47 BST``)."""
    local = moment.astimezone()
    return local.strftime("%Y-%m-%d %H:%M:%S %Z" if seconds else "%Y-%m-%d %H:%M %Z")
