"""The typed-relation vocabulary of the offline extractor and the word patterns stating each type.

The vocabulary is fixed (``core.models.RELATION_TYPES``); co-occurrence and a speaker naming
something stay separate weak signals (``core.models.WEAK_RELATIONS``), never facts. A verb
pattern (``VERB_RULES``) is matched against the lower-cased text strictly between a subject
mention and an object mention of one sentence; the subject may be a name, the speaker's own
"I"/"my"/"we", the addressee's "you"/"your" or a "he"/"she" resolved to the last person
mentioned. Each rule says which kinds of object it takes. ``negated`` and ``closed`` read the
words of the match for negation ("don't like" → DISLIKES, "not working at" → nothing) and tense
("used to live in" → a LIVES_IN that has ended). ``QUESTION_FRAMES`` turn a question to the
other speaker ("Where do you work now?") and the first fitting name of the answer ("At UCLA, as
a TA") into a fact about the one who answered. Kinship and role words ("my sister Ada", "Priya,
my manager") are ``KIN_RELATIONS``. Imports only the standard library."""

from __future__ import annotations

import re
from dataclasses import dataclass

from explorer.ingest.lexicon import MONTHS, SEASONS
from explorer.ingest.lexicon import TITLES as NAME_TITLES

# Object kinds a rule accepts: person, place, organization, event, project, product, other.
PERSON = frozenset({"person"})
PLACE = frozenset({"place"})
ORG = frozenset({"organization"})
WHERE = frozenset({"place", "organization"})
EVENTFUL = frozenset({"event", "place", "organization"})
WORK = frozenset({"project", "product"})
THING = frozenset({"other", "product", "project", "event", "place", "organization", "person"})
NAMED = THING


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass(frozen=True, slots=True)
class VerbRule:
    pattern: re.Pattern[str]
    relation: str
    objects: frozenset[str]
    reverse: bool = False  # the object is the relation's source ("signed with X" → X HIRED me)
    cue: re.Pattern[str] | None = None  # what the sentence must also say for the rule to hold
    after: re.Pattern[str] | None = None  # what must follow the object, right after it


# "6 yrs", "four years", "a few years": a span of years at a body
YEARS_OF = r"(?:\d+|a\s+few|two|three|four|five|six|seven|eight|nine|ten)\s+(?:years?|yrs?)"
_ADV = r"(?:(?:just|also|still|now|currently|really|finally|recently|actually|already|even|"
_ADV += r"absolutely|totally|honestly|officially|originally|always|never|not|n't|no longer|"
_ADV += r"genuinely|literally|seriously|truly|lowkey|legit|kinda|properly|highly|both|all)\s+)*"
_AUX_HEAD = r"'m|’m|am|is|are|was|were|'s|’s|'re|’re|'ve|’ve|have|has|had|do|does|did|don't|"
_AUX_HEAD += r"don’t|doesn't|doesn’t|didn't|didn’t|will|'ll|’ll|would|'d|’d|can|could|can't|can’t|"
_AUX_HEAD += r"used to|going to|gonna|"
_WISHES = r"want to|wanna|plan to|planning to|hope to|hoping to|"
_AUX_TAIL = r"got|get|have to|has to|had to|need to|needs to|the one who|the one that|"
_AUX_TAIL += r"been|be|being"
_AUX = r"(?:(?:" + _AUX_HEAD + _WISHES + _AUX_TAIL + r")\s+)*"
# "Róisín who works in Google", "Colm, who works at Intercom,": a relative clause says it of
# the name before it.
_WHO = r"(?:,?\s*(?:who|that)(?=\s))?"
_PRE = r"^" + _WHO + r"\s+" + _ADV + _AUX + _ADV
# The same without a wish or a plan before the verb: "I want to work at Te Papa" is no job.
_PRE_DONE = r"^" + _WHO + r"\s+" + _ADV + r"(?:(?:" + _AUX_HEAD + _AUX_TAIL + r")\s+)*" + _ADV
_THE = r"(?:(?:the|a|an|our|my|his|her|their)\s+)?"
ROLE_WORDS = (
    "engineer|developer|designer|nurse|teacher|manager|director|cto|ceo|cfo|coo|founder|"
    "co-founder|intern|ta|assistant|doctor|surgeon|physio|physiotherapist|vet|recruiter|lead|"
    "analyst|consultant|barista|chef|cook|lawyer|scientist|researcher|professor|lecturer|editor|"
    "writer|architect|accountant|officer|head|boss|colleague|coworker|co-worker|partner|"
    "volunteer|student|programmer|dentist|therapist|pharmacist|receptionist|cashier|waiter|"
    "waitress|bartender|driver|mechanic|electrician|plumber|builder|artist|musician|coach|"
    "trainer|instructor|tutor|administrator|admin|clerk|secretary|agent|broker|advisor|adviser|"
    "member|employee|staff|paediatric nurse|pediatric nurse|nanny|babysitter|supervisor|"
    "dev|swe|pm|paralegal|midwife|paramedic|technician|tech|sales rep|rep|associate|solicitor|"
    "attorney|brewer|journalist|producer|ecologist|postdoc|librarian|curator|photographer|"
    "hygienist|carer"
)
#: One role word is no name ("Nurse says I'm the best patient", "Electrician's coming at 9");
#: chat's short forms are names as often ("Dev proposed to her", "Rep Ocasio-Cortez").
ROLE_NOUNS = frozenset(ROLE_WORDS.split("|")) - {
    "paediatric nurse",
    "pediatric nurse",
    "sales rep",
    *("dev", "swe", "pm", "tech", "rep"),
}

# A word of work: a role, the job itself, the people or the place of it.
WORK_CUE = re.compile(
    r"\b(?:work|working(?!\s+on\b)|job|shift|office|colleagues?|contract|rota|coaching|"
    r"doing\s+nights|" + ROLE_WORDS + r")s?\b"
)

_ASKED = re.compile(r"\?\s*$")

# "she teaches from Porto", "Ada will come down from Manchester": where one is based (a fact
# here, and a place cue for the name in ``people``).
BASED_FROM = (
    r"(?:(?:teach|teaches|teaching|work|works|working)\s+(?:remotely\s+)?from|"
    r"(?:come|comes|coming|came|drive|drives|driving|drove|fly|flies|flying|flew|travel|travels|"
    r"travelling|traveling)\s+(?:down|up|over|across)\s+from)"
)
# "I earn £92,000 at Halvorsen": a salary is paid by an employer.
EARNING = r"(?:earn|earns|earned|earning|paid)"


def _rule(
    pattern: str,
    relation: str,
    objects: frozenset[str],
    *,
    reverse: bool = False,
    cue: re.Pattern[str] | None = None,
    after: re.Pattern[str] | None = None,
) -> VerbRule:
    return VerbRule(re.compile(pattern + r"$"), relation, objects, reverse, cue, after)


# How many of a span of time: "two", "a few", "a couple of", "12".
_HOW_MANY = (
    r"(?:a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+few|"
    r"(?:a\s+)?couple\s+(?:of\s+)?|few|several|many|\d+)"
)
# Right after the place: "been in Rotterdam two months", "in Leeds since 2019", "been in
# leslieville since, tiny apartment" (not "been in Paris twice in the last few years").
_SETTLED_FOR = re.compile(
    r",?\s+(?:now\s+|for\s+|nearly\s+|almost\s+|over\s+)*(?:"
    + _HOW_MANY
    + r"\s+(?:months?|years?)|since\s+(?:"
    + "|".join(MONTHS)
    + r"|last\s+(?:year|"
    + "|".join(sorted(SEASONS))
    + r")|(?:19|20)\d\d)|ages|forever|since(?=\s*(?:[,.!?;]|$)))\b",
    re.IGNORECASE,
)
# A stay of years is a home of the past ("for six years", "a year", "for years"); months are
# as often a posting or a course ("I was in Manila for a month for training").
_STAYED_FOR = re.compile(
    r",?\s+(?:for\s+|nearly\s+|almost\s+|over\s+|only\s+)*(?:"
    + _HOW_MANY
    + r"\s+years?|years|ages|forever)\b(?!\s+ago\b)",
    re.IGNORECASE,
)

# A sentence that says the home is another, or not yet, or no longer: "our house is in Kumasi,
# we live in Accra now", "we move in next month", "from June, still in Glasgow till then",
# "he's since moved out", "then we both moved to Dublin", "we should go" (a restaurant's place).
_NO_OTHER_HOME = re.compile(
    r"^(?!.*\b(?:live|lives|living|stay|stays|staying)\s+(?:in|with)\b)(?!.*\bstill\s+in\b)"
    r"(?!.*\bmov(?:e|ing)\s+in\b)(?!.*\b(?:till|until)\s+then\b)(?!.*\bgo\s+back\b)"
    r"(?!.*\bonly\s+(?:down|up|there|here)\b)(?!.*\bmoved\s+out\b)(?!.*\bsince\s+moved\b)"
    r"(?!.*\bthen\b.*\bmoved\b)(?!.*\bfor\s+a\s+(?:while|few)\b)"
    r"(?!.*\b(?:we|you)\s+should\s+(?:go|try)\b)(?!.*\blet['’]?s\s+go\b)"
    r"(?!.*\bfrom\s+(?:next|" + "|".join(MONTHS) + r")\b)"
)
# When a move was, said between "moved" and "to": "in August", "last year", "in 2021".
WHEN_MOVED = (
    r"(?:(?:in|last|this)\s+(?:" + "|".join(MONTHS) + r"|year|month|week|summer|winter|spring|"
    r"autumn|fall|(?:19|20)\d\d)\s+)"
)
# A home before the town it is in: "a flat in", "our BTO in", "a new place in".
_HOME_IN = r"(?:(?:flat|place|house|apartment|home|condo|bto|studio)\s+in\s+)?"

