"""What a question asks for, read from its words: kinds of fact, and kinds of thing.

"Where does Jonas work?" asks for a ``WORKS_AT``: the compact answer lists facts of an asked
kind first, and a turn that names the other end of such a fact about someone the question
brought to mind is credited as theirs (``credit``). A word list per kind, no more: a question
rarely asks for a kind of fact without one of its plain words.

"What martial arts has John done?" asks for a kind of thing, and is answered by "I'm off to do
some taekwondo!" and "I'm doing kickboxing", neither of which says "martial arts": the words a
question shares with its answer are its names, not its kinds. When a kind heads the phrase after
"what" or "which" ("What European countries", "Which kind of instruments"), the lexical route
also scores the words its instances are written as (``instance_terms``, at
``LexicalParams.instance_weight`` of a question word; a turn counts its best instance only). The
lists are plain world knowledge, hand-written for common kinds, of words that rarely mean
anything else: "new" of New York, "reading" (as "read") or "Austin" (a name as often as a city)
would match ordinary turns. A group of people named anywhere in a question ("How many children
does Melanie have?", ``GROUPS``) brings the words its members are called by the same way ("my
son", "the kids"). What the graph already holds in answer (``graph_answers``: the far ends of the
facts of an asked kind about someone the question names) is read here too. Imports only the
standard library, core models and core text.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import NamedTuple

from explorer.core.models import Subgraph
from explorer.core.text import STOP_WORDS, singular, stem, words

#: Words of a question that ask for a kind of fact.
ASKED_BY = {
    "WORKS_AT": "work works working worked job jobs employer company employed",
    "STUDIES_AT": "study studies studying studied school university uni college student",
    "LIVES_IN": "live lives living lived home based",
    "MOVED_TO": "move moves moved moving",
    "FROM": "from born grew",
    "VISITED": "visit visits visited trip trips travel travelled traveled holiday",
    "MARRIED_TO": "married marry wife husband spouse",
    "PARTNER_OF": "partner partners boyfriend girlfriend dating",
    "FAMILY_OF": "family sister brother mum mom dad mother father son daughter parents cousin",
    "FRIEND_OF": "friend friends",
    "OWNS": "own owns owned pet pets dog dogs cat cats car",
    "LIKES": "like likes love loves enjoy enjoys favourite favorite",
    "DISLIKES": "hate hates dislike dislikes",
    "RECOMMENDED": "recommend recommends recommended suggest suggested",
    "HIRED": "hire hired hires",
    "LEADS": "lead leads led runs manage manages boss",
    "SEES": "see sees seeing doctor therapist",
    "ATTENDED": "attend attended went",
    "PLANS": "plan plans planning planned",
}
_ASKED = {word: kind for kind, words in ASKED_BY.items() for word in words.split()}


#: The words one relative is called by, by the relation a possessive asks for ("Anu's mum",
#: "her brother"): the words English chats use and those they borrow.
KIN_WORDS = {
    "mother": "mum mom mother mummy mommy ma mama mam mammy amma ammi mami maman mamá mãe",
    "father": "dad father daddy papa pa appa abbu baba papi papá pai",
    "sister": "sister sis",
    "brother": "brother bro",
    "grandmother": "grandma granny gran nan nana grandmother lola abuela nonna oma ouma gogo",
    "grandfather": "grandpa grandad granddad grandfather lolo abuelo nonno opa oupa",
    "spouse": "wife husband hubby spouse",
    "partner": "boyfriend girlfriend bf gf partner fiance fiancee fiancé fiancée",
    "child": "son daughter",
    "cousin": "cousin",
    "aunt": "aunt aunty auntie tita tía tia",
    "uncle": "uncle tito tío tio",
}
_KIN_OF = {word: kin for kin, listed in KIN_WORDS.items() for word in listed.split()}
#: Kin words that are no one's name or nickname too ("Ma" of Yo-Yo Ma, "Nana" Addo, a friend's
#: "bro"): only these name a relative wherever an alias holds them; the rest must be the whole
#: name ("Mummy") or follow "my" ("my bro").
_PLAIN_KIN = frozenset(
    words(
        "mum mom mother mummy mommy dad father daddy sister brother grandma grandpa granny grandad"
        " granddad grandmother grandfather wife husband boyfriend girlfriend fiance fiancee fiancé"
        " fiancée son daughter cousin aunt aunty auntie uncle"
    )
)
_WHOSE = frozenset({"his", "her", "their", "your", "ur", "my", "our"})
#: Words that may stand between whose and the relative ("Anu's younger brother"), and no other
#: ("Kate's a mum now" says what Kate is).
_KIN_ADJECTIVES = frozenset(
    words("little big younger older elder baby twin step new late own favourite favorite")
)


def kin_asked(query: str) -> frozenset[str]:
    """The relatives a question asks about by whose they are ("Where did Anu's mum see Dr.
    Mehra?" asks about a ``"mother"``; "her younger brother" about a ``"brother"``)."""
    said = words(query)
    found: set[str] = set()
    for at, word in enumerate(said):
        kin = _KIN_OF.get(word)
        if kin is None or at == 0:
            continue
        before = said[at - 1]
        if before in _KIN_ADJECTIVES and at >= 2:
            before = said[at - 2]
        if before == "s" or before in _WHOSE:
            found.add(kin)
    return frozenset(found)


def calls_kin(name: str, alias_text: str, kin: Collection[str]) -> bool:
    """Whether someone named ``name``, with these aliases, is called one of the relatives
    ``kin``: a name that is only the word ("Mummy", "Ma"), an alias phrase of whose ("my mum",
    "your bro"), or a plain kin word anywhere among the aliases ("Mum" of Salma)."""
    named = words(name)
    if len(named) == 1 and _KIN_OF.get(named[0]) in kin:
        return True
    aliases = words(alias_text)
    for at, word in enumerate(aliases):
        if _KIN_OF.get(word) not in kin:
            continue
        if word in _PLAIN_KIN or (at > 0 and aliases[at - 1] in _WHOSE):
            return True
    return False


def asked_kinds(query: str) -> frozenset[str]:
    """The kinds of fact a question's words ask for (``ASKED_BY``)."""
    return frozenset(_ASKED[word] for word in words(query) if word in _ASKED)


class GraphAnswer(NamedTuple):
    """A fact the graph holds of a kind a question asks for, about an entity it names."""

    named: str  # the name of the entity the question names
    kind: str
    answer: str  # the name of the fact's other end
    relation_id: str


def graph_answers(query: str, named: Collection[str], subgraph: Subgraph) -> list[GraphAnswer]:
    """The facts of ``subgraph`` of a kind ``query`` asks for with one end among the ``named``
    entity ids and the other not, in the subgraph's order (one per pair of ends), read both
    ways: "Where does Maya work?" is answered by Maya's ``WORKS_AT`` Halvorsen Logistics, "Who
    works at Halvorsen?" by the same fact from its other end."""
    kinds = asked_kinds(query)
    if not kinds or not named:
        return []
    entities = subgraph.entities
    found: dict[tuple[str, str], GraphAnswer] = {}
    for relation in subgraph.relations:
        if relation.type not in kinds:
            continue
        ends = (relation.source_id, relation.target_id)
        for near, far in (ends, ends[::-1]):
            if near in named and far not in named and near in entities and far in entities:
                found.setdefault(
                    (near, far),
                    GraphAnswer(
                        entities[near].name, relation.type, entities[far].name, relation.id
                    ),
                )
    return list(found.values())


_EUROPE = """
albania andorra austria belarus belgium bosnia bulgaria croatia cyprus czechia denmark england
estonia finland france germany greece hungary iceland ireland italy latvia liechtenstein
lithuania luxembourg malta moldova monaco montenegro netherlands holland norway poland portugal
romania russia scotland serbia slovakia slovenia spain sweden switzerland ukraine wales britain
"""
_ASIA = """
china japan korea india pakistan bangladesh nepal thailand vietnam cambodia laos malaysia
singapore indonesia philippines taiwan mongolia lanka iran iraq israel lebanon saudi turkey qatar
kazakhstan
"""
_SOUTH_AMERICA = "brazil argentina chile peru colombia venezuela ecuador bolivia uruguay paraguay"
_AMERICAS = " ".join(
    (_SOUTH_AMERICA, "usa canada mexico cuba jamaica haiti guatemala honduras nicaragua panama")
)
_AFRICA = """
egypt morocco nigeria ghana kenya ethiopia tanzania uganda rwanda senegal zimbabwe zambia
namibia botswana algeria tunisia
"""
_COUNTRIES = " ".join((_EUROPE, _ASIA, _AMERICAS, _AFRICA, "australia zealand fiji samoa"))
_CITIES = """
nyc york chicago houston phoenix philadelphia dallas seattle boston denver portland miami atlanta
detroit nashville vegas minneapolis baltimore pittsburgh cleveland sacramento honolulu london
paris berlin rome madrid barcelona lisbon amsterdam dublin vienna prague budapest tokyo kyoto
seoul beijing shanghai bangkok mumbai delhi melbourne toronto vancouver montreal
"""
_US_STATES = """
alabama alaska arizona arkansas california colorado connecticut delaware florida hawaii idaho
illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan minnesota
mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania tennessee texas
utah vermont wisconsin wyoming
"""
_SPORTS = """
football soccer basketball baseball tennis golf rugby cricket hockey volleyball swimming cycling
skiing snowboarding surfing climbing badminton softball marathon running skating
"""
_OUTDOORS = """
hiking camping surfing kayaking canoeing climbing fishing cycling biking skiing picnic beach
swimming sailing rafting gardening birdwatching
"""
_HOBBIES = """
painting writing hiking cooking baking gardening photography dancing singing knitting fishing
pottery camping
"""
_PETS = "dog puppy cat kitten turtle hamster rabbit bunny parrot goldfish snake lizard horse"
_WORKOUTS = "running yoga pilates weightlifting swimming cycling gym crossfit"
_DISHES = "pizza sushi pasta tacos curry ramen burger noodle salad steak soup stew"

#: A kind as a question names it → the words its instances are written as (any inflection a
#: listed "-ing" or plural word takes is found too: "hiking" is also "hike").
KINDS: dict[str, str] = {
    "martial art": "karate taekwondo judo kickboxing jitsu kung aikido mma wrestling capoeira",
    "sport": _SPORTS,
    "outdoor": _OUTDOORS,
    "outdoor activity": _OUTDOORS,
    "activity": " ".join((_HOBBIES, _OUTDOORS)),
    "hobby": _HOBBIES,
    "exercise": _WORKOUTS,
    "workout": _WORKOUTS,
    "craft": "knitting crochet sewing pottery woodworking quilting embroidery scrapbooking",
    "art": "painting drawing sketch sculpture pottery photography ceramics watercolor portrait "
    "mural canvas",
    "instrument": "guitar piano violin drums cello flute saxophone ukulele trumpet clarinet harp",
    "genre": "jazz rap classical reggae techno punk indie",
    "dance": "salsa ballet tango contemporary ballroom breakdance",
    "pet": _PETS,
    "animal": _PETS + " deer bear fox whale dolphin elephant lion tiger monkey owl",
    "country": _COUNTRIES,
    "european country": _EUROPE,
    "asian country": _ASIA,
    "african country": _AFRICA,
    "south american country": _SOUTH_AMERICA,
    "city": _CITIES,
    "state": _US_STATES,
    "location": " ".join((_COUNTRIES, _CITIES)),
    "continent": "europe asia africa australia antarctica",
    "language": "english spanish french german italian portuguese mandarin chinese japanese "
    "korean arabic hindi russian dutch swedish greek turkish",
    "food": _DISHES + " chocolate cake",
    "dish": _DISHES,
    "meal": _DISHES,
    "dessert": "cake cookie pie brownie cupcake muffin tart pudding cheesecake chocolate",
    "drink": "coffee tea wine beer juice smoothie cocktail soda lemonade",
    "fruit": "apple banana orange strawberry mango grape pineapple peach cherry berry",
    "vegetable": "carrot tomato potato broccoli spinach lettuce onion pepper cucumber",
    "flower": "tulip sunflower orchid lavender",
    "subject": "math maths science physics chemistry biology history literature geography",
    "social media": "instagram facebook twitter tiktok youtube reddit snapchat linkedin",
    "job": "teacher nurse engineer developer barista waiter waitress manager designer accountant "
    "lawyer doctor chef cashier intern tutor cleaner driver receptionist",
    "class": "yoga pilates pottery cooking dance painting coding salsa drawing swimming",
    "injury": "sprain fracture concussion bruise",
    "illness": "flu covid migraine asthma diabetes fever infection",
    "board game": "chess monopoly scrabble catan cluedo checkers",
}

_CHILDREN = "son sons daughter daughters kids kid child children baby babies toddler"
_PARENTS = "mom mum dad mother father parents"
#: A group of people a question names anywhere ("What do Melanie's kids like?") → the words its
#: members are called by ("my son", "the children"): whoever a turn says that of is one of them.
#: Not "family": its members are most of the people a chat speaks of (measured: it cost LoCoMo's
#: single-hop questions more than its multi-hop ones gained).
GROUPS: dict[str, str] = {
    "children": _CHILDREN,
    "kids": _CHILDREN,
    "parents": _PARENTS,
    "siblings": "brother brothers sister sisters",
}

#: The words a question asks with; the kind it asks for heads the phrase after one.
_ASKING = frozenset({"what", "which"})
#: Words that leave the phrase open: "What kind of instruments", "Which types of sport".
_SORTS = frozenset({"kind", "kinds", "sort", "sorts", "type", "types", "of"})
_REACH = 4  # the phrase's words read after "what" or "which"


def _forms(word: str) -> set[str]:
    """The stems a listed word is indexed under, written as itself or inflected."""
    found = {stem(word), stem(singular(word))}
    if word.endswith("ing") and len(word) > 5:
        base = word[:-3]
        found.add(stem(base + "e"))  # "hiking": "hike"
        if base[-1] == base[-2]:
            found.add(stem(base[:-1]))  # "swimming": "swim"
    return found


def _stems(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(form for word in words(text) for form in sorted(_forms(word))))


_KINDS = {
    tuple(stem(w) for w in words(kind)): _stems(instances) for kind, instances in KINDS.items()
}


# Keyed by the word as written: "as a child" or "as a kid" names no group.
_GROUPS = {group: _stems(members) for group, members in GROUPS.items()}


def _asked_phrases(said: Sequence[str]) -> list[set[str]]:
    """The stemmed words of each phrase after "what" or "which", up to a clause's small word."""
    phrases = []
    for at, word in enumerate(said):
        if word not in _ASKING:
            continue
        phrase: set[str] = set()
        for near in said[at + 1 : at + 1 + _REACH]:
            if near in _SORTS:
                continue
            if near in STOP_WORDS:
                break  # "What is the state of ...": the phrase ended before "state"
            phrase.add(stem(singular(near)))  # "hobbies" asks for "hobby"
        phrases.append(phrase)
    return phrases


def instance_terms(question: str, terms: Sequence[str]) -> list[str]:
    """The stems of the instances of every kind the question asks for and of the members of
    every group it names, less its own ``terms``."""
    have = set(terms)
    said = words(question)
    found: dict[str, None] = {}
    for phrase in _asked_phrases(said):
        matched = [kind for kind in _KINDS if phrase.issuperset(kind)]
        # The narrowest kind: "martial arts" is no "art", "European countries" no others.
        for kind in matched:
            if not any(set(kind) < set(other) for other in matched):
                found.update((term, None) for term in _KINDS[kind] if term not in have)
    for word in said:
        members = _GROUPS.get(word, ())
        found.update((term, None) for term in members if term not in have)
    return list(found)
