"""The overview page: what the open memory holds, shown before the first query.

``OverviewWidget`` shows a ``MemoryOverview``: the counts, the time span, the scopes with their
chunk and entity counts, the domains and a few example queries taken from the memory itself, as
buttons that run them (``example_chosen``). An empty memory says how to bring conversations in.
``overview_entities`` gives the overview's salient entities with the relations among them, as
the graph view draws an answer's entities, for the starting graph. Imports Qt, the standard
library, core overview values and the GUI's plain ``recalled`` view.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from explorer.core.overview import MemoryOverview, ScopeNode
from explorer.gui.recalled import ShownEntity, seen_from

SCOPES_SHOWN = 8
DOMAINS_SHOWN = 10


class OverviewWidget(QWidget):
    """See the module docstring."""

    example_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("overview")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)
        self.summary = QLabel("Opening the memory…")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        self.try_label = QLabel("<b>Try</b>")
        layout.addWidget(self.try_label)
        self._examples_box = QVBoxLayout()
        self._examples_box.setSpacing(3)
        layout.addLayout(self._examples_box)
        layout.addStretch(1)
        self.buttons: list[QPushButton] = []
        self.overview: MemoryOverview | None = None

    def show_overview(self, overview: MemoryOverview, where: str = "") -> None:
        self.overview = overview
        self.summary.setText(describe(overview, where))
        for button in self.buttons:
            button.deleteLater()
        self.buttons = []
        for query in overview.examples:
            button = QPushButton(query)
            button.setToolTip(f"Run “{query}”")
            button.setStyleSheet("text-align: left; padding: 3px 8px;")
            button.clicked.connect(lambda _=False, q=query: self.example_chosen.emit(q))
            self._examples_box.addWidget(button)
            self.buttons.append(button)
        self.try_label.setVisible(bool(self.buttons))


def describe(overview: MemoryOverview, where: str = "") -> str:
    """The overview as rich text."""
    title = f"<h3 style='margin:0'>This memory{_esc(' · ' + where) if where else ''}</h3>"
    parts = [title]
    for half, reason in overview.errors.items():
        parts.append(f"<p style='color:#b3261e'>{_esc(half)}: {_esc(reason)}</p>")
    if overview.empty:
        parts.append(
            "<p>It holds nothing yet. Bring conversations in with <b>File → Import…</b> "
            "(JSONL, ChatGPT <i>conversations.json</i> or LoCoMo), or drop a file on the "
            "window.</p>"
        )
        return "".join(parts)
    parts.append(
        f"<p><b>{overview.chunks:,}</b> chunks · <b>{overview.entities:,}</b> entities · "
        f"<b>{overview.relations:,}</b> relations</p>"
    )
    if overview.first and overview.last:
        parts.append(
            f"<p>Conversations from <b>{overview.first:%d %b %Y}</b> to "
            f"<b>{overview.last:%d %b %Y}</b></p>"
        )
    scopes = [node for node in overview.scopes.walk() if node.path and _is_leaf_or_fork(node)]
    if scopes:
        rows = "".join(
            f"<tr><td>{_esc(node.path)}</td><td align='right'>&nbsp;{node.chunks:,}</td>"
            f"<td align='right'>&nbsp;{node.entities:,}</td></tr>"
            for node in scopes[:SCOPES_SHOWN]
        )
        more = len(scopes) - SCOPES_SHOWN
        parts.append(
            "<p><b>Scopes</b> (pick one in the scope box ▾)</p>"
            f"<table><tr><th align='left'>scope</th><th>&nbsp;chunks</th>"
            f"<th>&nbsp;entities</th></tr>{rows}</table>"
            + (f"<p>… and {more} more</p>" if more > 0 else "")
        )
    if overview.domains:
        ranked = sorted(overview.domains.items(), key=lambda item: (-item[1], item[0]))
        shown = " · ".join(f"{_esc(name)} {count:,}" for name, count in ranked[:DOMAINS_SHOWN])
        parts.append(f"<p><b>Domains</b>: {shown}</p>")
    if overview.salient:
        parts.append(
            f"<p>The graph shows the {len(overview.salient)} most salient entities. "
            "Double-click one to expand it.</p>"
        )
    return "".join(parts)


def _is_leaf_or_fork(node: ScopeNode) -> bool:
    """Scopes worth listing: the ones holding memories, not the single-child steps above them."""
    return len(node.children) != 1


def overview_entities(overview: MemoryOverview) -> list[ShownEntity]:
    """The salient entities, each with its relations to the others, scored by salience."""
    names = {entity.id: entity for entity in overview.salient}
    top = max((entity.salience for entity in overview.salient), default=0.0) or 1.0
    return [
        ShownEntity(
            entity,
            tuple(
                seen_from(entity.id, relation, names)
                for relation in overview.links
                if relation.source_id == entity.id and relation.target_id in names
            ),
            layer=entity.layer.value,
            source="overview",
            score=entity.salience / top,
        )
        for entity in overview.salient
    ]


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
