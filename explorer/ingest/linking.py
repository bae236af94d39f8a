"""Linking the names of one conversation that stand for one person, with the evidence of each link.

``PeopleLinks`` is the part of the offline extractor's per-conversation reading that folds name
candidates together before entities are built: a name used to address a speaker joins that
speaker, a display handle joins the full name it spells, a capitalised "Dad" joins the person
the same speaker calls their dad by name (the rules are in ``people``), and a nickname joins the
one person of the conversation whose given name it can shorten ("Liz" and Elizabeth, "Tom" and
the speaker Tomás Ruiz; the pairs are in ``given_names``), a name given as the one spoken to's
joins them ("in your name, Sunita Iyer"), and a word opening a sentence joins the one longer
name of a place, business or event it begins ("Cayo" and the Cayo Arms), and what people are
said to call someone joins them ("Michael Okafor, everyone calls him Mikey"). Each fold keeps an
``AliasEvidence``: the alias, the chunk that said it and why. Imports the standard library, core
models and ingest helpers.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from itertools import pairwise

from explorer.core.models import AliasEvidence, Chunk
from explorer.ingest.casing import COMMON_RANK, is_everyday_word, is_rare_given_name
from explorer.ingest.given_names import is_census_name, is_given_name, nickname_reason
from explorer.ingest.ids import fold_letters, normalise_name
from explorer.ingest.lexicon import (
    COMMON_VERBS,
    KNOWN_ACRONYM_BODIES,
    KNOWN_BRANDS,
    KNOWN_PLACES,
)
from explorer.ingest.name_reading import Candidate, Occurrence
from explorer.ingest.people import (
    display_spelled_out,
    evidence_type,
    handle_matches,
    honorific_after,
    kin_word,
    says_whose,
    speaker_type,
    stem_names,
    teases,
    typed,
)
from explorer.ingest.places import is_known_place
from explorer.ingest.relation_rules import (
    ANSWER_WORDS,
    KIN_PHRASE_WORDS,
    TITLED_KIN,
    UNIQUE_KIN,
)

# Words that make a name someone's kin or someone else: "my sister", "no relation"
_KIN_OR_OTHER = re.compile(
    r"\b(?:(?:my|our|his|her|their|your)\s+(?:[\w-]+\s+)?(?:"
    + "|".join(sorted(KIN_PHRASE_WORDS))
    + r")|relation|related|namesake|different\s+(?:guy|man|woman|one|person)|named\s+after|"
    r"landlord|landlady)\b",
    re.IGNORECASE,
)
# "in your name, Sunita Iyer", "under ur name: Jo Bell"; the name given closes its clause
# Between a name and what people call its bearer: "Michael Okafor, everyone calls him Mikey",
# "Jo aka Big Jo", "Adaeze, who goes by Dez", "Oluwaseun (we call him Seun)"
_CALLED_OTHERWISE = re.compile(
    r"\s*[,(]?\s*(?:aka|a\.k\.a\.?|also\s+known\s+as|better\s+known\s+as|(?:who\s+)?goes\s+by|"
    r"(?:but\s+|or\s+as\s+)?(?:everyone|everybody|we|they|people|you|u|i|all)\s+(?:all\s+)?"
    r"(?:just\s+)?calls?\s+(?:him|her|them))\s*[,:]?\s*[\"'“‘]?",
    re.IGNORECASE,
)
_YOUR_NAME_BEFORE = re.compile(r"\b(?:your|ur|yr)\s+(?:full\s+)?name\s*[,:]\s*$", re.IGNORECASE)
_NAME_CLOSES = re.compile(r"\s*(?:[,.;:!?)]|$)")
_KIN_WORD = re.compile(r"(?<![\w'’])[^\W\d_]+")
# Before a name, a kinship word of the speaker's naming whom it means: "my dad Imran", "my dad,
# Imran", "my dad's name is Imran", "my dad is called Imran".
_MY_KIN_NAMED = re.compile(r"\bmy\s+([\w-]+)(?:\s*,|['’]s\s+name\s+is|\s+is\s+called)?\s*$")
# Where a kinship phrase stands beside a name: right before it, or set beside it after a comma
# ("Tyler, my boyfriend"); said by the speaker or to the addressee ("his cousin" says little
# without knowing whose).
_KIN_PHRASE_BEFORE = re.compile(
    r"\b(?P<owner>my|your|our)\s+(?P<kin>[\w'’-]+)\s*,?\s*$", re.IGNORECASE
)
_KIN_PHRASE_AFTER = re.compile(
    r"\s*,\s*(?P<owner>my|your|our)\s+(?P<kin>[\w'’-]+)\b", re.IGNORECASE
)

# Endings of inflected or derived English words, never taken for a full given name.
_WORD_ENDINGS = ("s", "ed", "ing", "ly", "ment", "ness", "tion", "able", "ful")
_NAME_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# Words right before a name that say the speaker is that name ("I'm Nell", "my name is Nell").
# A sentence that opens by saying who the speaker is, after a greeting at most ("Hi, I'm Nell",
# "My name is Nell", "Call me Nell").
_INTRODUCES = re.compile(
    r"\W*(?:(?:hi|hey|hello|hiya|oh|ok|okay|so|well|sorry|and|btw)\b\W*)*"
    r"(?:i['’]?m|i\s+am|my\s+name\s+is|my\s+name['’]s|call\s+me)\s+",
    re.IGNORECASE,
)
# Given names that are as often said of what someone is ("I'm Christian").
_IDENTITY_WORDS = frozenset(
    {"christian", "gay", "single", "free", "sikh", "mormon", "hindu", "buddhist", "muslim"}
    | {"aries", "taurus", "gemini", "cancer", "leo", "virgo", "libra", "scorpio"}
    | {"sagittarius", "capricorn", "aquarius", "pisces", "autistic", "dyslexic", "deaf"}
)
#: How common a word may be and still be taken for a name someone says is theirs.
EVERYDAY_RANK = 10_000
_POSSESSIVE = re.compile(r"['’]s\b|['’]s$|['’]", re.IGNORECASE)
# A turn opening with a name that goes on to speak of that person: "Nisha. She used them".
_SPOKEN_OF = re.compile(r"^\W*\w+\W+(?:she|he|they|and|or|maybe|probably|i think)\b", re.IGNORECASE)


_INITIAL = re.compile(r"[^\W\d_]\.?")


def _plain_name(written: str) -> str | None:
    """The name a display name spells without its emoji or symbols ("Layla" of "Layla 🌙"),
    when some of its words are no words and the others are plain names, or without the initial
    after it ("Linda" of "Linda K."); else ``None``."""
    words = written.split()
    if len(words) == 2 and _INITIAL.fullmatch(words[1]) and _NAME_WORD.fullmatch(words[0]):
        return words[0]  # "Linda K.", "Thabo M": the given name and an initial
    named = [word for word in words if any(char.isalpha() for char in word)]
    if not named or len(named) == len(words) or not all(_NAME_WORD.fullmatch(w) for w in named):
        return None
    return " ".join(named)


#: A handle's stem is the speaker's name when the given-name lists know it, or when it has at
#: least this many letters and is none of the commonest words ("mateo" of mateo.r; not
#: "coffee" of coffee_lover).
MIN_UNLISTED_STEM = 4


def _names_someone(stem: str) -> bool:
    if is_given_name(stem) or is_census_name(stem):
        return len(stem) >= 3
    common = is_everyday_word(stem, COMMON_RANK)
    return len(stem) >= MIN_UNLISTED_STEM and stem.isalpha() and not common


_UNABBREVIATED = frozenset({"of", "the", "and", "&", "for", "de", "la"})


def _initials(name: str) -> str:
    """The first letters of a name of three words or more (small linking words left out);
    empty for a shorter name."""
    words = [word for word in name.split() if word not in _UNABBREVIATED]
    return "".join(fold_letters(word)[:1] for word in words) if len(words) >= 3 else ""


def _first_letters(name: str) -> str:
    """The first letters of every word of a name of two words or more ("KM" of Kwame Mensah,
    folded: "km"); empty for one word."""
    words = [word for word in map(fold_letters, name.split()) if word]
    return "".join(word[0] for word in words) if len(words) >= 2 else ""


# What follows initials that call someone: "JH you free for lunch tmr?", "MX, quick one", "KC!"
_CALLED_AFTER = re.compile(
    r"\s*[,!?:]|\s+(?:you|u|ya|yu|pls|please|r\s+u|are\s+you|did\s+you|can\s+you)\b",
    re.IGNORECASE,
)


def _best(candidate: Candidate) -> str:
    ranked = sorted(candidate.surfaces.items(), key=lambda item: (-item[1], item[0]))
    return ranked[0][0] if ranked else ""


# Around a parent's word that calls the parent: opening the sentence, or after a greeting, a
# yes or a thanks ("Amen mummy", "yes Mami I'll be there"), with a pause, a kiss or words to
# her after it ("Mummy, Adaeze says hi", "Mummy abeg I need 15k"; not "Mam rang 4 times", nor
# "I miss Mum", "Mum's phone is off").
_BEFORE_A_CALL = re.compile(
    r"^\W*(?:(?:amen|morning|good\s+(?:morning|night|evening)|night|hi|hey|hello|ok|okay|"
    r"yes|yeah|no|thanks|thank\s+you|love\s+you(?:\s+too)?|see\s+you(?:\s+\w+)?|bye|sorry|"
    r"please|pls|ah|oh|eh|haha|lol|omg)\W+)*$",
    re.IGNORECASE,
)
_TO_HER_AFTER = re.compile(
    r"^(?!['’]s\b)\s*(?:$|[^\w\s]|x+\b|(?:i|i['’]m|im|i['’]ve|i['’]ll|you|u|ur|your|we|please|"
    r"pls|abeg|biko|thank|thanks|sorry|good|happy|when|where|how|what|why)\b)",
    re.IGNORECASE,
)

# A request for the exact name of the one spoken to ("your full name as it is on the passport",
# "what's ur name again?"), not a mention of it ("should I book it under your name?").
_NAME_ASKED = re.compile(
    r"\b(?:your|ur|yr)\s+(?:full|real|legal)\s+name\b|"
    r"\bwhat(?:['’]?s|\s+is)\s+(?:your|ur|yr)\s+name\b",
    re.IGNORECASE,
)


def _answers_a_name_asked(chunks: Sequence[Chunk], at: Occurrence) -> bool:
    """Whether the name at ``at`` opens a turn answering the turn before's request for the
    name of the one it speaks to (another speaker's), and ends its sentence there."""
    if at.chunk == 0:
        return False
    asked, answer = chunks[at.chunk - 1], chunks[at.chunk]
    if asked.speaker == answer.speaker or not _NAME_ASKED.search(asked.text):
        return False
    opens = not answer.text[: at.start].strip(" \t\n\"'“")
    return opens and _NAME_CLOSES.match(answer.text, at.end) is not None


def _calls_a_parent(text: str, start: int, end: int, sentence: tuple[int, int]) -> bool:
    """Whether a parent's word at ``text[start:end]`` calls the parent rather than speaks of
    them ("my mum", "Mummy says hi", "ask Dad")."""
    before, after = text[sentence[0] : start], text[end : sentence[1]]
    if teases(before, text[start:end]):
        return False  # "ok grandpa 😂", "yes mum 🙄": a friend teased
    return bool(_BEFORE_A_CALL.match(before) and _TO_HER_AFTER.match(after))


#: Letters more common than this as a word are no one's initials ("HR" 5,043rd, "DM" 8,403rd);
#: "JP" (11,896th) and "RJ" (19,774th) may be.
INITIALS_RANK = 11_000

# A parent's words as children call them: the kin words naming one person, and those of the
# other languages chats borrow ("Ma" is left out: it calls any woman one respects).
_PARENT_WORDS = UNIQUE_KIN | {"mamá", "papá", "maman", "mami", "papi", "mãe"}


class PeopleLinks:
    """Name folding for ``extractor._Context``, which provides the attributes below."""

    chunks: list[Chunk]
    names: dict[str, Candidate]
    speakers: dict[str, str]
    vocatives: dict[str, list[tuple[int, str]]]
    exclaimed: dict[str, list[tuple[int, str]]]
    called_out: set[str]
    handle_stems: dict[str, str]
    alias_evidence: dict[str, list[AliasEvidence]]
    addressed: Sequence[str | None]
    _name_label: Callable[[str, Candidate], str | None]
    sentences: list[list[tuple[int, int]]]
    lower_seen: Counter[str]
    # What vouches for a name, gathered once all chunks are read (``_vouched_for``).
    _name_words: frozenset[str] | None = None
    _nicknames_here: list[str]

    def _vouched_for(self, key: str) -> bool:
        """Whether a word seen only once, opening a sentence, is a name by what else is named.

        It is when it is the first or last word of a person's full name here ("Hannah was
        lovely" after "Dr. Hannah Lee"), or the full form of a person's nickname here: a given
        name the nickname list knows ("Thomas" of "Tom") anywhere in the conversation, any
        other only in the very turn that uses the nickname ("my sister Ada … Adaeze on her
        birth certificate"). A word that merely begins with a nickname said elsewhere is no
        evidence of a name ("Danger is what he lives for" beside "Dan", "Maximum" beside "Max").
        """
        if self._name_words is None:
            people = {
                name: candidate
                for name, candidate in self.names.items()
                if evidence_type(name, candidate.votes, candidate.cues) == "person"
            }
            self._name_words = frozenset(
                word
                for name in people
                if 2 <= len(words := name.split()) <= 4
                for word in (words[0], words[-1])
            )
            # Only names seen inside a sentence at least as often as in lower case: plainly names.
            self._nicknames_here = [
                name
                for name, candidate in people.items()
                if " " not in name
                and candidate.mid_sentence
                and candidate.mid_sentence >= self.lower_seen[name]
            ]
        if key in self._name_words:
            return True
        fitting = [n for n in self._nicknames_here if n != key and nickname_reason(n, key)]
        if not fitting or is_given_name(key):
            return bool(fitting)
        if key.endswith(_WORD_ENDINGS):
            return False  # "Samples" beside Sam: an English word, not his full name
        turns = {at.chunk for at in self.names[key].occurrences}
        return any(at.chunk in turns for n in fitting for at in self.names[n].occurrences)

    def _short_heads(self) -> None:
        """Fold a word only ever opening a sentence into the one longer name here it begins,
        of a place, a business or an event said inside a sentence ("Cayo is fine" after "Cayo
        Arms at 1?", "KubeCon day 2" after "KubeCon Europe"): not a dictionary word, a given
        name, a known town, nor a word its own evidence types otherwise."""
        longer: dict[str, list[str]] = defaultdict(list)
        for name, candidate in self.names.items():
            if " " in name and candidate.mid_sentence:
                longer[name.split()[0]].append(name)
        for key, names in longer.items():
            alone = self.names.get(key)
            if (
                alone is None
                or alone.mid_sentence
                or len(names) != 1
                or key in self.speakers
                or is_everyday_word(key)
                or is_census_name(key)
                or is_known_place(key)  # "Baguio is so cold" beside the Baguio Country Club
            ):
                continue
            full = self.names[names[0]]
            full_kind = evidence_type(names[0], full.votes, full.cues)
            if full_kind == "person":
                continue  # a person's first name is ``_vouched_for``'s
            kind, backed = typed(key, alone.votes, alone.cues)
            if backed and kind != full_kind:
                continue  # "Jomo is picking us up" beside Jomo Kenyatta Airport; Safaricom
            occurrence = alone.occurrences[0]
            surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
            reason = f"{surface} is the short form of {full.surfaces.most_common(1)[0][0]}"
            self._fold_into(key, names[0], occurrence.chunk, surface, reason)

    def _fold_into(self, key: str, target: str, chunk: int, surface: str, reason: str) -> None:
        """Move the name ``key`` into ``target`` (a speaker or a full name) with its evidence."""
        alone = self.names.pop(key, None)
        into = self.names.setdefault(target, Candidate())
        if alone is not None:
            # The folded name joins as an alias; the target keeps its own name.
            for folded in alone.surfaces:
                into.surfaces[folded] += 0
            into.occurrences.extend(alone.occurrences)
            into.votes.update(alone.votes)
            into.cues.update(alone.cues)
        into.surfaces[surface] += 0
        self.alias_evidence[target].append(AliasEvidence(surface, self.chunks[chunk].id, reason))
        self.alias_evidence[target].extend(self.alias_evidence.pop(key, []))

    def _names_someone(self, index: int) -> bool:
        """Whether a turn opening with a name speaks of that person rather than to the one it
        answers: after a question, or when "she", "he" or "and" follows the name."""
        before = self.chunks[index - 1].text.rstrip() if index > 0 else ""
        return before.endswith("?") or _SPOKEN_OF.match(self.chunks[index].text) is not None

    def _part_of_a_name(self, key: str) -> bool:
        """Whether ``key`` ends or opens a longer name said here: "Drei Raben!!" cries out the
        hotel just named (Hotel Drei Raben), not someone."""
        return any(
            other != key and (other.endswith(" " + key) or other.startswith(key + " "))
            for other in self.names
        )

    def _answers_with(self, index: int, surface: str) -> bool:
        """Whether a turn answering a question opens on a yes or a no and then the name: "is it
        the guy from Singapore?" / "Yes Siddharth. He works at DBS" names him, calls no one."""
        text = self.chunks[index].text
        at = text.find(surface)
        opening = text[:at].strip(" ,!.").casefold() if at >= 0 else ""
        return opening in ANSWER_WORDS and self._names_someone(index)

    def _link_people(self) -> None:
        """Merge the names that stand for one person (see ``people``), keeping the evidence."""
        speakers_of = [normalise_name(chunk.speaker) for chunk in self.chunks]
        # Vocatives: a name a speaker uses to address another is the addressee's name. A given
        # name that opens a turn exclaimed ("Tom!! guess what") is one too, and so is another
        # name a person calls out there ("Ciaro!! Happy new year"; see ``called_out``).
        calls = {
            key: [use for use in uses if not self._answers_with(*use)]
            for key, uses in self.vocatives.items()
        }
        for key, uses in self.exclaimed.items():
            if key in COMMON_VERBS:
                continue  # "See! Appa and I went": a verb cried out, though "See" is a name
            if is_given_name(key) or (key in self.called_out and not self._part_of_a_name(key)):
                calls.setdefault(key, []).extend(uses)
            elif is_rare_given_name(key):
                # "Rosalind. WHAT." calls her; "Nisha. She used them" answers a question.
                called = [use for use in uses if not self._names_someone(use[0])]
                if called:
                    calls.setdefault(key, []).extend(called)
        people = [key for key, name in self.speakers.items() if speaker_type(name) == "person"]
        for key, uses in sorted(calls.items()):
            if key in self.speakers or key not in self.names:
                continue
            if key in UNIQUE_KIN and len(people) > 2:
                continue  # a parent called in a group: ``_parents_called`` finds whom
            if is_known_place(key) or key in KNOWN_PLACES or key in KNOWN_BRANDS:
                continue  # "namaste India!": a place or a firm greeted, no one's name
            targets = {self.addressed[index] for index, _surface in uses}
            (target,) = targets if len(targets) == 1 else (None,)
            if target is None or speaker_type(self.speakers[target]) != "person":
                continue
            if self._stem_owner(key) not in (None, target):
                continue  # "thanks arjun" in a group chat is arjun_v, whoever spoke last
            # The one addressed does not speak of themselves by that name.
            own = any(speakers_of[o.chunk] == target for o in self.names[key].occurrences)
            if own or len(fold_letters(key)) < 2:
                continue
            index, surface = uses[0]
            by = self.chunks[index].speaker
            self._fold_into(key, target, index, surface, f"addressed as {surface} by {by}")
            self.names[target].cues["addressed"] += 1
        # Display handles: "kate_w" is the speaker the text calls "Kate Williams", and
        # "E. MacLeod" the one it calls "Euan MacLeod".
        for handle in self.speakers:
            if speaker_type(self.speakers[handle]) != "person":
                continue
            spelled = [
                key
                for key in self.names
                if key not in self.speakers and self._spells(handle, key, speakers_of)
            ]
            if len(spelled) == 1:
                (key,) = spelled
                occurrence = self.names[key].occurrences[0]
                surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
                written = self.speakers[handle]
                reason = (
                    f"display name {written} is {surface} written out"
                    if " " in handle
                    else f"handle {written} spells {surface}"
                )
                self._fold_into(key, handle, occurrence.chunk, surface, reason)
        self._self_introductions(speakers_of)
        self._handle_stems()
        self._display_names(speakers_of)
        self._kin_names(speakers_of)
        self._parents_called(speakers_of)
        self._titled_kin()
        self._titled_kin_phrases(speakers_of)
        self._honorifics()
        self._kin_phrases()
        self._nicknames()
        self._acronyms()
        self._initials_called(speakers_of)
        self._initials_of_a_full_name()
        self._names_given_to_the_addressee(speakers_of)
        self._names_asked_for(speakers_of)
        self._called_otherwise()

    def _called_otherwise(self) -> None:
        """A name said right after another as what people call them is that one's: "Michael
        Okafor, everyone calls him Mikey", "Jo aka Big Jo", "Adaeze, who goes by Dez"."""
        by_chunk: dict[int, list[tuple[Occurrence, str]]] = defaultdict(list)
        for key, candidate in self.names.items():
            for occurrence in candidate.occurrences:
                by_chunk[occurrence.chunk].append((occurrence, key))
        folds: list[tuple[str, str, int, str]] = []
        for chunk, said in by_chunk.items():
            said.sort(key=lambda item: item[0].start)
            text = self.chunks[chunk].text
            for (first, name), (then, other) in pairwise(said):
                if (
                    name != other
                    and first.sentence == then.sentence
                    and other not in self.speakers
                    and _CALLED_OTHERWISE.fullmatch(text, first.end, then.start)
                ):
                    surface = text[then.start : then.end]
                    written = text[first.start : first.end]
                    folds.append((other, name, chunk, f"{written} is called {surface}"))
        for other, name, chunk, reason in folds:
            if other in self.names and name in self.names:
                occurrence = self.names[other].occurrences[0]
                surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
                self._fold_into(other, name, chunk, surface, reason)

    def _names_given_to_the_addressee(self, speakers_of: list[str]) -> None:
        """A name said as the one spoken to's ("I'll book in your name, Sunita Iyer") is
        theirs, when no one else is called so."""
        for key in [key for key in self.names if key not in self.speakers]:
            self._fold_into_the_addressed(
                key,
                speakers_of,
                # not "in your name, Dave's card got declined": someone else
                lambda text, at: (
                    _YOUR_NAME_BEFORE.search(text, 0, at.start) is not None
                    and _NAME_CLOSES.match(text, at.end) is not None
                ),
                lambda by, surface: f"{by} gives {surface} as the name of the one spoken to",
            )

    def _names_asked_for(self, speakers_of: list[str]) -> None:
        """A name that opens the answer to a request for "your (full) name" is the answerer's:
        "... and your full name exactly as it is on the passport" / "Folasade Abosede Oyelaran.
        The passport is inside the brown envelope" (a person's, said by no one else)."""
        for key in [key for key in self.names if key not in self.speakers]:
            candidate = self.names[key]
            if evidence_type(key, candidate.votes, candidate.cues) != "person":
                continue
            owners = {speakers_of[o.chunk] for o in candidate.occurrences}
            opening = [o for o in candidate.occurrences if _answers_a_name_asked(self.chunks, o)]
            if len(owners) != 1 or not opening:
                continue
            (owner,) = owners
            if owner not in self.speakers or speaker_type(self.speakers[owner]) != "person":
                continue
            at = opening[0]
            surface = self.chunks[at.chunk].text[at.start : at.end]
            asked_by = self.chunks[at.chunk - 1].speaker
            self._fold_into(
                key, owner, at.chunk, surface, f"{surface} answers {asked_by}'s asking their name"
            )

    def _fold_into_the_addressed(
        self,
        key: str,
        speakers_of: list[str],
        said_to: Callable[[str, Occurrence], bool],
        why: Callable[[str, str], str],
        theirs: Callable[[str], bool] = lambda target: True,
    ) -> str | None:
        """Fold ``key`` into the one person its turns speak to where ``said_to`` holds (and
        ``theirs`` of that person), never the speaker; the person, if folded."""
        targets: set[str] = set()
        for occurrence in self.names[key].occurrences:
            if not said_to(self.chunks[occurrence.chunk].text, occurrence):
                continue
            target = self.addressed[occurrence.chunk]
            if target is not None and target != speakers_of[occurrence.chunk] and theirs(target):
                targets.add(target)
        if len(targets) != 1:
            return None
        (target,) = targets
        occurrence = self.names[key].occurrences[0]
        surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
        by = self.chunks[occurrence.chunk].speaker
        self._fold_into(key, target, occurrence.chunk, surface, why(by, surface))
        return target

    def _spells(self, handle: str, key: str, speakers_of: list[str]) -> bool:
        """Whether the name ``key`` is what a speaker's handle ("kate_w") or display name ("E.
        MacLeod") spells out."""
        if says_whose(key):
            return False  # "Cillian and Orla's wedding" is no spelling of "cillian"
        written = self.speakers.get(handle, handle)
        lettered = [word for word in written.split() if fold_letters(word)]
        if len(lettered) == 1:  # "kate_w", "KM 🦁": one word, emoji aside, as written
            return handle_matches(lettered[0], key)
        return display_spelled_out(handle, key) and self._written_out(key, handle, speakers_of)

    def _written_out(self, key: str, speaker: str, speakers_of: list[str]) -> bool:
        """Whether a name may be a speaker's display name written out: a person, by what is
        said of them, whom no kinship word ties to anyone ("my mum Ana Paula Reis" beside the
        speaker "Ana Paula" is her mother), written by someone else ("Victoria Station" is no
        "Victoria S")."""
        candidate = self.names[key]
        return (
            evidence_type(key, candidate.votes, candidate.cues) == "person"
            and not candidate.cues["kin"]
            and any(speakers_of[o.chunk] != speaker for o in candidate.occurrences)
        )

    def _self_introductions(self, speakers_of: list[str]) -> None:
        """A person speaker who opens a sentence saying who they are ("Hi! I'm Nell, a nurse",
        "My name is Nell", "Call me Nell") is that name: an export's "user" or a handle gets
        the person's name. Not words said for someone else ("Dear Mr Brown, I am Sarah", "she
        said hi, I'm Rachel", "pretend I'm Sherlock"), nor a name the speaker also speaks of
        as another person ("my wife Sarah")."""
        introduced: dict[str, set[str]] = {}
        said_at: dict[str, tuple[int, str]] = {}
        others: set[tuple[str, str]] = set()  # (name, speaker) spoken of, not introduced
        for key, candidate in self.names.items():
            if key in self.speakers or kin_word(key) is not None:
                continue
            for occurrence in candidate.occurrences:
                speaker = speakers_of[occurrence.chunk]
                if speaker not in self.speakers or speaker_type(self.speakers[speaker]) != "person":
                    continue
                text = self.chunks[occurrence.chunk].text
                opens = self.sentences[occurrence.chunk][occurrence.sentence][0]
                before = text[opens : occurrence.start]
                after = text[occurrence.end : occurrence.end + 2]
                if _INTRODUCES.fullmatch(before) and not _POSSESSIVE.match(after):
                    introduced.setdefault(key, set()).add(speaker)
                    said_at.setdefault(
                        key, (occurrence.chunk, text[occurrence.start : occurrence.end])
                    )
                else:
                    others.add((key, speaker))
        for key, speakers in sorted(introduced.items()):
            if len(speakers) != 1 or key not in self.names:
                continue
            (speaker,) = speakers
            if (key, speaker) in others:
                continue
            kind, backed = typed(key, self.names[key].votes, self.names[key].cues)
            if backed and kind != "person":
                continue
            # "I'm English", "I'm Catholic": a word of who someone is, not what they are called.
            first = key.split()[0]
            if first in _IDENTITY_WORDS or (
                is_everyday_word(first, EVERYDAY_RANK) and not is_given_name(first)
            ):
                continue
            chunk, surface = said_at[key]
            self._fold_into(
                key, speaker, chunk, surface, f"{self.speakers[speaker]} says they are {surface}"
            )
            self.names[speaker].cues["addressed"] += 1

    def _handle_stems(self) -> None:
        """A name that a person speaker's handle begins with is that speaker ("Emi", "emi" or
        "EMI" of emi_k), unless the conversation's evidence says it is no person."""
        for key in [key for key in self.names if key not in self.speakers]:
            owner = self._stem_owner(key)
            if owner is None:
                continue
            candidate = self.names[key]
            kind, backed = typed(key, candidate.votes, candidate.cues)
            if backed and kind != "person":
                continue
            occurrence = candidate.occurrences[0]
            surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
            self._fold_into(
                key, owner, occurrence.chunk, surface, f"handle {self.speakers[owner]} is {surface}"
            )

    def _display_names(self, speakers_of: list[str]) -> None:
        """A display name decorated with emoji or symbols ("Layla 🌙", "Folake 🌸") holds the
        plain name too, as the other speaker would write it, and so does a handle that begins
        with a name ("Kit" of kit.dlc, "Mateo" of mateo.r): a search by the name finds the
        speaker though the chat never writes it."""
        stems = {owner: stem for stem, owner in self.handle_stems.items()}
        for key, written in self.speakers.items():
            plain, reason = _plain_name(written), f"display name {written}"
            stem = stems.get(key)
            if (
                plain is None
                and stem is not None
                and fold_letters(written) != stem
                and _names_someone(stem)
            ):
                plain = stem.title()
                reason = f"handle {written} begins with {plain}"
            if plain is None or speaker_type(written) != "person":
                continue
            if plain.casefold() in {
                s.casefold() for s in self.names.get(key, Candidate()).surfaces
            }:
                continue
            first = speakers_of.index(key)
            into = self.names.setdefault(key, Candidate())
            into.surfaces[plain] += 0
            self.alias_evidence[key].append(AliasEvidence(plain, self.chunks[first].id, reason))

    def _stem_owner(self, key: str) -> str | None:
        """The one speaker whose handle's stem names ``key``, if exactly one."""
        owners = {h for stem, h in self.handle_stems.items() if stem_names(key, stem)}
        return owners.pop() if len(owners) == 1 else None

    def _kin_names(self, speakers_of: list[str]) -> None:
        """A capitalised "Dad" joins the person one who says it calls their dad by name. Said
        bare by several speakers, it is one parent of theirs ("Mum turns 60" / "Don't put
        them in the group, Mum is in it": siblings), so any of them may name him, unless
        someone says whose ("my dad", "your dad": friends, each with their own)."""
        for key in [key for key in self.names if kin_word(key) in UNIQUE_KIN and " " not in key]:
            candidate = self.names[key]
            owners = {speakers_of[o.chunk] for o in candidate.occurrences}
            whose = re.compile(rf"\b(?:my|your|ur|yr)\s+{re.escape(key)}\b", re.IGNORECASE)
            if len(owners) > 1 and any(whose.search(chunk.text) for chunk in self.chunks):
                continue
            named: set[str] = set()
            for other, found in self.names.items():
                if other == key or other in self.speakers:
                    continue
                for occurrence in found.occurrences:
                    if speakers_of[occurrence.chunk] not in owners:
                        continue
                    text = self.chunks[occurrence.chunk].text
                    before = text[max(0, occurrence.start - 30) : occurrence.start].casefold()
                    kin = _MY_KIN_NAMED.search(before)
                    if kin is not None and kin.group(1) == key:
                        named.add(other)  # "my dad Imran", "my dad's name is Imran"
                    listed = re.search(rf"\w[^.!?\n]*\s({re.escape(key)})\s*[.,:(—–-]\s*$", before)
                    if listed is not None and not _calls_a_parent(
                        before, listed.start(1), listed.end(1), (0, len(before))
                    ):
                        # "and Dad, Imran," (not "Hi Mummy, Adaeze says hi": one spoken to)
                        named.add(other)
                    if re.search(
                        rf"\b{re.escape(key)}['’]s\s+name\s*[,:]\s*$", before
                    ) and _NAME_CLOSES.match(text, occurrence.end):
                        named.add(other)  # "under Dad's name, Imran." (not "..., Imran has it")
            if len(named) == 1:
                (target,) = named
                occurrence = candidate.occurrences[0]
                surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
                self._fold_into(
                    key,
                    target,
                    occurrence.chunk,
                    surface,
                    f"{surface} is {_best(self.names[target])}",
                )
                self.names[target].cues["kin"] += 1

    def _parents_called(self, speakers_of: list[str]) -> None:
        """A parent's word ("Mummy", "Mami", "Dad") that turns call one speaker by is that
        speaker's: "Amen mummy 🙏🏾" and "Mummy abeg I need 15k" to F. Oyelaran 🌺 in her
        children's group. Two calling turns or more, every one to her once the ones who say
        the word are set aside (a group's turn may answer a sibling), and no other name
        claims the word (``_kin_names``: "under Dad's name, Imran")."""
        calls: dict[str, list[tuple[int, str]]] = defaultdict(list)
        said: dict[str, set[str]] = defaultdict(set)
        for index, chunk in enumerate(self.chunks):
            for start, end in self.sentences[index]:
                for found in _KIN_WORD.finditer(chunk.text, start, end):
                    word = found.group(0).casefold()
                    if word not in _PARENT_WORDS:
                        continue
                    said[word].add(speakers_of[index])
                    if _calls_a_parent(chunk.text, found.start(), found.end(), (start, end)):
                        calls[word].append((index, found.group(0)))
        for word, uses in calls.items():
            if len({index for index, _surface in uses}) < 2:
                continue  # one call may be a friend's "yes mama!"
            # whoever says the word, calling or not, is not the one it names
            targets = {self.addressed[index] for index, _surface in uses} - said[word]
            (target,) = targets if len(targets) == 1 else (None,)
            if target is None:
                continue
            key = normalise_name(word)
            if speaker_type(self.speakers[target]) != "person" or (
                key not in self.names
                and any(
                    word == surface.casefold()
                    for other in self.names.values()
                    for surface in other.surfaces
                )
            ):
                continue  # an agent, or another name already is this parent
            index, surface = uses[0]
            reason = f"{self.chunks[index].speaker} calls {self.speakers[target]} {surface}"
            if key in self.names:
                self._fold_into(key, target, index, surface, reason)
            else:
                into = self.names.setdefault(target, Candidate())
                into.surfaces[surface] += 0
                chunk_id = self.chunks[index].id
                self.alias_evidence[target].append(AliasEvidence(surface, chunk_id, reason))

    def _titled_kin(self) -> None:
        """ "Uncle Gary" is called Gary too, though the chat may never write it alone; not
        "Grandma Okafor" beside Maya Okafor, titled by the family name."""
        last_words = Counter(key.split()[-1] for key in {*self.names, *self.speakers} if " " in key)
        for key, candidate in list(self.names.items()):
            words = key.split()
            if len(words) != 2 or words[0] not in TITLED_KIN or key in self.speakers:
                continue
            own = self._titled_self(words[1], candidate)
            if own is not None:
                # "give the girls a hug from Auntie Lena!" said by Elena, called Lena: herself
                occurrence = candidate.occurrences[0]
                surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
                self._fold_into(key, own, occurrence.chunk, surface, f"{surface} is the speaker")
                continue
            if last_words[words[1]] > 1:
                continue  # another name ends in it too: a family name
            plain = _best(candidate).split()[-1]
            if plain not in candidate.surfaces:
                candidate.surfaces[plain] += 0
                first = self.chunks[candidate.occurrences[0].chunk].id
                self.alias_evidence[key].append(
                    AliasEvidence(plain, first, f"{_best(candidate)} is {plain}")
                )

    def _titled_self(self, word: str, candidate: Candidate) -> str | None:
        """The speaker a titled name ("Auntie Lena", "Uncle Cal") stands for when only they use
        it and it titles their own name, one they are called by, or its first letters."""
        said_by = {normalise_name(self.chunks[at.chunk].speaker) for at in candidate.occurrences}
        if len(said_by) != 1:
            return None
        (speaker,) = said_by
        own = self.names.get(speaker)
        if speaker not in self.speakers or own is None:
            return None
        called = {normalise_name(surface) for surface in own.surfaces} | {speaker}
        first = speaker.split()[0]
        if word in called or (len(word) >= 3 and first.startswith(word)):
            return speaker
        return None

    def _titled_kin_phrases(self, speakers_of: list[str]) -> None:
        """ "your gran" is Gran Morag, "your uncle" Uncle Gary, when the conversation titles one
        person so: the one spoken to is whose the title is, and "my gran" is her too when its
        speaker calls her "Gran Morag" themselves (the evidence names the turn)."""
        titled: dict[str, list[str]] = {}
        for key in self.names:
            words = key.split()
            if len(words) == 2 and words[0] in TITLED_KIN and key not in self.speakers:
                titled.setdefault(words[0], []).append(key)
        for title, keys in titled.items():
            if len(keys) != 1:
                continue
            (key,) = keys
            candidate = self.names[key]
            own = {speakers_of[o.chunk] for o in candidate.occurrences}
            phrase = re.compile(rf"\b(my|your|ur|yer)\s+{re.escape(title)}\b", re.IGNORECASE)
            for index, chunk in enumerate(self.chunks):
                for found in phrase.finditer(chunk.text):
                    mine = found.group(1).casefold() == "my"
                    if mine and speakers_of[index] not in own:
                        continue  # someone else's gran
                    said = found.group(0).casefold()
                    if said in candidate.surfaces:
                        continue
                    candidate.surfaces[said] += 0
                    self.alias_evidence[key].append(
                        AliasEvidence(said, chunk.id, f"{said} is {_best(candidate)}")
                    )

    def _honorifics(self) -> None:
        """ "Kamala aunty", "Karthik anna": the name with its honorific is an alias, as the
        chat calls the person (the evidence names the turn)."""
        for key, candidate in self.names.items():
            if not candidate.cues["honorific"] or key in self.speakers:
                continue
            for occurrence in candidate.occurrences:
                text = self.chunks[occurrence.chunk].text
                honorific = honorific_after(text[occurrence.end :])
                if honorific is None:
                    continue
                written = text[occurrence.start : occurrence.end]
                called = f"{written} {honorific}"
                if called in candidate.surfaces:
                    continue
                candidate.surfaces[called] += 0
                turn = self.chunks[occurrence.chunk].id
                self.alias_evidence[key].append(
                    AliasEvidence(called, turn, f"{written} is {called}")
                )

    def _kin_phrases(self) -> None:
        """ "my sister Njeri", "Tyler, my boyfriend": the kinship phrase is the person's alias
        too, as the one who says it calls them (the evidence names the turn); a later "my
        sister" alone is then found as her by a search."""
        for key, candidate in self.names.items():
            if key in self.speakers or kin_word(key) is not None:
                continue
            if evidence_type(key, candidate.votes, candidate.cues) != "person":
                continue
            for occurrence in candidate.occurrences:
                text = self.chunks[occurrence.chunk].text
                opens, ends = self.sentences[occurrence.chunk][occurrence.sentence]
                before = _KIN_PHRASE_BEFORE.search(text, opens, occurrence.start)
                after = _KIN_PHRASE_AFTER.match(text, occurrence.end, ends)
                found = before or after
                if found is None or found.group("kin").casefold() not in KIN_PHRASE_WORDS:
                    continue
                phrase = f"{found.group('owner')} {found.group('kin')}".casefold()
                if phrase in candidate.surfaces:
                    continue
                candidate.surfaces[phrase] += 0
                written = text[occurrence.start : occurrence.end]
                self.alias_evidence[key].append(
                    AliasEvidence(
                        phrase, self.chunks[occurrence.chunk].id, f"{written} is {phrase}"
                    )
                )

    def _given_names(self) -> dict[str, str]:
        """The people of the conversation (speakers, person-typed names) and how each is written."""
        people = {
            key: name for key, name in self.speakers.items() if speaker_type(name) == "person"
        }
        for key, candidate in self.names.items():
            if key in self.speakers or kin_word(key) is not None or len(key.split()) > 4:
                continue
            if self._name_label(key, candidate) is None:
                continue
            if evidence_type(key, candidate.votes, candidate.cues) == "person":
                people[key] = _best(candidate)
        return people

    def _nicknames(self) -> None:
        """A one-word name joins the one person whose given name it can shorten, and only then."""
        people = self._given_names()
        first_words = {key.split()[0] for key in people if " " in key}
        claims: dict[str, list[tuple[str, str]]] = {}  # short key → (full key, reason)
        for short in people:
            # A speaker's nickname for someone else is not theirs to give away, and a word that
            # is someone's first name here is theirs (``short_names`` folds it).
            if " " in short or short in self.speakers or short in first_words:
                continue
            found = [
                (full, reason)
                for full, written in people.items()
                if full != short and (reason := nickname_reason(people[short], written.split()[0]))
            ]
            # "Tomás" alone and "Tomás Ruiz" are one person, not two candidates.
            claims[short] = [
                (full, reason)
                for full, reason in found
                if not any(other != full and other.split()[0] == full for other, _ in found)
            ]
        claimed: dict[str, int] = {}
        for targets in claims.values():
            for full, _reason in targets:
                claimed[full] = claimed.get(full, 0) + 1
        for short, targets in sorted(claims.items()):
            if len(targets) != 1 or claimed[targets[0][0]] != 1:
                continue  # two people it could be, or two nicknames for one name: no merge
            full, reason = targets[0]
            if short not in self.names or (full not in self.names and full not in self.speakers):
                continue
            # A speaker who uses the nickname themselves is speaking of someone else.
            by = {
                normalise_name(self.chunks[o.chunk].speaker) for o in self.names[short].occurrences
            }
            if full in by:
                continue
            self._fold_nickname(short, full, people, reason)
        self._full_names_of_speakers(people)

    def _full_names_of_speakers(self, people: dict[str, str]) -> None:
        """A name of two words is the one speaker's of two words with the same surname whose
        given name it shortens or lengthens: "Rafael Souza" said by or to Rafa Souza."""
        for key in [key for key in people if key in self.names and key not in self.speakers]:
            words = people[key].split()
            if len(words) != 2:
                continue
            matches = [
                speaker
                for speaker in self.speakers
                if len(said := people.get(speaker, "").split()) == 2
                and fold_letters(said[1]) == fold_letters(words[1])
                and (nickname_reason(said[0], words[0]) or nickname_reason(words[0], said[0]))
            ]
            if len(matches) != 1 or self._kin_or_other(key):
                continue
            occurrence = self.names[key].occurrences[0]
            surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
            said_as = f"{surface} is {people[matches[0]]} by another form of the given name"
            self._fold_into(key, matches[0], occurrence.chunk, surface, said_as)

    def _kin_or_other(self, key: str) -> bool:
        """Whether a sentence naming ``key`` calls them kin or someone else ("my sister
        Christine Okafor", "Patricia Murphy is my sister", "named after my grandad Thomas
        Byrne", "the landlord is Alexander Mensah, no relation")."""
        for occurrence in self.names[key].occurrences:
            opens, ends = self.sentences[occurrence.chunk][occurrence.sentence]
            if _KIN_OR_OTHER.search(self.chunks[occurrence.chunk].text[opens:ends]):
                return True
        return False

    def _acronyms(self) -> None:
        """An acronym of three letters or more ("GRI") joins the one name of as many words here
        that it abbreviates ("Groningen Royal Infirmary"), unless that name is a person's or the
        acronym is a known body or an everyday thing ("NHS", "MRI" the scan)."""
        for key in [key for key, candidate in self.names.items() if candidate.acronym]:
            letters = fold_letters(key)
            if len(letters) < 3 or key in self.speakers:
                continue
            if key in KNOWN_ACRONYM_BODIES or key in KNOWN_BRANDS:
                continue
            if evidence_type(key, self.names[key].votes, self.names[key].cues) == "topic":
                continue
            spelled = [
                full
                for full, candidate in self.names.items()
                if full != key
                and full not in self.speakers
                and _initials(full) == letters
                and evidence_type(full, candidate.votes, candidate.cues) != "person"
            ]
            if len(spelled) != 1:
                continue
            occurrence = self.names[key].occurrences[0]
            surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
            full = _best(self.names[spelled[0]])
            self._fold_into(
                key, spelled[0], occurrence.chunk, surface, f"{surface} abbreviates {full}"
            )

    def _initials_called(self, speakers_of: list[str]) -> None:
        """Initials that open a turn call the one spoken to when they are that person's: "JH
        you free for lunch tmr?" to Jia Hui; never a body's initials ("DBS") nor the speaker's
        own."""
        for key in [key for key, candidate in self.names.items() if candidate.acronym]:
            letters = fold_letters(key)
            if not 2 <= len(letters) <= 3 or key in self.speakers:
                continue
            if key in KNOWN_ACRONYM_BODIES or key in KNOWN_BRANDS:
                continue

            def initials_of(target: str, letters: str = letters) -> bool:
                return _first_letters(self.speakers[target]) == letters

            called = self._fold_into_the_addressed(
                key,
                speakers_of,
                # not "AJ wants to know ...", "BA cancelled my flight": said of them
                lambda text, at: (
                    not text[: at.start].strip() and _CALLED_AFTER.match(text, at.end) is not None
                ),
                lambda by, surface: f"{by} calls them {surface}",
                initials_of,
            )
            if called is not None:
                self.names[called].cues["addressed"] += 1

    def _initials_of_a_full_name(self) -> None:
        """Initials no list knows that spell one person's full name said here are that
        person: "ok spoke to RK" beside "Dear Rajeshwari Krishnan" (never a body's initials,
        "DBS", a place's, "UK", letters everyone writes, "HR", "DM", nor ones two people
        share)."""
        people = [
            key
            for key, candidate in self.names.items()
            if 2 <= len(key.split()) <= 3
            and key not in self.speakers
            and evidence_type(key, candidate.votes, candidate.cues) == "person"
        ]
        for key in [key for key, candidate in self.names.items() if candidate.acronym]:
            letters = fold_letters(key)
            if not 2 <= len(letters) <= 3 or key in self.speakers:
                continue
            if key in KNOWN_ACRONYM_BODIES or key in KNOWN_BRANDS or key in KNOWN_PLACES:
                continue
            if is_everyday_word(letters, INITIALS_RANK) or is_known_place(key):
                continue  # "the UK", "in LA", "email HR", "DM me": letters everyone writes
            spelled = [name for name in people if _first_letters(name) == letters]
            if len(spelled) != 1:
                continue
            (name,) = spelled
            occurrence = self.names[key].occurrences[0]
            surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
            full = _best(self.names[name])
            self._fold_into(key, name, occurrence.chunk, surface, f"{surface} spells {full}")

    def _fold_nickname(self, short: str, full: str, people: dict[str, str], reason: str) -> None:
        # The id stays that of a speaker or a full name; between two lone given names, of the one
        # the conversation uses more, so its other conversations' mentions land on the same node.
        moved, into = short, full
        if full not in self.speakers and " " not in full and full in self.names:
            used = len(self.names[full].occurrences), len(full)
            if (len(self.names[short].occurrences), len(short)) > used:
                moved, into = full, short
        occurrence = self.names[moved].occurrences[0]
        surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
        why = "short for" if reason == "beginning" else "a nickname of"
        said = f"{people[short]} is {why} {people[full]}"
        self._fold_into(moved, into, occurrence.chunk, surface, said)
