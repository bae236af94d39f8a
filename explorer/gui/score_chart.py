"""A per-hit score breakdown drawn as a small horizontal bar chart.

``ScoreChart`` paints one bar per weighted component of a hit's score (similarity, lexical,
recency, salience, confidence, activation) and the share scope blending took off, from a
recalled memory's ``ScoreBreakdown``, with the total beside the title. Bars share one scale
(the largest absolute component), so they compare at a glance. Imports Qt, the standard library,
core score types and the GUI's plain ``recalled`` view.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.core.credit import ChunkCredit
from explorer.core.scoring import ScoreBreakdown
from explorer.gui.recalled import ShownChunk, ShownEntity

COMPONENTS = ("similarity", "lexical", "recency", "salience", "confidence", "activation", "scope")
COMPONENT_COLOURS = {
    "similarity": "#4e79a7",
    "lexical": "#f28e2b",
    "recency": "#76b7b2",
    "salience": "#59a14f",
    "confidence": "#9c755f",
    "activation": "#e15759",
    "scope": "#bab0ac",
}
ROW_HEIGHT = 15
LABEL_WIDTH = 74
VALUE_WIDTH = 48


def credit_notes(credit: ChunkCredit | None, names: Mapping[str, str]) -> list[str]:
    """Where a chunk's activation credit came from, one line per tie; nothing when activation
    gave it none. ``names`` names the entities the ties point at."""
    if credit is None or credit.credit <= 0.0:
        return []
    lines = [f"activation credit {credit.credit:.3f}, from:"]
    if credit.said_by is not None and credit.said > 0.0:
        name = names.get(credit.said_by, credit.said_by)
        if credit.fact_type is not None and credit.fact_end is not None:
            end = names.get(credit.fact_end, credit.fact_end)
            how = f"the {credit.fact_type} asked of {name}, as it names {end}"
        elif credit.reply_to is not None:
            how = f"whose turn it answers: {name}"
        else:
            how = f"{'who said it' if credit.by_speaker else 'whom it names'}: {name}"
        lines.append(f"  {how} ({credit.said:.2f})")
    if credit.topic_of is not None and credit.topic > 0.0:
        name = names.get(credit.topic_of, credit.topic_of)
        lines.append(f"  what it is about: {name} ({credit.topic:.2f})")
    if credit.next_to is not None:
        lines.append(f"  the turn beside it, which matched at {credit.contiguity:.2f}")
    return lines


def show_hit(chart: ScoreChart, hit: ShownEntity | ShownChunk) -> None:
    """``chart`` showing one recalled memory: its breakdown, score and credit."""
    if isinstance(hit, ShownEntity):
        name, notes = hit.entity.name, []
    else:
        name, notes = hit.chunk.text, credit_notes(hit.credit, hit.names)
    chart.set_breakdown(
        hit.breakdown,
        title=f"{name[:40]} ({hit.layer} · {hit.source})",
        score=hit.score or 0.0,
        notes=notes,
    )


class ScoreChart(QWidget):
    """See the module docstring; ``set_breakdown`` with ``None`` shows a hint instead."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("scoreChart")
        self.title = ""
        self.score: float | None = None
        self._bars: list[tuple[str, float]] = []
        self.notes: list[str] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(self._height())

    def set_breakdown(
        self,
        breakdown: ScoreBreakdown | None,
        *,
        title: str = "",
        score: float | None = None,
        notes: Sequence[str] = (),
    ) -> None:
        """Bars for ``breakdown``; ``notes`` are lines written under them (where a part came
        from)."""
        self.title = title
        self.score = score
        self.notes = list(notes) if breakdown else []
        parts = breakdown.to_dict() if breakdown else {}
        self._bars = [(name, parts.get(name, 0.0)) for name in COMPONENTS if parts]
        self.setMinimumHeight(self._height())
        self.setToolTip(
            "\n".join(f"{name}: {value:+.4f}" for name, value in self._bars) if self._bars else ""
        )
        self.updateGeometry()
        self.update()

    def bars(self) -> list[tuple[str, float]]:
        """The bars drawn, in order, as (component, value)."""
        return list(self._bars)

    def _height(self) -> int:
        return ROW_HEIGHT * (len(self._bars) + len(self.notes) + 1) + 6

    def sizeHint(self) -> QSize:
        return QSize(260, self._height())

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        font = QFont(self.font())
        font.setPointSizeF(max(font.pointSizeF() - 1.0, 7.0))
        painter.setFont(font)
        width = self.width()
        heading = self.title or "score breakdown"
        if self.score is not None:
            heading += f" — score {self.score:.3f}"
        if not self._bars:
            heading = self.title or "Select a hit to see its score breakdown"
        painter.setPen(QColor("#3c4043"))
        painter.drawText(
            QRectF(2, 0, width - 4, ROW_HEIGHT),
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            heading,
        )
        if not self._bars:
            painter.end()
            return
        scale = max((abs(value) for _, value in self._bars), default=0.0) or 1.0
        area = max(width - LABEL_WIDTH - VALUE_WIDTH - 8, 20)
        zero = LABEL_WIDTH + 4 + (area * 0.15 if any(v < 0 for _, v in self._bars) else 0.0)
        span = area - (zero - LABEL_WIDTH - 4)
        for row, (name, value) in enumerate(self._bars, start=1):
            top = row * ROW_HEIGHT
            painter.setPen(QColor("#5f6368"))
            painter.drawText(
                QRectF(2, top, LABEL_WIDTH, ROW_HEIGHT),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                name,
            )
            length = span * abs(value) / scale
            left = zero if value >= 0 else zero - min(length, zero - LABEL_WIDTH - 4)
            painter.fillRect(
                QRectF(left, top + 3, max(length, 1.0 if value else 0.0), ROW_HEIGHT - 6),
                QColor(COMPONENT_COLOURS.get(name, "#8c8c8c")),
            )
            painter.setPen(QColor("#202124"))
            painter.drawText(
                QRectF(width - VALUE_WIDTH - 2, top, VALUE_WIDTH, ROW_HEIGHT),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                f"{value:+.3f}",
            )
        painter.setPen(QColor("#9aa0a6"))
        painter.drawLine(int(zero), ROW_HEIGHT, int(zero), ROW_HEIGHT * (len(self._bars) + 1))
        painter.setPen(QColor("#5f6368"))
        for row, note in enumerate(self.notes, start=len(self._bars) + 1):
            painter.drawText(
                QRectF(2, row * ROW_HEIGHT, width - 4, ROW_HEIGHT),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                note,
            )
        painter.end()
