"""The main window's status bar, health lights, banners and error box, as a mixin of the window.

``WindowStatus`` builds the status bar (the message, one light per half, the timings, the busy
bar), shows per-half health as lights and as banners over the graph and the chunks (down, or
slow for this query), and collects errors in one non-modal box. ``MainWindow`` mixes it in; it
reads only what the window declares below. Imports Qt, the standard library and the GUI's style
and request values.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QProgressBar

from explorer.core.ports import CHUNKS, GRAPH, OK
from explorer.gui import style
from explorer.gui.requests import QueryOutcome

_log = logging.getLogger(__name__)

APPLICATION = "Scour Explorer"
SLOW_MS = 2000.0


class WindowStatus(QMainWindow):
    """See the module docstring."""

    graph_banner: QLabel
    chunks_banner: QLabel
    errors: list[tuple[str, str]]
    _error_box: QMessageBox | None

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.status_message = QLabel("Starting…")
        bar.addWidget(self.status_message, 1)
        self.graph_status = QLabel()
        self.chunks_status = QLabel()
        self.timings_label = QLabel()
        for label in (self.graph_status, self.chunks_status, self.timings_label):
            bar.addPermanentWidget(label)
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)
        self.progress.setMaximumWidth(120)
        self.progress.setMaximumHeight(14)
        self.progress.hide()
        bar.addPermanentWidget(self.progress)
        self._show_health({GRAPH: OK, CHUNKS: OK}, initial=True)

    # ------------------------------------------------------------------ health

    def _show_health(self, health: Mapping[str, str], initial: bool = False) -> None:
        for half, label, banner, text in (
            (
                GRAPH,
                self.graph_status,
                self.graph_banner,
                "Knowledge graph unavailable — showing chunks only",
            ),
            (
                CHUNKS,
                self.chunks_status,
                self.chunks_banner,
                "Chunk store unavailable — showing graph entities only",
            ),
        ):
            status = health.get(half, OK)
            name = "graph" if half == GRAPH else "chunks"
            if status == OK:
                label.setText(f"<span style='color:#188038'>●</span> {name}")
                label.setToolTip(f"{name}: answering")
                if banner.property("kind") == "down":
                    banner.hide()
                    banner.setProperty("kind", "")
            else:
                label.setText(f"<span style='color:#d93025'>●</span> {name}")
                label.setToolTip(f"{name}: {status}")
                if not initial:
                    banner.setText(f"{text} (retrying automatically)")
                    banner.setToolTip(status)
                    banner.setStyleSheet(style.BANNER_ERROR)
                    banner.setProperty("kind", "down")
                    banner.show()

    def _show_banners(self, outcome: QueryOutcome, timings: Mapping[str, float]) -> None:
        health = {GRAPH: outcome.kg_error or OK, CHUNKS: outcome.chunks_error or OK}
        self._show_health(health)
        for half, banner, key, name in (
            (GRAPH, self.graph_banner, "kg", "Knowledge graph"),
            (CHUNKS, self.chunks_banner, "chunks", "Chunk store"),
        ):
            elapsed = float(timings.get(key) or 0.0)
            if health[half] == OK and elapsed > SLOW_MS:
                banner.setText(f"{name} is slow: {elapsed / 1000:.1f} s for this query")
                banner.setStyleSheet(style.BANNER_WARNING)
                banner.setProperty("kind", "slow")
                banner.show()
            elif health[half] == OK and banner.property("kind") == "slow":
                banner.hide()
                banner.setProperty("kind", "")

    def _show_timings(self, timings: Mapping[str, float]) -> None:
        parts = []
        for key, label in (
            ("kg", "graph"),
            ("chunks", "chunks"),
            ("embed", "embed"),
            ("coordinator", "decide"),
            ("total", "total"),
        ):
            if key in timings:
                parts.append(f"{label} {float(timings[key]):.0f} ms")
        self.timings_label.setText(" · ".join(parts))

    # ------------------------------------------------------------------ errors, status

    def show_error(self, title: str, detail: str) -> None:
        """Show an error without blocking (a non-modal box that collects messages)."""
        _log.error("%s: %s", title, detail)
        self.errors.append((title, detail))
        box = self._error_box
        if box is None:
            box = QMessageBox(self)
            box.setIcon(QMessageBox.Icon.Warning)
            box.setWindowModality(Qt.WindowModality.NonModal)
            box.setStandardButtons(QMessageBox.StandardButton.Close)
            box.finished.connect(self._on_error_box_finished)
            self._error_box = box
            box.setText(title)
            box.setInformativeText(detail)
        else:
            box.setText(f"{len(self.errors)} problems; latest: {title}")
            box.setInformativeText(detail)
        box.setWindowTitle(f"{APPLICATION}: {title}")
        box.show()

    def _on_error_box_finished(self, _result: int) -> None:
        self.errors.clear()
        if self._error_box is not None:
            self._error_box.deleteLater()
            self._error_box = None

    def _set_status(self, text: str) -> None:
        self.status_message.setText(text)
