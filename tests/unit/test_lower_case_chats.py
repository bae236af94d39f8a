"""Chats typed all in lower case: which words are names, and what the extractor makes of them.

Each conversation is written for the test (names and places of its own, none from the gold
files) and checks the exact names, types or facts it must give.
"""

from __future__ import annotations

from explorer.ingest.casing import (
    LIST_FILE,
    build_list,
    is_everyday_word,
    names_in_lower_case,
    restore_names,
)
from explorer.ingest.extractor import extract_offline
from tests.unit.test_typed_facts import chat, facts

SIBLINGS = chat(
    ("dev.k", "ugh inès made us redo the whole deck"),
    ("tamsin_w", "who's inès again"),
    ("dev.k", "my boss!! she's the worst. also oyelaran's coming sat"),
    ("tamsin_w", "omg finally. is oyelaran still at the bakery in harrogate"),
    ("dev.k", "yeah and the bakery is doing well. mum says hi btw"),
    ("tamsin_w", "tell mum i will call her tmrw, i will"),
    ("dev.k", "full marks for effort lol. the homestay was rubbish tho"),
    ("tamsin_w", "which homestay? the one in harrogate?"),
    ("dev.k", "i'm so PREGNANT with work rn 😭"),
)


def test_a_lower_case_chat_shows_its_names() -> None:
    names = names_in_lower_case(SIBLINGS)
    # A handle's stem, a possessive, a kinship word's name, a known town.
    assert {"dev", "tamsin", "inès", "oyelaran", "harrogate"} <= names
    # Everyday words, shorthand and a word that follows a determiner are no names.
    assert not names & {"will", "marks", "homestay", "bakery", "tmrw", "deck", "boss"}


def test_restoring_names_changes_only_first_letters_of_lower_case_turns() -> None:
    restored = restore_names(SIBLINGS)
    assert [c.id for c in restored] == [c.id for c in SIBLINGS]
    for before, after in zip(SIBLINGS, restored, strict=True):
        assert len(after.text) == len(before.text) and after.text.casefold() == (
            before.text.casefold()
        )
    assert restored[0].text == "ugh Inès made us redo the whole deck"
    assert restored[4].text == "yeah and the bakery is doing well. Mum says hi btw"
    assert restored[5].text == "tell Mum i will call her tmrw, i will"
    assert restored[8].text == "i'm so pregnant with work rn 😭"  # shouting, no acronym


def test_a_chat_that_capitalises_is_left_as_written() -> None:
    written = chat(
        ("Ana", "My boss Inès made us redo the deck"),
        ("Bo", "Is she still at Harrogate Books?"),
    )
    assert restore_names(written) == list(written)


def test_the_extractor_reads_a_lower_case_chat_and_points_into_its_verbatim_turns() -> None:
    extraction = extract_offline(SIBLINGS)
    kinds = {e.name: e.type for e in extraction.entities}
    assert kinds["Inès"] == "person" and kinds["Oyelaran"] == "person"
    assert kinds["Harrogate"] == "place"
    assert "PREGNANT" not in kinds and "Will" not in kinds and "Homestay" not in kinds
    found = facts(extraction)
    assert ("Mum", "FAMILY_OF", "dev.k") in found or ("dev.k", "FAMILY_OF", "Mum") in found
    # Each mention of a name points at that name in the turn as it was typed.
    texts = {c.id: c.text for c in SIBLINGS}
    named = {e.name: e for e in extraction.entities}
    quoted = {texts[m.chunk_id][m.start : m.end] for m in named["Oyelaran"].mentions}
    assert quoted == {"oyelaran"}


def test_everyday_words_come_from_the_shipped_frequency_list() -> None:
    assert is_everyday_word("marks") and is_everyday_word("tmrw")
    assert not is_everyday_word("oyelaran")
    assert is_everyday_word("kate") and not is_everyday_word("kate", 1_000)


def test_the_shipped_everyday_list_is_what_the_builder_makes() -> None:
    from explorer.ingest.word_lists import ranks  # build_list needs wordfreq

    assert build_list() == list(ranks(LIST_FILE)), (
        f"rewrite {LIST_FILE}: python -m explorer.ingest.casing"
    )


