"""The graph view's exports: PNG and SVG (with the legend), its JSON, and the scene description.

``ExportMixin`` gives ``GraphView`` ``export_png``/``export_svg`` (every label, smooth edges and
the legend painted in a corner), ``graph_json`` (what is drawn, for saving) and ``scene_json``
(the view, legend, nodes with their label rectangles and edges, for ``--scene-json``). A part of
``GraphView`` kept in its own module; imports Qt, the standard library and the graph view's
parts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontMetricsF,
    QImage,
    QPainter,
    QPen,
)

from explorer.gui import style
from explorer.gui.graph_items import edge_caption

if TYPE_CHECKING:
    from explorer.gui.graph_parts import GraphViewParts as _Parts
else:
    _Parts = object


class ExportMixin(_Parts):
    """Part of ``GraphView``; see the module docstring."""

    def export_png(self, path: Path, scale: float = 2.0) -> None:
        rect = self._nodes_rect().adjusted(-120, -50, 120, 70)
        if rect.isNull():
            rect = QRectF(0, 0, 400, 300)
        size = QSize(max(1, int(rect.width() * scale)), max(1, int(rect.height() * scale)))
        image = QImage(size, QImage.Format.Format_ARGB32)
        image.fill(style.BACKGROUND)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        self._render_scene(painter, QRectF(0, 0, size.width(), size.height()), rect)
        painter.end()
        if not image.save(str(path), "PNG"):  # type: ignore[call-overload]  # stub says bytes
            raise OSError(f"could not write {path}")

    def export_svg(self, path: Path) -> None:
        from PySide6.QtSvg import QSvgGenerator

        rect = self._nodes_rect().adjusted(-120, -50, 120, 70)
        if rect.isNull():
            rect = QRectF(0, 0, 400, 300)
        generator = QSvgGenerator()
        generator.setFileName(str(path))
        generator.setSize(QSize(int(rect.width()), int(rect.height())))
        generator.setViewBox(QRectF(0, 0, rect.width(), rect.height()))
        generator.setTitle("Scour Explorer neighbourhood")
        painter = QPainter(generator)
        self._render_scene(painter, QRectF(0, 0, rect.width(), rect.height()), rect)
        painter.end()

    def graph_json(self) -> dict[str, Any]:
        """The graph as drawn: nodes with positions, relations, pins and expansions."""
        return {
            "nodes": [
                {
                    "id": n.id,
                    "name": n.name,
                    "type": n.type,
                    "score": n.score,
                    "root": n.root,
                    "source": n.source,
                    "parent": n.parent,
                    "position": list(self.state.positions.get(n.id, (0.0, 0.0))),
                    "pinned": n.id in self.state.pinned,
                }
                for n in self.state.nodes.values()
            ],
            "edges": [
                {"id": e.id, "source": e.source, "target": e.target, "type": e.type, "fact": e.fact}
                for e in self.state.edges.values()
            ],
        }

    def scene_json(self) -> dict[str, Any]:
        """What the graph shows, in scene coordinates: the visible area, the legend, every node
        with its label rectangle (or ``None`` when unlabelled) and the edges as drawn (parallel
        relations between a pair as one edge with a count)."""
        view = self.mapToScene(self.viewport().rect()).boundingRect()
        labels = self.label_rects()
        hidden = self._hidden_nodes()
        nodes = []
        for node_id, node in self.state.nodes.items():
            if node_id in hidden or node_id not in self._items:
                continue
            x, y = self._pos.get(node_id, (0.0, 0.0))
            label = labels.get(node_id)
            nodes.append(
                {
                    "id": node_id,
                    "name": node.name,
                    "type": node.type,
                    "result": node.root,
                    "x": x,
                    "y": y,
                    "radius": self._items[node_id].radius,
                    "label": None if label is None else {"text": label[0], "rect": list(label[1])},
                }
            )
        edges = []
        for (source, target), group in self.edge_groups().items():
            # One line per pair of nodes: its caption as drawn (facts only) and each relation
            # it stands for, read in its own direction.
            relations = sorted((e.source, e.type, e.target) for e in group)
            edges.append(
                {
                    "source": source,
                    "target": target,
                    "caption": edge_caption(group),
                    "relations": [
                        {"source": one, "type": kind, "target": other}
                        for one, kind, other in relations
                    ],
                    "count": len(group),
                }
            )
        return {
            "view": [view.x(), view.y(), view.width(), view.height()],
            "legend": [
                {"type": e["type"], "colour": e["colour"], "count": e["count"]}
                for e in self.legend.entries()
            ],
            "nodes": nodes,
            "edges": edges,
        }

    def _render_scene(self, painter: QPainter, target: QRectF, source: QRectF) -> None:
        # Labels follow the zoom level on screen and big graphs drop edge antialiasing; an
        # export shows every label and smooth edges.
        self.end_batches()
        self._labels_forced = True
        self._refresh_labels(force=True)
        antialias = [layer.antialias for layer in self._edge_layers]
        for layer in self._edge_layers:
            layer.antialias = True
        try:
            self._scene.render(painter, target, source)
            self._paint_legend(painter, target)
        finally:
            for layer, before in zip(self._edge_layers, antialias, strict=True):
                layer.antialias = before
            self._labels_forced = False
            self._refresh_labels(force=True)

    def _paint_legend(self, painter: QPainter, target: QRectF) -> None:
        """The legend of the types shown, in the top-left corner of an export."""
        entries = [e for e in self.legend.entries() if not e["hidden"]]
        if not entries:
            return
        font = QFont()
        font.setPointSizeF(9.0)
        painter.setFont(font)
        metrics = QFontMetricsF(font)
        line = metrics.height() + 2
        width = max(metrics.horizontalAdvance(f"{e['type']} ({e['count']})") for e in entries)
        box = QRectF(target.x() + 8, target.y() + 8, width + 34, line * len(entries) + 8)
        painter.setPen(QPen(QColor("#dadce0"), 1.0))
        painter.setBrush(QBrush(QColor(255, 255, 255, 230)))
        painter.drawRoundedRect(box, 4, 4)
        for row, entry in enumerate(entries):
            y = box.y() + 4 + row * line
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QBrush(QColor(str(entry["colour"]))))
            painter.drawEllipse(QRectF(box.x() + 8, y + line / 2 - 5, 10, 10))
            painter.setPen(QPen(style.LABEL_COLOUR))
            painter.drawText(
                QPointF(box.x() + 24, y + metrics.ascent() + 1),
                f"{entry['type'] or 'untyped'} ({entry['count']})",
            )