_NOT_A_ROUTE = re.compile(r"(?!\s+(?:to|and)\b)")
# What makes a return a trip: "back in Leeds for the weekend", "back in Cork to see mum"
#: What makes a stay a trip, not a home (a lookahead, matched on lower-case text).
NOT_A_STAY = re.compile(
    r"(?!\s*,?\s+(?:for|to\s+see|visiting|till|until|on|tomorrow|tonight|next|soon|later|"
    r"this\s+(?:week|weekend|month)|today|atm|rn|right\s+now|at\s+the\s+moment|again)\b)"
)
# After a place left: how long it was home, or that the going is for good
_LEFT_FOR_GOOD = re.compile(
    r",?\s+(?:after\s+(?:" + _HOW_MANY + r"\s+years?|all\s+(?:these|those)\s+years)|"
    r"for\s+(?:real|good)|since\s+(?:varsity|uni|school|college|forever))\b",
    re.IGNORECASE,
)
# "moved into Owen's place": into someone's home, not to a town of that name
_NOT_SOMEONES_HOME = re.compile(r"(?!['’]s\b)")  # "Owen's place", "moved to Jamie's for a bit"
# After what one is "not missing": glad to be gone, not going ("London one bit", "at all").
_NOT_GLAD_TO_BE_GONE = re.compile(
    r"(?![^.!?]*\b(?:one\s+bit|at\s+all|(?:that|very|so)\s+much|a\s+bit)\b)", re.IGNORECASE
)

# What says a place is one of study: "got into McGill for a master's"
_STUDY_WORDS = re.compile(
    r"\b(?:master['’]?s|masters|degree|phd|uni|university|college|programm?e?|course|school|"
    r"accepted|admitted|admission|offer|study|studying|scholarship|med|law|mba)\b",
    re.IGNORECASE,
)
# In, at and to, and the "I" a French verb keeps, in the languages chats switch to.
# "I'm at Paystack now as backend engineer": where one is, as what one is there
AS_A_ROLE = re.compile(
    r"(?:\s+now)?,?\s+as\s+(?:a|an|the|their|our)?\s*(?:[\w-]+\s+){0,2}?(?:" + ROLE_WORDS + r")\b"
)
_THEIR_I = r"(?:je\s+|j['’])?"
_THEIR_IN_WORD = r"(?:em|no|na|nos|nas|à|au|aux|en|dans|chez|sa)"
_THEIR_IN = _THEIR_IN_WORD + r"\s+"
_THEIR_TO = r"(?:pra|para|pro|à|au|aux|en|a|sa|em)\s+"
#: Working somewhere, said in the languages chats switch to ("je travaille chez", "trabalho no",
#: "trabajo en"): shared with the typing cue of an employer (``people``).
WORKING_IN_THEIRS = (
    r"(?:trabalho|trabalha|trabalhando|travaille|travailles|trabajo|trabaja|nagtatrabaho)\s+"
    + _THEIR_IN_WORD
)
# Not merely hoped for: "made it to Green Man" is a visit, "hope to make it to" none.
_NOT_HOPED = re.compile(r"^(?!.*\b(?:hope|hoping|try|trying|want|wanna)\b)", re.I)
# A job wished for or sought, not held: "I'd love a job as", "applying for a role as".
_NOT_SOUGHT = re.compile(
    r"^(?!.*\b(?:love|like|want|wanna|hope|hoping|dream|apply|applying|applied|looking\s+for|"
    r"interview|interviewing|turned\s+down|rejected|declined|refused|lost|old|former|previous|"
    r"last|first)\b.*\b(?:job|role|position)\b)",
    re.IGNORECASE,
)
# A stay, a home or a ride said of a holiday or a trip ("Lisbon has been treating us well,
# two more days of holiday", "we've rented a cottage", "after the work trip")
ON_A_TRIP = re.compile(
    r"\b(?:holiday|holidays|vacation|trip|rented|airbnb|cottage|hotel|so\s+far|getaway|"
    r"honeymoon|conference)\b",
    re.IGNORECASE,
)
_NOT_A_TRIP = re.compile(r"^(?!.*" + ON_A_TRIP.pattern + ")", re.IGNORECASE)
# "back in Wellington for good": home again, to stay.
_FOR_GOOD = re.compile(r"\s+(?:for\s+good|permanently|to\s+stay)\b")
# "introducing you to Renata" (a rule read between "you" and the name after "to").
_INTRODUCED = re.compile(r"\bintroduc(?:e|ed|ing)\s+(?:you|u|him|her|them)\s+to\b", re.IGNORECASE)
# "remember Leila from your party": remembered as someone met, not a thing remembered.
_FROM_AFTER = re.compile(r"\s+from\b")
# A sign-up said in no past tense alone ("signed up for a workshop this fall").
_NOT_PAST_TENSE_ONLY = re.compile(r"^(?!.*\b(?:last|ago|yesterday)\b)", re.IGNORECASE)
# "would you like me to send it", "I'd love you to come": a wish for what someone does, no
# liking of them.
# "I still miss Portland's coffee shops": what of it is liked, not all of it.
# ("obsessed with Paulie Gee's lol" likes the pizzeria: its name ends in "'s")
_NOT_WANTED_TO = re.compile(
    r"(?!\s+(?:and\s+[\w'’-]+\s+)?to\b)(?!['’]s\s+(?!(?:been|lol|tho|though|btw|now|too|haha|again|already|omg|"
    r"and|or|but|so|is|was|are|were|in|on|at|for|with)\b)[a-z])"
)
# What speaks of what is still to come (``future``).
_FUTURE = re.compile(
    r"\b(?:tomorrow|tonight|next|soon|later|upcoming|will|'ll|’ll|going to|gonna|plan|planning|"
    r"hope|hoping|want to|this (?:weekend|week|month|year|summer|winter|spring|autumn|fall)|"
    r"on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b"
)
# A sentence that tells of nothing to come: "I stay in Tema" (not "I'll stay in Tema a week",
# "when I stay in Kumasi").
_NOT_TO_COME = re.compile(r"^(?!.*(?:" + _FUTURE.pattern + r"|\b(?:when|if)\b))", re.IGNORECASE)
# A sentence that tells of no past, nor advice: "my flight to Accra is on Tuesday" (not "was
# delayed"), "we should go to Ibirapuera" (not "you should go to Hokkaido next time").
_NOT_PAST = re.compile(
    r"^(?!.*\b(?:was|were|had|did|went|last)\b)(?!.*\b(?:you|u|ya)\s+should\b)", re.IGNORECASE
)
# A "be at" or "be in" to come: "I'll be at", "we will be at", "gonna be in".
_FUTURE_BE = re.compile(
    r"(?:['’]ll|\bwill|\bgonna|\bgoing\s+to)\s+be\s+(?:in|at)\b"
    # not a condition ("if I'll be in Leeds"), nor a stay that goes on ("in Lisbon until January")
    r"(?![^.!?]*\b(?:if|when|until|till|til)\b)",
    re.IGNORECASE,
)

#: What one travels by, and taking someone along: shared with the typing cues of ``people``
#: ("the ferry to Iloilo", "I'm taking you to the Markthal").
CARRIERS = r"(?:train|bus|coach|ferry|flights?|plane)"
TAKING_SOMEONE = r"taking\s+(?:you|us|him|her|them)"

