"""People linked across names: nicknames, handles addressed by a first name, names vouched for.

Each test is a small chat with its own names (none of them from the demo) and the aliases and
evidence it must give, or the merge it must not make.
"""

from __future__ import annotations

from explorer.core.models import Chunk
from explorer.ingest.evidence import combine
from explorer.ingest.extractor import extract_offline
from explorer.ingest.given_names import nickname_reason
from explorer.ingest.short_names import merge_short_names
from tests.unit.test_typed_facts import chat, entity


def names(chunks: list[Chunk]) -> set[str]:
    return {e.name for e in extract_offline(chunks).entities}


def test_nickname_pairs_come_from_the_list_or_a_beginning() -> None:
    assert nickname_reason("Liz", "Elizabeth") == "listed"
    assert nickname_reason("Kate", "Katherine") == "listed"
    assert nickname_reason("Tom", "Tomás") == "beginning"  # accent-folded
    assert nickname_reason("Ife", "Ifeoma") == "beginning"
    # The list pairs Lena with Helen, but two such names are more often two people.
    assert nickname_reason("Lena", "Helen") is None
    assert nickname_reason("Ada", "Adam") is None  # one letter longer: another name
    assert nickname_reason("Jo", "Jonah") is None  # too short to be a beginning, not listed
    assert nickname_reason("Elizabeth", "Liz") is None  # the nickname comes first
    assert nickname_reason("Kate", "Kate") is None


def test_a_nickname_joins_the_full_name_it_shortens_with_its_evidence() -> None:
    turns = chat(
        ("jo", "My colleague Elizabeth Hart is leading the audit this year."),
        ("sam", "Oh nice, I met Liz at the offsite. She was great."),
    )
    hart = entity(extract_offline(turns), "Elizabeth Hart")
    assert "Liz" in hart.aliases
    (said,) = [item for item in hart.alias_evidence if item.alias == "Liz"]
    assert said.chunk_id == turns[1].id
    assert said.reason == "Liz is a nickname of Elizabeth Hart"


def test_a_nickname_of_a_speaker_joins_the_speaker() -> None:
    turns = chat(
        ("Tomás Ruiz", "The landlord finally called back about the boiler."),
        ("Ines", "Good. Marta said Tom always gets them to answer in the end."),
    )
    speaker = entity(extract_offline(turns), "Tomás Ruiz")
    assert "Tom" in speaker.aliases
    assert any(item.reason == "Tom is short for Tomás Ruiz" for item in speaker.alias_evidence)


def test_a_speaker_using_the_nickname_speaks_of_someone_else() -> None:
    turns = chat(
        ("Tomás Ruiz", "I asked Tom from upstairs to water the plants."),
        ("Ines", "Nice of him."),
    )
    assert "Tom" in names(turns)


def test_a_speaker_who_says_who_they_are_is_that_name() -> None:
    turns = chat(
        ("user", "My beagle keeps eating socks. I'm Nell, a nurse at St Columba's in Glasgow."),
        ("assistant", "Beagles are notorious for that. Keep socks out of reach."),
    )
    user = entity(extract_offline(turns), "user")
    assert "Nell" in user.aliases
    (said,) = [item for item in user.alias_evidence if item.alias == "Nell"]
    assert said.chunk_id == turns[0].id and said.reason == "user says they are Nell"
    other = chat(("kemi_o", "My name's Adaeze Obi and I run the bakery"), ("bob", "nice"))
    assert "Adaeze Obi" in entity(extract_offline(other), "kemi_o").aliases
    # Someone else's name after "I'm", or a word of who someone is, is not theirs.
    for said_so in (
        "I'm Nell's sister, she asked me to message you",
        "honestly I'm Catholic and Sunday is out",
        "I'm Sikh so no beef for me",
        "I'm meeting Sarah later",
        "a woman came over and said hi, I'm Rachel",  # someone else's words
        "my son keeps saying call me Max",
        "Pretend I'm Sherlock Holmes",
    ):
        speaker = entity(extract_offline(chat(("kemi_o", said_so), ("bob", "ok"))), "kemi_o")
        assert set(speaker.aliases) <= {"Kemi"}, said_so  # the handle's own name only
    # A letter written for someone the speaker speaks of is not the speaker's introduction.
    drafted = chat(
        ("user", "My wife Sarah has a dispute with her landlord."),
        ("assistant", "I can help with a letter."),
        ("user", "Write it in her voice. Start: Dear Mr Brown, I am Sarah, the tenant."),
    )
    assert "Sarah" not in entity(extract_offline(drafted), "user").aliases
    # The assistant saying who it is names no person.
    bot = chat(("user", "hello"), ("assistant", "Hi, I'm Ada, your assistant."))
    assert "Ada" not in entity(extract_offline(bot), "assistant").aliases


