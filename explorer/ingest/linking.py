"""Linking the names of one conversation that stand for one person, with the evidence of each link.

``PeopleLinks`` is the part of the offline extractor's per-conversation reading that folds name
candidates together before entities are built: a name used to address a speaker joins that
speaker, a display handle joins the full name it spells, and a capitalised "Dad" joins the
person the same speaker calls their dad by name (the rules are in ``people``). Each fold keeps an
``AliasEvidence``: the alias, the chunk that said it and why. Imports the standard library, core
models and ingest helpers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from explorer.core.models import AliasEvidence, Chunk
from explorer.ingest.ids import normalise_name
from explorer.ingest.name_reading import Candidate
from explorer.ingest.people import fold_letters, handle_matches, kin_word
from explorer.ingest.relation_rules import UNIQUE_KIN

AGENT_SPEAKERS = frozenset({"assistant", "ai", "bot", "chatgpt", "gpt", "system", "model"})


def speaker_type(speaker: str) -> str:
    """ "agent" for an assistant-like speaker name, else "person"."""
    return "agent" if speaker.casefold() in AGENT_SPEAKERS else "person"


def _best(candidate: Candidate) -> str:
    ranked = sorted(candidate.surfaces.items(), key=lambda item: (-item[1], item[0]))
    return ranked[0][0] if ranked else ""


class PeopleLinks:
    """Name folding for ``extractor._Context``, which provides the attributes below."""

    chunks: list[Chunk]
    names: dict[str, Candidate]
    speakers: dict[str, str]
    vocatives: dict[str, list[tuple[int, str]]]
    alias_evidence: dict[str, list[AliasEvidence]]
    addressed: Sequence[str | None]

    def _fold_into(self, key: str, target: str, chunk: int, surface: str, reason: str) -> None:
        """Move the name ``key`` into ``target`` (a speaker or a full name) with its evidence."""
        alone = self.names.pop(key, None)
        into = self.names.setdefault(target, Candidate())
        if alone is not None:
            # The folded name joins as an alias; the target keeps its own name.
            for folded in alone.surfaces:
                into.surfaces[folded] += 0
            into.occurrences.extend(alone.occurrences)
            into.votes.update(alone.votes)
            into.cues.update(alone.cues)
        into.surfaces[surface] += 0
        self.alias_evidence[target].append(AliasEvidence(surface, self.chunks[chunk].id, reason))
        self.alias_evidence[target].extend(self.alias_evidence.pop(key, []))

    def _link_people(self) -> None:
        """Merge the names that stand for one person (see ``people``), keeping the evidence."""
        speakers_of = [normalise_name(chunk.speaker) for chunk in self.chunks]
        # Vocatives: a name a speaker uses to address another is the addressee's name.
        for key, uses in sorted(self.vocatives.items()):
            if key in self.speakers or key not in self.names:
                continue
            targets = {self.addressed[index] for index, _surface in uses}
            (target,) = targets if len(targets) == 1 else (None,)
            if target is None or speaker_type(self.speakers[target]) != "person":
                continue
            # The one addressed does not speak of themselves by that name.
            own = any(speakers_of[o.chunk] == target for o in self.names[key].occurrences)
            if own or len(fold_letters(key)) < 2:
                continue
            index, surface = uses[0]
            by = self.chunks[index].speaker
            self._fold_into(key, target, index, surface, f"addressed as {surface} by {by}")
            self.names[target].cues["addressed"] += 1
        # Display handles: "kate_w" is the speaker the text calls "Kate Williams".
        for handle in self.speakers:
            if " " in handle or speaker_type(self.speakers[handle]) != "person":
                continue
            spelled = [
                key
                for key in self.names
                if key not in self.speakers and handle_matches(handle, key)
            ]
            if len(spelled) == 1:
                (key,) = spelled
                occurrence = self.names[key].occurrences[0]
                surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
                self._fold_into(
                    key, handle, occurrence.chunk, surface, f"handle {handle} spells {surface}"
                )
        self._kin_names(speakers_of)

    def _kin_names(self, speakers_of: list[str]) -> None:
        """A capitalised "Dad" joins the person the same speaker calls their dad by name."""
        for key in [key for key in self.names if kin_word(key) in UNIQUE_KIN and " " not in key]:
            candidate = self.names[key]
            owners = {speakers_of[o.chunk] for o in candidate.occurrences}
            if len(owners) != 1:
                continue
            named: set[str] = set()
            for other, found in self.names.items():
                if other == key or other in self.speakers:
                    continue
                for occurrence in found.occurrences:
                    if speakers_of[occurrence.chunk] not in owners:
                        continue
                    text = self.chunks[occurrence.chunk].text
                    before = text[max(0, occurrence.start - 30) : occurrence.start].casefold()
                    kin = re.search(r"\bmy\s+([\w-]+)\s*,?\s*$", before)
                    if kin is not None and kin.group(1) == key:
                        named.add(other)
                    if re.search(rf"\b{re.escape(key)}\s*[.,:(—–-]\s*$", before):
                        named.add(other)
            if len(named) == 1:
                (target,) = named
                occurrence = candidate.occurrences[0]
                surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
                self._fold_into(
                    key,
                    target,
                    occurrence.chunk,
                    surface,
                    f"{surface} is {_best(self.names[target])}",
                )
                self.names[target].cues["kin"] += 1