VERB_RULES: tuple[VerbRule, ...] = (
    _rule(_PRE_DONE + r"(?:work|works|worked|working|lecture|lectures|lectured|lecturing|teach|"
          r"teaches|teaching|" + EARNING + r")\s+(?:\S+\s+){0,3}?(?:at|for)\s+" + _THE,
          "WORKS_AT", WHERE | frozenset({"other"})),
    _rule(_PRE_DONE + r"(?:employed|interning|hired|based)\s+(?:at|by|with)\s+" + _THE,
          "WORKS_AT", ORG),
    # "she's retiring from Greenhill Primary in July": still there until then
    _rule(_PRE + r"(?:retiring|retires|retire)\s+from\s+" + _THE, "WORKS_AT", ORG),
    # "a girl called Róisín who works in Google", "I'm finishing up at Medtronic on the 23rd"
    # (a job ending; "we finished up at the pub" is an evening's)
    _rule(_PRE_DONE + r"(?:work|works|worked|working)\s+in\s+" + _THE, "WORKS_AT", ORG),
    _rule(_PRE + r"finishing\s+up\s+at\s+" + _THE, "WORKS_AT", ORG),
    # The words before the role describe it ("a senior backend engineer at"); a preposition
    # there makes it someone else's ("talked to a designer at Figma").
    _rule(r"^(?:\s*,)?\s+" + _ADV + _AUX + r"(?:as\s+)?(?:a|an|the|our|my|his|her|their)?\s*"
          r"(?:(?!(?:to|with|for|from|about|by)\s)[\w-]+\s+){0,3}?(?:" + ROLE_WORDS
          + r")\s+(?:at|for|in)\s+" + _THE,
          "WORKS_AT", ORG | frozenset({"other"})),
    # "got the job at Wise Owl": an offer taken is a hire (before "job at" reads as work there)
    _rule(_PRE + r"(?:got|landed|accepted|took|offered)\s+(?:the|a|an)\s+(?:[\w-]+\s+)?"
          r"(?:job|offer|role|position|contract)\s+(?:at|with|from)\s+" + _THE,
          "HIRED", ORG, reverse=True),
    _rule(r"^\s+(?:[\w'’-]+\s+){0,4}?(?:job|position|role|internship|placement|shift|office)\s+"
          r"(?:at|with|in)\s+" + _THE, "WORKS_AT", ORG),
    _rule(_PRE_DONE + r"(?:joined|join|joining|started\s+at|start\s+at|starting\s+at)\s+"
          + _THE,
          "WORKS_AT", ORG),
    # "took 2 days off from JLR", "Paolo's taking 3 days off from Accenture": leave from work
    _rule(_PRE + r"(?:took|taking|takes|take)\s+(?:a|an|the|one|two|three|four|five|\d+)\s+"
          r"(?:[\w-]+\s+)?(?:days?|"
          r"weeks?)\s+off\s+(?:from|at)\s+" + _THE, "WORKS_AT", ORG),
    _rule(r"^\s+at\s+" + _THE, "WORKS_AT", ORG),
    # "yep still at Brightwater Labs, data engineer": where one still is, with a word of work
    # in the sentence ("still at Tesco, the queue is huge" is an errand).
    _rule(r"^\s+(?:still|now|currently)\s+at\s+" + _THE, "WORKS_AT", ORG, cue=WORK_CUE),
    # "Just part-time at Rise & Shine"
    _rule(r"^\s+(?:[\w'’-]+\s+){0,2}?(?:part|full)[-\s]time\s+(?:at|for|with)\s+" + _THE,
          "WORKS_AT", ORG, cue=re.compile(r"^(?!.*\bstud(?:y|ying|ies|ied|ent)\b)", re.I)),
    # "Still with the fire brigade, on shifts": a body one is still with, said with work ("yes
    # still with Vodafone, their data is trash" and "six years now" are a customer's too)
    _rule(r"^\s+(?:still|now|currently)\s+with\s+" + _THE, "WORKS_AT", ORG, cue=WORK_CUE),
    # "started a new job as a UX designer at Northloop Health"
    # ("I'd love a job as a ranger at Saguaro", "applying for a role as" are hopes)
    _rule(r"^\s+(?:[\w'’-]+\s+){0,4}?(?:job|role|position)\s+as\s+(?:a|an)\s+(?:[\w-]+\s+){1,3}?"
          r"(?:at|with|for)\s+" + _THE, "WORKS_AT", ORG, cue=_NOT_SOUGHT),
    # "is Priya still at Deloitte?": asked of someone, where they still are is their work
    _rule(r"^\s+still\s+at\s+" + _THE, "WORKS_AT", ORG, cue=_ASKED),
    # "I left Ecobank for this", "he quit BPI": a job left (the fact closed: ``closed``)
    _rule(_PRE + r"(?:left|quit|quitting|resigned\s+from|leaving)\s+" + _THE, "WORKS_AT",
          frozenset({"organization"})),
    # "Day 2 at Stripe done", "first day at Brinkhoff today", "after my shift at St. Luke's"
    # (not "our first day at Legoland", a day out, nor "last week at Costco", a time)
    _rule(r"^\s+(?:(?:my|her|his|their)\s+)?(?:(?:first|second|third|last|final)\s+(?:day|"
          r"shift)|day\s+\d+|(?:[\w-]+\s+)?(?:shift|shifts|nights|rota))\s+at\s+" + _THE,
          "WORKS_AT", frozenset({"organization", "product"}),  # "Day 2 at Skyscanner"
          # not a day out ("Day 3 at Disneyland and my feet are gone", "first day at IKEA and
          # we lost the kids") nor a student's ("freshers week") or a visitor's ("interview")
          cue=re.compile(
              r"^(?!.*\bour\s+(?:[\w-]+\s+)?(?:day|shift|nights?)\b)(?!.*\b(?:kids|feet|fly\s+back|"
              r"interview|freshers?|mall|park|beach|resort|hotel|holiday|disney\w*|ikea|zoo)\b)"
          )),
    # "I've lasted 4 years at Colmena", "six years at Arup now"
    _rule(_PRE + r"(?:lasted|spent|done|did)?\s*(?:\d+|a\s+few|two|three|four|five|six|seven|"
          r"eight|nine|ten)\s+(?:years?|yrs?|months?)\s+(?:now\s+)?at\s+" + _THE,
          "WORKS_AT", frozenset({"organization"})),
    # "aye still in Leith", "still in Pinheiros, still at Nubank": where one still is, a town
    _rule(r"^\s+(?:still|now|currently)\s+in\s+" + _THE, "LIVES_IN", PLACE),
    # "Finally leaving Koramangala", "so you're really leaving Joburg": a home left ("leaving
    # Austin after lunch" is a trip's end)
    _rule(r"^\s+(?:[\w'’]+\s+){0,2}?(?:finally|really|actually|officially)\s+(?:leaving|leave)\s+"
          + _THE, "LIVES_IN", PLACE),
    # "Leaving Nottingham after 6 years?", "you left Kisumu for real?", "wanted to leave joburg
    # since varsity": a home, by how long it was one or how final the going is
    _rule(_PRE + r"(?:leaving|leave|left)\s+" + _THE, "LIVES_IN", PLACE, after=_LEFT_FOR_GOOD),
    # "she just got promoted at Dell", "promoted to head chef at Ottolenghi"
    _rule(_PRE + r"(?:got\s+|been\s+)?promoted\s+(?:to\s+(?:[\w-]+\s+){1,3}?)?(?:at|in)\s+" + _THE,
          "WORKS_AT", ORG),
    # "handed in my notice at Nuvola", "Kavya's been at Thoughtspring forever"
    _rule(_PRE + r"(?:handed|handing|hand|gave|giving|give|put)\s+(?:in\s+)?"
          r"(?:my|his|her|their|a)\s+notice\s+(?:in\s+)?at\s+" + _THE, "WORKS_AT", ORG),
    # "my first day at Brinkhoff", "her last week at Arup": a job's first or last days, said
    # with whose they are ("last week at Costco" is a time, "first day at Legoland" a visit)
    _rule(r"^\s+(?:first|last)\s+(?:day|week|shift)\s+at\s+" + _THE, "WORKS_AT", ORG,
          cue=re.compile(r"\b(?:my|your|his|her|their)\s+(?:first|last)\s+(?:day|week|shift)\b")),
    # "my team at Bosch"; "does deliveries for Deliveroo"
    _rule(r"^\s+(?:[\w'’-]+\s+){0,4}?(?:my|our|his|her|their)\s+team\s+at\s+" + _THE,
          "WORKS_AT", ORG),
    _rule(_PRE + r"(?:does|do|doing|did)\s+(?:[\w-]+\s+){0,2}?(?:deliveries|shifts|contracting|"
          r"freelancing|consulting|contract\s+work)\s+for\s+" + _THE, "WORKS_AT", ORG),
    _rule(r"^(?:['’]s|\s+(?:has|have|'ve|’ve))\s+" + _ADV + r"been\s+at\s+" + _THE,
          "WORKS_AT", ORG),
    # "I'm at Paystack now as backend engineer": a post held there
    _rule(_PRE + r"at\s+" + _THE, "WORKS_AT", ORG, after=AS_A_ROLE),
    _rule(_PRE + r"(?:signed|signing)\s+(?:on\s+)?with\s+" + _THE, "HIRED", ORG, reverse=True),
    _rule(_PRE + r"(?:got\s+)?hired\s+by\s+" + _THE, "HIRED", ORG, reverse=True),
    _rule(_PRE + r"(?:hired|hires|hiring|recruited|recruits)\s+", "HIRED", PERSON),
    _rule(_PRE + r"(?:work|works|worked|working)\s+on\s+" + _THE, "WORKS_ON", WORK),
    _rule(r"^\s+(?:(?:is|was|are|'s)\s+)?on\s+" + _THE, "WORKS_ON", WORK),
    _rule(_PRE + r"(?:build|builds|building|built|develop|develops|developing|developed|ship|"
          r"ships|shipping|shipped)\s+" + _THE, "WORKS_ON", WORK),
    _rule(_PRE + r"(?:work|works|worked|working)\s+(?:closely\s+)?(?:alongside|with)\s+",
          "WORKS_WITH", PERSON),
    _rule(_PRE + r"(?:become\s+|became\s+|as\s+)?(?:the\s+)?(?:[\w-]+\s+)?(?:lead|head|"
          r"leader|manager|captain|founder)\s+(?:on|of|for)\s+" + _THE,
          "LEADS", WORK | ORG | frozenset({"event", "other"})),
    _rule(_PRE + r"(?:lead|leads|leading|led|run|runs|running|ran|manage|manages|managing|"
          r"managed|founded|head|heads|heading)\s+" + _THE, "LEADS", WORK | ORG),
    # "I just got asked to lead a new app at work called Project Harbor"
    _rule(_PRE + r"(?:(?:asked|chosen|picked|promoted)\s+to\s+)?(?:lead|leading|run|running)\s+"
          r"(?:a|an|the|our|this)\s+(?:[\w'’-]+\s+){0,5}?(?:called|named)\s+", "LEADS", WORK),
    _rule(r"^\s+(?:[\w'’-]+\s+){0,2}?(?:classes|lectures|course|degree|phd|mba|masters|"
          r"seminars?|modules?)\s+(?:at|in)\s+" + _THE, "STUDIES_AT", ORG),
    # "final yr at Strathmore", "honours at Wits", "grad school at UW Madison" (years at a
    # school are years of study too: ``relations``)
    _rule(r"^\s+(?:[\w'’-]+\s+){0,3}?(?:(?:first|second|third|fourth|final|last)\s+"
          r"(?:year|yr)|honours|grad\s+school|undergrad)\s+(?:at|in)\s+" + _THE,
          "STUDIES_AT", ORG),
    # "I got into McGill for a master's", "she got accepted to Dalhousie": a place to study
    _rule(_PRE + r"(?:got|get|gets|getting)\s+(?:(?:accepted|admitted|in)\s+(?:into|to|at)|into)\s+"
          + _THE, "STUDIES_AT", ORG, cue=_STUDY_WORDS),
    # "I got into the program at OHSU", "accepted onto the MSc course at Leeds"
    _rule(_PRE + r"(?:got|get|gets|getting|was|been)\s+(?:accepted\s+|admitted\s+)?"
          r"(?:into|onto|to)\s+(?:the|a|an|my)\s+(?:[\w&'’-]+\s+){0,3}?(?:program(?:me)?|course|degree|phd|masters|"
          r"master['’]s|mba|msc|ma|residency)\s+(?:at|in)\s+" + _THE, "STUDIES_AT", ORG),
    _rule(_PRE + r"(?:stud(?:y|ies|ied|ying)|enrolled|a\s+student|student|major(?:ing)?\s+\w+|"
          r"doing\s+(?:a|my|her|his)\s+\w+)\s+(?:at|in)\s+" + _THE, "STUDIES_AT", ORG),
    # "she lives with two girls in Hyde Park": whom one lives with may stand before the place
    _rule(_PRE + r"(?:live|lives|living|lived|reside|resides|residing|settled|staying)\s+"
          r"(?:\w+\s+)?in\s+" + _THE, "LIVES_IN", PLACE | frozenset({"other"})),
    _rule(_PRE + r"(?:live|lives|living|lived)\s+with\s+(?:[\w'’-]+\s+){1,3}?in\s+" + _THE,
          "LIVES_IN", PLACE),
    _rule(_PRE + r"(?:based|living)\s+in\s+" + _THE, "LIVES_IN", PLACE),
    # "I stay in Tema, it's far from work" (where one stays is home in the English of West
    # Africa, India and the Philippines), "renting in Kumasi for the year"; not a stay to come
    _rule(_PRE + r"(?:stay|stays|renting)\s+in\s+" + _THE, "LIVES_IN", PLACE,
          cue=_NOT_TO_COME),
    # "I did 3 years in Calgary", "spent six years in Leeds": a stay of years is a home
    _rule(_PRE + r"(?:did|spent|lived)\s+(?:\d+|a\s+few|two|three|four|five|six|seven|eight|"
          r"nine|ten)\s+(?:years?|yrs?)\s+in\s+" + _THE, "LIVES_IN", PLACE),
    # "my landlord in Woodstock is putting the rent up", "our neighbours in Sandy Bay"
    _rule(r"^\s+(?:[\w-]+\s+)?(?:landlord|landlady|flatmates?|housemates?|neighbou?rs?)\s+"
          r"(?:in|on)\s+" + _THE, "LIVES_IN", PLACE),
    # "Mam's coming down from Mallow for the festival", "I'll fly in from Halifax", "drive doon
    # fae Inverness the night before": where one sets out from to come is home
    # (a train is taken from a station: "getting the train from Heuston")
    _rule(_PRE + r"(?:coming|come|comes|driving|drive|flying|fly)\s+"
          r"(?:(?:down|up|over|in|doon|across)\s+)?(?:from|fae)\s+" + _THE, "LIVES_IN", PLACE,
          cue=_NOT_PAST),
    # "Leila flew in from Montreal", "drove all the way up from Sacramento": come over from home
    _rule(_PRE + r"(?:flew|drove|came)\s+(?:all\s+the\s+way\s+)?(?:in|up|down|over|across)\s+"
          r"from\s+" + _THE, "LIVES_IN", PLACE, cue=_NOT_A_TRIP),
    # "he finally followed me up to Denver last summer": moved where the other had
    _rule(_PRE + r"followed\s+(?:me|us|him|her|them)\s+(?:(?:up|down|out|over|back)\s+)?to\s+"
          + _THE, "MOVED_TO", PLACE),
    # "she's in Houston", "I'm in Bangalore anyway": where someone is, said of a town.
    _rule(r"^(?:['’](?:s|m|re)|\s+(?:is|am|are))\s+" + _ADV + r"in\s+", "LIVES_IN", PLACE,
          after=NOT_A_STAY),
    _rule(r"^\s+(?:[\w'’-]+\s+){0,2}?(?:my|his|her|their|our)\s+(?:place|flat|apartment|house)\s+"
          r"in\s+" + _THE, "LIVES_IN", PLACE),
    _rule(_PRE + BASED_FROM + r"\s+" + _THE, "LIVES_IN", PLACE),
    # "Still renting in Chapel Allerton"
    _rule(_PRE + r"(?:renting|rent)\s+in\s+" + _THE, "LIVES_IN", PLACE),
    # "we've just bought a house in Brunswick": a home bought is moved to ("put an offer on a
    # little terraced house in Exeter" is a move to come)
    _rule(_PRE + r"bought\s+(?:a|our|my|the)\s+(?:[\w-]+\s+){0,2}?"
          r"(?:flat|house|home|apartment|place|condo)\s+in\s+" + _THE, "MOVED_TO", PLACE,
          cue=re.compile(r"^(?!.*\b(?:holiday|rent(?:ing)?\s+(?:it\s+)?out|to\s+rent|let\s+out|"
                         r"investment|buy-to-let)\b)", re.I)),
    _rule(_PRE + r"(?:put|putting|made|making)\s+(?:in\s+)?an\s+offer\s+(?:on|for)\s+(?:a|the)\s+"
          r"(?:[\w-]+\s+){0,3}?(?:flat|house|home|apartment|place|condo)\s+in\s+" + _THE,
          "PLANS", PLACE),
    # "moved back to Lagos", "I moved in August to Podgórze", "he shifted to a flat in Baner",
    # "we moved into our BTO in Punggol" (a month or "last year" may stand before the "to"; a
    # home may stand before the town)
    _rule(_PRE + r"(?:moved|move|moves|moving|relocated|relocating|relocate|shifted|shifting)\s+"
          r"(?:back\s+)?(?:(?:over|up|down|out|away)\s+)?(?:" + WHEN_MOVED + r")?"
          r"(?:to|into)\s+(?:(?:a|our|my|the|his|her|their|new)\s+)*" + _HOME_IN + _THE,
          "MOVED_TO", PLACE, after=_NOT_SOMEONES_HOME),
    # "I've just got the keys to a flat in Partick", "I'm back in Wellington for good"
    _rule(_PRE + r"(?:got|get|getting|picked\s+up|collected)\s+(?:the|our|my)\s+keys\s+"
          r"(?:to|for)\s+"
          r"(?:(?:a|our|my|the|new|little|tiny)\s+)*(?:[\w-]+\s+)?(?:flat|house|home|apartment|place|"
          r"condo)\s+in\s+" + _THE, "MOVED_TO", PLACE),
    _rule(_PRE + r"(?:back|home)\s+(?:in|to)\s+" + _THE, "MOVED_TO", PLACE, after=_FOR_GOOD),
    _rule(r"^\s+(?:[\w'’-]+\s+){0,5}?(?:flat|house|home|apartment|condo)\s+in\s+" + _THE,
          "LIVES_IN", PLACE),
    # "from my place in Coyoacán", "on my couch in Partick", "Tom's place in Leeds": whose it is
    # stands right before it ("this hotpot place in Ximending" is nobody's home)
    _rule(r"^(?:['’]s)?\s+(?:place|couch|sofa|spare\s+room)\s+in\s+" + _THE, "LIVES_IN", PLACE),
    # "our flat is in Kralingen", "my new place is in Leith", "Priya's flat's in Leith": whose
    # home it is stands before it (not a home still to move into or left for another)
    _rule(r"^(?:['’]s)?\s+(?:new\s+|own\s+)?(?:flat|place|house|apartment|condo)(?:['’]s|\s+is)"
          r"\s+" + _ADV + r"in\s+" + _THE, "LIVES_IN", PLACE, cue=_NO_OTHER_HOME),
    # "she moved in with me in Salthill": the one who moved in lives there too
    _rule(_PRE + r"moved\s+in\s+with\s+(?:me|us|him|her|them)\s+in\s+" + _THE, "LIVES_IN",
          PLACE, cue=_NO_OTHER_HOME),
    # "my own flat on Crwys Road": a street one's home is on
    _rule(r"^\s+(?:own\s+)?(?:flat|house|home|apartment|condo)\s+on\s+" + _THE,
          "LIVES_IN", PLACE),
    _rule(_PRE + r"(?:originally\s+)?from\s+" + _THE, "FROM", PLACE),
    _rule(_PRE + r"(?:come|comes|came)\s+(?:originally\s+)?from\s+" + _THE, "FROM", PLACE),
    _rule(_PRE + r"(?:grew|grow|growing)\s+up\s+in\s+" + _THE, "FROM", PLACE),
    _rule(_PRE + r"(?:attended|attend|attending|ran|run|running|competed\s+in|compete\s+in|"
          r"took\s+part\s+in|participated\s+in|entered|performed\s+at|finished|completed)\s+"
          + _THE, "ATTENDED", frozenset({"event"})),
    # "I crossed the line at the Surf Coast Century", "they took third place at the
    # Championship"
    _rule(_PRE + r"(?:crossed\s+the\s+(?:finish(?:ing)?\s+)?line|took\s+(?:\w+\s+)?place|"
          r"took\s+(?:gold|silver|bronze))\s+(?:at|in)\s+" + _THE, "ATTENDED",
          frozenset({"event"})),
    # "I started a pottery class at Clay Commons", "took the same course at King Arthur", "my
    # workshop at North House was fantastic": a class or a course somewhere
    _rule(r"^\s+(?:[\w'’,-]+\s+){0,2}?(?:took|taking|did|doing|started|starting|finished|"
          r"attended|attending|my|our)\s+(?:a|an|the|my|our|same)?\s*(?:[\w-]+\s+){0,2}?"
          r"(?:course|class|classes|workshop|lessons?)\s+at\s+" + _THE,
          "ATTENDED", WHERE | frozenset({"event"}),
          cue=re.compile(r"^(?!.*\b(?:hope|hoping|want|wanna|thinking|skipped|missed|daughter|son|"
                         r"kids?)\b)", re.I)),
    # "I survived Config", "survived all hundred miles of El Tour": an event come through
    _rule(_PRE + r"survived\s+(?:(?:all|the|every|both)\s+(?:[\w-]+\s+){0,3}?of\s+)?" + _THE,
          "ATTENDED", frozenset({"event"})),
    # "our team came second at the Yorkshire Quiz League final", "she won the Dublin Marathon"
    _rule(r"^(?:\s+(?:[\w-]+\s+)?(?:team|club|side|squad|choir|crew))?" + _PRE[1:]
          + r"(?:came|finished|placed|won|coming|placing)\s+(?:\w+\s+)?(?:at|in)\s+" + _THE,
          "ATTENDED", frozenset({"event"})),
    # "we finally made it to Green Man", "we spent all of yesterday at the Arts Festival"
    # (to a town, "made it to Brissie!!" is as often an arrival to stay)
    _rule(_PRE + r"(?:made\s+it|make\s+it)\s+(?:out\s+)?to\s+" + _THE, "VISITED",
          frozenset({"event"}), cue=_NOT_HOPED),
    _rule(_PRE + r"spent\s+(?:[\w'’-]+\s+){1,4}?(?:at|in)\s+" + _THE, "VISITED", EVENTFUL),
    _rule(_PRE + r"(?:signed\s+up\s+for|registered\s+for|got\s+a\s+place\s+in|booked|"
          r"preparing\s+for|training\s+for|off\s+to|planning\s+(?:a\s+)?(?:trip\s+)?to|"
          # "the Tuesday Club are doing a trip to Harlow Carr", "taking the kids on a trip to"
          r"(?:doing|taking|organi[sz]ing|running|planning)\s+(?:\w+\s+){0,3}?(?:a|an|the|our|my)\s+"
          r"(?:[\w-]+\s+)?(?:trip|outing|day\s+out|visit)\s+to|"
          r"thinking\s+of\s+going\s+to|wants?\s+to\s+go\s+to|planning\s+on|visiting|in\s+for|"
          # "Mei and I are thinking of New Zealand for Easter", "leaning towards the Faroes"

          # "booked us a room at Hatherley", "booked a table at Grano"
          r"booked\s+(?:(?:us|me|them)\s+)?(?:a\s+)?(?:[\w-]+\s+)?(?:room|table|spot|cabin|pitch|"
          r"lodge)\s+(?:at|in)|"
          # "I'll take the ferry to Iloilo", "I'm taking you to the Markthal"
          r"(?:take|taking|catch|catching)\s+(?:the|a)\s+" + CARRIERS + r"\s+to|" + TAKING_SOMEONE
          + r"\s+to|"
          # "flying back down to", "driving up to", "Kemi and I fly to Zanzibar on Tuesday"
          r"(?:going|heading|head|fly|flying|driving|travell?ing)\s+(?:back\s+)?"
          r"(?:(?:up|down|over|out|home|off)\s+)?to|landing\s+in|arriving\s+(?:in|at)|"
          # "are you coming to Efua's wedding?", "coming for Koroga Festival", "flying in for"
          r"coming\s+(?:back\s+)?(?:(?:up|down|over|out|home|through|along)\s+)?(?:to|for)|"
          r"(?:flying|coming)\s+in\s+for|"
          # "booked the 18th evening flight to Chennai" ("got the train to" is as often past)
          r"(?:booked|bought)\s+(?:\w+\s+)?(?:a|the|my|our|us|me)?\s*(?:[\w-]+\s+){0,3}?"
          r"(?:flights?|train|bus|tickets?)\s+(?:(?:back|home)\s+)?(?:to|for)|"
          # "josh got us tickets for fontaines dc" (but "got the train to" is past)
          r"got\s+(?:(?:us|me|them)\s+)?(?:[\w-]+\s+)?tickets?\s+(?:to|for))\s+" + _THE,
          "PLANS", EVENTFUL),
    # chat's "still going Taipei in Dec?", "heading Penang next week": a town without its "to"
    # (not a route: "flying Pune to blr")
    _rule(_PRE + r"(?:going|heading)\s+(?:back\s+)?", "PLANS", PLACE, after=_NOT_A_ROUTE),
    # "I'll be at Meera's wedding", "we're going to be at Open'er", "I'll be at Croke Park for
    # the final", "I'll be in Cebu next week": where one will be
    _rule(r"^\s+(?:(?:will|gonna|going\s+to)\s+)?be\s+at\s+" + _THE, "PLANS",
          WHERE | frozenset({"event"}), cue=_FUTURE_BE),
    _rule(r"^\s+(?:(?:will|gonna|going\s+to)\s+)?be\s+in\s+" + _THE, "PLANS", PLACE,
          cue=_FUTURE_BE),
    # "see you in Kinsale", "still on for Lisbon in September?": where one will be
    _rule(_PRE + r"(?:see\s+(?:you|u|ya|y'all|you\s+all|you\s+guys)\s+(?:in|at)|"
          r"still\s+on\s+for)\s+" + _THE, "PLANS", EVENTFUL),
    # "can't wait for Siargao", "we booked Palawan for December", "let's meet at Greenbelt",
    # "we should go to Ibirapuera", "I'll visit you in Porto", "when are you coming to visit me
    # in Cape Town?", "I'm taking my mom to Paraty",
    # "my flight to Accra is on Tuesday": a trip or an outing to come
    _rule(_PRE + r"(?:can['’]?t\s+wait\s+for|(?:so\s+)?excited\s+for|looking\s+forward\s+to|"
          r"booked|(?:let['’]?s|lets|should|shall)\s+(?:all\s+)?(?:meet\s+(?:up\s+)?at|go\s+to|"
          r"do|visit)|(?:(?:will|gonna|going\s+to|coming\s+to|come\s+to)\s+)?visit\s+"
          r"(?:you|u|ya|them|him|her|me|us)\s+in|"
          r"(?:take|taking|bring|bringing)\s+(?:my|our|the)\s+(?:[\w-]+\s+){1,2}?(?:up\s+|down\s+)?to|"
          r"(?:flight|train|bus|ferry|drive|road\s+trip)\s+(?:back\s+|home\s+)?to)\s+" + _THE,
          "PLANS", EVENTFUL, cue=_NOT_PAST),
    # "we're doing Boracay for my birthday", "I'm doing the Camino", asked "are we finally
    # doing the Ruapehu trip?": a trip or an outing planned
    _rule(r"^(?:['’](?:re|m|s)|\s+(?:are|am|is))?\s+" + _ADV + r"doing\s+" + _THE, "PLANS",
          PLACE | frozenset({"event"}), cue=_NOT_PAST),
    # The same facts in the languages English chats switch to: "moro em Pinheiros", "je vis à
    # Verdun", "mudei pra Vila Madalena", "je travaille chez Ubisoft", "vou pra Lisboa"
    _rule(r"^\s+" + _THEIR_I + r"(?:moro|mora|moram|morando|vivo|vive|vis|vit|habite|habites|"
          r"nakatira|tumira)\s+" + _THEIR_IN + _THE, "LIVES_IN", PLACE),
    _rule(r"^\s+" + _THEIR_I + r"(?:(?:me|se)\s+)?(?:mudei|mudou|mudamos|mudaram|mudé|mudó|"
          r"déménage|déménagé|lumipat)\s+" + _THEIR_TO + _THE, "MOVED_TO", PLACE),
    _rule(r"^\s+" + _THEIR_I + WORKING_IN_THEIRS + r"\s+" + _THE, "WORKS_AT", ORG),
    _rule(r"^\s+" + _THEIR_I + r"(?:estudo|estuda|étudie|estudio|estudia)\s+" + _THEIR_IN + _THE,
          "STUDIES_AT", ORG),
    _rule(r"^\s+" + _THEIR_I + r"(?:vou|vamos|vai|vais|vas|allons|voy|pupunta)\s+" + _THEIR_TO
          + _THE, "PLANS", EVENTFUL),
    # "we've finally got tickets for Green Man", "tickets are booked for Alvvays"
    _rule(_PRE + r"(?:got|bought|booked|have|grabbed|scored)\s+"
          r"(?:(?:the|our|some|two|2)\s+)?tickets?\s+"
          r"(?:for|to)\s+" + _THE, "PLANS", EVENTFUL | ORG, cue=_NOT_HOPED),
    # "I signed up for a bread workshop at the King Arthur Baking School"
    _rule(_PRE + r"(?:signed\s+up|registered|enrolled|booked\s+(?:in|myself\s+in))\s+for\s+"
          r"(?:a|an|the|their)\s+(?:[\w'’-]+\s+){0,3}?(?:at|in|with)\s+" + _THE, "PLANS",
          EVENTFUL, cue=_NOT_PAST_TENSE_ONLY),
    # "not missing Wales v England", "wouldn't miss the Galway Races": going, not staying away
    # ("not missing London one bit", "wouldn't miss Sydney rent at all" is glad to be gone)
    _rule(_PRE + r"(?:(?:not|never)\s+missing|wouldn['’]?t\s+miss)\s+" + _THE, "PLANS",
          EVENTFUL, after=_NOT_GLAD_TO_BE_GONE),
    # "we signed a lease on a place in Scarborough", "finalised a 2bhk in Gachibowli", "found
    # a flat in Heaton": a home secured, to move into (the keys got are a move: below)
    _rule(_PRE + r"(?:signed|found|finali[sz]ed|secured)\s+"
          r"(?:a|the|our|my)\s+(?:lease\s+(?:on|for)\s+(?:a|the|our|my)\s+)?"
          r"(?:[\w-]+\s+){0,2}?(?:flat|place|house|apartment|\d?bhk|unit|condo|lease|home)\s+"
          r"(?:in|on|at)\s+" + _THE, "PLANS", PLACE),
    # "we've been in Rotterdam two months", "been in Leeds since 2019": a stay of months or
    # years is where someone lives (a week there is a visit)
    _rule(_PRE + r"been\s+in\s+" + _THE, "LIVES_IN", PLACE, after=_SETTLED_FOR),
    # "you were only in Dublin a year", "I was in Leeds for six years": a home of the past
    # ("I was in Dublin two years ago" is a visit)
    _rule(r"^\s+" + _ADV + r"(?:was|were)\s+" + _ADV + r"(?:only\s+)?in\s+" + _THE, "LIVES_IN",
          PLACE, after=_STAYED_FOR),
    # "Back in Manila, back to the grind", "back in welly": home again after a trip (not
    # "back in Leeds for the weekend")
    _rule(_PRE + r"(?:finally\s+)?back\s+in\s+" + _THE, "LIVES_IN", PLACE, after=NOT_A_STAY),
    _rule(_PRE + r"(?:visited|visit|been|went|go|gone|travell?ed|flew|drove|returned|got\s+"
          r"back|came\s+back|back)\s+(?:back\s+)?(?:to|from|in)\s+" + _THE,
          "VISITED", WHERE | frozenset({"event"})),
    # "I saw Alvvays at the Brudenell last night", "caught them at the Barrowland on Thursday":
    # a gig seen is a venue visited ("saw that in the Times", "saw a typo in the Ikea manual")
    _rule(_PRE + r"(?:saw|caught)\s+(?!(?:a|an|the|that|this|it|some|my|your|his|her|its|our|"
          r"their)\s)(?:[\w'’-]+\s+){1,3}?(?:live\s+)?(?:at|in)\s+" + _THE, "VISITED", WHERE),
    # "Mei and I are thinking of New Zealand for Easter", "leaning towards the Faroe Islands"
    _rule(_PRE + r"(?:thinking\s+of|leaning\s+towards?)\s+" + _THE, "PLANS", PLACE),
    # "just did Mount Maunganui for new years": a place one did is a trip there
    _rule(_PRE + r"did\s+" + _THE, "VISITED", PLACE),
    _rule(_PRE + r"(?:visited|toured|explored|stayed\s+(?:at|in)|holiday\s+in|vacation\s+in|"
          r"trip\s+to|landed\s+in|arrived\s+(?:in|at))\s+" + _THE, "VISITED", WHERE),
    # "I'm on the train to Leicester", "Back from book club at Kettle & Crumb"
    _rule(_PRE + r"on\s+(?:the|a|my|our)\s+(?:train|bus|coach|plane|flight|ferry)\s+"
          r"(?:back\s+)?to\s+" + _THE, "VISITED", WHERE),
    # "just got back from a week on the Isle of Skye", "got home from seeing Lankum at Vicar
    # Street"
    _rule(_PRE + r"(?:got\s+)?(?:back|home)\s+from\s+(?:[\w'’-]+\s+){1,4}?(?:at|in|on)\s+"
          + _THE, "VISITED", WHERE),
    # "on my last morning in San Francisco": the end of a stay there
    _rule(r"^\s+(?:[\w'’-]+\s+){0,6}?(?:my|our|his|her|their)\s+last\s+(?:morning|day|night|"
          r"evening|afternoon)\s+in\s+" + _THE, "VISITED", PLACE),
    _rule(_PRE + r"(?:married|marrying|wed)\s+(?:to\s+)?", "MARRIED_TO", PERSON),
    _rule(_PRE + r"(?:engaged\s+to|dating|"
          r"seeing\s+someone\s+(?:[\w'’,-]+\s+){0,6}?(?:called|named)|going\s+out\s+with|"
          r"proposed\s+to|in\s+a\s+relationship\s+with)\s+", "PARTNER_OF", PERSON),
    _rule(_PRE + r"(?:met|meet|meets|meeting|know|knows|knew|befriended|message|messaged|"
          r"messaging|text|texted|texting|email|emailed|emailing|phoned|rang|call|called|calling|ring|"
          r"facetime|facetimed|dm|dmed|dm'd)\s+(?:up\s+with\s+)?",
          "KNOWS", PERSON),
    # "it was so fun introducing you to Renata": the one introduced knows them now
    _rule(r"^\s+to\s+", "KNOWS", PERSON, cue=_INTRODUCED),
    # "I remember Leila from your graduation party", "really enjoyed meeting him"
    _rule(_PRE + r"(?:remember|remembered)\s+", "KNOWS", PERSON, after=_FROM_AFTER),
    _rule(_PRE + r"(?:enjoyed|loved|liked)\s+(?:meeting|getting\s+to\s+know)\s+", "KNOWS", PERSON),
    _rule(r"^\s+(?:(?:had|have|having|my|our|a|the|monthly|weekly|usual)\s+)*(?:coffee|lunch|"
          r"dinner|drinks|breakfast|catch-up|catch up)\s+with\s+", "KNOWS", PERSON),
    _rule(_PRE + r"(?:friendship|friends)\s+with\s+", "FRIEND_OF", PERSON),
    _rule(r"^\s+(?:(?:your|my|his|her|our)\s+)?friendship\s+with\s+", "FRIEND_OF", PERSON),
    # "Auntie Farida swears by Mehfil Catering": a business so praised is recommended (a
    # person sworn by is liked, below)
    _rule(_PRE + r"(?:swears|swore|swear)\s+by\s+" + _THE, "RECOMMENDED", NAMED - PERSON),
    # "I just finished a book I think you'd love, Homegoing by Yaa Gyasi"
    _rule(_PRE + r"(?:[\w'’-]+\s+){0,3}?(?:a|an|this|one)\s+(?:book|novel|film|movie|show|"
          r"series|album|song|podcast|game)\s+(?:(?:i|I)\s+think\s+)?(?:you['’]d|you\s+would|you['’]ll|you\s+will|"
          r"you['’]re\s+going\s+to|you\s+might)\s+(?:really\s+)?(?:love|like|enjoy)\s*[,:-]\s*",
          "RECOMMENDED", NAMED - PERSON),
    _rule(_PRE + r"(?:recommended|recommends|recommend|suggested|suggests|referred\s+me\s+to|"
          r"put\s+me\s+in\s+touch\s+with|introduced\s+me\s+to|pointed\s+me\s+to|told\s+me\s+"
          # "Ines put me onto Kalinaw" ("my manager put me on Project Kite" assigns)
          r"about|put\s+(?:me|us)\s+on\s*to)\s+(?:[\w'’-]+[\s,]+){0,6}?(?:called\s+|named\s+)?",
          "RECOMMENDED", NAMED),
    _rule(_PRE + r"(?:own|owns|owned|adopted|bought)\s+" + _THE, "OWNS", NAMED - PERSON),
    # "I honestly couldn't get into Saltburn"
    _rule(_PRE + r"(?:couldn['’]?t|could\s+not|can['’]?t|cannot|never)\s+(?:really\s+)?"
          r"get\s+into\s+"
          + _THE, "DISLIKES", NAMED - PERSON),
    _rule(_PRE + r"(?:hate|hates|hated|dislike|dislikes|disliked|loathe|loathes|loathed|"
          r"can't\s+stand|can’t\s+stand|cant\s+stand|"
          r"(?:not|never)\s+a\s+(?:big\s+|huge\s+)?fan\s+of)\s+" + _THE, "DISLIKES", NAMED),
    _rule(_PRE + r"(?:love|loves|loved|like|likes|liked|enjoy|enjoys|enjoyed|adore|adores|"
          r"adored|a\s+(?:big\s+|huge\s+)?fan\s+of|obsessed\s+with|(?<!got\s)(?<!get\s)into|fond\s+of|"
          # "i miss ruth", "she really rates him", "Lakshmi swears by her"
          r"miss|misses|rate|rates|rated|swear\s+by|swears\s+by|swore\s+by)\s+" + _THE,
          "LIKES", NAMED, after=_NOT_WANTED_TO),
    _rule(_PRE + r"(?:see|sees|seeing|saw|booked|booked\s+in\s+with|appointment\s+with|"
          r"session\s+with|check-?up\s+with|treated\s+by|referred\s+to)\s+"
          r"(?:(?:someone|somebody|a\s+[\w-]+)\s+(?:called|named)\s+)?"
          # "seeing our family doctor Dr Bello", "saw my physio Aoife"
          r"(?:(?:my|our|his|her|their|the)\s+(?:[\w-]+\s+)?(?:doctor|gp|physio|dentist|"
          r"therapist|counsellor|counselor|consultant|surgeon|vet|osteo|osteopath)\s+)?"
          r"(?:dr\.?\s+)?", "SEES", PERSON),
    _rule(r"^\s+(?:[\w-]+\s+){0,3}?(?:results?|appointment|session|check-?up)\s+(?:back\s+)?"
          r"(?:from|with)\s+", "SEES", PERSON),
)  # fmt: skip