def test_ur_is_your_in_a_kinship_phrase() -> None:
    found = facts(
        extract_offline(chat(("pim_d", "hey Lotte"), ("lotte.v", "ur sister Marit is hilarious")))
    )
    assert ("pim_d", "FAMILY_OF", "Marit") in found or ("Marit", "FAMILY_OF", "pim_d") in found


def test_a_name_keeps_the_words_it_begins_and_ends_on_and_towns_need_no_cue() -> None:
    restored = restore_names(
        chat(
            ("jo.m", "dinner at mirelva market sat?"),
            ("kit_b", "can't, flying to austin for work"),
            ("jo.m", "the market was packed anyway"),
            ("kit_b", "uncle oyelaran's coming too"),
        )
    )
    assert restored[0].text == "dinner at Mirelva Market sat?"
    assert restored[1].text == "can't, flying to Austin for work"
    assert restored[2].text == "the market was packed anyway"  # no name before it
    assert restored[3].text == "Uncle Oyelaran's coming too"  # a title is part of the name


def test_a_frequent_word_capitalised_elsewhere_stays_a_word_in_lower_case() -> None:
    restored = restore_names(
        chat(
            ("Ana", "Will and Sunniva are coming in May"),
            ("bo_k", "i will ask sunniva if it may rain"),
        )
    )
    assert restored[1].text == "i will ask Sunniva if it may rain"


def test_a_name_of_several_words_written_with_capitals_elsewhere_gets_them_back() -> None:
    turns = chat(
        ("tash", "Looking at West End. Happy New Year btw"),
        ("hamo", "west end is sick, the end of the west line. happy new year!!"),
    )
    restored = restore_names(turns)
    assert restored[1].text == "West End is sick, the end of the west line. happy new year!!"
    assert ("hamo", "LIKES", "West End") in facts(extract_offline(turns))


def test_a_rare_word_called_like_a_name_is_the_other_speakers_nickname() -> None:
    extraction = extract_offline(
        chat(("wren.o", "made it home"), ("odile.b", "night pipsy x"), ("wren.o", "night!!"))
    )
    (wren,) = [e for e in extraction.entities if e.name == "wren.o"]
    assert "pipsy" in {alias.casefold() for alias in wren.aliases}
    # A word in -ly in the same place is no name: "night oddly x" calls nobody "Oddly".
    other = extract_offline(chat(("wren.o", "made it"), ("odile.b", "night oddly x")))
    assert not [e for e in other.entities if e.name.casefold() == "oddly"]
    # Nor is a rare word from someone who capitalises: "keeps you sane" calls nobody "Sane".
    written = extract_offline(
        chat(("Wren", "Big week."), ("Odile", "Good luck. The garden is what keeps you sane."))
    )
    assert not [
        e for e in written.entities if "sane" in {n.casefold() for n in (e.name, *e.aliases)}
    ]
    # A given name somewhere in the world called from a chat that capitalises is one too
    # ("night amara!"), an endearment is not ("night babe!")
    for called, named in (("amara", True), ("babe", False)):
        said = f"send it!! and tell Kofi to bring snacks 😂 night {called}!"
        thanked = extract_offline(
            chat(("amz", "ok I'll send you the itinerary"), ("jiwoo.p", said))
        )
        (amz,) = [e for e in thanked.entities if e.name == "amz"]
        assert (called.title() in amz.aliases) is named, called


def test_a_given_name_that_is_a_frequent_word_is_a_name_where_a_subject_stands() -> None:
    names = names_in_lower_case(
        chat(
            ("sol.r", "ugh wendell made me stay till 9"),
            ("pia_m", "what did wendell say about it"),
            ("sol.r", "nothing. and jonas is moving out in may"),
            ("pia_m", "olive oil and ginger tea fixes everything"),
            ("sol.r", "i'm gonna be a tía lol"),
            ("pia_m", "how's ezra? hear about ezra and blythe"),
        )
    )
    # Census given names: "wendell" before "made", "jonas" before "is", "ezra" after "how's".
    assert {"wendell", "jonas", "ezra"} <= names
    # Given names that are everyday words, and one after a determiner, stay words.
    assert not names & {"olive", "ginger", "tía", "oil", "tea"}


