"""Label placement and fitting for the graph view: what is labelled, where, and what is in view.

``LabelsMixin`` gives ``GraphView`` its label pass (``_refresh_labels``: nodes, badges and the
focused node's relation types placed by ``label_placement`` so none overlaps another, all inside
the viewport), the leader lines, and ``fit`` (every node with room for its label, beside or
below the legend). A part of ``GraphView`` kept in its own module; imports Qt, the standard
library and the graph view's parts.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import (
    QBrush,
    QPainterPath,
    QTransform,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsSimpleTextItem,
)

from explorer.gui import style
from explorer.gui.graph_items import (
    EDGE_LABELS_SCALE,
    FIT_MARGIN_X,
    FIT_MARGIN_Y,
    HUB_MIN_DEGREE,
    HUBS_LABELLED,
    LABELS_ALL_SCALE,
    LEADER_MIN_GAP,
    MAX_EDGE_LABELS,
    MAX_FIT_SCALE,
    MIN_AVOIDED_RADIUS,
    MIN_SCALE,
    OFFSCREEN_REACH,
    add_arrow,
    edge_caption,
    is_weak,
    item_styles,
)
from explorer.gui.graph_model import (
    EdgeData,
    NodeData,
)
from explorer.gui.label_placement import LabelCandidate, Placer, Rect

if TYPE_CHECKING:
    from explorer.gui.graph_parts import GraphViewParts as _Parts
else:
    _Parts = object


class LabelsMixin(_Parts):
    """Part of ``GraphView``; see the module docstring."""

    def _focus_node(self) -> str:
        selected = self.selected_ids()
        if len(selected) == 1:
            return selected[0]
        return self._hovered

    def _update_focus(self) -> None:
        """Draw the focused node's facts in the accent colour, with arrows; their types are
        labelled where there is room (placed with the node labels, ``_place_edge_labels``).
        Weak signals (came up together) keep their dashed line: an arrow would state a fact."""
        focus = self._focus_node()
        path = QPainterPath()
        pairs: dict[tuple[str, str], list[EdgeData]] = {}
        if focus and focus in self._items:
            hidden = self._hidden_nodes()
            for edge in self.state.edges_of(focus)[: MAX_EDGE_LABELS * 4]:
                a, b = self._items.get(edge.source), self._items.get(edge.target)
                if a is None or b is None or edge.source in hidden or edge.target in hidden:
                    continue
                if is_weak(edge):
                    continue
                add_arrow(path, a.pos(), b.pos(), b.radius)
                pairs.setdefault(tuple(sorted((edge.source, edge.target))), []).append(edge)  # type: ignore[arg-type]
        captions = [(f"{a}|{b}", edge_caption(edges), a, b) for (a, b), edges in pairs.items()]
        self._edge_label_specs = [spec for spec in captions if spec[1]][:MAX_EDGE_LABELS]
        self._focus_edges.setPath(path)

    def _refresh_labels(self, force: bool = False) -> None:
        """Place the labels that should show (see ``label_placement``) so none overlaps another
        or a badge: the selected, hovered and lit-up nodes, pinned nodes, result entities and
        hubs always; every other node once zoomed in (or in an export), where there is room.
        Runs on every zoom, so it works from plain numbers (positions, radii, label widths
        kept in dicts) rather than asking each Qt item.
        """
        del force  # every refresh is a full placement; kept for callers
        scale = self.transform().m11()
        self._lod = 2 if scale >= LABELS_ALL_SCALE or self._labels_forced else 1
        focus = self._focus_node()
        forced = self._selected | self._highlighted | ({focus} if focus else set())
        view = self.viewportTransform()
        sx, sy, ox, oy = view.m11(), view.m22(), view.dx(), view.dy()
        hubs, pinned, nodes = self._hub_ids, self.state.pinned, self.state.nodes
        hidden = self._hidden_nodes()
        bounds = self._label_bounds()
        reach = OFFSCREEN_REACH
        all_labels = self._lod == 2
        candidates: list[LabelCandidate] = []
        circles: list[Rect] = []
        centres: dict[str, tuple[float, float, float]] = {}
        for node_id, (px, py) in self._pos.items():
            item = self._items.get(node_id)
            if item is None or node_id in hidden:
                continue
            x, y = px * sx + ox, py * sy + oy
            if bounds is not None and not (
                -reach < x < bounds[2] + reach and -reach < y < bounds[3] + reach
            ):
                continue  # far off screen: neither its label nor its circle can matter
            radius = item.r * scale
            centres[node_id] = (x, y, radius)
            if radius >= MIN_AVOIDED_RADIUS:
                circles.append((x - radius, y - radius, 2 * radius, 2 * radius))
            data = nodes.get(node_id) or item.data_
            if node_id in forced:
                priority = 0
            elif data.root or node_id in pinned:
                priority = 1
            elif node_id in hubs:
                priority = 2
            elif all_labels:
                priority = 3
            else:
                continue
            width, height = self._label_size(data)
            candidates.append(
                LabelCandidate(node_id, x, y, radius, width, height, priority, priority <= 2)
            )
        placer = Placer(circles, bounds)
        if self.legend.isVisible():
            box = self.legend.geometry()
            placer.block([(box.x(), box.y(), box.width(), box.height())])
        self._place_badges(placer)
        placed = placer.place(candidates)
        self._label_rects = placed
        leaders = QPainterPath()
        for node_id, item in self._items.items():
            rect = placed.get(node_id)
            if rect is None:
                item.show_label(False)
                continue
            x, y, radius = centres[node_id]
            item.place_label(rect[0] - x, rect[1] - y, scale)
            # A label moved away from its node gets a thin line back to it.
            nx = min(max(x, rect[0]), rect[0] + rect[2])
            ny = min(max(y, rect[1]), rect[1] + rect[3])
            if math.hypot(nx - x, ny - y) > radius + LEADER_MIN_GAP:
                leaders.moveTo(item.pos())
                leaders.lineTo(QPointF((nx - ox) / sx, (ny - oy) / sy))
        self._leaders.setPath(leaders)
        self._place_edge_labels(placer, sx, sy, ox, oy)

    def _place_edge_labels(
        self, placer: Placer, sx: float, sy: float, ox: float, oy: float
    ) -> None:
        """The focused node's relation types at the middle of their lines, where they fit; when
        zoomed in, those of every line in view."""
        metrics = item_styles().edge_metrics
        wanted = []
        middles: dict[str, tuple[QPointF, str]] = {}
        specs = self._edge_label_specs
        if not specs and sx >= EDGE_LABELS_SCALE and not self._labels_forced:
            screen_w, screen_h = self.viewport().width(), self.viewport().height()

            def on_screen(node_id: str) -> bool:
                point = self._pos.get(node_id)
                if point is None:
                    return False
                x, y = point[0] * sx + ox, point[1] * sy + oy
                return 0 <= x <= screen_w and 0 <= y <= screen_h

            specs = [
                (f"{a}|{b}", caption, a, b)
                for (a, b), edges in self.edge_groups().items()
                if on_screen(a) and on_screen(b) and (caption := edge_caption(edges))
            ][:MAX_EDGE_LABELS]
        for key, text, a, b in specs:
            pa, pb = self._pos.get(a), self._pos.get(b)
            if pa is None or pb is None:
                continue
            middle = QPointF((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
            middles[key] = (middle, text)
            x, y = middle.x() * sx + ox, middle.y() * sy + oy
            width, height = metrics.horizontalAdvance(text) + 2, metrics.height()
            wanted.append(LabelCandidate(key, x, y, 0.0, width, height, 5, False))
        placed = placer.place(wanted)
        while len(self._edge_label_pool) < len(placed):
            label = QGraphicsSimpleTextItem()
            label.setFont(item_styles().edge_font)
            label.setBrush(QBrush(style.EDGE_HIGHLIGHT))
            label.setZValue(5)
            label.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations, True)
            label.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
            self._scene.addItem(label)
            self._edge_label_pool.append(label)
        self._edge_labels = []
        for label, (key, rect) in zip(self._edge_label_pool, placed.items(), strict=False):
            middle, text = middles[key]
            x, y = middle.x() * sx + ox, middle.y() * sy + oy
            label.setText(text)
            label.setPos(middle + QPointF((rect[0] - x) / sx, (rect[1] - y) / sy))
            label.setVisible(True)
            self._edge_labels.append(label)
        for label in self._edge_label_pool[len(placed) :]:
            label.setVisible(False)

    def _label_size(self, data: NodeData) -> tuple[float, float]:
        """A label's width and height in pixels (measured once per text and font)."""
        text = self.label_text(data)
        key = (text, data.root)
        size = self._label_sizes.get(key)
        if size is None:
            metrics = item_styles().metrics[data.root]
            size = self._label_sizes[key] = (metrics.horizontalAdvance(text) + 2, metrics.height())
        return size

    def _label_bounds(self) -> Rect | None:
        """Labels and badges are placed inside the viewport (an export draws the whole scene)."""
        if self._labels_forced:
            return None
        return (0.0, 0.0, float(self.viewport().width()), float(self.viewport().height()))

    def _hubs(self) -> set[str]:
        """The best-connected nodes on screen (their "+N more" or many drawn relations)."""
        degree: dict[str, int] = {}
        for source, target in self._edge_ends:
            degree[source] = degree.get(source, 0) + 1
            degree[target] = degree.get(target, 0) + 1
        for node_id, total in self.state.degrees.items():
            degree[node_id] = max(degree.get(node_id, 0), total)
        ranked = sorted(degree, key=lambda n: (-degree[n], n))
        return {n for n in ranked[:HUBS_LABELLED] if degree[n] >= HUB_MIN_DEGREE}

    def _place_badges(self, placer: Placer) -> None:
        """Put the "+N more" badges beside their nodes without overlapping each other; their
        rectangles then keep every label off them."""
        to_screen = self.viewportTransform()
        scale = self.transform().m11()
        wanted = []
        for node_id, handle in self._handles.items():
            item = self._items.get(node_id)
            if item is None or not item.isVisible():
                handle.setVisible(False)
                continue
            centre = to_screen.map(item.pos())
            box = handle.boundingRect()
            wanted.append(
                LabelCandidate(
                    key=node_id,
                    x=centre.x(),
                    y=centre.y(),
                    radius=item.radius * scale,
                    width=box.width(),
                    height=box.height(),
                    priority=0,
                    must=True,
                    start=6,
                )
            )
        placed = placer.place(wanted)
        for node_id, handle in self._handles.items():
            rect = placed.get(node_id)
            item = self._items.get(node_id)
            if rect is None or item is None:
                handle.setVisible(False)
                continue
            centre = to_screen.map(item.pos())
            handle.setPos(item.pos())
            handle.setTransform(
                QTransform.fromTranslate(rect[0] - centre.x(), rect[1] - centre.y())
            )
            handle.setVisible(True)

    def label_rects(self) -> dict[str, tuple[str, tuple[float, float, float, float]]]:
        """Each drawn label's text and rectangle in scene coordinates (``--scene-json``)."""
        back, _ = self.viewportTransform().inverted()
        out: dict[str, tuple[str, tuple[float, float, float, float]]] = {}
        for node_id, (x, y, w, h) in self._label_rects.items():
            item = self._items.get(node_id)
            if item is None or not item.label_shown():
                continue
            box = back.mapRect(QRectF(x, y, w, h))
            out[node_id] = (item.label.text(), (box.x(), box.y(), box.width(), box.height()))
        return out

    def _all_in_view(self) -> bool:
        """True when every node (and the room its label needs) is inside the visible area."""
        rect = self._nodes_rect()
        if rect.isNull():
            return True
        scale = max(self.transform().m11(), 1e-6)
        room = rect.adjusted(
            -FIT_MARGIN_X / scale, -FIT_MARGIN_Y / scale, FIT_MARGIN_X / scale, FIT_MARGIN_Y / scale
        )
        back, _ = self.viewportTransform().inverted()
        return back.mapRect(self._free_area(rect)).contains(room)

    def fit(self) -> None:
        """Show every node with room around it for labels, beside the legend rather than under
        it; never zoom in beyond 160 %. Labels then stay inside the view (see
        ``_refresh_labels``), so everything drawn fits."""
        rect = self._nodes_rect()
        if rect.isNull():
            return
        self._fit_into(rect)
        self._refresh_labels()
        self._fitted = True

    def _free_area(self, content: QRectF | None = None) -> QRectF:
        """The part of the viewport beside or below the legend (in pixels): whichever of the two
        shows ``content`` larger (the whole viewport when there is no legend)."""
        whole = QRectF(self.viewport().rect())
        if not self.legend.isVisible():
            return whole
        box = self.legend.geometry()
        beside = whole.adjusted(box.right() + 4 - whole.left(), 0, 0, 0)
        below = whole.adjusted(0, box.bottom() + 4 - whole.top(), 0, 0)
        if content is None or content.width() <= 0 or content.height() <= 0:
            return beside

        def scale(area: QRectF) -> float:
            return min(area.width() / content.width(), area.height() / content.height())

        return beside if scale(beside) >= scale(below) else below

    def _fit_into(self, rect: QRectF) -> None:
        area = self._free_area(rect)
        if rect.width() <= 0 or rect.height() <= 0 or area.width() <= 0:
            return
        width = max(area.width() - 2 * FIT_MARGIN_X, 1.0)
        height = max(area.height() - 2 * FIT_MARGIN_Y, 1.0)
        scale = min(width / max(rect.width(), 1.0), height / max(rect.height(), 1.0))
        scale = min(scale, MAX_FIT_SCALE)
        scale = max(scale, MIN_SCALE)
        self.resetTransform()
        self.scale(scale, scale)
        # Centre the content in the free area: shift the view centre by the area's offset.
        offset = area.center() - QRectF(self.viewport().rect()).center()
        self.centerOn(rect.center() - offset / scale)

    def _nodes_rect(self) -> QRectF:
        """Where the nodes are, with room for the biggest circle and a label under it."""
        if not self._pos:
            return QRectF()
        xs = [p[0] for p in self._pos.values()]
        ys = [p[1] for p in self._pos.values()]
        pad = style.NODE_MAX_RADIUS
        return QRectF(
            min(xs) - pad, min(ys) - pad, max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad
        )