# Rules that need the object to look like a professional to count as SEES ("see Ada on Sunday"
# is not a visit to a doctor): a title before it or a care word in the sentence.
CARE_WORDS = _words(
    """
    doctor dr gp physio physiotherapist therapist dentist surgeon vet counsellor counselor
    psychologist psychiatrist nurse consultant specialist clinic surgery hospital appointment
    osteopath chiropractor optician midwife
    """
)
TITLES = (NAME_TITLES - {"miss"}) | {"doctor"}  # "I saw Miss Wanjiku at church" is no visit

_NEGATIVE_IDIOMS = re.compile(
    r"\bcan(?:'|’)?t\s+stand\b|\b(?:not|never)\s+a\s+(?:big\s+|huge\s+)?fan\s+of\b|"
    r"\b(?:couldn['’]?t|could\s+not|can['’]?t|cannot|never)\s+(?:really\s+)?get\s+into\b"
)
# The "not" of a plan that is no denial: "not missing the final", "wouldn't miss it", "can't
# wait for Siargao".
_PLANNED_DESPITE_NOT = re.compile(
    r"\b(?:not|never)\s+missing\b|\bwouldn(?:'|’)?t\s+miss\b|\bcan(?:'|’)?t\s+wait\b"
)
_NEGATION = re.compile(r"\b(?:not|never|no longer|n't|n’t|nor|hardly|barely)\b|n't\b|n’t\b")
_CLOSED = re.compile(
    r"\b(?:used to|no longer|not anymore|any more|anymore|formerly|previously|was|were)\b"
    r"|\blived\b|\bworked\b|\bstudied\b|\bleft\b|\bquit\b|\bresigned\b|\bdid\b|\bspent\b"
)
#: Words that end a fact even in the present perfect ("I've left Google"; a notice handed in
#: is served still).
LEFT_WORDS = re.compile(r"\b(?:left|quit|resigned|moved\s+out)\b")
_STILL_OPEN = re.compile(r"\b(?:have|has|'ve|’ve|still)\b")


