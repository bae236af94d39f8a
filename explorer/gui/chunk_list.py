"""The verbatim chunks beside the graph: a query's chunks, or every chunk that mentions an entity.

Each chunk is a card with its speaker, time, conversation, domains, layer and source, score, and
the text with query terms and exact mention spans highlighted. Hovering or clicking a card tells
the window which chunk it is, so the graph can light up the entities it mentions; the window in
turn marks the cards that mention a hovered entity. Cards show ``recalled.ShownChunk`` values.
Imports Qt, the standard library and the GUI's plain-data modules; never awaits.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QContextMenuEvent, QEnterEvent, QGuiApplication, QMouseEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from explorer.gui.highlight import (
    Span,
    answer_stems,
    highlight_html,
    instance_spans,
    query_instances,
    query_terms,
    term_spans,
)
from explorer.gui.moments import local_time
from explorer.gui.recalled import ShownChunk

_CARD_STYLE = "#chunkCard{background:#fff;border:1px solid #dadce0;border-radius:6px}"
_CARD_LINKED = "#chunkCard{background:#fff8e1;border:2px solid #ff6f00;border-radius:6px}"
_CARD_SELECTED = "#chunkCard{background:#e8f0fe;border:2px solid #1565c0;border-radius:6px}"


class ChunkCard(QFrame):
    """One chunk: a header line and the highlighted verbatim text."""

    hovered = Signal(str, bool)
    clicked = Signal(str)

    def __init__(
        self,
        chunk: ShownChunk,
        terms: Sequence[str],
        mentions: Sequence[Span],
        parent: QWidget,
        instances: Sequence[str] = (),
    ) -> None:
        super().__init__(parent)
        self.setObjectName("chunkCard")
        self.chunk = chunk
        self.chunk_id = chunk.id
        self.text = chunk.chunk.text
        self.terms = list(terms)
        self.instances = list(instances)  # stems of the instances of a kind the query asks for
        self.mention_spans: list[Span] = list(mentions)
        self._linked = False
        self._selected = False
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(3)
        self.header = QLabel(self._header_html())
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        layout.addWidget(self.header)
        self.body = QLabel()
        self.body.setTextFormat(Qt.TextFormat.RichText)
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.body.setContextMenuPolicy(Qt.ContextMenuPolicy.NoContextMenu)
        layout.addWidget(self.body)
        self._render_body()
        self._restyle()
        breakdown = chunk.breakdown
        if breakdown is not None:
            self.setToolTip(
                "score breakdown: "
                + ", ".join(f"{k} {v:.2f}" for k, v in breakdown.to_dict().items() if v)
            )

    def _header_html(self) -> str:
        shown = self.chunk
        c = shown.chunk
        bits = [f"<b>{_esc(c.speaker or '?')}</b>"]
        if not shown.placeholder:
            bits.append(_esc(local_time(c.timestamp)))
        # A conversation's title where its file named one (ChatGPT), with the start of its id:
        # many are titled alike ("New chat").
        named = f"{c.title} ({c.conversation_id[:8]})" if c.title else c.conversation_id
        if named:
            bits.append(f"<span style='color:#5f6368'>{_esc(named)}</span>")
        for domain in c.domains:
            bits.append(
                f"<span style='background:#e8eaed;color:#3c4043'>&nbsp;{_esc(domain)}&nbsp;</span>"
            )
        badge = " · ".join(x for x in (shown.layer, shown.source) if x)
        if badge:
            bits.append(f"<span style='color:#1a73e8'>{_esc(badge)}</span>")
        if shown.score is not None:
            bits.append(f"score {shown.score:.3f}")
        return " &nbsp;·&nbsp; ".join(bits)

    def _render_body(self) -> None:
        self.body.setText(
            highlight_html(
                self.text,
                self.mention_spans,
                term_spans(self.text, self.terms) + instance_spans(self.text, self.instances),
            )
        )

    def set_mentions(self, spans: Sequence[Span]) -> None:
        self.mention_spans = list(spans)
        self._render_body()

    def set_linked(self, on: bool) -> None:
        if on != self._linked:
            self._linked = on
            self._restyle()

    def set_selected(self, on: bool) -> None:
        if on != self._selected:
            self._selected = on
            self._restyle()

    @property
    def linked(self) -> bool:
        return self._linked

    def _restyle(self) -> None:
        if self._selected:
            self.setStyleSheet(_CARD_SELECTED)
        elif self._linked:
            self.setStyleSheet(_CARD_LINKED)
        else:
            self.setStyleSheet(_CARD_STYLE)

    def highlighted_texts(self) -> list[str]:
        """The exact substrings highlighted as mentions (for checks and copy)."""
        return [self.text[s:e] for s, e in self.mention_spans if 0 <= s < e <= len(self.text)]

    def copy_text(self) -> None:
        QGuiApplication.clipboard().setText(self.text)

    def enterEvent(self, event: QEnterEvent) -> None:
        self.hovered.emit(self.chunk_id, True)
        super().enterEvent(event)

    def leaveEvent(self, event: QEvent) -> None:
        self.hovered.emit(self.chunk_id, False)
        super().leaveEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.clicked.emit(self.chunk_id)
        super().mousePressEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = QMenu(self)
        menu.addAction("Copy text", self.copy_text)
        menu.addAction("Copy chunk id", lambda: QGuiApplication.clipboard().setText(self.chunk_id))
        menu.exec(event.globalPos())


class ChunkListWidget(QWidget):
    """The chunk column: a title, the cards, and buttons for entity mentions."""

    chunk_hovered = Signal(str)  # "" when the pointer leaves every card
    chunk_selected = Signal(str)
    all_mentions_requested = Signal(str)  # entity id
    back_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(4)
        bar = QHBoxLayout()
        self.title = QLabel("No query yet")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)  # a long title (a path's steps) must not widen the window
        bar.addWidget(self.title, 1)
        self.more_button = QPushButton()
        self.more_button.hide()
        self.more_button.clicked.connect(self._on_more_clicked)
        bar.addWidget(self.more_button)
        self.back_button = QPushButton("Back to results")
        self.back_button.hide()
        self.back_button.clicked.connect(self.back_requested)
        bar.addWidget(self.back_button)
        outer.addLayout(bar)
        self.scroll_area = QScrollArea()
        self.scroll_area.setWidgetResizable(True)
        self.scroll_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self._holder = QWidget()
        self._cards_layout = QVBoxLayout(self._holder)
        self._cards_layout.setContentsMargins(4, 4, 4, 4)
        self._cards_layout.setSpacing(6)
        self._cards_layout.addStretch(1)
        self.scroll_area.setWidget(self._holder)
        outer.addWidget(self.scroll_area, 1)
        self.cards: list[ChunkCard] = []
        self.mode = "empty"  # "result" | "mentions" | "empty"
        self.entity_id = ""
        self._selected = ""
        self._hovered = ""

    # ------------------------------------------------------------------ filling

    def show_chunks(
        self,
        chunks: Iterable[ShownChunk],
        *,
        query: str = "",
        title: str = "",
        mentions: Mapping[str, Sequence[Span]] | None = None,
        answers: Sequence[str] = (),
    ) -> None:
        """Show a query's chunks, with its terms and the graph's ``answers`` (names)
        highlighted."""
        self.mode = "result"
        self.entity_id = ""
        self.more_button.hide()
        self.back_button.hide()
        chunk_list = list(chunks)
        self.title.setText(title or f"<b>{len(chunk_list)}</b> chunks")
        self._fill(chunk_list, query, mentions or {}, answers)

    def show_mentions(
        self,
        entity_id: str,
        entity_name: str,
        chunks: Iterable[ShownChunk],
        mentions: Mapping[str, Sequence[Span]],
        *,
        total: int,
        query: str = "",
        can_go_back: bool = True,
        said: Iterable[ShownChunk] = (),
        said_total: int = 0,
    ) -> None:
        """Show the chunks that mention an entity, spans highlighted, then for a speaker the
        turns they said; offer the rest if any."""
        self.mode = "mentions"
        self.entity_id = entity_id
        chunk_list = list(chunks)
        shown = len(chunk_list)
        said_list = list(said)
        listed = {chunk.chunk.id for chunk in chunk_list}
        turns = [chunk for chunk in said_list if chunk.chunk.id not in listed]
        title = f"Mentions of <b>{_esc(entity_name)}</b>: {shown} of {total} chunk" + (
            "s" if total != 1 else ""
        )
        if said_total:
            title += f"; turns they said: {len(said_list)} of {said_total}"
        self.title.setText(title)
        if total > shown or said_total > len(said_list):
            more = f"All {total} mentions" if total > shown else f"All {said_total} turns"
            self.more_button.setText(more)
            self.more_button.show()
        else:
            self.more_button.hide()
        self.back_button.setVisible(can_go_back)
        self._fill([*chunk_list, *turns], query, mentions)

    def show_message(self, text: str) -> None:
        self.mode = "empty"
        self.more_button.hide()
        self.back_button.hide()
        self.title.setText(_esc(text))
        self._fill([], "", {})

    def _fill(
        self,
        chunks: Sequence[ShownChunk],
        query: str,
        mentions: Mapping[str, Sequence[Span]],
        answers: Sequence[str] = (),
    ) -> None:
        terms = query_terms(query)
        instances = list(dict.fromkeys([*query_instances(query), *answer_stems(answers)]))
        for card in self.cards:
            self._cards_layout.removeWidget(card)
            card.deleteLater()
        self.cards = []
        self._hovered = ""
        for position, chunk in enumerate(chunks):
            card = ChunkCard(
                chunk, terms, list(mentions.get(chunk.id, ())), self._holder, instances
            )
            card.hovered.connect(self._on_card_hovered)
            card.clicked.connect(self._on_card_clicked)
            card.set_selected(card.chunk_id == self._selected)
            self._cards_layout.insertWidget(position, card)
            self.cards.append(card)
        self.scroll_area.verticalScrollBar().setValue(0)

    @property
    def holder(self) -> QWidget:
        """The widget the cards live in."""
        return self._holder

    def insert_above(self, card: QWidget) -> None:
        """Put a card (a ghost of a dropped chunk) above the others."""
        self._cards_layout.insertWidget(0, card)

    # ------------------------------------------------------------------ linking

    def card(self, chunk_id: str) -> ChunkCard | None:
        return next((c for c in self.cards if c.chunk_id == chunk_id), None)

    def chunk_ids(self) -> list[str]:
        return [c.chunk_id for c in self.cards]

    def mark_linked(self, chunk_ids: Iterable[str]) -> None:
        """Mark the cards of these chunks (e.g. the ones mentioning a hovered entity)."""
        wanted = set(chunk_ids)
        for card in self.cards:
            card.set_linked(card.chunk_id in wanted)

    def linked_ids(self) -> list[str]:
        return [c.chunk_id for c in self.cards if c.linked]

    def select_chunk(self, chunk_id: str) -> None:
        self._selected = chunk_id
        for card in self.cards:
            card.set_selected(card.chunk_id == chunk_id)
        target = self.card(chunk_id)
        if target is not None:
            self.scroll_area.ensureWidgetVisible(target)

    def hover_chunk(self, chunk_id: str) -> None:
        """Behave as if the pointer entered a card (keyboard users and tests)."""
        self._on_card_hovered(chunk_id, True)

    def _on_card_hovered(self, chunk_id: str, entered: bool) -> None:
        if entered:
            self._hovered = chunk_id
        elif self._hovered == chunk_id:
            self._hovered = ""
        self.chunk_hovered.emit(self._hovered)

    def _on_card_clicked(self, chunk_id: str) -> None:
        self.select_chunk(chunk_id)
        self.chunk_selected.emit(chunk_id)

    def _on_more_clicked(self) -> None:
        if self.entity_id:
            self.all_mentions_requested.emit(self.entity_id)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
