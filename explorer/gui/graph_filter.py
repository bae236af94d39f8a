"""The filter bar under the graph: by relation type, layer and source, and a time slider.

``GraphFilterBar`` offers drop-down lists of the relation types, layers and sources on screen
(untick to hide them) and a time window over the entities' first/last-seen dates: two sliders
set its start and end, ▶ plays the end forward from the start, and entities evidenced only
outside the window are greyed out (those without dates stay as they are). Entity types are
hidden from the legend. ``time_window`` and ``apply`` are what tests drive. Imports Qt, the
standard library and the graph view's public API.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QSlider, QToolButton, QWidget

from explorer.core.models import WEAK_RELATIONS
from explorer.gui.graph_model import GraphState

if TYPE_CHECKING:
    from explorer.gui.graph_view import GraphView

STEPS = 1000
PLAY_FRAMES = 60
PLAY_INTERVAL_MS = 80


def parse_time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def time_range(state: GraphState) -> tuple[datetime, datetime] | None:
    """The earliest first-seen and the latest last-seen date of the nodes that have them."""
    moments = [
        moment
        for node in state.nodes.values()
        for moment in (parse_time(node.first_seen), parse_time(node.last_seen))
        if moment is not None
    ]
    return (min(moments), max(moments)) if moments else None


def outside(state: GraphState, start: datetime, end: datetime) -> set[str]:
    """Nodes whose evidence span [first seen, last seen] misses the window entirely."""
    out = set()
    for node in state.nodes.values():
        first, last = parse_time(node.first_seen), parse_time(node.last_seen)
        if first is None and last is None:
            continue
        first, last = first or last, last or first
        assert first is not None and last is not None
        if last < start or first > end:
            out.add(node.id)
    return out


class GraphFilterBar(QWidget):
    """See the module docstring."""

    def __init__(self, view: GraphView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = view
        layout = QHBoxLayout(self)
        layout.setContentsMargins(2, 0, 2, 0)
        layout.setSpacing(4)
        self.menus: dict[str, QMenu] = {}
        self.buttons: dict[str, QToolButton] = {}
        for kind, title in (("relation", "Relations"), ("layer", "Layers"), ("source", "Sources")):
            button = QToolButton()
            button.setText(title)
            button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            menu = QMenu(button)
            button.setMenu(menu)
            layout.addWidget(button)
            self.menus[kind] = menu
            self.buttons[kind] = button
        layout.addSpacing(8)
        layout.addWidget(QLabel("Time"))
        self.start = QSlider(Qt.Orientation.Horizontal)
        self.end = QSlider(Qt.Orientation.Horizontal)
        for slider, value in ((self.start, 0), (self.end, STEPS)):
            slider.setRange(0, STEPS)
            slider.setValue(value)
            slider.setMinimumWidth(70)
            slider.valueChanged.connect(self._on_slider_value_changed)
            layout.addWidget(slider, 1)
        self.play_button = QToolButton()
        self.play_button.setText("▶")
        self.play_button.setToolTip("Play the time window forward")
        self.play_button.clicked.connect(self.toggle_play)
        layout.addWidget(self.play_button)
        self.window_label = QLabel()
        self.window_label.setMinimumWidth(170)
        layout.addWidget(self.window_label)
        self.span: tuple[datetime, datetime] | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(PLAY_INTERVAL_MS)
        self._timer.timeout.connect(self._on_timer_timeout)
        view.graph_changed.connect(self._on_view_graph_changed)
        self._on_view_graph_changed()

    # ------------------------------------------------------------------ what the graph holds

    def _on_view_graph_changed(self) -> None:
        state = self.view.state
        # Facts first; the weak signals after them, named for what they are.
        self._fill(
            "relation",
            sorted({e.type for e in state.edges.values()}, key=lambda t: (t in WEAK_RELATIONS, t)),
            self.view.hidden_relation_types,
        )
        self._fill(
            "layer",
            sorted({n.layer for n in state.nodes.values() if n.layer}),
            self.view.hidden_layers,
        )
        self._fill(
            "source",
            sorted({n.source for n in state.nodes.values() if n.source}),
            self.view.hidden_sources,
        )
        span = time_range(state)
        if span != self.span:
            self.span = span
            for slider in (self.start, self.end):
                slider.setEnabled(span is not None)
        self._show_window()

    def _fill(self, kind: str, values: list[str], hidden: set[str]) -> None:
        menu = self.menus[kind]
        menu.clear()
        for value in values:
            weak = kind == "relation" and value in WEAK_RELATIONS
            action = menu.addAction(f"{value} (came up together, not a fact)" if weak else value)
            action.setCheckable(True)
            action.setChecked(value not in hidden)
            action.toggled.connect(lambda on, k=kind, v=value: self.apply(k, v, on))
        self.buttons[kind].setEnabled(bool(values))

    def apply(self, kind: str, value: str, shown: bool) -> None:
        """Show or hide one relation type, layer or source."""
        self.view.set_filter_value(kind, value, shown)

    # ------------------------------------------------------------------ time

    def time_window(self) -> tuple[datetime, datetime] | None:
        if self.span is None:
            return None
        first, last = self.span
        whole = last - first
        low, high = sorted((self.start.value(), self.end.value()))
        return first + whole * (low / STEPS), first + whole * (high / STEPS)

    def set_time_window(self, start: datetime, end: datetime) -> None:
        if self.span is None:
            return
        first, last = self.span
        whole = (last - first).total_seconds() or 1.0
        for slider, moment in ((self.start, start), (self.end, end)):
            share = (moment - first).total_seconds() / whole
            slider.setValue(round(min(max(share, 0.0), 1.0) * STEPS))

    def _on_slider_value_changed(self, _value: int) -> None:
        window = self.time_window()
        whole = self.start.value() == 0 and self.end.value() == STEPS
        if window is None or whole:
            self.view.set_dimmed(())
        else:
            self.view.set_dimmed(outside(self.view.state, *window))
        self._show_window()

    def _show_window(self) -> None:
        window = self.time_window()
        if window is None:
            self.window_label.setText("no dates on screen")
        else:
            self.window_label.setText(f"{window[0]:%d %b %Y} – {window[1]:%d %b %Y}")

    def toggle_play(self) -> None:
        if self._timer.isActive():
            self._timer.stop()
            self.play_button.setText("▶")
            return
        if self.end.value() >= STEPS:
            self.end.setValue(self.start.value())
        self.play_button.setText("⏸")
        self._timer.start()

    def _on_timer_timeout(self) -> None:
        value = min(self.end.value() + max(STEPS // PLAY_FRAMES, 1), STEPS)
        self.end.setValue(value)
        if value >= STEPS:
            self.toggle_play()
