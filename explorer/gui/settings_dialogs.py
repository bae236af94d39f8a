"""The Settings and Connect dialogs: what the app uses, and which memory it opens.

``SettingsDialog`` edits the embedder, the extractor, the deadlines, the default scope and the
first-run demo, writing them to the same ``settings.toml`` the CLI reads; the Gemini key goes to
the OS keyring, never to the file or a log. ``ConnectDialog`` chooses the memory: the embedded
stores under a data directory, or external servers — FalkorDB by ``redis://``, ``rediss://``
(with a CA file) or ``unix://`` socket URL and PostgreSQL by DSN (``sslmode`` in it) — with a
"Test connection" that reports each store on its own with its version. Both hand back new
``Settings``; the window reopens the memory with them. Imports Qt, the standard library, the
settings module and the bridge.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from explorer.core.errors import InvalidArgument
from explorer.gui import style
from explorer.gui.bridge import CHUNKS, GRAPH, ServiceBridge
from explorer.settings import Settings, save_gemini_key, save_settings, stored_gemini_key


class SettingsDialog(QDialog):
    """See the module docstring; ``saved`` holds the new settings after Save."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        self.saved: Settings | None = None
        form = QFormLayout()
        self.embedder = _combo(("local", "gemini"), settings.embedder)
        self.extractor = _combo(("offline", "gemini"), settings.extractor)
        self.connect_timeout = _seconds(settings.connect_timeout)
        self.query_timeout = _seconds(settings.query_timeout)
        self.default_scope = QLineEdit(settings.default_scope)
        self.default_scope.setPlaceholderText("empty: the whole memory")
        self.load_demo = QCheckBox("Load the demo memory into an empty memory")
        self.load_demo.setChecked(settings.load_demo)
        self.gemini_key = QLineEdit()
        self.gemini_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.gemini_key.setPlaceholderText(
            "a key is stored in the OS keyring" if stored_gemini_key() else "no key stored"
        )
        self.forget_key = QCheckBox("Forget the stored key")
        form.addRow("Embedder", self.embedder)
        form.addRow("Extractor", self.extractor)
        form.addRow("Connect deadline (s)", self.connect_timeout)
        form.addRow("Query deadline (s)", self.query_timeout)
        form.addRow("Default scope", self.default_scope)
        form.addRow("", self.load_demo)
        form.addRow("Gemini API key", self.gemini_key)
        form.addRow("", self.forget_key)
        where = settings.file or "the user's config directory"
        note = QLabel(f"Saved to {where}; the key only to the OS keyring.")
        note.setWordWrap(True)
        self.error = QLabel()
        self.error.setStyleSheet(style.INVALID_INPUT)
        self.error.setWordWrap(True)
        self.error.hide()
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(note)
        layout.addWidget(self.error)
        layout.addWidget(buttons)

    def changes(self) -> dict[str, Any]:
        """Every setting the dialog shows: all are written, so the file says what was seen."""
        return {
            "embedder": self.embedder.currentText(),
            "extractor": self.extractor.currentText(),
            "connect_timeout": self.connect_timeout.value(),
            "query_timeout": self.query_timeout.value(),
            "default_scope": self.default_scope.text().strip(),
            "load_demo": self.load_demo.isChecked(),
        }

    def save(self) -> None:
        try:
            key = self.gemini_key.text().strip()
            if key or self.forget_key.isChecked():
                save_gemini_key(None if self.forget_key.isChecked() else key)
            self.saved = save_settings(self.settings, self.changes())
        except InvalidArgument as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self.accept()