def test_an_ambiguous_nickname_merges_nothing() -> None:
    # "Alex" could be either Alexander or Alexandra: neither gets it.
    both = chat(
        ("jo", "Alexander Reid and Alexandra Moss both applied for the lab role."),
        ("sam", "I hope Alex gets it, they deserve it."),
    )
    assert "Alex" in names(both)
    # Two nicknames that could each be Elizabeth: she takes neither.
    two = chat(
        ("jo", "Elizabeth Hart is chairing today."),
        ("sam", "Then Liz and Beth can both skip the prep."),
    )
    assert {"Liz", "Beth"} <= names(two)


def test_a_full_name_said_once_at_a_sentence_start_joins_the_nickname() -> None:
    turns = chat(
        ("Rui", "My cousin Ife is visiting next week. Ifeoma on her passport, but nobody uses it."),
        ("Assistant", "How long is Ife staying?"),
    )
    cousin = entity(extract_offline(turns), "Ife")
    assert "Ifeoma" in cousin.aliases
    assert [e.reason for e in cousin.alias_evidence if e.alias == "Ifeoma"] == [
        "Ife is short for Ifeoma"
    ]
    assert "my cousin" in cousin.aliases  # the kinship phrase the speaker uses, case-folded


def test_a_word_opening_one_sentence_needs_a_name_to_vouch_for_it() -> None:
    first = chat(("Noor", "We saw Dr. Farah Haddad about the rash."), conversation="a")
    second = chat(("Noor", "Farah was brilliant with him, as always."), conversation="b")
    extracted = [extract_offline(first), extract_offline(second + first)]
    merged = merge_short_names(combine(extracted))
    assert "Farah" in entity(merged, "Farah Haddad").aliases
    # Nothing vouches for a lone opening word in the other conversation, or for one that ends
    # like an English word.
    assert "Farah" not in names(second)
    lab = chat(("Noor", "Sam will run the tests at the lab today. Samples arrive at noon."))
    assert "Samples" not in names(lab)
    told = chat(("Noor", "I told Sam about the lab. Samples arrive at noon."))
    assert "Samples" not in names(told)


def test_a_word_opening_one_sentence_is_the_short_form_of_the_longer_name_it_begins() -> None:
    turns = chat(
        ("Rhodri", "Right, Saturday, Pengam Arms at 1? Easy walk to the ground from there."),
        ("Gethin", "Pengam is fine. Parking round there is a nightmare though."),
        ("Rhodri", "Are you going to DevNordic Berlin in May?"),
        ("Gethin", "DevNordic booked! Splott is where I'm parking."),
    )
    extraction = extract_offline(turns)
    pub = entity(extraction, "Pengam Arms")
    assert "Pengam" in pub.aliases
    (said,) = [item for item in pub.alias_evidence if item.alias == "Pengam"]
    assert said.chunk_id == turns[1].id
    assert said.reason == "Pengam is the short form of Pengam Arms"
    assert "DevNordic" in entity(extraction, "DevNordic Berlin").aliases
    # a word opening a sentence that begins no longer name is left as it was
    assert "Splott" not in {e.name for e in extraction.entities}
    # nor is a known town folded into the club, festival or school named after it
    club = extract_offline(
        chat(
            ("Trixie", "we're staying at the Baguio Country Club this time"),
            ("Migs", "Baguio is so cold in January, bring a jacket"),
        )
    )
    assert "Baguio" in {e.name for e in club.entities}
    assert "Baguio" not in entity(club, "Baguio Country Club").aliases
    # nor a firm that sponsors the event named after it
    sponsored = extract_offline(
        chat(
            ("Grace", "are you going for the Safaricom Marathon?"),
            ("Otieno", "Safaricom is sponsoring it again?"),
        )
    )
    assert "Safaricom" not in entity(sponsored, "Safaricom Marathon").aliases


