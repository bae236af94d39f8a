"""Text folding shared by search, matching and highlighting: case and accents do not matter.

``fold`` turns "Tomás Ruiz" and "TOMAS ruiz" into the same string, so a user who types without
accents still finds what the memory spells with them. Imports only the standard library.
"""

from __future__ import annotations

import unicodedata


def fold(text: str) -> str:
    """``text`` without accents, case-folded and with runs of whitespace as one space."""
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())
