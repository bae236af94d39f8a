"""The retrieval-policy dock: every decision of the coordinator as a control, with named presets.

``PolicyDock`` shows layer toggles, the two gate floors as sliders with their values, the
relevance weights, the scope blend, the profile slots and the spreading-activation parameters.
Every edit builds a new ``RetrievalPolicy`` and emits ``policy_changed(policy, needs_stores,
reasons)``: ``reasons`` come from ``refetch_reasons`` against the policy the candidates in hand
were fetched under, so an empty list means the change is a pure what-if (re-ranked from the
candidates in hand) and anything listed means the stores must be asked again. The dock says
which kind of change it was. Named presets (the built-in ones and the user's, kept in a JSON
preset file) load, save and reset. Imports Qt, the standard library and core policy types.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDockWidget,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QPushButton,
    QScrollArea,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from explorer.core.coordinator import Gathered, refetch_reasons
from explorer.core.errors import InvalidArgument
from explorer.core.layers import LAYER_ORDER
from explorer.core.policy import (
    DEFAULT_POLICY,
    WEIGHT_NAMES,
    ActivationParams,
    RelevanceWeights,
    RetrievalPolicy,
    ScopeBlend,
    load_presets,
    preset,
    preset_names,
    save_presets,
)

_log = logging.getLogger(__name__)

SLIDER_STEPS = 1000
PRESET_FILE_NAME = "policy-presets.json"
WHAT_IF = "what-if"
REFETCH = "refetch"


def default_preset_path() -> Path:
    """The user's preset file under the app's config directory."""
    import platformdirs

    return Path(platformdirs.user_config_dir("scour-explorer")) / PRESET_FILE_NAME


def describe_change(reasons: list[str]) -> str:
    if not reasons:
        return "re-ranked from the candidates in hand (no store asked)"
    return "asks the stores again: " + "; ".join(reasons)


class _FloorSlider(QWidget):
    """A 0..1 slider with its value shown beside it."""

    def __init__(self, on_change: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, SLIDER_STEPS)
        self.slider.setSingleStep(5)
        self.slider.setPageStep(50)
        self.label = QLabel("0.000")
        self.label.setMinimumWidth(40)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.label)
        self.slider.valueChanged.connect(self._shown)
        self.slider.valueChanged.connect(lambda _value: on_change())

    def _shown(self, _value: int) -> None:
        self.label.setText(f"{self.value():.3f}")

    def value(self) -> float:
        return self.slider.value() / SLIDER_STEPS

    def set_value(self, value: float) -> None:
        self.slider.setValue(round(value * SLIDER_STEPS))
        self._shown(0)


def _spin(low: int, high: int) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setKeyboardTracking(False)
    return box


def _dspin(low: float, high: float, step: float, decimals: int) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setDecimals(decimals)
    box.setKeyboardTracking(False)
    return box


class PolicyDock(QDockWidget):
    """See the module docstring."""

    policy_changed = Signal(object, bool, list)  # RetrievalPolicy, needs stores, reasons

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        preset_path: Path | None = None,
        policy: RetrievalPolicy = DEFAULT_POLICY,
    ) -> None:
        super().__init__("Policy", parent)  # short: a tab in the side column
        self.setObjectName("policyDock")
        self.preset_path = preset_path if preset_path is not None else default_preset_path()
        self._fetched_policy = policy
        self._gathered: Gathered | None = None
        self._policy = policy
        self._filling = False
        self.last_kind = ""
        self.last_reasons: list[str] = []
        self._build()
        self.set_policy(policy)
        self.refresh_presets()

    # ------------------------------------------------------------------ construction

    def _build(self) -> None:
        body = QWidget()
        outer = QVBoxLayout(body)
        outer.setContentsMargins(4, 4, 4, 4)

        presets = QHBoxLayout()
        self.preset_box = QComboBox()
        self.preset_box.setToolTip("Named policies: the built-in ones and yours")
        self.load_button = QPushButton("Load")
        self.save_button = QPushButton("Save as…")
        self.reset_button = QPushButton("Reset")
        self.reset_button.setToolTip("Back to the default policy")
        self.load_button.clicked.connect(lambda: self.load_preset(self.preset_box.currentText()))
        self.save_button.clicked.connect(self._ask_and_save)
        self.reset_button.clicked.connect(self.reset)
        # The preset box above its buttons, so the dock stays narrow without a scrollbar.
        outer.addWidget(self.preset_box)
        for button in (self.load_button, self.save_button, self.reset_button):
            presets.addWidget(button)
        outer.addLayout(presets)

        self.change_label = QLabel("Change a control to see its effect at once.")
        self.change_label.setWordWrap(True)
        self.change_label.setObjectName("policyChangeLabel")
        outer.addWidget(self.change_label)

        changed = self._on_edited
        layers = QGroupBox("Layers")
        layer_grid = QGridLayout(layers)
        self.layer_boxes: dict[str, QCheckBox] = {}
        for index, layer in enumerate(LAYER_ORDER):
            toggle = QCheckBox(layer.value)
            toggle.toggled.connect(lambda _on: changed())
            self.layer_boxes[layer.value] = toggle
            layer_grid.addWidget(toggle, index // 2, index % 2)
        outer.addWidget(layers)

        gates = QGroupBox("Gate floors")
        gate_form = QFormLayout(gates)
        self.min_relevance = _FloorSlider(changed)
        self.min_salience = _FloorSlider(changed)
        gate_form.addRow("min relevance", self.min_relevance)
        gate_form.addRow("min salience", self.min_salience)
        outer.addWidget(gates)

        weights = QGroupBox("Relevance weights")
        weight_form = QFormLayout(weights)
        self.weight_boxes: dict[str, QDoubleSpinBox] = {}
        for name in WEIGHT_NAMES:
            weight = _dspin(0.0, 10.0, 0.05, 3)
            weight.valueChanged.connect(lambda _v: changed())
            self.weight_boxes[name] = weight
            weight_form.addRow(name, weight)
        outer.addWidget(weights)

        scope = QGroupBox("Scope blend and profile")
        scope_form = QFormLayout(scope)
        self.blend_levels = _spin(0, 16)
        self.blend_decay = _dspin(0.01, 1.0, 0.05, 2)
        self.profile_slots = _spin(0, 100)
        for counter in (self.blend_levels, self.profile_slots):
            counter.valueChanged.connect(lambda _v: changed())
        self.blend_decay.valueChanged.connect(lambda _v: changed())
        scope_form.addRow("levels up", self.blend_levels)
        scope_form.addRow("decay per level", self.blend_decay)
        scope_form.addRow("profile slots", self.profile_slots)
        outer.addWidget(scope)

        activation = QGroupBox("Spreading activation")
        act_form = QFormLayout(activation)
        self.activation_enabled = QCheckBox("enabled")
        self.activation_enabled.toggled.connect(lambda _on: changed())
        self.activation_hops = _spin(0, 6)
        self.activation_decay = _dspin(0.01, 1.0, 0.05, 2)
        self.activation_threshold = _dspin(0.0, 1.0, 0.005, 4)
        self.activation_budget = _spin(1, 10_000)
        self.activation_found = _spin(0, 1_000)
        # How a kept chunk is credited with activation (see core.credit).
        self.credit_mention = _dspin(0.0, 1.0, 0.05, 2)
        self.credit_topic = _dspin(0.0, 1.0, 0.01, 2)
        self.credit_contiguity = _dspin(0.0, 1.0, 0.05, 2)
        self.credit_reply = _dspin(0.0, 1.0, 0.05, 2)
        self.activation_weak = _dspin(0.0, 1.0, 0.05, 2)
        for counter in (self.activation_hops, self.activation_budget, self.activation_found):
            counter.valueChanged.connect(lambda _v: changed())
        for dbox in (
            self.activation_decay,
            self.activation_threshold,
            self.credit_mention,
            self.credit_topic,
            self.credit_contiguity,
            self.credit_reply,
            self.activation_weak,
        ):
            dbox.valueChanged.connect(lambda _v: changed())
        act_form.addRow(self.activation_enabled)
        act_form.addRow("hops", self.activation_hops)
        act_form.addRow("decay", self.activation_decay)
        act_form.addRow("threshold", self.activation_threshold)
        act_form.addRow("node budget", self.activation_budget)
        act_form.addRow("max found", self.activation_found)
        act_form.addRow("weak signals", self.activation_weak)
        act_form.addRow("chunk credit: mention", self.credit_mention)
        act_form.addRow("chunk credit: topic", self.credit_topic)
        act_form.addRow("chunk credit: contiguity", self.credit_contiguity)
        act_form.addRow("chunk credit: reply", self.credit_reply)
        self.activation_weak.setToolTip(
            "share of energy passed over a co-occurrence or a mention, against a typed fact's"
        )
        self.credit_mention.setToolTip(
            "share of the strongest mentioned entity's energy a chunk takes when its speaker's "
            "is less"
        )
        self.credit_topic.setToolTip(
            "weight of the strongest non-person entity a chunk mentions in its credit"
        )
        self.credit_contiguity.setToolTip(
            "weight of how strongly the neighbouring turn in the same session was recalled "
            "(topic + contiguity must not exceed 1)"
        )
        self.credit_reply.setToolTip(
            "share of a speaker's energy the next turn, someone else's answer to theirs, takes"
        )
        outer.addWidget(activation)
        outer.addStretch(1)

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        # Never narrower than its controls: scrolling is only ever up and down.
        scroll.setMinimumWidth(
            body.minimumSizeHint().width()
            + scroll.verticalScrollBar().sizeHint().width()
            + 2 * scroll.frameWidth()
        )
        self.scroll_area = scroll
        self.setWidget(scroll)

    # ------------------------------------------------------------------ state

    @property
    def policy(self) -> RetrievalPolicy:
        return self._policy

    @property
    def fetched_policy(self) -> RetrievalPolicy:
        return self._fetched_policy

    def set_context(self, fetched_policy: RetrievalPolicy, gathered: Gathered | None) -> None:
        """The policy the candidates in hand were fetched with, and what was gathered (a new
        answer; ``None`` when nothing can be decided again)."""
        self._fetched_policy = fetched_policy
        self._gathered = gathered
        self.set_policy(fetched_policy)

    def set_policy(self, policy: RetrievalPolicy) -> None:
        """Show ``policy`` in the controls without emitting anything."""
        self._filling = True
        try:
            for name, toggle in self.layer_boxes.items():
                toggle.setChecked(any(layer.value == name for layer in policy.enabled_layers))
            self.min_relevance.set_value(policy.min_relevance)
            self.min_salience.set_value(policy.min_salience)
            for name, box in self.weight_boxes.items():
                box.setValue(float(getattr(policy.weights, name)))
            self.blend_levels.setValue(policy.blend.max_levels)
            self.blend_decay.setValue(policy.blend.decay)
            self.profile_slots.setValue(policy.profile_slots)
            params = policy.activation
            self.activation_enabled.setChecked(params.enabled)
            self.activation_hops.setValue(params.hops)
            self.activation_decay.setValue(params.decay)
            self.activation_threshold.setValue(params.threshold)
            self.activation_budget.setValue(params.node_budget)
            self.activation_found.setValue(params.max_found)
            self.activation_weak.setValue(params.weak_weight)
            self.credit_mention.setValue(params.mention_weight)
            self.credit_topic.setValue(params.topic_weight)
            self.credit_contiguity.setValue(params.contiguity)
            self.credit_reply.setValue(params.reply_weight)
        finally:
            self._filling = False
        self._policy = policy

    def policy_from_controls(self) -> RetrievalPolicy:
        """The policy the controls show (``InvalidArgument`` if they state an invalid one)."""
        base = self._policy
        layers = frozenset(
            layer for layer in LAYER_ORDER if self.layer_boxes[layer.value].isChecked()
        )
        weights = RelevanceWeights(**{name: box.value() for name, box in self.weight_boxes.items()})
        activation: ActivationParams = replace(
            base.activation,
            enabled=self.activation_enabled.isChecked(),
            hops=self.activation_hops.value(),
            decay=self.activation_decay.value(),
            threshold=self.activation_threshold.value(),
            node_budget=self.activation_budget.value(),
            max_found=self.activation_found.value(),
            weak_weight=self.activation_weak.value(),
            mention_weight=self.credit_mention.value(),
            topic_weight=self.credit_topic.value(),
            contiguity=self.credit_contiguity.value(),
            reply_weight=self.credit_reply.value(),
        )
        return replace(
            base,
            enabled_layers=layers,
            weights=weights,
            blend=ScopeBlend(decay=self.blend_decay.value(), max_levels=self.blend_levels.value()),
            activation=activation,
            min_relevance=self.min_relevance.value(),
            min_salience=self.min_salience.value(),
            profile_slots=self.profile_slots.value(),
        )

    def reasons_for(self, policy: RetrievalPolicy) -> list[str]:
        """Why ``policy`` needs the stores again, given the candidates in hand (empty: none)."""
        gathered = self._gathered
        if gathered is None:
            return []
        return refetch_reasons(self._fetched_policy, policy, gathered.query, gathered=gathered)

    def apply_policy(self, policy: RetrievalPolicy) -> None:
        """Show ``policy`` and emit it as a change (presets, tests, scripts)."""
        self.set_policy(policy)
        self._emit(policy)

    # ------------------------------------------------------------------ edits

    def _on_edited(self) -> None:
        if self._filling:
            return
        try:
            policy = self.policy_from_controls()
        except InvalidArgument as error:
            self.change_label.setText(f"<span style='color:#d93025'>{error}</span>")
            return
        self._policy = policy
        self._emit(policy)

    def _emit(self, policy: RetrievalPolicy) -> None:
        reasons = self.reasons_for(policy)
        self.last_kind = REFETCH if reasons else WHAT_IF
        self.last_reasons = list(reasons)
        colour = "#b06000" if reasons else "#188038"
        self.change_label.setText(
            f"<span style='color:{colour}'>{_esc(describe_change(reasons))}</span>"
        )
        self.change_label.setToolTip("\n".join(reasons))
        self.policy_changed.emit(policy, bool(reasons), list(reasons))

    def show_note(self, text: str) -> None:
        """A line under the presets (e.g. how long the last what-if took)."""
        self.change_label.setText(self.change_label.text() + f"<br/><i>{_esc(text)}</i>")

    # ------------------------------------------------------------------ presets

    def user_presets(self) -> dict[str, RetrievalPolicy]:
        if not self.preset_path.exists():
            return {}
        try:
            return load_presets(self.preset_path)
        except InvalidArgument as error:
            _log.warning("ignoring the preset file: %s", error)
            return {}

    def refresh_presets(self) -> None:
        current = self.preset_box.currentText()
        names = list(preset_names()) + [
            name for name in self.user_presets() if name not in preset_names()
        ]
        self.preset_box.blockSignals(True)
        self.preset_box.clear()
        self.preset_box.addItems(names)
        if current in names:
            self.preset_box.setCurrentText(current)
        self.preset_box.blockSignals(False)

    def preset_policy(self, name: str) -> RetrievalPolicy:
        mine = self.user_presets()
        return mine[name] if name in mine else preset(name)

    def load_preset(self, name: str) -> None:
        self.apply_policy(self.preset_policy(name))
        self.preset_box.setCurrentText(name)

    def save_preset(self, name: str, policy: RetrievalPolicy | None = None) -> None:
        name = name.strip()
        if not name:
            raise InvalidArgument("a preset needs a name")
        if name in preset_names():
            raise InvalidArgument(f"{name!r} is a built-in preset; choose another name")
        presets = self.user_presets()
        presets[name] = policy or self._policy
        self.preset_path.parent.mkdir(parents=True, exist_ok=True)
        save_presets(self.preset_path, presets)
        self.refresh_presets()
        self.preset_box.setCurrentText(name)

    def _ask_and_save(self) -> None:
        name, ok = QInputDialog.getText(self, "Save policy preset", "Preset name:")
        if not ok:
            return
        try:
            self.save_preset(name)
        except (InvalidArgument, OSError) as error:
            self.change_label.setText(f"<span style='color:#d93025'>{_esc(str(error))}</span>")

    def reset(self) -> None:
        self.apply_policy(DEFAULT_POLICY)


def _esc(text: object) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
