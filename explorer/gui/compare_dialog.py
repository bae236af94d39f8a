"""The comparison of two answers: what entered, what left and what moved, side by side.

``CompareDialog`` shows a ``CaseDiff`` (``core.recall_case.diff_results``) in three tables; the
trace opens it for a re-run recall case, a pinned baseline, another query or another policy.
Imports Qt and core types.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.core.recall_case import CaseDiff


def _esc(text: object) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class CompareDialog(QDialog):
    """What entered, what left and what moved between two answers, side by side."""

    def __init__(self, diff: CaseDiff, before: str, after: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(f"Compare: {before} → {after}")
        self.diff = diff
        layout = QVBoxLayout(self)
        header = QLabel(f"<b>{_esc(before)}</b> → <b>{_esc(after)}</b>: {_esc(diff.summary())}")
        header.setWordWrap(True)
        layout.addWidget(header)
        columns = QHBoxLayout()
        self.entered = _table(
            ("kind", "hit", "rank", "score"),
            [(h.kind, h.label, str(h.rank), f"{h.score:.3f}") for h in diff.entered],
        )
        self.left = _table(
            ("kind", "hit", "rank", "score"),
            [(h.kind, h.label, str(h.rank), f"{h.score:.3f}") for h in diff.left],
        )
        self.moved = _table(
            ("kind", "hit", "rank", "score"),
            [
                (
                    m.kind,
                    m.label,
                    f"{m.old_rank} → {m.new_rank}",
                    f"{m.old_score:.3f} → {m.new_score:.3f} ({m.new_score - m.old_score:+.3f})",
                )
                for m in diff.moved
            ],
        )
        for title, table in (
            (f"Entered ({len(diff.entered)})", self.entered),
            (f"Left ({len(diff.left)})", self.left),
            (f"Moved ({len(diff.moved)})", self.moved),
        ):
            box = QVBoxLayout()
            box.addWidget(QLabel(f"<b>{title}</b>"))
            box.addWidget(table)
            columns.addLayout(box)
        layout.addLayout(columns, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout.addWidget(buttons)
        self.resize(980, 420)


def _table(headers: tuple[str, ...], rows: list[tuple[str, ...]]) -> QTableWidget:
    table = QTableWidget(len(rows), len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().setVisible(False)
    table.horizontalHeader().setStretchLastSection(True)
    for row, values in enumerate(rows):
        for column, value in enumerate(values):
            table.setItem(row, column, QTableWidgetItem(value))
    table.setColumnWidth(1, 220)
    return table