class ConnectDialog(QDialog):
    """See the module docstring; ``chosen()`` is the memory to open."""

    def __init__(
        self, bridge: ServiceBridge, settings: Settings, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Open a memory")
        self.setMinimumWidth(620)
        self.bridge = bridge
        self.settings = settings
        self.embedded = QRadioButton("Embedded stores in a data directory (started by the app)")
        self.external = QRadioButton("External FalkorDB and PostgreSQL servers")
        self.data_dir = QLineEdit(str(settings.data_dir))
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse_data_dir)
        self.falkordb_url = QLineEdit(settings.falkordb_url or "")
        self.falkordb_url.setPlaceholderText(
            "redis://user:pass@host:6379, rediss://host:6380 or unix:///path/falkordb.sock"
        )
        self.ca_file = QLineEdit()
        self.ca_file.setPlaceholderText("CA certificate for rediss:// (optional)")
        self.graph_name = QLineEdit(settings.graph_name)
        self.postgres_dsn = QLineEdit(settings.postgres_dsn or "")
        self.postgres_dsn.setPlaceholderText(
            "postgresql://user:pass@host:5432/db?sslmode=verify-full or "
            "postgresql://user@/db?host=/socket/dir"
        )
        self.remember = QCheckBox("Open this memory by default (saved to settings.toml)")
        (
            self.external if settings.falkordb_url or settings.postgres_dsn else self.embedded
        ).setChecked(True)
        self.embedded.toggled.connect(self._update_enabled)

        form = QFormLayout()
        form.addRow(self.embedded)
        row = QHBoxLayout()
        row.addWidget(self.data_dir, 1)
        row.addWidget(browse)
        form.addRow("Data directory", row)
        form.addRow(self.external)
        form.addRow("FalkorDB URL", self.falkordb_url)
        form.addRow("CA file", self.ca_file)
        form.addRow("Graph name", self.graph_name)
        form.addRow("PostgreSQL DSN", self.postgres_dsn)
        self.results = {GRAPH: QLabel(), CHUNKS: QLabel()}
        self.test_button = QPushButton("Test connection")
        self.test_button.clicked.connect(self.test)
        self.error = QLabel()
        self.error.setStyleSheet(style.INVALID_INPUT)
        self.error.setWordWrap(True)
        self.error.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.open_button = buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        self.open_button.clicked.connect(self._on_open)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.test_button)
        for half, name in ((GRAPH, "Knowledge graph"), (CHUNKS, "Chunk store")):
            self.results[half].setWordWrap(True)
            self.results[half].setText(f"{name}: not tested")
            layout.addWidget(self.results[half])
        layout.addWidget(self.remember)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self.tested: dict[str, tuple[bool, str]] = {}
        bridge.connection_tested.connect(self._on_bridge_connection_tested)
        self._update_enabled()

    def chosen(self) -> Settings:
        """The settings for the memory the form describes; ``InvalidArgument`` when invalid."""
        if self.embedded.isChecked():
            return dataclasses.replace(
                self.settings,
                data_dir=Path(self.data_dir.text().strip()).expanduser(),
                falkordb_url=None,
                postgres_dsn=None,
            )
        url = self.falkordb_url.text().strip() or None
        ca_file = self.ca_file.text().strip()
        if url and ca_file:
            joiner = "&" if "?" in url else "?"
            url = f"{url}{joiner}ssl_ca_certs={quote(ca_file)}"
        return dataclasses.replace(
            self.settings,
            falkordb_url=url,
            postgres_dsn=self.postgres_dsn.text().strip() or None,
            graph_name=self.graph_name.text().strip() or self.settings.graph_name,
        )

    def test(self) -> None:
        try:
            candidate = self.chosen()
        except InvalidArgument as exc:
            self._show_error(str(exc))
            return
        self.error.hide()
        for label in self.results.values():
            label.setText("testing…")
            label.setStyleSheet("")
        self.bridge.test_connection(candidate)

    def _on_bridge_connection_tested(self, report: Mapping[str, tuple[bool, str]]) -> None:
        self.tested = dict(report)
        for half, name in ((GRAPH, "Knowledge graph"), (CHUNKS, "Chunk store")):
            answers, text = report.get(half, (False, "no answer"))
            label = self.results[half]
            label.setText(f"{'✔' if answers else '✘'} {name}: {text}")
            label.setStyleSheet("" if answers else style.INVALID_INPUT)

    def _on_open(self) -> None:
        try:
            candidate = self.chosen()
            if self.remember.isChecked():
                connection: dict[str, Any] = {
                    "data_dir": candidate.data_dir,
                    "falkordb_url": candidate.falkordb_url,
                    "postgres_dsn": candidate.postgres_dsn,
                    "graph_name": candidate.graph_name,
                }
                candidate = save_settings(candidate, connection)
        except InvalidArgument as exc:
            self._show_error(str(exc))
            return
        self.selected = candidate
        self.accept()

    def _show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()

    def _browse_data_dir(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Data directory", self.data_dir.text())
        if path:
            self.data_dir.setText(path)

    def _update_enabled(self) -> None:
        embedded = self.embedded.isChecked()
        self.data_dir.setEnabled(embedded)
        for widget in (self.falkordb_url, self.ca_file, self.graph_name, self.postgres_dsn):
            widget.setEnabled(not embedded)


def _combo(choices: tuple[str, ...], current: str) -> QComboBox:
    box = QComboBox()
    box.addItems(list(choices))
    box.setCurrentText(current)
    return box


def _seconds(value: float) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(0.5, 600.0)
    box.setDecimals(1)
    box.setValue(value)
    return box
