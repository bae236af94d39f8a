"""The activation overlay: spreading activation drawn on the graph view, with a step replay.

``ActivationReplay`` is the pure part: scour's ``activation`` log (one entry per transfer, in
order) replayed step by step, summing energies in log order exactly as the core's
``ActivationLog.replay`` does, so every step and the final state agree with the log to the bit.
``ActivationOverlay`` is a panel with a toggle, a colour legend, a step slider and play/pause;
when on it recolours the graph's nodes by energy (``GraphView.set_node_overlay``), draws each
relation that carried energy as an arrow in the direction it flowed with a width by the amount,
rings the nodes reached only by activation, and adds energy, hop, source node and relation to
node tooltips. Imports Qt, the standard library and the GUI's style.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QLinearGradient, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPathItem,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QVBoxLayout,
    QWidget,
)

LOW = QColor("#fff5d6")
HIGH = QColor("#b3001b")
PLAY_INTERVAL_MS = 350


@dataclass(frozen=True, slots=True)
class Step:
    node: str
    name: str
    energy: float
    source: str | None
    relation: str | None
    hop: int
    relation_type: str | None = None

    @property
    def over(self) -> str:
        """The relation the energy came over, as a reader names it (its type, else its id)."""
        return self.relation_type or self.relation or "?"


def steps_from_json(entries: Sequence[Mapping[str, Any]]) -> list[Step]:
    return [
        Step(
            node=str(e["node"]),
            name=str(e.get("name") or e["node"]),
            energy=float(e["energy"]),
            source=None if e.get("from") is None else str(e["from"]),
            relation=None if e.get("relation") is None else str(e["relation"]),
            hop=int(e.get("hop") or 0),
            relation_type=None if e.get("relation_type") is None else str(e["relation_type"]),
        )
        for e in entries
    ]


class ActivationReplay:
    """The log of one spread, replayable step by step (see the module docstring)."""

    def __init__(self, steps: Sequence[Step] = ()) -> None:
        self.steps = list(steps)
        self.seeds = [s.node for s in self.steps if s.source is None]
        seeds = set(self.seeds)
        self.found = list(dict.fromkeys(s.node for s in self.steps if s.node not in seeds))
        #: Relation id → what a reader calls it, for the relations the spread went over.
        self.relation_names = {s.relation: s.over for s in self.steps if s.relation is not None}

    @classmethod
    def from_json(cls, entries: Sequence[Mapping[str, Any]]) -> ActivationReplay:
        return cls(steps_from_json(entries))

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def hops(self) -> int:
        return max((s.hop for s in self.steps), default=0)

    def energies(self, upto: int) -> dict[str, float]:
        """Every node's energy after the first ``upto`` steps (as ``ActivationLog.replay``)."""
        state: dict[str, float] = {}
        for step in self.steps[: max(upto, 0)]:
            state[step.node] = state.get(step.node, 0.0) + step.energy
        return state

    def final(self) -> dict[str, float]:
        return self.energies(len(self.steps))

    def flows(self, upto: int) -> dict[tuple[str, str, str], float]:
        """Energy carried per (from, to, relation) in the first ``upto`` steps."""
        carried: dict[tuple[str, str, str], float] = {}
        for step in self.steps[: max(upto, 0)]:
            if step.source is None or step.relation is None:
                continue
            key = (step.source, step.node, step.relation)
            carried[key] = carried.get(key, 0.0) + step.energy
        return carried

    def arrivals(self, upto: int) -> dict[str, list[Step]]:
        """The steps that brought energy to each node, in log order."""
        found: dict[str, list[Step]] = {}
        for step in self.steps[: max(upto, 0)]:
            found.setdefault(step.node, []).append(step)
        return found

    def hop_end(self, hop: int) -> int:
        """The number of steps up to and including ``hop``."""
        return sum(1 for s in self.steps if s.hop <= hop)


def energy_colour(energy: float, top: float) -> QColor:
    """A warm ramp from pale (little energy) to deep red (the most in this spread)."""
    share = 0.0 if top <= 0 else min(max(energy / top, 0.0), 1.0)
    share = math.sqrt(share)  # most energies are small; spread them out
    return QColor(
        round(LOW.red() + (HIGH.red() - LOW.red()) * share),
        round(LOW.green() + (HIGH.green() - LOW.green()) * share),
        round(LOW.blue() + (HIGH.blue() - LOW.blue()) * share),
    )