def test_a_longer_given_name_with_a_speakers_surname_is_the_speaker() -> None:
    turns = chat(
        ("Nico Ferreira", "mãe says hi, she still yells 'Nicolau Ferreira!' when i don't call"),
        ("Lia", "hahaha. is Nicolau Ramos from your team coming to the party?"),
        ("Nico Ferreira", "Dra. Ana Pires said i should rest, so no"),
    )
    extraction = extract_offline(turns)
    nico = entity(extraction, "Nico Ferreira")
    assert "Nicolau Ferreira" in nico.aliases
    (said,) = [item for item in nico.alias_evidence if item.alias == "Nicolau Ferreira"]
    assert said.chunk_id == turns[0].id
    assert "Nicolau Ramos" not in nico.aliases  # another surname: someone else
    kin = chat(
        ("Chris Okafor", "my sister Christine Okafor is graduating on Friday"),
        ("Ngozi Obi", "congrats to her!"),
    )
    assert "Christine Okafor" not in entity(extract_offline(kin), "Chris Okafor").aliases
    for text in (
        "Robert Jenkins my granddad built that house",
        "Robert Jenkins from the council rang, he's my namesake",
    ):
        heard = extract_offline(chat(("Rob Jenkins", text), ("Amy Collins", "wow")))
        assert "Robert Jenkins" not in entity(heard, "Rob Jenkins").aliases, text
    # a doctor spoken of by title and surname is no speaker of that surname
    checkup = chat(
        ("Bea Santos", "I have a checkup with Dra. Reyes tomorrow"),
        ("Paolo Reyes", "not me haha"),
    )
    read = extract_offline(checkup)
    speakers = {entity(read, "Paolo Reyes").id, entity(read, "Bea Santos").id}
    merged = merge_short_names(combine([read]), protected=speakers)
    assert "Dra. Reyes" not in entity(merged, "Paolo Reyes").aliases
    # "Dra." is a title, as "Dr." is: no name of its own, nor a call
    assert "Dra. Ana Pires" in entity(extraction, "Ana Pires").aliases
    assert "Dra" not in {e.name for e in extraction.entities}


def test_a_name_given_as_the_one_spoken_tos_or_a_parents_is_theirs() -> None:
    booked = chat(
        ("Amma", "Did you book the train tickets?"),
        ("Devi", "ok. I'll book in your name, Lakshmi Rao, and Appa's. send the ID photos."),
        ("Amma", "ok kanna"),
    )
    amma = entity(extract_offline(booked), "Amma")
    assert "Lakshmi Rao" in amma.aliases
    (said,) = [item for item in amma.alias_evidence if item.alias == "Lakshmi Rao"]
    assert said.chunk_id == booked[1].id
    under = chat(
        ("Noor", "Booked for 10. Put it under Dad's name, Tariq, so it doesn't look suspicious"),
        ("Sami", "lol ok, genius"),
    )
    assert "Dad" in entity(extract_offline(under), "Tariq").aliases
    # at the turn's end the name is given, not called out to the one spoken to
    ended = chat(("Noor", "booked it under Dad's name, Tariq"), ("Sami", "genius"))
    assert "Dad" in entity(extract_offline(ended), "Tariq").aliases
    # a name that goes on into a clause of its own is someone else
    for text in (
        "it's under Dad's name, Tariq has the reference",
        "in your name, Tariq's card failed",
    ):
        others = extract_offline(chat(("Sami", "did you book it?"), ("Noor", text)))
        assert "Tariq" in {e.name for e in others.entities}, text
        assert "Dad" not in entity(others, "Tariq").aliases, text
    # someone named after "your" but not as the name: no merge
    other = chat(
        ("Amma", "Did you ask about the flat?"),
        ("Devi", "your friend, Lakshmi Rao, says it's gone"),
    )
    assert "Lakshmi Rao" not in entity(extract_offline(other), "Amma").aliases


def test_a_parent_both_siblings_call_dad_is_the_one_either_names() -> None:
    siblings = chat(
        ("Noor", "Sami. Dad turns 60 in June, we need to do something big"),
        ("Sami", "I helped with Dad's 50th!!"),
        ("Noor", "Booked for 10. Put it under Dad's name, Tariq, so it doesn't look suspicious"),
    )
    assert "Dad" in entity(extract_offline(siblings), "Tariq").aliases
    for text in ("my dad is called Tariq btw", "my dad's name is Tariq, don't laugh"):
        told = chat(("Noor", "how was the weekend?"), ("Sami", f"Dad came round. {text}"))
        assert "Dad" in entity(extract_offline(told), "Tariq").aliases, text
    # friends who each say "Dad" of their own, one saying whose: no one's dad is the other's
    friends = chat(
        ("ana", "Dad is driving me mad with the wedding"),
        ("bo", "Dad is the same lol. my dad Imran never listens"),
    )
    assert "Dad" not in entity(extract_offline(friends), "Imran").aliases
    # "Hi Mummy, Adaeze says hi" calls out to her and names someone else
    family = chat(
        ("Dami", "Amen mummy, good morning"),
        ("Tobi", "Hi Mummy, Adaeze says good morning, she's better"),
        ("Seun", "Mummy abeg I need transport money"),
    )
    assert "Mummy" not in entity(extract_offline(family), "Adaeze").aliases


