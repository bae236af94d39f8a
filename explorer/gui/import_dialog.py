"""File → Import: bring a conversation export into the open memory, with progress and a summary.

``ImportDialog`` takes a file (picked, typed or dropped on the window), detects its format
(JSONL, ChatGPT ``conversations.json``, LoCoMo; the user may override), proposes a scope under
the root named after the file, and offers strict (a bad record imports nothing) or skip-bad.
While the import runs it shows the phase, counts and rate; Cancel stops it and the bridge then
completes what was already written, so nothing is left half-imported, and the dialog says so.
At the end it lists what was added, what was already present and each skipped record with its
reason. Imports Qt, the standard library, the importers' format helpers and GUI request values;
all work goes through the bridge.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from explorer.core.progress import Progress
from explorer.gui import style
from explorer.gui.bridge import ServiceBridge
from explorer.gui.requests import ImportOutcome, ImportRequest

FORMAT_NAMES = {"jsonl": "JSONL messages", "chatgpt": "ChatGPT export", "locomo": "LoCoMo"}
FILE_FILTER = "Conversations (*.jsonl *.json);;All files (*)"


class ImportDialog(QDialog):
    """See the module docstring."""

    def __init__(self, bridge: ServiceBridge, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import conversations")
        self.setMinimumWidth(560)
        self.bridge = bridge
        self.running = False
        self.outcome: ImportOutcome | None = None

        form = QFormLayout()
        self.path = QLineEdit()
        self.path.setPlaceholderText("a .jsonl file, a ChatGPT conversations.json or a LoCoMo file")
        self.path.textChanged.connect(self._on_path_changed)
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        form.addRow("File", row)
        self.format = QComboBox()
        for fmt in bridge.services.formats if bridge.services is not None else ():
            self.format.addItem(FORMAT_NAMES[fmt], fmt)
        self.detected = QLabel()
        format_row = QHBoxLayout()
        format_row.addWidget(self.format)
        format_row.addWidget(self.detected, 1)
        form.addRow("Format", format_row)
        self.scope = QLineEdit()
        self.scope.setToolTip("Every conversation of the file goes under this scope")
        self.scope.textChanged.connect(self._update_import_button)
        form.addRow("Scope", self.scope)
        self.strict = QRadioButton("Strict: a bad record imports nothing")
        self.skip_bad = QRadioButton("Skip bad records and import the rest")
        self.strict.setChecked(True)
        modes = QButtonGroup(self)
        modes.addButton(self.strict)
        modes.addButton(self.skip_bad)
        form.addRow("Bad records", self.strict)
        form.addRow("", self.skip_bad)

        self.progress = QProgressBar()
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status = QLabel("Choose a file to import.")
        self.status.setWordWrap(True)
        self.summary = QPlainTextEdit()
        self.summary.setReadOnly(True)
        self.summary.setMinimumHeight(110)
        self.summary.hide()

        self.buttons = QDialogButtonBox()
        self.import_button = self.buttons.addButton(
            "Import", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.cancel_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.close_button = self.buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.hide()
        self.import_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self._on_cancel)
        self.close_button.clicked.connect(self.accept)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.summary, 1)
        layout.addWidget(self.buttons)

        bridge.import_progress.connect(self._on_bridge_import_progress)
        bridge.import_finished.connect(self._on_bridge_import_finished)
        self._update_import_button()

    # ------------------------------------------------------------------ the form

    def set_path(self, path: str | Path) -> None:
        self.path.setText(str(path))

    def request(self) -> ImportRequest:
        return ImportRequest(
            path=self.path.text().strip(),
            format=str(self.format.currentData()),
            scope=self.scope.text().strip(),
            skip_bad=self.skip_bad.isChecked(),
        )

    def _browse(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Import conversations", "", FILE_FILTER)
        if path:
            self.set_path(path)

    def _on_path_changed(self, text: str) -> None:
        path = text.strip()
        services = self.bridge.services
        readable = services is not None and bool(path) and Path(path).is_file()
        found = services.detect_format(path) if services is not None and readable else None
        if found is not None:
            self.format.setCurrentIndex(self.format.findData(found))
            self.detected.setText(f"detected: {FORMAT_NAMES[found]}")
        else:
            self.detected.setText("not recognised: choose the format" if path else "")
        if path and services is not None:
            self.scope.setText(services.suggest_scope(path))
        self._update_import_button()

    def _update_import_button(self) -> None:
        path = self.path.text().strip()
        ready = bool(path) and Path(path).is_file() and bool(self.scope.text().strip())
        self.import_button.setEnabled(ready and not self.running)
        if self.running:
            return
        if path and not Path(path).is_file():
            self.status.setText(f"No such file: {path}")
        elif ready:
            self.status.setText("Ready: press Import.")
        elif path:
            self.status.setText("Name the scope to import into.")
        else:
            self.status.setText("Choose a file to import.")

    # ------------------------------------------------------------------ running

    def start(self) -> None:
        if self.running:
            return
        request = self.request()
        self.running = True
        self.outcome = None
        for widget in (self.path, self.format, self.scope, self.strict, self.skip_bad):
            widget.setEnabled(False)
        self.import_button.setEnabled(False)
        self.summary.hide()
        self.progress.setRange(0, 0)
        self.status.setStyleSheet("")
        self.status.setText(f"Reading {Path(request.path).name}…")
        self.bridge.start_import(request)

    def _on_cancel(self) -> None:
        if self.running:
            self.cancel_button.setEnabled(False)
            self.status.setText("Cancelling; completing what was already written…")
            self.bridge.cancel_import()
        else:
            self.reject()

    def _on_bridge_import_progress(self, progress: Progress) -> None:
        if not self.running:
            return
        if progress.total > 0:
            self.progress.setRange(0, progress.total)
            self.progress.setValue(min(progress.done, progress.total))
        else:
            self.progress.setRange(0, 0)
        unit = "bytes" if progress.phase == "read" else "items"
        self.status.setText(
            f"{progress.phase}: {progress.done:,} of {progress.total:,} {unit} "
            f"({progress.rate:,.0f}/s, {progress.elapsed:.1f} s)"
        )

    def _on_bridge_import_finished(self, outcome: ImportOutcome) -> None:
        if not self.running:
            return
        self.running = False
        self.outcome = outcome
        self.progress.setRange(0, 1)
        self.progress.setValue(1 if outcome.report is not None else 0)
        self.cancel_button.hide()
        self.import_button.hide()
        self.close_button.show()
        self.summary.setPlainText(summary_text(outcome))
        self.summary.show()
        if outcome.error:
            self.status.setStyleSheet(style.INVALID_INPUT)
            self.status.setText("The import failed.")
        elif outcome.cancelled:
            self.status.setText("Cancelled.")
        else:
            self.status.setText(f"Imported into scope “{outcome.request.scope}”.")


def summary_text(outcome: ImportOutcome) -> str:
    """What the import did, in words a user can act on."""
    name = Path(outcome.request.path).name
    if outcome.cancelled:
        if outcome.error:
            return outcome.error
        if outcome.completed:
            return (
                f"The import of {name} was cancelled. The {outcome.completed:,} chunks already "
                "written were completed with their entities and relations, so nothing is "
                "half-imported; the rest of the file was not imported. Import the file again "
                "to add it (what is already there is skipped)."
            )
        return f"The import of {name} was cancelled before anything was written: nothing changed."
    if outcome.error:
        strict = "" if outcome.request.skip_bad else "\nNothing was imported (strict mode)."
        return f"{outcome.error}{strict}"
    report = outcome.report
    if report is None:
        return f"The import of {name} ended without a report."
    lines = [
        f"{name} ({FORMAT_NAMES.get(report.format, report.format)}) into "
        f"“{outcome.request.scope}”, in {report.seconds:.1f} s:",
        f"  added: {report.chunks_new:,} chunks, {report.entities:,} entities, "
        f"{report.relations:,} relations",
        f"  already present: {report.chunks - report.chunks_new:,} chunks "
        f"({report.conversations_unchanged:,} of {report.conversations:,} conversations unchanged)",
    ]
    if report.duplicates:
        lines.append(f"  repeated inside the file: {report.duplicates:,} chunks")
    if report.skipped_empty:
        lines.append(f"  empty messages skipped: {report.skipped_empty:,}")
    if report.bad_count:
        lines.append(f"  skipped bad records: {report.bad_count:,}")
        lines.extend(f"    {record.describe(name)}" for record in report.bad_records[:50])
        if report.bad_count > 50:
            lines.append(f"    … and {report.bad_count - 50:,} more")
    lines.extend(f"  {note}; File → Forget a scope…" for note in report.copy_notes())
    return "\n".join(lines)
