"""Turning verbatim chunk text into highlighted HTML: query terms and exact mention spans.

Mention spans are character offsets into the chunk text (``Mention.start``/``end``) and win over
query-term matches where they overlap. The text is escaped, so a chunk can never inject markup.
Query words come from ``core.text``, the tokenizer and stop-word list search uses, with the
instances and members a question asks for and the names the graph gave in answer. Imports only
the standard library, core text, core asked and core lexical's tokenizer (no Qt), so it is
testable on its own.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence

from explorer.core.asked import instance_terms
from explorer.core.lexical import tokens
from explorer.core.text import key_words

Span = tuple[int, int]

MENTION_STYLE = "background-color:#ffd54f;color:#000;font-weight:600"
TERM_STYLE = "background-color:#c8e6c9;color:#000"


def query_terms(query: str) -> list[str]:
    """The words of a query worth highlighting: ``core.text`` words without stop words, one-letter
    words or repeats."""
    return key_words(query)


def query_instances(query: str) -> list[str]:
    """The stems of the instances of a kind the query asks for and of the members of a group it
    names, as the lexical route scores them ("taekwondo" for "What martial arts ...?", "son"
    for "How many children ...?"; ``core.asked``)."""
    return instance_terms(query, ())


def answer_stems(names: Iterable[str]) -> list[str]:
    """The stems of the words of the names the graph gave in answer to the query ("Halvorsen
    Logistics" for "Where does Maya work?"; ``core.asked.graph_answers``), the query's own words
    included (they are highlighted as its terms anyway)."""
    return list(dict.fromkeys(term for name in names for term in tokens(name)))


def term_spans(text: str, terms: Sequence[str]) -> list[Span]:
    """Where the terms occur in ``text`` as whole words (or word prefixes), case-insensitively."""
    if not terms:
        return []
    pattern = re.compile(
        r"\b(?:" + "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)) + r")\w*",
        re.IGNORECASE,
    )
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


#: The endings ``core.text.stem`` takes off, so an instance's stem is matched as that word only
#: ("cat" in "cats", not in "category"; "hik" in "hiking").
_STEM_ENDINGS = r"(?:e|s|es|d|ed|ing)?"


def instance_spans(text: str, stems: Sequence[str]) -> list[Span]:
    """Where a word whose stem is one of ``stems`` occurs in ``text``, case-insensitively."""
    if not stems:
        return []
    pattern = re.compile(
        r"\b(?:"
        + "|".join(re.escape(t) for t in sorted(stems, key=len, reverse=True))
        + r")"
        + _STEM_ENDINGS
        + r"\b",
        re.IGNORECASE,
    )
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


def clip_spans(spans: Iterable[Span], length: int) -> list[Span]:
    """Spans cut to ``[0, length)``; empty or inverted ones are dropped."""
    out = []
    for start, end in spans:
        start, end = max(0, int(start)), min(length, int(end))
        if start < end:
            out.append((start, end))
    return sorted(out)


# Direction overrides and isolates would reorder what is shown ("evil" drawn as "live"): a
# verbatim view shows them as their code points instead.
_BIDI_CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069]")


def _shown_code(found: re.Match[str]) -> str:
    return f"[U+{ord(found.group()):04X}]"


def highlight_html(text: str, mentions: Iterable[Span] = (), terms: Iterable[Span] = ()) -> str:
    """Escaped HTML of ``text`` with mention spans and term spans wrapped in styled ``<span>``s."""
    length = len(text)
    marks = [0] * (length + 1)  # 0 plain, 1 term, 2 mention; per character
    for start, end in clip_spans(terms, length):
        for i in range(start, end):
            marks[i] = max(marks[i], 1)
    for start, end in clip_spans(mentions, length):
        for i in range(start, end):
            marks[i] = 2
    parts: list[str] = []
    i = 0
    while i < length:
        kind = marks[i]
        j = i
        while j < length and marks[j] == kind:
            j += 1
        piece = _BIDI_CONTROL.sub(_shown_code, html.escape(text[i:j])).replace("\n", "<br/>")
        if kind == 2:
            parts.append(f'<span style="{MENTION_STYLE}">{piece}</span>')
        elif kind == 1:
            parts.append(f'<span style="{TERM_STYLE}">{piece}</span>')
        else:
            parts.append(piece)
        i = j
    return "".join(parts)