def test_a_city_named_two_ways_is_one_place_with_the_evidence_saying_why() -> None:
    from explorer.ingest.places import city_named

    assert city_named("Warszawa") == "warsaw" and city_named("Bangalore") == "bengaluru"
    assert city_named("Palmy") == "palmerston north" and city_named("Warsaw") is None
    turns = chat(
        ("Oskar", "How is Warsaw treating you? Still in the flat in Mokotów?"),
        ("Ewa", "yes! Warszawa is huge but I love it. Bombay next month for work"),
    )
    merged = merge_short_names(combine([extract_offline(turns)]))
    warsaw = entity(merged, "Warsaw")
    assert "Warszawa" in warsaw.aliases
    (said,) = [item for item in warsaw.alias_evidence if item.alias == "Warszawa"]
    assert said.reason == "Warszawa is another name of Warsaw (GeoNames)"
    assert said.chunk_id == turns[1].id
    # no Mumbai here: Bombay stays as it is said
    assert "Bombay" in {e.name for e in merged.entities}
    # a person named like another name of a city, and the land a city is named after, stay
    apart = chat(
        ("Kayla", "Juliet got a job in Joliet, and Hamad is in Kuwait City till Sunday"),
        ("Madison", "lol Juliet in Joliet. Kuwait is 50 degrees now"),
    )
    kept = {e.name for e in merge_short_names(combine([extract_offline(apart)])).entities}
    assert {"Juliet", "Joliet", "Kuwait", "Kuwait City"} <= kept


def test_a_word_that_begins_with_a_nickname_said_elsewhere_is_no_name() -> None:
    turns = chat(
        ("Rui", "I asked Dan to help with the move. Max said he would come too."),
        ("Ines", "Danger is what he lives for. Maximum effort, as ever."),
        ("Rui", "Dan would come anyway, and so would Max."),
    )
    found = names(turns)
    assert {"Dan", "Max"} <= found and not {"Danger", "Maximum"} & found
    for name in ("Dan", "Max"):
        assert not entity(extract_offline(turns), name).aliases


def test_a_listed_full_name_said_once_joins_its_nickname_from_another_turn() -> None:
    turns = chat(
        ("Rui", "I hear Tom is bringing the van on Saturday."),
        ("Ines", "Great. Thomas always turns up early, to be fair."),
        ("Rui", "Yes, Tom said nine."),
    )
    assert "Thomas" in entity(extract_offline(turns), "Tom").aliases


def test_a_handle_addressed_by_a_first_name_takes_it_and_the_full_name() -> None:
    turns = chat(
        ("tobes", "Hey Kate! Is Kate Williams on the booking too?"),
        ("kate_w", "Yes, the table is under my name."),
        ("tobes", "Thanks, Kate."),
    )
    handle = entity(extract_offline(turns), "kate_w")
    assert {"Kate", "Kate Williams"} <= set(handle.aliases)
    reasons = {item.alias: item.reason for item in handle.alias_evidence}
    assert reasons["Kate"] == "addressed as Kate by tobes"
    assert reasons["Kate Williams"] == "handle kate_w spells Kate Williams"


def test_a_chat_calls_the_other_speaker_without_a_comma() -> None:
    turns = chat(
        ("Priti 🌻", "habibti are u alive"),
        ("sami.k", "barely. gaffer kept us late again. i hate it here Pip"),
        ("Priti 🌻", "u say this every month sams"),
    )
    extraction = extract_offline(turns)
    # A name opening a question to "u", and names closing a turn after an aside or a time word.
    assert "Habibti" in entity(extraction, "sami.k").aliases
    assert "Sams" in entity(extraction, "sami.k").aliases
    assert "Pip" in entity(extraction, "Priti 🌻").aliases


def test_a_name_closing_a_sentence_about_a_time_is_no_call_without_a_you() -> None:
    turns = chat(
        ("ola_b", "We fly out next month Lisbon first"),
        ("Pia", "Nice, I went there last year Porto was lovely."),
    )
    extraction = extract_offline(turns)
    assert not {"Lisbon", "Porto"} & set(entity(extraction, "ola_b").aliases)
    assert not {"Lisbon", "Porto"} & set(entity(extraction, "Pia").aliases)


