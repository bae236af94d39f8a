"""The kinds of fact a question asks for, read from its words.

"Where does Jonas work?" asks for a ``WORKS_AT``: the compact answer lists facts of an asked
kind first, and a turn that names the other end of such a fact about someone the question
brought to mind is credited as theirs (``credit``). A word list per kind, no more: a question
rarely asks for a kind of fact without one of its plain words. Imports only the standard
library.
"""

from __future__ import annotations

#: Words of a question that ask for a kind of fact.
ASKED_BY = {
    "WORKS_AT": "work works working worked job jobs employer company employed",
    "STUDIES_AT": "study studies studying studied school university uni college student",
    "LIVES_IN": "live lives living lived home based",
    "MOVED_TO": "move moves moved moving",
    "FROM": "from born grew",
    "VISITED": "visit visits visited trip trips travel travelled traveled holiday",
    "MARRIED_TO": "married marry wife husband spouse",
    "PARTNER_OF": "partner partners boyfriend girlfriend dating",
    "FAMILY_OF": "family sister brother mum mom dad mother father son daughter parents cousin",
    "FRIEND_OF": "friend friends",
    "OWNS": "own owns owned pet pets dog dogs cat cats car",
    "LIKES": "like likes love loves enjoy enjoys favourite favorite",
    "DISLIKES": "hate hates dislike dislikes",
    "RECOMMENDED": "recommend recommends recommended suggest suggested",
    "HIRED": "hire hired hires",
    "LEADS": "lead leads led runs manage manages boss",
    "SEES": "see sees seeing doctor therapist",
    "ATTENDED": "attend attended went",
    "PLANS": "plan plans planning planned",
}
_ASKED = {word: kind for kind, words in ASKED_BY.items() for word in words.split()}


def asked_kinds(query: str) -> frozenset[str]:
    """The kinds of fact a question's words ask for (``ASKED_BY``)."""
    words = "".join(char if char.isalnum() else " " for char in query.casefold()).split()
    return frozenset(_ASKED[word] for word in words if word in _ASKED)
