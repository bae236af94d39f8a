"""A per-hit score breakdown drawn as a small horizontal bar chart.

``ScoreChart`` paints one bar per weighted component of a hit's score (similarity, lexical,
recency, salience, confidence, activation) and the share scope blending took off, from the
``score_breakdown`` object of scour's JSON, with the total beside the title. Bars share one scale
(the largest absolute component), so they compare at a glance. Imports Qt and the standard
library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

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


def credit_notes(credit: Mapping[str, Any] | None) -> list[str]:
    """Where a chunk's activation credit came from, one line per tie (scour's
    ``activation_credit``); nothing when activation gave it none."""
    if not credit:
        return []
    lines = [f"activation credit {float(credit.get('credit') or 0.0):.3f}, from:"]
    said = credit.get("said")
    if said:
        how = "who said it" if said.get("by") == "speaker" else "whom it names"
        lines.append(f"  {how}: {said.get('name')} ({float(said.get('energy') or 0.0):.2f})")
    topic = credit.get("topic")
    if topic:
        lines.append(
            f"  what it is about: {topic.get('name')} ({float(topic.get('energy') or 0.0):.2f})"
        )
    near = credit.get("next_to")
    if near:
        lines.append(f"  the turn beside it, recalled at {float(near.get('strength') or 0.0):.2f}")
    return lines


def show_hit(chart: ScoreChart, hit: Mapping[str, Any]) -> None:
    """``chart`` showing one hit of scour's JSON: its breakdown, score and credit."""
    name = str(hit.get("name") or hit.get("text", ""))[:40]
    chart.set_breakdown(
        hit.get("score_breakdown"),
        title=f"{name} ({hit.get('layer')} · {hit.get('source')})",
        score=float(hit.get("score") or 0.0),
        notes=credit_notes(hit.get("activation_credit")),
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
        breakdown: Mapping[str, Any] | None,
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
        self._bars = (
            [(name, float(breakdown.get(name) or 0.0)) for name in COMPONENTS if breakdown]
            if breakdown
            else []
        )
        if breakdown:
            # Components the contract does not name still show, after the known ones.
            self._bars += [
                (str(name), float(value or 0.0))
                for name, value in breakdown.items()
                if name not in COMPONENTS
            ]
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