class EnergyLegend(QWidget):
    """A gradient bar from 0 to the spread's strongest energy."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.top = 1.0
        self.setMinimumHeight(30)

    def set_top(self, top: float) -> None:
        self.top = top
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        bar = QRectF(4, 2, max(self.width() - 8, 10), 10)
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        for stop in range(11):
            gradient.setColorAt(stop / 10, energy_colour((stop / 10) ** 2 * self.top, self.top))
        painter.fillRect(bar, QBrush(gradient))
        painter.setPen(QColor("#5f6368"))
        painter.drawText(QPointF(4, 26), "energy 0")
        label = f"{self.top:.3f}"
        width = painter.fontMetrics().horizontalAdvance(label)
        painter.drawText(QPointF(self.width() - 4 - width, 26), label)
        painter.end()


class ActivationOverlay(QWidget):
    """The overlay's panel and the items it draws on ``graph_view`` (see the module docstring)."""

    step_changed = Signal(int)

    def __init__(self, graph_view: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("activationOverlay")
        self.graph_view = graph_view
        self.replay = ActivationReplay()
        self.roots: dict[str, str] = {}  # result entity id -> source that found it
        self.step = 0
        self._items: list[QGraphicsItem] = []
        self._coloured = False
        self.missing: list[str] = []

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.toggle = QCheckBox("Show activation on the graph")
        self.toggle.toggled.connect(self._on_toggled)
        layout.addWidget(self.toggle)
        self.legend = EnergyLegend()
        layout.addWidget(self.legend)
        controls = QHBoxLayout()
        self.play_button = QPushButton("Play")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self._on_play)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.valueChanged.connect(self.set_step)
        controls.addWidget(self.play_button)
        controls.addWidget(self.slider, 1)
        layout.addLayout(controls)
        self.step_label = QLabel("No activation in this answer")
        self.step_label.setWordWrap(True)
        layout.addWidget(self.step_label)
        layout.addStretch(1)
        self._timer = QTimer(self)
        self._timer.setInterval(PLAY_INTERVAL_MS)
        self._timer.timeout.connect(self._advance)
        graph_view.graph_changed.connect(self._redraw)
        graph_view.entity_hovered.connect(self._on_hovered)

    # ------------------------------------------------------------------ data

    def set_result(self, result: Mapping[str, Any]) -> None:
        """Take the activation log and result entities of a scour JSON answer."""
        self.replay = ActivationReplay.from_json(result.get("activation") or [])
        self.roots = {
            str(e["id"]): str(e.get("source") or "") for e in result.get("kg_entities") or []
        }
        self.legend.set_top(max(self.replay.final().values(), default=1.0) or 1.0)
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(self.replay))
        self.slider.setValue(len(self.replay))
        self.slider.blockSignals(False)
        self.set_step(len(self.replay))

    def energies(self) -> dict[str, float]:
        """The energies shown now (after ``step`` steps)."""
        return self.replay.energies(self.step)

    def activation_only(self) -> list[str]:
        """Nodes reached only by activation: not seeds, and not found by the query itself."""
        return [
            node for node in self.replay.found if self.roots.get(node, "activation") == "activation"
        ]

    def set_step(self, step: int) -> None:
        step = min(max(step, 0), len(self.replay))
        self.step = step
        if self.slider.value() != step:
            self.slider.blockSignals(True)
            self.slider.setValue(step)
            self.slider.blockSignals(False)
        self.step_label.setText(self._describe(step))
        self._redraw()
        self.step_changed.emit(step)

    def _describe(self, step: int) -> str:
        total = len(self.replay)
        if not total:
            return "No activation in this answer"
        if step == 0:
            return f"0 / {total} steps: before the spread ({len(self.replay.seeds)} seeds)"
        last = self.replay.steps[step - 1]
        how = "seed" if last.source is None else f"from {self._name(last.source)} over {last.over}"
        text = (
            f"{step} / {total} steps · hop {last.hop} of {self.replay.hops}: "
            f"{last.name} +{last.energy:.4f} ({how})"
        )
        if self.missing:
            text += f" · {len(self.missing)} active nodes are not in the view"
        return text

    def _name(self, node: str) -> str:
        for step in self.replay.steps:
            if step.node == node:
                return step.name
        return node

    # ------------------------------------------------------------------ playing

    def _on_play(self, on: bool) -> None:
        if on:
            if self.step >= len(self.replay):
                self.set_step(0)
            self.play_button.setText("Pause")
            self._timer.start()
        else:
            self.play_button.setText("Play")
            self._timer.stop()

    def _advance(self) -> None:
        if self.step >= len(self.replay):
            self.play_button.setChecked(False)
            return
        self.set_step(self.step + 1)

    def next_hop(self) -> None:
        hop = self.replay.steps[self.step].hop if self.step < len(self.replay) else self.replay.hops
        self.set_step(self.replay.hop_end(hop))

    # ------------------------------------------------------------------ drawing

    def _on_toggled(self, on: bool) -> None:
        self._redraw()

    def clear_items(self) -> None:
        scene = self.graph_view.scene()
        for item in self._items:
            if item.scene() is scene:
                scene.removeItem(item)
        self._items = []

    @property
    def items(self) -> list[QGraphicsItem]:
        return list(self._items)

    def _redraw(self) -> None:
        self.clear_items()
        view = self.graph_view
        if not self.toggle.isChecked():
            if self._coloured:
                view.set_node_overlay(None)
                self._coloured = False
            return
        self._coloured = True
        energies = self.energies()
        top = self.legend.top
        view.set_node_overlay({node: energy_colour(e, top) for node, e in energies.items()})
        scene = view.scene()
        self.missing = [n for n in energies if view.node_item(n) is None]
        flows = self.replay.flows(self.step)
        strongest = max(flows.values(), default=0.0) or 1.0
        for (source, target, relation), amount in flows.items():
            a, b = view.node_item(source), view.node_item(target)
            if a is None or b is None:
                continue
            arrow = QGraphicsPathItem(_arrow_path(a.pos(), b.pos(), b.radius))
            width = 1.0 + 6.0 * amount / strongest
            colour = QColor(HIGH)
            colour.setAlpha(170)
            arrow.setPen(QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap))
            arrow.setBrush(QBrush(colour))
            arrow.setZValue(0.5)
            arrow.setToolTip(
                f"{self._name(source)} → {self._name(target)} over "
                f"{self.replay.relation_names.get(relation, relation)}: {amount:.4f}"
            )
            arrow.setData(0, (source, target, relation, amount))
            scene.addItem(arrow)
            self._items.append(arrow)
        for node in self.activation_only():
            item = view.node_item(node)
            if item is None or node not in energies:
                continue
            radius = item.radius + 4
            ring = QGraphicsEllipseItem(-radius, -radius, 2 * radius, 2 * radius)
            ring.setPen(QPen(QColor("#6a1b9a"), 2.0, Qt.PenStyle.DotLine))
            ring.setBrush(QBrush(Qt.BrushStyle.NoBrush))
            ring.setPos(item.pos())
            ring.setZValue(4)
            ring.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            ring.setAcceptHoverEvents(False)
            ring.setData(0, node)
            ring.setToolTip("reached only by activation")
            scene.addItem(ring)
            self._items.append(ring)

    def tooltip_for(self, node: str) -> str:
        """Energy, hop and where it came from, for a node, at the current step."""
        arrivals = self.replay.arrivals(self.step).get(node)
        if not arrivals:
            return ""
        energy = sum_in_order(s.energy for s in arrivals)
        lines = [f"activation energy {energy:.4f} (first reached in hop {arrivals[0].hop})"]
        for step in arrivals[:6]:
            if step.source is None:
                lines.append(f"seed with {step.energy:.4f}")
            else:
                lines.append(
                    f"hop {step.hop}: +{step.energy:.4f} from {self._name(step.source)} "
                    f"over {step.over}"
                )
        if len(arrivals) > 6:
            lines.append(f"… {len(arrivals) - 6} more transfers")
        if node in self.activation_only():
            lines.append("reached only by activation")
        return "<br/>".join(lines)

    def _on_hovered(self, node: str) -> None:
        if not node or not self.toggle.isChecked():
            return
        item = self.graph_view.node_item(node)
        extra = self.tooltip_for(node)
        if item is not None and extra:
            item.setToolTip(item.toolTip() + "<hr/>" + extra)


def sum_in_order(values: Any) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


def _arrow_path(start: QPointF, end: QPointF, end_radius: float) -> QPainterPath:
    path = QPainterPath()
    line = QLineF(start, end)
    length = line.length()
    if length < 1e-6:
        return path
    tip = line.pointAt(max(0.0, 1.0 - (end_radius + 2) / length))
    path.moveTo(start)
    path.lineTo(tip)
    angle = math.atan2(tip.y() - start.y(), tip.x() - start.x())
    size = 8.0
    for turn in (2.6, -2.6):
        path.moveTo(tip)
        path.lineTo(
            QPointF(
                tip.x() + size * math.cos(angle + turn), tip.y() + size * math.sin(angle + turn)
            )
        )
    return path