def negated(text: str) -> bool:
    """Whether the words of a match deny what they state (the "not" of an idiom that states a
    dislike itself, "can't stand", "not a fan of", denies nothing)."""
    return _NEGATION.search(_NEGATIVE_IDIOMS.sub(" ", text)) is not None


def closed(text: str) -> bool:
    """Whether the words of a match put the fact in the past ("used to live in", "lived in")."""
    if LEFT_WORDS.search(text):
        return True  # "I've just quit Deloitte", "we've left Leeds"
    return _CLOSED.search(text) is not None and _STILL_OPEN.search(text) is None


def future(text: str) -> bool:
    """Whether a sentence speaks of what is still to come."""
    return _FUTURE.search(text) is not None


def apply_polarity(relation: str, words: str) -> str | None:
    """The relation a match states once negation is read; ``None`` when it states nothing."""
    if relation == "PLANS":
        words = _PLANNED_DESPITE_NOT.sub(" ", words)
    if not negated(words):
        return relation
    if relation == "LIKES":
        return "DISLIKES"
    if relation == "DISLIKES":
        return "LIKES"
    return None


# "together" states a couple only with a verb or a length of time ("are together", "been together
# for years"); "a session with Marcus and Owen together" is two people in one room.
COUPLE_AFTER = re.compile(
    r"^(?:'s|’s)?\s+(?:(?:have|are|got|just|finally|are\s+getting|have\s+just|still|been|'ve|’ve)\s+)*(?:set\s+a\s+"
    r"date|engaged|married|getting\s+married|wedding|dating|a\s+couple|moved\s+in\s+"
    r"together|(?:got|bought|rented|found)\s+a\s+(?:place|flat|house|apartment)\s+together|anniversary|honeymoon|(?:are|were|'re|’re|been|got|get|getting|back)\s+together|"
    r"together\s+(?:for|since)\s+(?:\w+\s+){0,2}(?:years?|months?|yrs?|ages))\b"
)
PAIR_MET = re.compile(r"^\s+(?:(?:have|had|just|finally|first)\s+)*(?:met|know\s+each\s+other)\b")