def test_a_word_in_a_calls_place_is_no_name_for_the_one_addressed() -> None:
    turns = chat(
        ("Corin", "Wait, you booked the ferry already?"),
        ("bex.t", "Thankfully, yes. The last two seats."),
        ("Corin", "Right, thanks Bexy! I owe you one"),
        ("bex.t", "Mmm, you do. tell your mum thanks heaps"),
        ("Corin", "no wayyy. she'll be chuffed"),
    )
    extraction = extract_offline(turns)
    # An interjection, an adverb, an everyday word, a hum, a plural and a drawn-out word stand
    # where a call stands; only the nickname is one.
    assert set(entity(extraction, "bex.t").aliases) == {"Bexy"}
    assert entity(extraction, "Corin").aliases == ()
    assert not {"Wait", "Thankfully", "Right", "Mmm", "Heaps", "Wayyy"} & names(turns)


def test_a_given_name_that_is_also_a_frequent_word_calls_the_addressee() -> None:
    turns = chat(
        ("bazza", "why me"),
        ("Jo 🏄", "because Barry, I'm doing the cake AND the invites"),
        ("bazza", "fine"),
        ("Jo 🏄", "Man, you won't believe who turned up"),
        ("bazza", "lol who"),
        ("Jo 🏄", "Son, I'm sending you the money now. Ma, are you home?"),
    )
    extraction = extract_offline(turns)
    # "barry" is a frequent word and still a call; "Man" is an interjection, and "Son" and
    # "Ma" call anyone so, though the census lists them as given names.
    assert entity(extraction, "bazza").aliases == ("Barry",)


def test_a_verb_cried_out_that_is_also_a_name_calls_no_one() -> None:
    turns = chat(
        ("Priya", "See! Appa and I went to the temple today"),
        ("Karthik", "nice! how was it"),
        ("Priya", "Tom!! guess what, we got the flat"),
    )
    extraction = extract_offline(turns)
    # "See" is a given name too, but cried out it is the verb; "Tom!!" still calls him.
    assert set(entity(extraction, "Karthik").aliases) == {"Tom"}
    assert "See" not in names(turns)


def test_a_name_cased_like_a_brand_is_no_call() -> None:
    turns = chat(
        ("Aoife", "are you still doing that marine thing with yer man from Clare?"),
        ("decwalsh", "Pádraig yeah, SeaWatch. we got the funding renewed"),
        ("Aoife", "deadly. Thanks, Dec"),
    )
    extraction = extract_offline(turns)
    # Where "yeah, Kate." calls Kate, "yeah, SeaWatch." names the thing asked about.
    assert "SeaWatch" not in entity(extraction, "Aoife").aliases
    assert "SeaWatch" in names(turns)
    assert "Dec" in entity(extraction, "decwalsh").aliases


def test_an_acronym_joins_the_one_long_name_it_abbreviates() -> None:
    turns = chat(
        ("Ilse", "Anouk got the job at Groningen Royal Infirmary!"),
        ("Bram", "GRI is huge, she'll love it"),
    )
    infirmary = entity(extract_offline(turns), "Groningen Royal Infirmary")
    assert "GRI" in infirmary.aliases
    assert any("abbreviates" in e.reason for e in infirmary.alias_evidence)
    # Everyday initials stay themselves ("an MRI" is a scan), and so do letters in another
    # script, which fold to no letters at all.
    scan = chat(
        ("Ilse", "Anouk has an MRI on Tuesday"),
        ("Bram", "At Manchester Royal Infirmary? Sasha studies at МГУ now"),
    )
    found = {e.name: e for e in extract_offline(scan).entities}
    assert "MRI" in found and "MRI" not in found["Manchester Royal Infirmary"].aliases
    assert "МГУ" in found
    # Letters everyone knows stand for their own body.
    known = chat(
        ("Ilse", "The NHS is a mess, waited 6 hours"),
        ("Bram", "Sofie started at Newcastle High School today"),
    )
    school = entity(extract_offline(known), "Newcastle High School")
    assert "NHS" not in school.aliases


