"""Chats typed with capitals: emoji that end sentences, sentence-opening words, holidays and
shouting (the names here are the tests' own)."""

from __future__ import annotations

from explorer.ingest.extractor import extract_offline
from explorer.ingest.name_reading import is_acronym
from explorer.ingest.short_names import merge_short_names
from tests.unit.test_lower_case_chats import kinds_of
from tests.unit.test_typed_facts import chat, facts


def test_an_emoji_ends_a_sentence_so_the_word_after_it_opens_one() -> None:
    kinds = kinds_of(
        ("Bea 🌿", "Finally moved into the new flat 😎 Kitchen is tiny but I love it"),
        ("ollie_t", "So proud 👑 Meanwhile I still live with my parents"),
        ("Bea 🌿", "Haha 🥺 Winnipeg was worth it though"),
    )
    assert "Kitchen" not in kinds and "Meanwhile" not in kinds
    assert kinds.get("Winnipeg") == "place"  # a known town opens a sentence as itself
    # A name after an emoji keeps its capital's meaning, and an everyday town name stays a word.
    kinds = kinds_of(
        ("Bea 🌿", "Love this pic 😍 Orla looks amazing"),
        ("ollie_t", "Turkey was dry but the stuffing was class"),
    )
    assert kinds.get("Orla") == "person" and "Turkey" not in kinds


def test_an_everyday_word_only_ever_opening_a_sentence_is_that_word() -> None:
    kinds = kinds_of(
        ("Bea 🌿", "Fair enough. I'll ask again on Monday"),
        ("ollie_t", "Fair play to her. My cat is asleep on the sofa"),
        ("Bea 🌿", "Fair 😂 Biscotti sat by my door all weekend, the cat I mean"),
        ("ollie_t", "Biscotti is a legend"),
    )
    assert "Fair" not in kinds
    assert "Biscotti" in kinds  # what is said of it is a name's: a pet resting by a door


def test_holidays_are_events_and_a_wish_before_one_is_no_part_of_it() -> None:
    kinds = kinds_of(
        ("Bea 🌿", "Are you coming home for Thanksgiving?"),
        ("ollie_t", "Yes! Best Hanukkah in years, I think"),
    )
    assert kinds.get("Thanksgiving") == "event" and kinds.get("Hanukkah") == "event"
    assert "Best Hanukkah" not in kinds


def test_shouting_is_no_organisation() -> None:
    assert is_acronym("NHS") and not is_acronym("AAAAAH") and not is_acronym("NOOO")
    # initials run to six letters; a longer word in capitals is a word or a name shouted
    assert is_acronym("UNICEF") and not is_acronym("BEATRIZ") and not is_acronym("ACREDITO")
    extraction = extract_offline(
        chat(
            ("gus.p", "Did he propose?"),
            ("bk_22", "she said yes"),
            ("gus.p", "BARNABY!!!! Oh my god. I am so happy for you"),
        )
    )
    kinds = {e.name: e.type for e in extraction.entities}
    assert "BARNABY" not in kinds  # the one addressed, not an organisation of that name
    assert "BARNABY" in {a for e in extraction.entities if e.name == "bk_22" for a in e.aliases}
    # a given name English also has as a rarer word is still a name cried out ("Hamish" is in
    # the word list); a word cried out is not ("Gutted!!")
    for cry, called in (("HAMISH!!!! Oh my god", True), ("Gutted!!! they lost again", False)):
        read = extract_offline(
            chat(
                ("tash.ng", "Got a minute? I have news"),
                ("hamo88", "always for you tashie. whats up"),
                ("tash.ng", cry),
            )
        )
        aliases = {a for e in read.entities if e.name == "hamo88" for a in e.aliases}
        assert bool(aliases) is called, cry
    # an everyday word shouted after a name written in mixed case is no part of it
    cried = extract_offline(
        chat(
            ("kirsty_b", "Glasgow Uni DONE ✅ finally"),
            ("euan", "ah brilliant. Manchester United FC lost again btw"),
        )
    )
    names = {e.name for e in cried.entities}
    assert {"Glasgow Uni", "Manchester United FC"} <= names
    assert "Glasgow Uni DONE" not in names
    # a surname in capitals, as a form writes it, is still the name's
    formal = extract_offline(chat(("ana", "Please send it to Mr David BROWN at the office")))
    assert "David BROWN" in {e.name for e in formal.entities}


def facts_of(*turns: tuple[str, str]) -> set[tuple[str, str, str]]:
    return facts(extract_offline(chat(*turns)))


def test_travel_still_to_come_is_a_plan_and_landing_is_a_visit() -> None:
    found = facts_of(
        ("Bea 🌿", "I'm flying back down to Hobart on the 10th for Gran's birthday"),
        ("ollie_t", "Nice. I booked the early flight to Inverness for the wedding"),
        ("Bea 🌿", "Landed in Hobart! Gran is thrilled"),
    )
    assert ("Bea 🌿", "PLANS", "Hobart") in found
    assert ("ollie_t", "PLANS", "Inverness") in found
    assert ("Bea 🌿", "VISITED", "Hobart") in found
    past = facts_of(("Bea 🌿", "I got the train to Inverness yesterday"), ("ollie_t", "nice"))
    assert not any(kind == "PLANS" for _, kind, _ in past)


