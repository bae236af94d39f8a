"""The activation overlay: spreading activation drawn on the graph view, with a replay to follow.

``ActivationOverlay`` is a panel with a toggle, a legend (node colour by energy, the dotted ring
of nodes reached only by activation, arrow widths by energy carried), and replay controls: play
and pause, a step back and forward, a speed from 0.25× to 8×, "by hop" (one frame per hop of the
log instead of one per step), "follow" (the camera centres on the nodes lit in the frame) and a
frame slider, with a caption per frame ("hop 2: Owen Price → Berlin over LIVES_IN, +0.12").
When on it recolours the graph's nodes by energy (``GraphView.set_node_overlay``), draws each
relation that carried energy as an arrow in the direction it flowed, the current frame's
brighter, rings the nodes reached only by activation, lights up and labels the nodes the frame
reached, and adds energy, hop, source node and relation to node tooltips. The replay itself
(steps, frames, captions) is ``activation_replay``. Imports Qt, the standard library, the core's
activation log and the GUI's replay and ``recalled`` modules.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QLinearGradient, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsPathItem,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from explorer.core.activation import ActivationLog
from explorer.gui.activation_replay import ActivationReplay, Step, amount, sum_in_order
from explorer.gui.recalled import ShownEntity

if TYPE_CHECKING:
    from explorer.gui.graph_view import GraphView

__all__ = ["ActivationOverlay", "ActivationReplay", "Step", "energy_colour"]

LOW = QColor("#fff5d6")
HIGH = QColor("#b3001b")
FRONT = QColor("#e8710a")  # the transfers of the frame on screen
RING = QColor("#6a1b9a")
#: A frame lasts this long at 1×; the speed divides it.
BASE_INTERVAL_MS = 600
SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
MAX_WIDTH = 7.0


def energy_colour(energy: float, top: float) -> QColor:
    """A warm ramp from pale (little energy) to deep red (the most in this spread)."""
    share = 0.0 if top <= 0 else min(max(energy / top, 0.0), 1.0)
    share = math.sqrt(share)  # most energies are small; spread them out
    return QColor(
        round(LOW.red() + (HIGH.red() - LOW.red()) * share),
        round(LOW.green() + (HIGH.green() - LOW.green()) * share),
        round(LOW.blue() + (HIGH.blue() - LOW.blue()) * share),
    )


def arrow_width(carried: float, strongest: float) -> float:
    return 1.0 + (MAX_WIDTH - 1.0) * carried / (strongest or 1.0)


class ReplayLegend(QWidget):
    """What the overlay draws: the energy ramp, the dotted ring, arrow widths and colours."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.top = 1.0
        self.strongest = 0.0
        self.setMinimumHeight(92)
        self.setToolTip(
            "Node colour: its energy now. Dotted ring: reached only by activation, not by the "
            "query. Arrow: energy carried over a relation in the direction it flowed, wider for "
            "more; orange for the frame on screen."
        )

    def set_scale(self, top: float, strongest: float) -> None:
        self.top, self.strongest = top, strongest
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        text = QColor("#3c4043")
        bar = QRectF(4, 2, max(self.width() - 8, 10), 10)
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        for stop in range(11):
            gradient.setColorAt(stop / 10, energy_colour((stop / 10) ** 2 * self.top, self.top))
        painter.fillRect(bar, QBrush(gradient))
        painter.setPen(text)
        painter.drawText(QPointF(4, 25), "node energy 0")
        label = f"{self.top:.3f}"
        width = painter.fontMetrics().horizontalAdvance(label)
        painter.drawText(QPointF(self.width() - 4 - width, 25), label)

        painter.setPen(QPen(RING, 2.0, Qt.PenStyle.DotLine))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawEllipse(QPointF(14, 40), 8, 8)
        painter.setPen(text)
        painter.drawText(QPointF(30, 45), "reached only by activation")

        x = 4.0
        for share in (0.1, 0.5, 1.0):
            colour = QColor(HIGH)
            colour.setAlpha(170)
            painter.setPen(_round_pen(colour, arrow_width(share, 1.0)))
            painter.drawLine(QPointF(x, 62), QPointF(x + 16, 62))
            x += 24
        painter.setPen(text)
        carried = f" (widest {self.strongest:.3f})" if self.strongest else ""
        painter.drawText(QPointF(x, 67), f"energy carried{carried}")
        painter.setPen(_round_pen(FRONT, 3.0))
        painter.drawLine(QPointF(4, 82), QPointF(20, 82))
        painter.setPen(text)
        painter.drawText(QPointF(28, 87), "carried in this frame")
        painter.end()


