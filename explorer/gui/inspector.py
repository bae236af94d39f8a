"""The inspector: everything known about the selected entity, with clickable relations.

Shows the entity's properties, aliases, confidence, salience, first and last seen, temporal and
domain concepts, score breakdown when it came from the query, its relations (each a link that
selects the entity at the other end, with the fact's validity history) and its provenance (each
a link to the chunk). Imports Qt and the standard library; never awaits.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QTextBrowser, QWidget

JsonDict = dict[str, Any]


class InspectorWidget(QTextBrowser):
    """Read-only HTML view of one entity."""

    entity_activated = Signal(str)
    chunk_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._on_anchor_clicked)
        self.entity_id = ""
        # Links carry an index into this list rather than the id itself, so ids with any
        # characters survive the round trip through QUrl.
        self._links: list[tuple[str, str]] = []
        self.show_nothing()

    def show_nothing(self) -> None:
        self.entity_id = ""
        self.setHtml("<p style='color:#5f6368'>Select an entity in the graph to inspect it.</p>")

    def show_entity(
        self,
        entity: Mapping[str, Any],
        *,
        relations: Sequence[Mapping[str, Any]] = (),
        degree: int | None = None,
        loading: bool = False,
    ) -> None:
        """Render an entity in scour's ``kg_entities`` shape (fields may be missing)."""
        self.entity_id = str(entity.get("id", ""))
        self._links = []
        e = entity
        rows: list[tuple[str, str]] = [("type", _esc(e.get("type")))]
        if e.get("description"):
            rows.append(("description", _esc(e.get("description"))))
        if e.get("aliases"):
            rows.append(("aliases", _esc(", ".join(e["aliases"]))))
        for key in ("confidence", "salience", "score"):
            if e.get(key) is not None:
                rows.append((key, f"{float(e[key]):.3f}"))
        for key in ("first_seen", "last_seen"):
            if e.get(key):
                rows.append((key.replace("_", " "), _esc(str(e[key]).replace("T", " ")[:19])))
        for key, label in (("temporal_concepts", "temporal"), ("domain_concepts", "domains")):
            if e.get(key):
                rows.append((label, _esc(", ".join(e[key]))))
        for key in ("scope", "layer", "source"):
            if e.get(key):
                rows.append((key, _esc(e[key])))
        if degree is not None:
            rows.append(("relations in store", str(degree)))
        parts = [f"<h3 style='margin:2px 0'>{_esc(e.get('name') or self.entity_id)}</h3>"]
        parts.append("<table cellspacing='0' cellpadding='2'>")
        parts += [
            f"<tr><td style='color:#5f6368;padding-right:8px'>{k}</td><td>{v}</td></tr>"
            for k, v in rows
        ]
        parts.append("</table>")
        breakdown = e.get("score_breakdown") or {}
        if breakdown:
            parts.append("<h4 style='margin:6px 0 2px'>Score breakdown</h4><table>")
            for name, value in breakdown.items():
                width = max(1, int(float(value) * 120))
                parts.append(
                    f"<tr><td style='color:#5f6368;padding-right:8px'>{_esc(name)}</td>"
                    f"<td><span style='background:#8ab4f8'>{'&nbsp;' * (width // 6 or 1)}</span>"
                    f" {float(value):.3f}</td></tr>"
                )
            parts.append("</table>")
        relation_list = list(relations) or list(e.get("relationships") or [])
        parts.append(f"<h4 style='margin:6px 0 2px'>Relations ({len(relation_list)})</h4><ul>")
        for rel in relation_list:
            neighbour = rel.get("neighbour") or {}
            arrow = "→" if rel.get("direction", "out") == "out" else "←"
            fact = (
                f" <span style='color:#5f6368'>{_esc(rel['fact'])}</span>"
                if rel.get("fact")
                else ""
            )
            history = validity_history(rel)
            shown = f"<br><span style='color:#5f6368'>{_esc(history)}</span>" if history else ""
            parts.append(
                f"<li>{arrow} <i>{_esc(rel.get('type'))}</i> "
                f"<a href='{self._link('entity', neighbour.get('id'))}'>"
                f"{_esc(neighbour.get('name'))}</a>"
                f"{fact}{shown}</li>"
            )
        parts.append("</ul>")
        provenance = list(e.get("provenance") or [])
        if loading:
            parts.append("<p style='color:#5f6368'>Loading provenance…</p>")
        else:
            parts.append(f"<h4 style='margin:6px 0 2px'>Provenance ({len(provenance)})</h4><ul>")
            for mention in provenance[:200]:
                when = str(mention.get("timestamp") or "").replace("T", " ")[:19]
                parts.append(
                    f"<li><a href='{self._link('chunk', mention.get('chunk_id'))}'>"
                    f"{_esc(mention.get('chunk_id'))}</a> [{mention.get('start')}:"
                    f"{mention.get('end')}] {_esc(when)}</li>"
                )
            if len(provenance) > 200:
                parts.append(f"<li>… {len(provenance) - 200} more</li>")
            parts.append("</ul>")
        self.setHtml("".join(parts))

    def _link(self, kind: str, target: Any) -> str:
        self._links.append((kind, "" if target is None else str(target)))
        return f"link:{len(self._links) - 1}"

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


def validity_history(relation: Mapping[str, Any]) -> str:
    """A fact's history in one line: when it held (valid time) and, where the store keeps them
    (graphiti), when it was learned and retired; ``""`` when nothing is known."""

    def day(key: str) -> str:
        return str(relation.get(key) or "").replace("T", " ")[:16]

    parts = []
    if day("valid_from") or day("valid_to"):
        parts.append(f"valid {day('valid_from') or '?'} → {day('valid_to') or 'now'}")
    if day("recorded_at"):
        parts.append(f"learned {day('recorded_at')}")
    if day("expired_at"):
        parts.append(f"expired {day('expired_at')}")
    return " · ".join(parts)


def _esc(value: Any) -> str:
    return html.escape("" if value is None else str(value))
