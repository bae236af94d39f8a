"""The graph state behind the view and the text highlighting: plain Python, no Qt."""

from __future__ import annotations

from explorer.core.models import Entity, Neighbour, Relation
from explorer.gui.graph_model import (
    GraphState,
    collapse,
    merge_neighbourhood,
    relations_of,
    remove_nodes,
    state_from_entities,
    with_positions,
)
from explorer.gui.highlight import (
    highlight_html,
    instance_spans,
    query_instances,
    query_terms,
    term_spans,
)
from explorer.gui.recalled import ShownEntity

ANA = Entity("ana", "Ana", "person")
MARTA = Entity("marta", "Marta", "person")
RESULT = [
    ShownEntity(
        ANA,
        (
            Neighbour(
                Relation("r1", "ana", "lisbon", "TRAVELS_TO", "Ana travels to Lisbon"),
                "lisbon",
                "Lisbon",
                "place",
                outgoing=True,
            ),
            Neighbour(
                Relation("r3", "marta", "ana", "SISTER_OF"), "marta", "Marta", "person", False
            ),
        ),
        source="graph",
        score=0.8,
    ),
    ShownEntity(MARTA, score=0.4),
]


def test_state_from_entities_has_roots_neighbours_and_directed_edges() -> None:
    state = state_from_entities(RESULT)
    assert set(state.nodes) == {"ana", "lisbon", "marta"}
    assert state.nodes["ana"].root and state.nodes["marta"].root
    assert not state.nodes["lisbon"].root and state.nodes["lisbon"].parent == "ana"
    assert state.nodes["ana"].score == 1.0 and state.nodes["marta"].score == 0.5
    assert (state.edges["r1"].source, state.edges["r1"].target) == ("ana", "lisbon")
    assert (state.edges["r3"].source, state.edges["r3"].target) == ("marta", "ana")


def test_follow_up_result_keeps_positions_and_pins_of_known_nodes() -> None:
    first = with_positions(state_from_entities(RESULT), {"ana": (1.0, 2.0), "lisbon": (3.0, 4.0)})
    first.pinned.add("ana")
    second = state_from_entities(RESULT, previous=first)
    assert second.positions == {"ana": (1.0, 2.0), "lisbon": (3.0, 4.0)}
    assert second.pinned == {"ana"}


def test_merge_adds_only_new_nodes_and_relations_touching_the_view() -> None:
    state = state_from_entities(RESULT)
    entities = [Entity("porto", "Porto", "place"), Entity("x", "X", "thing")]
    relations = [
        Relation("r9", "lisbon", "porto", "NEAR"),
        Relation("r10", "porto", "x", "HAS"),  # between two off-screen nodes: dropped
        Relation("r1", "ana", "lisbon", "TRAVELS_TO"),
    ]
    merged, added = merge_neighbourhood(
        state, "lisbon", entities, relations, cap=25, degrees={"lisbon": 7}
    )
    assert added == ["porto"]
    assert "x" not in merged.nodes and "r10" not in merged.edges
    assert merged.nodes["porto"].parent == "lisbon"
    assert merged.expanded["lisbon"] == 25
    assert merged.hidden_relations("lisbon") == 7 - 2
    assert "porto" not in state.nodes  # the old state is untouched (undo needs it)


def test_collapse_removes_the_expansion_but_never_result_entities() -> None:
    state = state_from_entities(RESULT)
    merged, _ = merge_neighbourhood(
        state,
        "lisbon",
        [Entity("porto", "Porto", "place")],
        [Relation("r9", "lisbon", "porto", "NEAR")],
        cap=25,
    )
    deeper, _ = merge_neighbourhood(
        merged,
        "porto",
        [Entity("braga", "Braga", "place")],
        [Relation("r11", "porto", "braga", "NEAR")],
        cap=25,
    )
    collapsed = collapse(deeper, "lisbon")
    assert set(collapsed.nodes) == {"ana", "lisbon", "marta"}
    assert "lisbon" not in collapsed.expanded
    assert collapse(deeper, "ana").nodes.keys() >= {"marta"}


def test_remove_nodes_drops_their_edges_and_positions() -> None:
    state = with_positions(state_from_entities(RESULT), {"lisbon": (0.0, 0.0)})
    smaller = remove_nodes(state, ["lisbon"])
    assert "lisbon" not in smaller.nodes and "lisbon" not in smaller.positions
    assert "r1" not in smaller.edges and "r3" in smaller.edges