# "my sister Ada", "Priya, my manager", "Ada's husband Kwame": the kin or role word and the
# relation it names between the owner of the word and the named person.
KIN_RELATIONS = {
    **dict.fromkeys(
        _words(
            """
            mom mum mother dad father sister brother son daughter kids kid children child
            cousin aunt auntie uncle niece nephew grandma grandpa grandmother grandfather
            granny nan nana gran parents sibling siblings twin stepmom stepdad stepmother
            stepfather stepsister stepbrother grandson granddaughter grandkids grandchildren
            in-laws mother-in-law father-in-law sister-in-law brother-in-law family
            mam mammy mama papa mommy mummy daddy aunty granda grandad granddad gramps grandchild
            """
        )
        # The family words of the other languages English chats borrow: "my tita Cheche", "my
        # vó Lurdes", "our gogo", "my nani" ("ate" and "anna" are English words and a name).
        | _words(
            """
            tita tito lola lolo kuya vó vovó avó avô abuela abuelo abuelita abuelito tía tío
            gogo ouma oupa mkhulu nani dadi ammi abbu amma appa akka thatha paati oma opa nonna
            nonno babcia dziadek yiayia nain taid
            irmã irmão mãe pai tia tio prima primo avô filha filho hermana hermano madre padre
            mamá papá hija hijo sœur soeur frère frere mère père tante oncle cousine fille fils
            bhai didi behen bhaiya chacha chachi mausi
            """
        ),
        "FAMILY_OF",
    ),
    **dict.fromkeys(
        _words(
            """
            wife husband spouse marido esposa esposo mari femme asawa missus missis hubby wifey
            """
        ),
        "MARRIED_TO",
    ),
    **dict.fromkeys(
        _words(
            """
            partner boyfriend girlfriend fiance fiancee fiancé fiancée bf gf fella namorado namorada
            novio novia copain copine jowa
            """
        ),
        "PARTNER_OF",
    ),
    **dict.fromkeys(
        _words(
            """
            friend friends buddy bestie bff pal mate flatmate roommate housemate neighbor
            neighbour
            """
        ),
        "FRIEND_OF",
    ),
    **dict.fromkeys(
        _words(
            """
            boss colleague colleagues coworker co-worker coworkers manager teammate team
            supervisor employee report cofounder co-founder vp cto ceo cfo coo director
            """
        ),
        "WORKS_WITH",
    ),
    **dict.fromkeys(
        _words(
            """
            mentor mentee
            """
        ),
        "KNOWS",
    ),
    **dict.fromkeys(
        _words(
            """
            doctor therapist coach teacher dentist gp physio physiotherapist surgeon tutor
            trainer counsellor counselor vet psychologist
            """
        ),
        "SEES",
    ),
}
# The kin words a person has one of, so a capitalised "Dad" names the one the speaker means
# (with the words families of other languages use in English chats: "Baba", "Teta", "Nonna").
UNIQUE_KIN = _words(
    """
    mom mum mother dad father grandma grandpa grandmother grandfather granny nan nana gran mama
    papa mommy mummy daddy baba teta jiddo jido sitto nonna nonno oma opa abuela abuelo abuelita
    amma appa ammi nani dadi mam mammy paati thatha ajji bubbe zayde yiayia pappou
    """
)
# The kinship words that name one person ("my sister", "your boyfriend"; not "my kids"): a
# phrase of one of them can stand for that person (an alias).
KIN_PHRASE_WORDS = frozenset(
    word
    for word, relation in KIN_RELATIONS.items()
    if relation in ("FAMILY_OF", "MARRIED_TO", "PARTNER_OF")
) - frozenset({"kids", "kid", "children", "child", "parents", "siblings", "grandkids",
              "grandchildren", "in-laws", "family"})  # fmt: skip