class ActivationOverlay(QWidget):
    """The overlay's panel and the items it draws on ``graph_view`` (see the module docstring)."""

    step_changed = Signal(int)

    def __init__(self, graph_view: GraphView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("activationOverlay")
        self.graph_view = graph_view
        self.replay = ActivationReplay()
        self.roots: dict[str, str] = {}  # result entity id -> source that found it
        self.step = 0
        self.frame = 0
        self.ends = [0]
        self.speed = 1.0
        self.missing: list[str] = []
        self._items: list[QGraphicsItem] = []
        self._coloured = False
        self._lit: list[str] = []

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.toggle = QCheckBox("Show activation on the graph")
        self.toggle.toggled.connect(self._on_toggled)
        layout.addWidget(self.toggle)
        self.legend = ReplayLegend()
        layout.addWidget(self.legend)

        buttons = QHBoxLayout()
        self.back_button = _tool("◀", "Step back (one step, or one hop in “by hop”)")
        self.back_button.clicked.connect(self.step_back)
        self.play_button = QPushButton("Play")
        self.play_button.setCheckable(True)
        self.play_button.toggled.connect(self._on_play)
        self.forward_button = _tool("▶", "Step forward (one step, or one hop in “by hop”)")
        self.forward_button.clicked.connect(self.step_forward)
        self.speed_box = QComboBox()
        for speed in SPEEDS:
            self.speed_box.addItem(f"{speed:g}×", speed)
        self.speed_box.setCurrentIndex(SPEEDS.index(1.0))
        self.speed_box.setToolTip("Replay speed")
        self.speed_box.currentIndexChanged.connect(
            lambda index: self.set_speed(SPEEDS[index]) if index >= 0 else None
        )
        for widget in (self.back_button, self.play_button, self.forward_button, self.speed_box):
            buttons.addWidget(widget)
        buttons.addStretch(1)
        layout.addLayout(buttons)

        modes = QHBoxLayout()
        self.by_hop_box = QCheckBox("by hop")
        self.by_hop_box.setToolTip("One frame per hop of the spread instead of one per step")
        self.by_hop_box.toggled.connect(self.set_by_hop)
        self.follow_box = QCheckBox("follow")
        self.follow_box.setToolTip("Centre the graph on the nodes each frame reaches")
        self.follow_box.setChecked(True)
        modes.addWidget(self.by_hop_box)
        modes.addWidget(self.follow_box)
        modes.addStretch(1)
        layout.addLayout(modes)

        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.valueChanged.connect(self.set_frame)
        layout.addWidget(self.slider)
        self.caption_label = QLabel("")
        self.caption_label.setWordWrap(True)
        self.caption_label.setStyleSheet("font-weight: bold;")
        layout.addWidget(self.caption_label)
        self.step_label = QLabel("No activation in this answer")
        self.step_label.setWordWrap(True)
        layout.addWidget(self.step_label)
        layout.addStretch(1)

        self._timer = QTimer(self)
        self._timer.setInterval(self.interval_ms)
        self._timer.timeout.connect(self._advance)
        graph_view.graph_changed.connect(self._redraw)
        graph_view.entity_hovered.connect(self._on_hovered)

    # ------------------------------------------------------------------ data

    def set_answer(self, log: ActivationLog, entities: Sequence[ShownEntity]) -> None:
        """Take an answer's activation log and the entities it recalled."""
        self.play_button.setChecked(False)
        self.replay = ActivationReplay.of(log)
        self.roots = {shown.id: shown.source for shown in entities}
        self._rescale()
        self.ends = self.replay.frame_ends(self.by_hop_box.isChecked())
        self._set_slider_range()
        self.set_step(len(self.replay), follow=False)

    def _rescale(self) -> None:
        top = max(self.replay.final().values(), default=1.0) or 1.0
        strongest = max(self.replay.flows(len(self.replay)).values(), default=0.0)
        self.legend.set_scale(top, strongest)

    def _set_slider_range(self) -> None:
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(self.ends) - 1)
        self.slider.setValue(self.frame)
        self.slider.blockSignals(False)

    def energies(self) -> dict[str, float]:
        """The energies shown now (after ``step`` steps)."""
        return self.replay.energies(self.step)

    def activation_only(self) -> list[str]:
        """Nodes reached only by activation: not seeds, and not found by the query itself."""
        return [
            node for node in self.replay.found if self.roots.get(node, "activation") == "activation"
        ]

    @property
    def frame_start(self) -> int:
        """The step the frame on screen starts at (the steps after it are the frame's)."""
        return self.ends[self.frame - 1] if self.frame > 0 else 0

    def frame_steps(self) -> list[Step]:
        """The steps of the frame on screen: one step, or a whole hop in "by hop"."""
        return self.replay.steps[self.frame_start : self.step]

    def lit(self) -> list[str]:
        """The nodes the frame on screen reached, in log order."""
        return list(dict.fromkeys(step.node for step in self.frame_steps()))

    def caption(self) -> str:
        return self.replay.caption(self.frame_steps())

    # ------------------------------------------------------------------ moving through it

    def set_frame(self, frame: int, *, follow: bool = True) -> None:
        frame = min(max(frame, 0), len(self.ends) - 1)
        self._show(frame, self.ends[frame], follow)

    def set_step(self, step: int, *, follow: bool = True) -> None:
        """Show the first ``step`` steps (in "by hop" the frame is the hop they end in)."""
        step = min(max(step, 0), len(self.replay))
        frame = next(i for i, end in enumerate(self.ends) if end >= step)
        self._show(frame, step, follow)

    def _show(self, frame: int, step: int, follow: bool) -> None:
        self.frame, self.step = frame, step
        if self.slider.value() != frame:
            self.slider.blockSignals(True)
            self.slider.setValue(frame)
            self.slider.blockSignals(False)
        self._redraw()
        if follow and self.toggle.isChecked() and self.follow_box.isChecked():
            self.follow()
        self.caption_label.setText(self.caption())
        self.step_label.setText(self._describe())
        self.step_changed.emit(step)

    def step_forward(self) -> None:
        self.set_frame(self.frame + 1)

    def step_back(self) -> None:
        self.set_frame(self.frame - 1)

    def set_by_hop(self, on: bool) -> None:
        if self.by_hop_box.isChecked() != on:
            self.by_hop_box.setChecked(on)  # comes back here through the signal
            return
        step = self.step
        self.ends = self.replay.frame_ends(on)
        # Stay where the replay was: the hop that step is in, or that very step.
        self.frame = next(i for i, end in enumerate(self.ends) if end >= step)
        self._set_slider_range()
        self.set_frame(self.frame, follow=False)

    def set_speed(self, speed: float) -> None:
        if speed not in SPEEDS:
            raise ValueError(f"speed must be one of {SPEEDS}")
        self.speed = speed
        index = SPEEDS.index(speed)
        if self.speed_box.currentIndex() != index:
            self.speed_box.setCurrentIndex(index)
        self._timer.setInterval(self.interval_ms)

    @property
    def interval_ms(self) -> int:
        """How long a frame stays on screen while playing."""
        return round(BASE_INTERVAL_MS / self.speed)

    @property
    def timer(self) -> QTimer:
        return self._timer

    def _describe(self) -> str:
        total = len(self.replay)
        if not total:
            return "No activation in this answer"
        unit = "hop" if self.by_hop_box.isChecked() else "step"
        text = (
            f"frame {self.frame} / {len(self.ends) - 1} (by {unit}) · {self.step} / {total} steps"
        )
        if self.frame_steps():
            text += f" · hop {self.frame_steps()[-1].hop} of {self.replay.hops}"
        hidden = [n for n in self.lit() if self.graph_view.node_item(n) is None]
        if self.toggle.isChecked() and hidden:
            names = ", ".join(self.replay.name(n) for n in hidden[:3])
            text += f" · not drawn: {names}" + ("…" if len(hidden) > 3 else "")
        elif self.missing:
            text += f" · {len(self.missing)} active nodes are not in the view"
        return text

    # ------------------------------------------------------------------ playing

    def _on_play(self, on: bool) -> None:
        if on:
            if not self.toggle.isChecked():
                self.toggle.setChecked(True)
            if self.frame >= len(self.ends) - 1:
                self.set_frame(0)
            self.play_button.setText("Pause")
            self._timer.start()
        else:
            self.play_button.setText("Play")
            self._timer.stop()

    def _advance(self) -> None:
        if self.frame >= len(self.ends) - 1:
            self.play_button.setChecked(False)
            return
        self.step_forward()

    def next_hop(self) -> None:
        hop = self.replay.steps[self.step].hop if self.step < len(self.replay) else self.replay.hops
        self.set_step(self.replay.hop_end(hop))

    def follow(self) -> None:
        """Centre the view on the drawn nodes the frame reached (the frontier)."""
        items = [self.graph_view.node_item(n) for n in self.lit()]
        drawn = [item for item in items if item is not None]
        if not drawn:
            return
        # The middle of their bounding box, so a spread-out frontier stays on screen if it fits.
        xs, ys = [item.x() for item in drawn], [item.y() for item in drawn]
        self.graph_view.centerOn(QPointF((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2))

    # ------------------------------------------------------------------ drawing

    def _on_toggled(self, on: bool) -> None:
        self._redraw()
        if on and self.follow_box.isChecked():
            self.follow()
        self.step_label.setText(self._describe())

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
            self._light([])
            return
        self._coloured = True
        energies = self.energies()
        top = self.legend.top
        view.set_node_overlay({node: energy_colour(e, top) for node, e in energies.items()})
        self.missing = [n for n in energies if view.node_item(n) is None]
        flows = self.replay.flows(self.step)
        current = self.replay.flows(self.step, since=self.frame_start)
        strongest = self.legend.strongest or max(flows.values(), default=0.0)
        for key, carried in flows.items():
            self._arrow(key, carried, strongest, key in current)
        for node in self.activation_only():
            if node in energies:
                self._ring(node)
        self._light(self.lit())

    def _arrow(
        self, key: tuple[str, str, str], carried: float, strongest: float, now: bool
    ) -> None:
        view = self.graph_view
        source, target, relation = key
        a, b = view.node_item(source), view.node_item(target)
        if a is None or b is None:
            return
        arrow = QGraphicsPathItem(_arrow_path(a.pos(), b.pos(), b.radius))
        colour = QColor(FRONT if now else HIGH)
        colour.setAlpha(230 if now else 150)
        width = arrow_width(carried, strongest)
        arrow.setPen(_round_pen(colour, width))
        arrow.setBrush(QBrush(colour))
        arrow.setZValue(0.7 if now else 0.5)
        arrow.setToolTip(
            f"{self.replay.name(source)} → {self.replay.name(target)} over "
            f"{self.replay.relation_names.get(relation, relation)}: {carried:.4f}"
        )
        arrow.setData(0, (source, target, relation, carried))
        view.scene().addItem(arrow)
        self._items.append(arrow)

    def _ring(self, node: str) -> None:
        item = self.graph_view.node_item(node)
        if item is None:
            return
        radius = item.radius + 4
        ring = QGraphicsEllipseItem(-radius, -radius, 2 * radius, 2 * radius)
        ring.setPen(QPen(RING, 2.0, Qt.PenStyle.DotLine))
        ring.setBrush(QBrush(Qt.BrushStyle.NoBrush))
        ring.setPos(item.pos())
        ring.setZValue(4)
        ring.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        ring.setAcceptHoverEvents(False)
        ring.setData(0, node)
        ring.setToolTip("reached only by activation")
        self.graph_view.scene().addItem(ring)
        self._items.append(ring)

    def _light(self, nodes: list[str]) -> None:
        """Light up and label the nodes the frame reached; put back what we lit before."""
        view = self.graph_view
        items = {n: item for n in nodes if (item := view.node_item(n)) is not None}
        drawn = list(items)
        if drawn == self._lit and view.highlighted_ids() == set(drawn):
            return
        if drawn or self._lit:
            view.highlight_entities(drawn)
        for item in items.values():
            item.show_label(True)
        self._lit = drawn

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
                    f"hop {step.hop}: +{amount(step.energy)} from "
                    f"{self.replay.name(step.source)} over {step.over}"
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


def _round_pen(colour: QColor, width: float) -> QPen:
    return QPen(colour, width, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap)


def _tool(text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    button.setAutoRepeat(True)
    return button


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