def test_relations_of_sees_edges_from_the_node() -> None:
    relations = relations_of("ana", state_from_entities(RESULT))
    by_id = {n.relation.id: n for n in relations}
    assert by_id["r1"].outgoing and by_id["r1"].name == "Lisbon"
    assert not by_id["r3"].outgoing and by_id["r3"].entity_id == "marta"
    assert by_id["r1"].relation.fact == "Ana travels to Lisbon"


def test_graph_state_copy_is_independent() -> None:
    state = GraphState()
    copy = state.copy()
    copy.pinned.add("x")
    assert not state.pinned


def test_highlight_marks_mentions_over_terms_and_escapes() -> None:
    text = "Ana <b>met</b> Marta in Lisbon"
    html = highlight_html(text, mentions=[(0, 3)], terms=term_spans(text, ["lisbon", "ana"]))
    assert "&lt;b&gt;met&lt;/b&gt;" in html
    assert html.count("<span") == 2
    assert ">Ana</span>" in html and ">Lisbon</span>" in html
    assert html.index("ffd54f") < html.index("c8e6c9")  # the mention style wins on "Ana"


def test_highlight_clips_bad_spans() -> None:
    assert highlight_html("abc", mentions=[(2, 10), (5, 1)]).endswith(">c</span>")


def test_query_terms_skip_stopwords_and_repeats() -> None:
    assert query_terms("Where does Marta live in Lisbon, Marta?") == ["marta", "live", "lisbon"]


def test_the_instances_a_question_asks_for_are_highlighted_as_whole_words() -> None:
    text = "Kickboxing twice a week, and my cat's category of cats"
    found = instance_spans(text, query_instances("What martial arts has John done?"))
    assert [text[a:b] for a, b in found] == ["Kickboxing"]
    pets = instance_spans(text, query_instances("What pets does she have?"))
    assert [text[a:b] for a, b in pets] == ["cat", "cats"]  # not "category"


def test_the_members_of_a_group_named_are_highlighted_as_whole_words() -> None:
    text = "My son hates this season; the babies and Mum (not the minimum) at Jason's"
    found = instance_spans(text, query_instances("What do Pauline's children and parents do?"))
    assert [text[a:b] for a, b in found] == ["son", "babies", "Mum"]


def test_namesakes_from_different_scopes_are_labelled_with_their_scope() -> None:
    def entity(node_id: str, name: str, scope: str) -> ShownEntity:
        return ShownEntity(Entity(node_id, name, "person", scope=scope), score=1.0)

    state = state_from_entities(
        [
            entity("m1", "Maya Okafor", "demo/assistant/maya"),
            entity("m2", "maya  okafor", "demo/assistant"),
            entity("t1", "Tomas", "demo/assistant/tomas"),
            entity("x1", "Lisbon", "a/one"),
            entity("x2", "Lisbon", "b/one"),
        ]
    )
    shown = {node_id: node.shown_name for node_id, node in state.nodes.items()}
    assert shown["m1"] == "Maya Okafor · maya" and shown["m2"] == "maya  okafor · assistant"
    assert shown["t1"] == "Tomas"  # no namesake: the name alone
    # Scope ends that collide too: the whole scope says which is which.
    assert shown["x1"] == "Lisbon · a/one" and shown["x2"] == "Lisbon · b/one"
    assert state.nodes["m1"].name == "Maya Okafor"  # the name itself is untouched


def test_direction_overrides_in_a_chunk_are_shown_not_obeyed() -> None:
    from explorer.gui.highlight import highlight_html

    shown = highlight_html("say \u202eevil\u202c, ok", mentions=[(5, 9)])
    assert "\u202e" not in shown and "\u202c" not in shown
    assert shown.startswith("say [U+202E]<span") and "[U+202C], ok" in shown


def test_a_display_handle_is_shown_with_the_name_its_owner_is_called_by() -> None:
    from explorer.gui.graph_model import NodeData

    handle = NodeData(id="a", name="nellie.h", type="person", aliases=("El", "Nellie"))
    assert handle.shown_name == "Nellie (nellie.h)"
    named = NodeData(id="b", name="Maya Okafor", type="person", aliases=("Maya",))
    assert named.shown_name == "Maya Okafor"
    bare = NodeData(id="c", name="layla99", type="person", aliases=("hamoudi",))
    assert bare.shown_name == "layla99"  # no capitalised name to show
    day = NodeData(id="d", name="2023-12-31", type="date", aliases=("Yesterday",))
    assert day.shown_name == "2023-12-31"  # only people have handles