def test_a_parent_the_children_call_mummy_in_their_group_is_that_speaker() -> None:
    group = chat(
        ("F. Oyelaran", "Good morning my children. God bless you"),
        ("Dami", "Amen mummy 🙏🏾"),
        ("Tobi", "Morning Mummy!"),  # said after Dami's turn, and still to her mother
        ("F. Oyelaran", "How is work?"),
        ("Seun", "Mummy abeg I need 15k for transport"),
    )
    read = extract_offline(group)
    assert "Mummy" in entity(read, "F. Oyelaran").aliases
    assert "Mummy" not in entity(read, "Dami").aliases
    (said,) = [item for item in entity(read, "F. Oyelaran").alias_evidence]
    assert said.chunk_id == group[1].id
    called = extract_offline(
        chat(
            ("Mamá", "Mijo are you coming Sunday?"),
            ("pablo.r", "yes Mami I'll be there, leaving after lunch"),
            ("Mamá", "good. drive safe"),
            ("pablo.r", "see you Sunday Mami, love you"),
        )
    )
    assert "Mami" in entity(called, "Mamá").aliases
    # a parent spoken of, not called, and a friend's one "yes mama!": no one's alias
    for text in (
        "Mam rang 4 times to check on me",
        "Mama would disown me if I skip it",
        "not great. I miss Mum.",
        "yes mama! so proud",
    ):
        spoken = extract_offline(chat(("Ciarán", "how's home?"), ("Niamh", text)))
        assert not any(e.aliases for e in spoken.entities if e.name == "Ciarán"), text


def test_a_name_answering_a_request_for_yours_is_the_answerers() -> None:
    asked = chat(
        ("Dami", "Mummy I need your passport page, and your full name exactly as it is on it"),
        ("F. Oyelaran", "Folasade Abosede Oyelaran. The passport is in the brown envelope"),
    )
    mother = entity(extract_offline(asked), "F. Oyelaran")
    assert "Folasade Abosede Oyelaran" in mother.aliases
    (said,) = [e for e in mother.alias_evidence if e.alias == "Folasade Abosede Oyelaran"]
    assert said.chunk_id == asked[1].id
    # a name that goes on into a clause of its own answers nothing about the answerer
    other = extract_offline(
        chat(
            ("Dami", "what name do I put, your full name?"),
            ("F. Oyelaran", "Tunde Oyelaran has the forms, ask him"),
        )
    )
    assert "Tunde Oyelaran" not in entity(other, "F. Oyelaran").aliases


def test_initials_spelling_one_full_name_said_here_are_that_person() -> None:
    read = extract_offline(
        chat(
            ("ani_v", "resignation mail drafted. 'Dear Rajeshwari Krishnan, I wish to inform you'"),
            ("meenu", "ok spoke to RK. it's official, I'm leading it from July"),
        )
    )
    boss = entity(read, "Rajeshwari Krishnan")
    assert "RK" in boss.aliases
    assert [e.reason for e in boss.alias_evidence if e.alias == "RK"] == [
        "RK spells Rajeshwari Krishnan"
    ]
    # two people the initials spell, or a body's own initials: no one's
    for turns in (
        (("ani_v", "Rajeshwari Krishnan and Ravi Kumar both said no"), ("meenu", "ugh RK again")),
        (("ani_v", "Bola Adeyemi is flying BA tomorrow"), ("meenu", "BA lost my bag once")),
        (("ani_v", "Hannah Rees said to email HR"), ("meenu", "ugh HR never answer")),
        (("ani_v", "Uma Kapoor is moving back to the UK"), ("meenu", "the UK?? why")),
    ):
        other = extract_offline(chat(*turns))
        people = [e for e in other.entities if e.type == "person"]
        assert not [e for e in people if {"RK", "BA", "HR", "UK"} & set(e.aliases)]


def test_a_name_after_a_verbs_object_closing_a_sentence_calls_the_one_spoken_to() -> None:
    extraction = extract_offline(
        chat(
            ("leo.m", "got the offer from Northwind!!"),
            ("priya 🌻", "you're gonna smash it Leonardo. they don't deserve you anyway"),
        )
    )
    assert "Leonardo" in entity(extraction, "leo.m").aliases
    # A name given to something, a colour, a determiner's name, one said without "you" or asked
    # about is no call.
    for said in (
        "we called it Luna.",
        "you painted it Olive.",
        "you renamed it Bella.",
        "I can't stand that Kevin.",
        "did u meet this Marco",
        "we got it Daisy.",
        "is it Tomas?",
    ):
        other = extract_offline(chat(("leo.m", "new kitten!!"), ("priya 🌻", said)))
        assert set(entity(other, "leo.m").aliases) <= {"Leo"}, said
