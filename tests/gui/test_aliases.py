"""The inspector's alias links over the in-memory fake memory: "detach" undoes a merge, "allow
again" forgets the refusal, and a read-only memory offers neither.

The links are clicked with the mouse where the inspector draws them, and every check reads both
the store and what the inspector shows. The same detach-and-allow round trip over the real
embedded stores is in ``test_real_service.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from explorer.core.errors import ReadOnlyStore
from explorer.core.models import AliasEvidence
from explorer.gui.bridge import ServiceBridge
from explorer.gui.inspector import InspectorWidget
from explorer.gui.moments import local_time
from explorer.gui.recalled import ShownEntity
from explorer.testing import FakeMemory
from tests.gui.conftest import close_window, make_window, run
from tests.gui.links import click_link


def _window(qtbot: Any, memory: FakeMemory, settings_store: Any) -> Any:
    bridge = ServiceBridge(memory=memory, poll_interval=0.1)
    window = make_window(bridge, settings_store)
    bridge.open()
    qtbot.waitUntil(lambda: bridge.opened, timeout=5_000)
    return window


@pytest.fixture
def fake() -> FakeMemory:
    return _with_tita(FakeMemory())


@pytest.fixture
def fake_window(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, fake: FakeMemory, settings_store: Any
) -> Iterator[Any]:
    window = _window(qtbot, fake, settings_store)
    yield window
    close_window(qloop, window)


def _with_tita(memory: FakeMemory, *, refused: tuple[str, ...] = ()) -> FakeMemory:
    """Marta, addressed as Tita by Ana (and refusing ``refused``)."""
    marta = memory.graph.entities["marta"]
    memory.graph.entities["marta"] = replace(
        marta,
        aliases=("Tita",),
        alias_evidence=(AliasEvidence("Tita", "c1", "addressed as Tita by Ana"),),
        refused_aliases=refused,
    )
    return memory


def _show_marta(qtbot: Any, window: Any, until: str) -> InspectorWidget:
    inspector: InspectorWidget = window.inspector
    window._on_inspector_entity_activated("marta")
    qtbot.waitUntil(
        lambda: inspector.entity_id == "marta" and until in inspector.toPlainText(), timeout=5_000
    )
    return inspector


def test_detach_then_allow_again_changes_the_store_and_the_inspector(
    qtbot: Any, fake_window: Any, fake: FakeMemory
) -> None:
    inspector = _show_marta(qtbot, fake_window, "addressed as Tita by Ana")
    assert inspector.link_targets("detach") == ["Tita"] and inspector.link_targets("allow") == []

    assert click_link(qtbot, inspector, "detach", "Tita") == "detach"
    qtbot.waitUntil(lambda: "Detached by you" in inspector.toPlainText(), timeout=5_000)
    stored = fake.graph.entities["marta"]
    assert stored.aliases == () and stored.alias_evidence == ()
    assert stored.refused_aliases == ("Tita",)
    assert "Detached “Tita”" in inspector.note and "Tita" not in inspector.alias_reasons()
    assert inspector.link_targets("detach") == [] and inspector.link_targets("allow") == ["Tita"]

    assert click_link(qtbot, inspector, "allow", "Tita") == "allow again"
    qtbot.waitUntil(lambda: "Detached by you" not in inspector.toPlainText(), timeout=5_000)
    assert fake.graph.entities["marta"].refused_aliases == ()
    assert "“Tita” is no longer kept apart" in inspector.note
    assert inspector.note in inspector.toPlainText()
    assert fake_window.status_message.text() == inspector.note
    assert inspector.link_targets("allow") == [] and "allow again" not in inspector.toPlainText()


def test_allowing_a_name_again_lets_an_import_merge_it_back(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, fake_window: Any, fake: FakeMemory
) -> None:
    merged = fake.graph.entities["marta"]
    inspector = _show_marta(qtbot, fake_window, "addressed as Tita by Ana")
    click_link(qtbot, inspector, "detach", "Tita")
    qtbot.waitUntil(lambda: "allow again" in inspector.toPlainText(), timeout=5_000)
    # While refused, an import that links the name again does not bring it back …
    run(qloop, fake.graph.upsert([merged], []))
    assert "Tita" not in fake.graph.entities["marta"].aliases
    click_link(qtbot, inspector, "allow", "Tita")
    qtbot.waitUntil(lambda: "no longer kept apart" in inspector.note, timeout=5_000)
    # … once allowed again, it does; the inspector shows it when the entity is shown anew.
    run(qloop, fake.graph.upsert([merged], []))
    assert "Tita" in fake.graph.entities["marta"].aliases
    fake_window._entity_cache.pop("marta", None)
    fake_window._on_inspector_entity_activated("marta")
    qtbot.waitUntil(lambda: inspector.link_targets("detach") == ["Tita"], timeout=5_000)


def test_a_read_only_memory_offers_neither_detach_nor_allow_again(
    qtbot: Any, qloop: asyncio.AbstractEventLoop, settings_store: Any
) -> None:
    memory = _with_tita(FakeMemory(read_only=True), refused=("Martinha",))
    window = _window(qtbot, memory, settings_store)
    try:
        inspector = _show_marta(qtbot, window, "Martinha")
        assert inspector.read_only
        text = inspector.toPlainText()
        assert "addressed as Tita by Ana" in text and "Detached by you" in text
        assert inspector.link_targets("detach") == [] and inspector.link_targets("allow") == []
        assert "detach" not in text and "allow again" not in text
        # Asked anyway (not from the inspector), the memory refuses and the window says why.
        window.bridge.allow_alias("marta", "Martinha")
        qtbot.waitUntil(lambda: "read-only" in inspector.note, timeout=5_000)
        assert "Could not allow “Martinha” again" in inspector.toPlainText()
        assert memory.graph.entities["marta"].refused_aliases == ("Martinha",)
        window.bridge.detach_alias("marta", "Tita")
        qtbot.waitUntil(lambda: "Could not detach “Tita”" in inspector.note, timeout=5_000)
        assert memory.graph.entities["marta"].aliases == ("Tita",)
    finally:
        close_window(qloop, window)


def test_a_store_that_refuses_a_detach_says_why(
    qtbot: Any, fake_window: Any, fake: FakeMemory, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def refuse(entity_id: str, alias: str) -> bool:
        raise ReadOnlyStore("this memory is opened read-only; nothing was changed")

    monkeypatch.setattr(fake.graph, "detach_alias", refuse)
    inspector = _show_marta(qtbot, fake_window, "addressed as Tita by Ana")
    assert inspector.alias_reasons()["Tita"] == ["addressed as Tita by Ana"]
    click_link(qtbot, inspector, "detach", "Tita")
    qtbot.waitUntil(lambda: "read-only" in inspector.note, timeout=5_000)
    assert "Could not detach “Tita”" in inspector.toPlainText()
    assert "Tita" in fake.graph.entities["marta"].aliases


def test_a_provenance_link_reads_as_the_turns_time(qtbot: Any, fake: FakeMemory) -> None:
    inspector = InspectorWidget()
    qtbot.addWidget(inspector)
    inspector.resize(280, 600)
    long_id = "ce2d42f938b6e18afedea99db0baecc" + "c" * 33
    marta = fake.graph.entities["marta"]
    turn = replace(marta.mentions[0], chunk_id=long_id)
    inspector.show_entity(ShownEntity.read(replace(marta, mentions=(turn,))))
    inspector.show()
    chosen: list[str] = []
    inspector.chunk_activated.connect(chosen.append)
    shown = click_link(qtbot, inspector, "chunk", long_id)
    assert shown == local_time(turn.timestamp, seconds=False)  # the reader's clock and zone
    assert chosen == [long_id]
    assert f"[{turn.start}:{turn.end}] ce2d42f938…" in inspector.toPlainText()
    assert long_id not in inspector.toPlainText()


def test_a_reason_given_in_several_turns_is_listed_once_with_a_link_to_each(
    qtbot: Any, fake_window: Any, fake: FakeMemory
) -> None:
    marta = fake.graph.entities["marta"]
    said = "addressed as Tita by Ana"
    fake.graph.entities["marta"] = replace(
        marta,
        aliases=("Tita",),
        alias_evidence=tuple(
            AliasEvidence("Tita", chunk, said) for chunk in ("c1", "c2", "c1", "c3")
        ),
    )
    inspector = _show_marta(qtbot, fake_window, said)
    assert inspector.alias_reasons()["Tita"] == [said]
    assert inspector.toPlainText().count(said) == 1 and "(turns 1, 2, 3)" in inspector.toPlainText()
    # The alias's turn links come first (the provenance list after them links its own).
    assert inspector.link_targets("chunk")[:3] == ["c1", "c2", "c3"]