def test_work_in_a_company_and_finishing_up_at_one_are_work_there() -> None:
    found = facts_of(
        ("Bea 🌿", "I'm finishing up at Corvex Labs on Friday"),
        ("ollie_t", "My flatmate Priya works in Halvern Group too"),
    )
    assert ("Bea 🌿", "WORKS_AT", "Corvex Labs") in found
    assert ("Priya", "WORKS_AT", "Halvern Group") in found
    evening = facts_of(("Bea 🌿", "We finished up at Corvex Labs"), ("ollie_t", "ha"))
    assert not any(kind == "WORKS_AT" for _, kind, _ in evening)


def test_mam_and_paati_are_family_words_used_as_names() -> None:
    found = facts_of(
        ("Bea 🌿", "Mam says I'm basically emigrating"),
        ("ollie_t", "Paati asked me when you are visiting"),
    )
    assert ("Bea 🌿", "FAMILY_OF", "Mam") in found or ("Mam", "FAMILY_OF", "Bea 🌿") in found
    assert ("ollie_t", "FAMILY_OF", "Paati") in found or ("Paati", "FAMILY_OF", "ollie_t") in found


def test_a_name_cried_out_at_the_start_of_a_turn_calls_the_one_addressed() -> None:
    extraction = extract_offline(
        chat(
            ("gus.p", "Did he propose?"),
            ("bk_22", "she said yes"),
            ("gus.p", "Barnaby!!!! Oh my god. I am so happy for you"),
            ("bk_22", "ha thanks. Pip is already planning the party"),
            ("gus.p", "Bazza!! Send me pics"),
        )
    )
    aliases = {e.name: set(e.aliases) for e in extraction.entities}
    assert {"Barnaby", "Bazza"} <= aliases["bk_22"]
    assert "Barnaby" not in aliases and "Bazza" not in aliases
    # Interjections are no calls: once, often used, or drawn out.
    extraction = extract_offline(
        chat(
            ("gus.p", "Woo! You got the job"),
            ("bk_22", "Yesss!! Starting Monday"),
            ("gus.p", "Hiya!! Drinks later?"),
        )
    )
    called = {a for e in extraction.entities for a in e.aliases}
    assert not {"Woo", "Yesss", "Hiya"} & called


def test_a_town_is_not_folded_into_a_body_named_after_it() -> None:
    extraction = merge_short_names(
        extract_offline(
            chat(
                ("Bea 🌿", "I got the Winnipeg City Council job!!"),
                ("ollie_t", "Congrats! So you're moving to Winnipeg?"),
                ("Bea 🌿", "Yes, driving up to Winnipeg next week"),
            )
        )
    )
    kinds = {e.name: (e.type, e.aliases) for e in extraction.entities}
    assert kinds.get("Winnipeg") == ("place", ())
    assert kinds.get("Winnipeg City Council") == ("organization", ())


def test_roles_and_languages_are_no_peoples_names() -> None:
    kinds = kinds_of(
        ("Bea 🌿", "CEO Tomasz 👑 look at you"),
        ("tomasz.k", "Nurse says I'm the best patient on the ward"),
        ("Bea 🌿", "Electrician is coming at 9. Bringing you the Tamil sweets you like"),
        ("tomasz.k", "Knee's sore, sounds like ITB. And my GPS watch died"),
        ("Bea 🌿", "ok send me the ID photos and the OTP when it comes"),
    )
    # A role's initials before a name are no part of it, one role word is no name, and a
    # language is a topic.
    assert "CEO Tomasz" not in kinds and "Nurse" not in kinds and "Electrician" not in kinds
    assert kinds.get("Tamil") in (None, "topic")
    # Everyday things known by their initials are no organisations.
    assert kinds.get("ITB") in (None, "topic") and kinds.get("GPS") in (None, "topic")
    assert kinds.get("ID") in (None, "topic") and kinds.get("OTP") in (None, "topic")


def test_an_institution_or_a_business_is_no_person() -> None:
    kinds = kinds_of(
        ("Bea 🌿", "Ok the Council is great. My team is lovely"),
        ("ollie_t", "weird. there's a rumour Brackwater is doing layoffs"),
    )
    assert kinds.get("Council") == "organization"
    assert kinds.get("Brackwater") == "organization"


def test_a_way_stop_is_a_place_a_medium_a_product_and_an_alum_a_schools() -> None:
    kinds = kinds_of(
        ("Bea 🌿", "We're flying via Qadira and I'll call you via Vocall"),
        ("ollie_t", "My lead Karthik is an Ashbury Institute alum too"),
        ("Bea 🌿", "We're going through Heathwell, then landing in Lagos"),
    )
    assert kinds.get("Qadira") == "place" and kinds.get("Heathwell") == "place"
    assert kinds.get("Vocall") == "product"
    assert kinds.get("Ashbury Institute") == "organization"
