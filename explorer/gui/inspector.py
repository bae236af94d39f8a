"""The inspector: everything known about the selected entity, with clickable relations.

Shows the entity's properties, confidence, salience, first and last seen, temporal and domain
concepts, score breakdown when it came from the query, each alias with why it was merged (a link
to the turn that said so, and "detach" to undo the merge: ``alias_detach_requested``), the names
the user detached (which imports keep apart; "allow again" forgets that: ``alias_allow_requested``;
neither link is offered while ``read_only``), its relations (each a link that selects the entity
at the other end, with the fact's validity history) and its provenance (each a link to the
chunk), from a ``recalled.ShownEntity``. Imports Qt, the standard library, core models and the
GUI's plain ``recalled`` view; never awaits.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import datetime

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QTextBrowser, QWidget

from explorer.core.models import WEAK_RELATIONS, AliasEvidence, Entity, Neighbour, Relation
from explorer.gui.moments import local_time
from explorer.gui.recalled import ShownEntity


class InspectorWidget(QTextBrowser):
    """Read-only HTML view of one entity."""

    entity_activated = Signal(str)
    chunk_activated = Signal(str)
    alias_detach_requested = Signal(str, str)  # entity id, alias
    alias_allow_requested = Signal(str, str)  # entity id, a name the user detached

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._on_anchor_clicked)
        self.entity_id = ""
        # Links carry an index into this list rather than the id itself, so ids with any
        # characters survive the round trip through QUrl.
        self._links: list[tuple[str, str]] = []
        self._body = ""
        self._reasons: dict[str, list[str]] = {}
        self.note = ""
        self._note_for = ""
        # A read-only memory (graphiti) offers no alias changes; set when a memory opens.
        self.read_only = False
        self.show_nothing()

    def show_nothing(self) -> None:
        self.entity_id = ""
        self.note = ""
        self._body = ""
        self._reasons = {}
        self.setHtml("<p style='color:#5f6368'>Select an entity in the graph to inspect it.</p>")

    def show_entity(
        self,
        shown: ShownEntity,
        *,
        relations: Sequence[Neighbour] = (),
        degree: int | None = None,
        loading: bool = False,
    ) -> None:
        """Render an entity with its relations (as drawn, else its own) and provenance."""
        e = shown.entity
        self.entity_id = e.id
        self._links = []
        rows: list[tuple[str, str]] = [("type", _esc(e.type))]
        if e.description:
            rows.append(("description", _esc(e.description)))
        numbers = (
            [] if shown.placeholder else [("confidence", e.confidence), ("salience", e.salience)]
        )
        if shown.score is not None:
            numbers.append(("score", shown.score))
        rows += [(key, f"{value:.3f}") for key, value in numbers]
        for key, moment in (("first seen", e.first_seen), ("last seen", e.last_seen)):
            if moment is not None:
                rows.append((key, _esc(_when(moment))))
        for label, values in (("temporal", e.temporal), ("domains", e.domains)):
            if values:
                rows.append((label, _esc(", ".join(values))))
        for key, text in (("scope", e.scope), ("layer", shown.layer), ("source", shown.source)):
            if text:
                rows.append((key, _esc(text)))
        if degree is not None:
            rows.append(("relations in store", str(degree)))
        parts = [f"<h3 style='margin:2px 0'>{_esc(e.name or self.entity_id)}</h3>"]
        parts.append("<table cellspacing='0' cellpadding='2'>")
        parts += [
            f"<tr><td style='color:#5f6368;padding-right:8px'>{k}</td><td>{v}</td></tr>"
            for k, v in rows
        ]
        parts.append("</table>")
        parts += self._aliases_html(e)
        if shown.breakdown is not None:
            parts.append("<h4 style='margin:6px 0 2px'>Score breakdown</h4><table>")
            for name, value in shown.breakdown.to_dict().items():
                width = max(1, int(value * 120))
                parts.append(
                    f"<tr><td style='color:#5f6368;padding-right:8px'>{_esc(name)}</td>"
                    f"<td><span style='background:#8ab4f8'>{'&nbsp;' * (width // 6 or 1)}</span>"
                    f" {value:.3f}</td></tr>"
                )
            parts.append("</table>")
        relation_list = list(relations) or list(shown.neighbours)
        # Weak signals are never listed as facts: only who came up together with whom.
        together = [n for n in relation_list if n.relation.type in WEAK_RELATIONS]
        facts = [n for n in relation_list if n.relation.type not in WEAK_RELATIONS]
        parts.append(f"<h4 style='margin:6px 0 2px'>Relations ({len(facts)})</h4><ul>")
        for neighbour in facts:
            rel = neighbour.relation
            arrow = "→" if neighbour.outgoing else "←"
            fact = f" <span style='color:#5f6368'>{_esc(rel.fact)}</span>" if rel.fact else ""
            history = validity_history(rel)
            said = f"<br><span style='color:#5f6368'>{_esc(history)}</span>" if history else ""
            parts.append(
                f"<li>{arrow} <i>{_esc(rel.type)}</i> "
                f"<a href='{self._link('entity', neighbour.entity_id)}'>"
                f"{_esc(neighbour.name)}</a>"
                f"{fact}{said}</li>"
            )
        parts.append("</ul>")
        if together:
            names: dict[str, str] = {}
            for neighbour in together:
                names.setdefault(neighbour.entity_id, neighbour.name)
            links = ", ".join(
                f"<a href='{self._link('entity', other)}'>{_esc(name)}</a>"
                for other, name in names.items()
            )
            parts.append(
                f"<h4 style='margin:6px 0 2px'>Came up together ({len(names)})</h4>"
                f"<p style='margin:0'>{links} <span style='color:#5f6368'>(named in the same "
                "turns; not a fact)</span></p>"
            )
        provenance = e.mentions
        if loading:
            parts.append("<p style='color:#5f6368'>Loading provenance…</p>")
        else:
            parts.append(f"<h4 style='margin:6px 0 2px'>Provenance ({len(provenance)})</h4><ul>")
            for mention in provenance[:200]:
                # The turn's time is the link: a full chunk id is a long hex string that a
                # narrow column breaks mid-word, and the chunk cards do not show ids anyway.
                parts.append(
                    f"<li><a href='{self._link('chunk', mention.chunk_id)}'>"
                    f"{_esc(_when(mention.timestamp))}</a> <span style='color:#5f6368'>"
                    f"[{mention.start}:{mention.end}] {_esc(_short(mention.chunk_id))}</span></li>"
                )
            if len(provenance) > 200:
                parts.append(f"<li>… {len(provenance) - 200} more</li>")
            parts.append("</ul>")
        self._body = "".join(parts)
        self._reasons = {
            alias: list(
                dict.fromkeys(
                    ev.reason for ev in e.alias_evidence if ev.alias.casefold() == alias.casefold()
                )
            )
            for alias in e.aliases
        }
        if self._note_for == e.id and self.note:
            self.show_note(self.note)
        else:
            self.note = ""
            self.setHtml(self._body)

    def _aliases_html(self, entity: Entity) -> list[str]:
        """Each alias with why it was merged, a link to the turn that said so, and "detach";
        then the names the user detached, which later imports keep apart, each with "allow
        again" (no link of either kind on a read-only memory)."""
        refused = []
        if entity.refused_aliases:
            refused.append(
                f"<h4 style='margin:6px 0 2px'>Detached by you ({len(entity.refused_aliases)})"
                "</h4><p style='margin:0;color:#5f6368'>Later imports keep these names apart from "
                f"{_esc(entity.name or entity.id)}.</p><ul>"
            )
            for name in entity.refused_aliases:
                allow = (
                    ""
                    if self.read_only
                    else f" · <a href='{self._link('allow', name)}'>allow again</a>"
                )
                refused.append(f"<li><b>{_esc(name)}</b>{allow}</li>")
            refused.append("</ul>")
        if not entity.aliases:
            return refused
        why: dict[str, list[AliasEvidence]] = {}
        for evidence in entity.alias_evidence:
            why.setdefault(evidence.alias.casefold(), []).append(evidence)
        parts = [f"<h4 style='margin:6px 0 2px'>Aliases ({len(entity.aliases)})</h4><ul>"]
        for alias in entity.aliases:
            # One reason said in many turns ("addressed as Maya by Assistant", six times) is
            # listed once, with a link to each turn.
            turns: dict[str, list[str]] = {}
            for evidence in why.get(alias.casefold(), ()):
                chunks = turns.setdefault(evidence.reason, [])
                if evidence.chunk_id and evidence.chunk_id not in chunks:
                    chunks.append(evidence.chunk_id)
            said = [_esc(reason) + self._turn_links(chunks) for reason, chunks in turns.items()]
            reason = f" <span style='color:#5f6368'>— {'; '.join(said)}</span>" if said else ""
            detach = (
                "" if self.read_only else f" · <a href='{self._link('detach', alias)}'>detach</a>"
            )
            parts.append(f"<li><b>{_esc(alias)}</b>{reason}{detach}</li>")
        parts.append("</ul>")
        return parts + refused

    def _turn_links(self, chunk_ids: list[str]) -> str:
        """ " (the turn)" for one turn, " (turns 1, 2, 3)" for several, each a link to it."""
        if not chunk_ids:
            return ""
        if len(chunk_ids) == 1:
            return f" (<a href='{self._link('chunk', chunk_ids[0])}'>the turn</a>)"
        links = ", ".join(
            f"<a href='{self._link('chunk', chunk)}'>{number}</a>"
            for number, chunk in enumerate(chunk_ids, 1)
        )
        return f" (turns {links})"

    def show_note(self, text: str) -> None:
        """A line above the entity (what a detach or an allow did, or why it could not); it
        stays while this entity is shown, also when it is shown again after a fetch."""
        self.note = text
        self._note_for = self.entity_id
        self.setHtml(f"<p style='color:#5f6368'>{_esc(text)}</p>" + self._body)

    def alias_reasons(self) -> dict[str, list[str]]:
        """Per alias shown, the reasons given for it (for checks)."""
        return self._reasons

    def _link(self, kind: str, target: str) -> str:
        self._links.append((kind, target))
        return f"link:{len(self._links) - 1}"

    def activate_link(self, kind: str, target: str) -> bool:
        """Follow the first link of ``kind`` to ``target`` as a click would; False if none."""
        if (kind, target) not in self._links:
            return False
        self._on_anchor_clicked(QUrl(f"link:{self._links.index((kind, target))}"))
        return True

    def activate_relation(self, neighbour_id: str) -> None:
        """Follow a relation link as a click would."""
        self.entity_activated.emit(neighbour_id)

    def link_targets(self, kind: str) -> list[str]:
        return [target for k, target in self._links if k == kind]

    def _on_anchor_clicked(self, url: QUrl) -> None:
        _, _, number = url.toString().partition(":")
        if not number.isdigit() or int(number) >= len(self._links):
            return
        kind, target = self._links[int(number)]
        if kind == "entity" and target:
            self.entity_activated.emit(target)
        elif kind == "chunk" and target:
            self.chunk_activated.emit(target)
        elif kind == "detach" and target:
            self.alias_detach_requested.emit(self.entity_id, target)
        elif kind == "allow" and target:
            self.alias_allow_requested.emit(self.entity_id, target)


def _short(chunk_id: str) -> str:
    return chunk_id if len(chunk_id) <= 12 else chunk_id[:10] + "…"


def _when(moment: datetime) -> str:
    return local_time(moment, seconds=False)


def validity_history(relation: Relation) -> str:
    """A fact's history in one line: when it held (valid time) and, where the store keeps them
    (graphiti), when it was learned and retired; ``""`` when nothing is known."""

    def day(moment: datetime | None) -> str:
        return local_time(moment, seconds=False) if moment is not None else ""

    parts = []
    held_from, held_to = day(relation.valid_from), day(relation.valid_to)
    if held_from or held_to:
        parts.append(f"valid {held_from or '?'} → {held_to or 'now'}")
    if relation.recorded_at is not None:
        parts.append(f"learned {day(relation.recorded_at)}")
    if relation.expired_at is not None:
        parts.append(f"expired {day(relation.expired_at)}")
    return " · ".join(parts)


def _esc(value: str) -> str:
    return html.escape(value)