def test_a_casually_typed_conversation_has_lower_case_names_in_its_mixed_turns() -> None:
    turns = chat(
        ("Noor", "Ilse!! how's rotterdam treating u"),
        ("ilse.v", "love it. moved to delfshaven in march"),
        ("Noor", "omg and the job"),
        ("ilse.v", "started at the bakery, the owner is lovely"),
    )
    restored = restore_names(turns)
    assert restored[0].text == "Ilse!! how's Rotterdam treating u"  # a mixed turn, a known town
    assert restored[1].text == "love it. moved to Delfshaven in march"
    # A capitalised chat keeps its lower-case words: the share of casual turns decides.
    formal = chat(
        ("Noor", "Ilse! How is rotterdam treating you?"),
        ("Ilse", "I love it. I moved in March."),
        ("Noor", "And the job?"),
        ("Ilse", "I started at the bakery."),
        ("Noor", "Lovely."),
    )
    assert restore_names(formal) == list(formal)


def kinds_of(*turns: tuple[str, str]) -> dict[str, str]:
    """Each entity the offline extractor finds in a chat of ``turns``, by name: its type."""
    return {e.name: e.type for e in extract_offline(chat(*turns)).entities}


def test_a_restored_name_opening_a_sentence_is_still_a_name() -> None:
    kinds = kinds_of(
        ("kit_b", "i miss u already. rotterdam is too hot"),
        ("jo.m", "lol. wendell is moving there too"),
    )
    assert kinds.get("Rotterdam") == "place" and kinds.get("Wendell") == "person"


def test_known_apps_and_companies_are_typed_by_what_they_are() -> None:
    kinds = kinds_of(
        ("kit_b", "met someone on hinge!! and i got the job at lidl"),
        ("jo.m", "We should talk on Zoom tonight. I booked Ryanair for June too."),
    )
    assert kinds.get("Hinge") == "product" and kinds.get("Zoom") == "product"
    assert kinds.get("Lidl") == "organization" and kinds.get("Ryanair") == "organization"


def test_the_shipped_given_name_list_is_what_the_builder_makes() -> None:
    from explorer.ingest.given_names import CENSUS_FILE, _census, build_census_list

    assert frozenset(build_census_list()) == _census(), (
        f"rewrite {CENSUS_FILE}: python -m explorer.ingest.given_names"
    )


def test_the_shipped_world_given_name_list_is_what_the_builder_makes() -> None:
    from explorer.ingest.given_names import WORLD_FILE, _world, build_world_list

    assert frozenset(build_world_list()) == _world(), (
        f"rewrite {WORLD_FILE}: python -m explorer.ingest.given_names"
    )


def test_a_rare_word_before_a_name_tail_and_a_place_before_called_name_a_business() -> None:
    kinds = kinds_of(
        ("ren_t", "got an apprenticeship!! a firm in hull called voltwise"),
        ("sol.r", "omg congrats. better than glenvarrow motors"),
        ("ren_t", "voltwise emailed again today, start monday"),
    )
    assert kinds.get("Voltwise") == "organization"
    assert kinds.get("Glenvarrow Motors") == "organization"


def test_a_name_only_ever_written_with_its_s_after_at_is_a_place() -> None:
    kinds = kinds_of(
        ("pia_m", "Dinner at Rosalind's friday? Then Wagamama's or Nando's."),
        ("sol.r", "Rosalind's at 8 works. I was at Ottilie's place last week, Ottilie says hi"),
    )
    # A possessive no noun follows, after "at" and nowhere plain: a restaurant, a shop.
    assert kinds.get("Rosalind's") == "place" and kinds.get("Nando's") == "organization"
    # One that owns a noun, or is written plainly too, stays the person.
    assert kinds.get("Ottilie") == "person" and "Ottilie's" not in kinds


