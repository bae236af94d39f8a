"""The one bottom dock: pages (the ledger, "Why not", hits, agent recalls) as tabs that collapse.

``BottomDock`` is a ``QDockWidget`` whose title bar is its row of tabs, so collapsed it is one
row high and the graph and the chunks keep the window. Clicking a tab opens the dock on that
page; clicking the open page's tab (or the arrow button) collapses it again. It starts collapsed,
and whether it is collapsed, its open height and its page are kept in the window's ``QSettings``
store under ``bottomDock/``. ``page_shown`` says which page came on screen (for pages that count
what the user has not seen yet). Imports Qt and the standard library.
"""

from __future__ import annotations

import contextlib

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QMainWindow,
    QStackedWidget,
    QTabBar,
    QToolButton,
    QWidget,
)

OPEN_HEIGHT = 260
UNBOUNDED = 16_777_215  # QWIDGETSIZE_MAX


class BottomDock(QDockWidget):
    """See the module docstring."""

    page_shown = Signal(object)  # the page widget now on screen
    collapsed_changed = Signal(bool)

    def __init__(self, window: QMainWindow, store: QSettings, title: str = "Trace") -> None:
        super().__init__(title, window)
        self.setObjectName("bottomDock")
        self.main = window
        self.store = store
        self.pages: list[QWidget] = []
        self.collapsed = False
        self._restored = False  # nothing is written to the store before it was read
        self.open_height = _int(store.value("bottomDock/height"), OPEN_HEIGHT)

        header = QWidget()
        header.setObjectName("bottomDockTabs")
        row = QHBoxLayout(header)
        row.setContentsMargins(2, 2, 2, 0)
        row.setSpacing(4)
        self.bar = QTabBar()
        self.bar.setExpanding(False)
        self.bar.setDrawBase(False)
        self.bar.setUsesScrollButtons(False)
        self.bar.setElideMode(Qt.TextElideMode.ElideNone)
        self.bar.tabBarClicked.connect(self._on_tab_clicked)
        self.bar.currentChanged.connect(self._on_current_changed)
        row.addWidget(self.bar)
        row.addStretch(1)  # empty title space: dragging it moves the dock
        self.arrow = QToolButton()
        self.arrow.setAutoRaise(True)
        self.arrow.clicked.connect(lambda: self.set_collapsed(not self.collapsed))
        row.addWidget(self.arrow)
        self.setTitleBarWidget(header)
        self.header = header
        self.stack = QStackedWidget()
        self.setWidget(self.stack)
        self.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )

    # ------------------------------------------------------------------ pages

    def add_page(self, page: QWidget, title: str) -> None:
        self.pages.append(page)
        self.stack.addWidget(page)
        self.bar.addTab(title)

    def page_title(self, page: QWidget) -> str:
        return self.bar.tabText(self.pages.index(page))

    def set_page_title(self, page: QWidget, title: str) -> None:
        self.bar.setTabText(self.pages.index(page), title)

    def current_page(self) -> QWidget | None:
        index = self.bar.currentIndex()
        return self.pages[index] if 0 <= index < len(self.pages) else None

    def page_on_screen(self, page: QWidget) -> bool:
        return not self.collapsed and self.isVisible() and self.current_page() is page

    def show_page(self, page: QWidget) -> None:
        """Open the dock on ``page``."""
        self.show()
        self.bar.setCurrentIndex(self.pages.index(page))
        self.set_collapsed(False)

    def restore(self) -> None:
        """Take the page and collapsed state kept in the store (collapsed when none is)."""
        index = _int(self.store.value("bottomDock/page"), 0)
        if 0 <= index < len(self.pages):
            self.bar.setCurrentIndex(index)
        collapsed = self.store.value("bottomDock/collapsed")
        self._restored = True
        self.set_collapsed(True if collapsed is None else str(collapsed).lower() == "true")

    # ------------------------------------------------------------------ collapsing

    def set_collapsed(self, on: bool) -> None:
        if on and not self.collapsed and self.stack.isVisible() and not self.isFloating():
            self.open_height = max(self.height(), 120)
        self.collapsed = on
        self.stack.setVisible(not on)
        self.arrow.setText("▴" if on else "▾")
        self.arrow.setToolTip("Open this panel" if on else "Collapse this panel to its tabs")
        if on:
            self.setMaximumHeight(self._collapsed_height())
        else:
            self.setMaximumHeight(UNBOUNDED)
            if not self.isFloating():
                self.main.resizeDocks([self], [self.open_height], Qt.Orientation.Vertical)
        if self._restored:
            self.store.setValue("bottomDock/collapsed", on)
            self.store.setValue("bottomDock/height", self.open_height)
        self.collapsed_changed.emit(on)
        page = self.current_page()
        if not on and page is not None:
            self.page_shown.emit(page)

    def _collapsed_height(self) -> int:
        self.header.ensurePolished()
        self.bar.ensurePolished()
        return self.header.sizeHint().height() + 2

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        # The tab bar's height is only known once styled, which is after the first collapse.
        if self.collapsed:
            self.setMaximumHeight(self._collapsed_height())

    def _on_tab_clicked(self, index: int) -> None:
        if index < 0:
            return
        if self.collapsed:
            self.bar.setCurrentIndex(index)
            self.set_collapsed(False)
        elif index == self.bar.currentIndex():
            self.set_collapsed(True)

    def _on_current_changed(self, index: int) -> None:
        if 0 <= index < len(self.pages):
            self.stack.setCurrentIndex(index)
            if self._restored:
                self.store.setValue("bottomDock/page", index)
            if not self.collapsed:
                self.page_shown.emit(self.pages[index])


def _int(value: object, default: int) -> int:
    # QSettings hands back what it stored: an int, or its text from an ini file.
    with contextlib.suppress(TypeError, ValueError):
        return int(str(value))
    return default
