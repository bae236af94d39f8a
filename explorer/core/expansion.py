"""The kinds of thing a question asks for, and the words their instances are written as.

"What martial arts has John done?" is answered by "I'm off to do some taekwondo!" and "I'm
doing kickboxing", neither of which says "martial arts": the words a question shares with its
answer are its names, not its kinds. So when a question asks for a kind right after "what" or
"which" ("What European countries", "Which kind of instruments"), the lexical route also looks
for the instances of that kind listed here, at a share of a question word's weight
(``LexicalParams.instance_weight``; a chunk counts its best instance only, so a list of them
weighs no more than one). The lists are plain world knowledge, hand-written for common kinds
(sports, pets, instruments, countries, cities, foods, hobbies and the like), one distinctive
word an instance: "new" of New York would match every turn that says "new". Imports only the
standard library and core text.

"""

from __future__ import annotations

from collections.abc import Sequence

from explorer.core.text import singular, stem, words

_EUROPE = """
albania andorra austria belarus belgium bosnia bulgaria croatia cyprus czechia denmark england
estonia finland france germany greece hungary iceland ireland italy latvia liechtenstein
lithuania luxembourg malta moldova monaco montenegro netherlands holland norway poland portugal
romania russia scotland serbia slovakia slovenia spain sweden switzerland ukraine wales britain
"""
_ASIA = """
china japan korea india pakistan bangladesh nepal thailand vietnam cambodia laos malaysia
singapore indonesia philippines taiwan mongolia lanka iran iraq israel jordan lebanon saudi
turkey qatar kazakhstan
"""
_AMERICAS = """
usa america canada mexico brazil argentina chile peru colombia venezuela ecuador bolivia uruguay
paraguay cuba jamaica haiti guatemala honduras nicaragua panama
"""
_AFRICA = """
egypt morocco nigeria ghana kenya ethiopia tanzania uganda rwanda senegal zimbabwe zambia
namibia botswana algeria tunisia
"""
_OCEANIA = "australia zealand fiji samoa tonga"
_COUNTRIES = " ".join((_EUROPE, _ASIA, _AMERICAS, _AFRICA, _OCEANIA))
_CITIES = """
nyc york angeles chicago houston phoenix philadelphia diego dallas austin seattle boston denver
portland miami atlanta detroit nashville vegas orlando minneapolis baltimore pittsburgh
cleveland sacramento honolulu london paris berlin rome madrid barcelona lisbon amsterdam dublin
vienna prague budapest tokyo kyoto seoul beijing shanghai bangkok mumbai delhi sydney
melbourne toronto vancouver montreal
"""
_US_STATES = """
alabama alaska arizona arkansas california colorado connecticut delaware florida georgia hawaii
idaho illinois indiana iowa kansas kentucky louisiana maine maryland massachusetts michigan
minnesota mississippi missouri montana nebraska nevada ohio oklahoma oregon pennsylvania
tennessee texas utah vermont virginia washington wisconsin wyoming
"""
_SPORTS = """
football soccer basketball baseball tennis golf rugby cricket hockey volleyball swimming cycling
skiing snowboarding surfing climbing boxing badminton softball marathon running skating
"""
_OUTDOORS = """
hiking hike camping surfing kayaking canoeing climbing fishing cycling biking skiing picnic beach
swimming sailing rafting gardening birdwatching
"""
_HOBBIES = """
painting reading writing hiking gaming cooking baking gardening photography dancing singing
knitting fishing pottery camping
"""
_ANIMALS = """
dog puppy cat kitten turtle hamster rabbit bunny parrot goldfish snake lizard horse deer bear
fox whale dolphin elephant lion tiger monkey owl
"""

#: A kind as a question names it → the words its instances are written as.
KINDS: dict[str, str] = {
    "martial art": "karate taekwondo judo kickboxing boxing jiujitsu jujitsu kungfu aikido mma "
    "wrestling fencing capoeira",
    "sport": _SPORTS,
    "outdoor": _OUTDOORS,
    "activity": _HOBBIES + _OUTDOORS,
    "hobby": _HOBBIES,
    "exercise": "running yoga pilates weightlifting swimming cycling gym crossfit boxing",
    "workout": "running yoga pilates weightlifting swimming cycling gym crossfit boxing",
    "craft": "knitting crochet sewing pottery woodworking quilting embroidery scrapbooking",
    "art": "painting drawing sketch sculpture pottery photography ceramics watercolor "
    "portrait mural canvas",
    "instrument": "guitar piano violin drums cello flute saxophone ukulele trumpet clarinet harp",
    "genre": "jazz hiphop rap classical blues metal indie folk reggae techno punk soul",
    "dance": "salsa ballet tango hiphop contemporary swing ballroom breakdance",
    "pet": "dog puppy cat kitten turtle hamster rabbit bunny parrot goldfish snake lizard horse",
    "animal": _ANIMALS,
    "country": _COUNTRIES,
    "european country": _EUROPE,
    "asian country": _ASIA,
    "african country": _AFRICA,
    "city": _CITIES,
    "state": _US_STATES,
    "place": _COUNTRIES + _CITIES,
    "location": _COUNTRIES + _CITIES,
    "continent": "europe asia africa america australia antarctica",
    "language": "english spanish french german italian portuguese mandarin chinese japanese "
    "korean arabic hindi russian dutch swedish greek turkish polish",
    "food": "pizza sushi pasta tacos curry ramen burger noodles salad steak chocolate cake",
    "dessert": "cake cookies pie brownies cupcakes muffins tart pudding cheesecake chocolate",
    "drink": "coffee tea wine beer juice smoothie cocktail soda lemonade",
    "fruit": "apple banana orange strawberry mango grape pineapple peach cherry berries",
    "vegetable": "carrot tomato potato broccoli spinach lettuce onion pepper cucumber",
    "flower": "rose tulip daisy sunflower lily orchid lavender",
    "subject": "math maths science physics chemistry biology history literature geography",
    "social media": "instagram facebook twitter tiktok youtube reddit snapchat linkedin",
}

#: The words a question asks with; the kind it asks for is among the few after it.
_ASKING = frozenset({"what", "which"})
_REACH = 4  # "What kind of European countries"


def _stems(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(stem(word) for word in words(text)))


_KINDS = {_stems(kind): _stems(instances) for kind, instances in KINDS.items()}


def instance_terms(question: str, terms: Sequence[str]) -> list[str]:
    """The stemmed instances of every kind ``question`` asks for, less its own ``terms``."""
    said = words(question)
    asked: set[str] = set()
    for at, word in enumerate(said):
        if word in _ASKING:
            # "hobbies" is asked as "hobby", as the kinds are keyed
            asked.update(stem(singular(near)) for near in said[at + 1 : at + 1 + _REACH])
    if not asked:
        return []
    matched = [kind for kind in _KINDS if asked.issuperset(kind)]
    # The narrowest kind asked for: "martial arts" is no "art", "European countries" no others.
    narrowest = [k for k in matched if not any(set(k) < set(other) for other in matched)]
    have = set(terms)
    found: dict[str, None] = {}
    for kind in narrowest:
        found.update((term, None) for term in _KINDS[kind] if term not in have)
    return list(found)