def test_what_only_an_animal_does_makes_a_name_a_pet() -> None:
    kinds = kinds_of(
        ("pia_m", "my cat will miss you, and Tofu sat by your door all weekend"),
        ("sol.r", "aww. and then Biscuit barked at the postman again"),
        ("pia_m", "and Ada sat on the bench by the door"),
    )
    assert kinds.get("Tofu") == "other" and kinds.get("Biscuit") == "other"
    assert kinds.get("Ada") == "person"  # sitting on a bench is anyone's


def test_a_shouted_contraction_is_shouting_and_a_plural_abbreviation_is_no_name() -> None:
    kinds = kinds_of(
        ("nat_r", "omg ines just called me. SHE'S PREGNANT"),
        ("ben.o", "WHAT. so many ECGs and GPs later lol"),
    )
    assert not {"PREGNANT", "ECGs", "GPs", "SHE"} & kinds.keys()


def test_a_given_name_said_alone_is_a_name_and_a_rare_word_alone_is_not() -> None:
    names = names_in_lower_case(
        chat(
            ("sol.r", "the vet from across the road. arthur. he has a cat called miso"),
            ("pia_m", "ghosted. 3 weeks of nothing"),
        )
    )
    assert "arthur" in names and "ghosted" not in names


def test_a_name_titled_uncle_or_auntie_is_the_speakers_family() -> None:
    found = facts(
        extract_offline(
            chat(
                ("jo.m", "party at uncle karim's on the 1st"),
                ("Pia", "Auntie Desta is bringing the cake"),
                ("jo.m", "and my uncle is visiting next week"),
            )
        )
    )
    assert ("jo.m", "FAMILY_OF", "Uncle Karim") in found
    assert ("Pia", "FAMILY_OF", "Auntie Desta") in found
    # A title before nothing names nobody: "my uncle" is a kinship phrase, not a name.
    assert not any(target == "Uncle" for _, _, target in found)


def test_a_contraction_typed_without_its_apostrophe_is_no_part_of_a_name() -> None:
    kinds = kinds_of(
        ("kit_b", "yep wendell was unreal. mabel hasnt stopped talking about it"),
        ("jo.m", "Aw that makes me so happy"),
        ("kit_b", "lol she doesnt stop"),
    )
    assert "Mabel Hasnt" not in kinds and "Hasnt" not in kinds
    assert kinds.get("Mabel") == "person"


def test_rare_short_capitals_in_a_lower_case_turn_are_initials_not_shouting() -> None:
    extraction = extract_offline(
        chat(
            ("marcus_lim", "wah still at DBS ah? thought you wanted to quit"),
            ("jia", "still at DBS lah, after bonus then see. ur cousin at HSBC?"),
            ("marcus_lim", "lol BRB. THX for the SO helpful advice, NOT. that party was LIT"),
        )
    )
    kinds = {e.name: e.type for e in extraction.entities}
    assert kinds["DBS"] == kinds["HSBC"] == "organization"
    # Chat shorthand, slang and common words shouted stay words, rare or not.
    assert not {"BRB", "THX", "SO", "NOT", "LIT", "Brb", "Thx", "Lit"} & set(kinds)


def test_chat_particles_of_other_englishes_are_no_names() -> None:
    extraction = extract_offline(
        chat(
            ("jia", "can! but only 45 min leh, my boss very particular one"),
            ("marcus_lim", "ok lah. tmr then, i'll chope a table leh"),
            ("jia", "wah ok lor, see you lah"),
        )
    )
    names = {e.name.casefold() for e in extraction.entities}
    assert not {"leh", "lah", "lor", "wah"} & names


def test_a_listed_word_derived_from_another_is_no_name_where_a_name_could_stand() -> None:
    names = names_in_lower_case(
        chat(
            ("dee.v", "update: heating fixed!! and 4 viewings cancelled on me"),
            ("femi_a", "lol ravi texted me, he's coming sat"),
        )
    )
    # "heating fixed" and "viewings cancelled" stand where "craig texted" does; "ravi" is rare
    # and derived from nothing.
    assert not names & {"heating", "viewings"}
    assert "ravi" in names