# Kin words said as a title before a name ("Uncle Samir", "Auntie Bisi"): whose the title is
# goes unsaid, as with "Mum", so the speaker is family of the one named.
# "Gran Morag", "Tita Lorna", "Lola Cora" too.
TITLED_KIN = _words(
    "uncle auntie aunty aunt cousin gran granny grandma grandpa tita tito lola lolo"
    # the titles of the other languages English chats borrow: "Abuelo Ernesto", "Vó Lurdes"
    # ("Tia", "Oma", "Teta" and "Gogo" are given names too: "Tia Jones from work")
    " abuela abuelo abuelita abuelito tía tío nonna nonno babcia dziadek vó vovó avó avô ouma"
    " oupa"
)


def names_kin(name: str) -> bool:
    """Whether a name (folded words) is a kin word said as one ("Mum", "Grandma Okafor") or a
    name titled by one ("Uncle Samir")."""
    words = name.split()
    return bool(words) and (words[0] in UNIQUE_KIN or (words[0] in TITLED_KIN and len(words) > 1))


PETS = _words(
    """
    cat dog puppy pup kitten pet horse rabbit bunny hamster parrot bird tortoise turtle guinea
    pig fish snake lizard whippet labrador terrier spaniel beagle collie poodle retriever
    greyhound lurcher dachshund pug husky corgi chihuahua alsatian schnauzer bulldog tabby moggy
    budgie goldfish ferret gerbil kelpie cockapoo cavapoo labradoodle staffy staffie sheepdog
    rottweiler doberman weimaraner vizsla westie dalmatian samoyed shiba akita
    """
)


