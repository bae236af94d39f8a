"""Clicking the inspector's links with the mouse, where Qt draws them (for the GUI tests).

Imports Qt and the inspector.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor

from explorer.gui.inspector import InspectorWidget


def anchor(inspector: InspectorWidget, kind: str, target: str) -> tuple[str, QPoint]:
    """The text of the first link the inspector draws for ``(kind, target)`` and a point on it
    (scrolled into view), checked to be where Qt finds that link."""
    assert target in inspector.link_targets(kind), f"no {kind} link for {target!r}"
    href = f"link:{inspector._links.index((kind, target))}"
    document = inspector.document()
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().anchorHref() == href:
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position() + fragment.length() // 2)
                inspector.setTextCursor(cursor)
                inspector.ensureCursorVisible()
                point = inspector.cursorRect(cursor).center()
                assert inspector.anchorAt(point) == href, "the link is not where it is drawn"
                return fragment.text(), point
            fragments += 1
        block = block.next()
    raise AssertionError(f"{href} ({kind} {target!r}) is not in the inspector's text")


def click_link(qtbot: Any, inspector: InspectorWidget, kind: str, target: str) -> str:
    """Click, with the mouse, the link the inspector draws for ``(kind, target)``; its text."""
    text, point = anchor(inspector, kind, target)
    qtbot.mouseClick(inspector.viewport(), Qt.MouseButton.LeftButton, pos=point)
    return text