@dataclass(frozen=True, slots=True)
class QuestionFrame:
    pattern: re.Pattern[str]
    relation: str
    objects: frozenset[str]


def _frame(pattern: str, relation: str, objects: frozenset[str]) -> QuestionFrame:
    return QuestionFrame(re.compile(pattern), relation, objects)


# The one asked, as chat writes it too ("where r u working", "what's ur uni"), and the ones
# ("where are ye staying?", "yous", "y'all").
_YOU = r"\b(?:you|your|yours|u|ur|ya|ye|yous|youse|y['’]all|yall)\b"
QUESTION_FRAMES: tuple[QuestionFrame, ...] = (
    _frame(r"\bwhere\b.*" + _YOU + r".*\b(?:work|working|employed|job)\b", "WORKS_AT", WHERE),
    _frame(r"\b(?:which|what)\s+(?:company|firm|employer|organi[sz]ation|team)\b.*" + _YOU,
           "WORKS_AT", ORG),
    _frame(r"\bwho\b.*" + _YOU + r".*\bwork(?:ing)?\s+for\b", "WORKS_AT", ORG),
    _frame(r"\b(?:where|which|what)\b.*" + _YOU + r".*\bstud(?:y|ying)\b", "STUDIES_AT", WHERE),
    _frame(r"\b(?:which|what)\s+(?:school|university|uni|college)\b.*" + _YOU, "STUDIES_AT",
           WHERE),
    _frame(r"\bwhere\b.*" + _YOU + r".*\b(?:from|grow\s+up|grew\s+up)\b", "FROM", PLACE),
    _frame(r"\bwhere\b.*" + _YOU + r".*\bmov(?:e|ed|ing)\b", "MOVED_TO", PLACE),
    # "where did u stay in Siargao?" asks of a trip, "where are ye staying for the wedding?" of
    # one to come; "where do you live / stay these days?" of a home
    _frame(r"\bwhere\b(?!.*\bsay\b).*\bdid\b.*" + _YOU + r".*\bstay\b", "VISITED", WHERE),
    _frame(r"\bwhere\b.*" + _YOU + r".*\bstaying\b.*\b(?:for\s+the|tonight|when|while|next)\b",
           "PLANS", EVENTFUL),
    _frame(r"\bwhere\b.*" + _YOU + r".*\b(?:live|living|based|stay|staying)\b", "LIVES_IN", PLACE),
    _frame(r"\bwhere\b.*" + _YOU + r".*\b(?:go|went|been|travel|travelled|traveled|visit|visited|"
           r"trip|holiday|vacation)\b", "VISITED", WHERE),
    _frame(r"\bwhere\b.*" + _YOU + r".*\b(?:going|heading|off\s+to|planning)\b", "PLANS", EVENTFUL),
    _frame(r"\bwhat\b.*" + _YOU + r".*\bwork(?:ing)?\s+on\b", "WORKS_ON",
           WORK | frozenset({"other"})),
    _frame(r"\bwho\b.*\b(?:your|ur)\s+(?:doctor|gp|physio|therapist|dentist)\b", "SEES", PERSON),
)  # fmt: skip


def asked_frame(question: str) -> QuestionFrame | None:
    """The first frame a question (one sentence, case-folded) asks in, if any."""
    return next((frame for frame in QUESTION_FRAMES if frame.pattern.search(question)), None)


#: The words an answer to a yes-or-no question opens on ("yes Siddharth.", "yep my sister").
# A town called home: "Leith is home now" (not "Lagos is home to 15 million"), and "home is
# Rathmines these days" (the words before the town)
IS_HOME = re.compile(r"\s+is\s+(?:(?:my|our)\s+)?home\b(?!\s+(?:to|of|for)\b)", re.IGNORECASE)
HOME_IS = re.compile(r"\bhome\s+is(?:\s+now)?\s*$", re.IGNORECASE)
# "naw" is the Scots no ("naw moving to Aberdeen in September")
ANSWER_WORDS = frozenset({"yes", "yeah", "yep", "yup", "ya", "aye", "no", "nope", "nah", "naw"})

AFFIRMATIVE = re.compile(
    # chat draws a yes out and opens it with a cry: "yesss", "ayyy yes pls!!", "omg yes"
    r"^\W*(?:(?:a+y+|o+h+|a+h+|o+o+h*|omg|haha+|hehe+|lol|ok|okay)\W+)?"
    r"(?:ye+s+|ya+s+|yep+|yup+|sure|correct|indeed|definitely|def|defo|deffo|absolutely|"
    r"(?:of\s+)?course(?!\s+(?:is|was|starts|runs)\b)|ofc|obviously|for sure|i do|i did|i am|"
    # "for now!" to "still in Uptown?": yes, for the moment
    r"i have|that's right|that’s right|right|ja|for\s+now(?=\s*(?:[^\w\s]|$))"
    # "aye right", "yeah right": said as a no ("yeah right after my exams" is a yes)
    r"|(?:yeah+|aye|ya|yea)(?!\W*right\b(?!\s+(?:after|now|here|there|away|before)\b)))\b"
    # "aye, no", "course not", "def not lol", "ja-nee", "aye, I wish": a no after all
    r"(?!\W*(?:no|not|nae|nee|nope|i\s+wish)\b)",
    re.IGNORECASE,
)

#: The words that may stand beside a place and a time put forward to meet at ("Crwst tonight?",
#: "ok Saturday then, Nyama Mama at Yaya, 1pm?", "Pen & Wig then, the whole group").
PROPOSAL_WORDS = _words(
    """
    ok okay so then or maybe how about what say lets let's let’s do for dinner lunch drinks coffee
    brunch breakfast a quick the whole group gang at around tonight tomorrow tmr tmrw morning
    afternoon evening night this next weekend on pm am monday tuesday wednesday thursday friday
    saturday sunday mon tue tues wed thu thurs fri sat sun instead
    """
)
