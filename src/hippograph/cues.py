"""Cues: the deterministic associative structure of the memory graph.

A cue is a shared node a memory points at — a keyword stem, a named entity, the person who
said it, the session it belongs to. Memories sharing a cue can activate each other during
recall (``(:Memory)-[:HAS_CUE]->(:Cue)<-[:HAS_CUE]-(:Memory)``), weighted by how rare the
cue is. Extraction needs no model: Porter stems (as Lucene's English analyzer makes them)
and capitalised names in mid-sentence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

import snowballstemmer

from hippograph.models import MemoryNode

MIN_KEYWORD_CHARS = 4
MAX_CUES = 64
MAX_KEY_CHARS = 80

# Lucene's EnglishAnalyzer stop set, so keyword cues and the fulltext index agree.
LUCENE_STOP = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then "
    "there these they this to was will with".split()
)
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:['\u2019][A-Za-z]+)*")
_NAME = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)\b")
# Capitalised words that start phrases rather than name things.
_NOT_NAMES = frozenset(
    "I Im Ive Id Ill Hey Hi Hello Wow Yeah Yes No Oh Thanks Thank That This The It Its What How Why "
    "When Where Who Which And But So Sure Absolutely Definitely Aw Awesome Great Cool Haha Lol My We "
    "You Your They He She Our Me Sounds Glad Good Nice Love Totally Ok Okay Congrats Congratulations "
    "Btw By Have Has Do Did Just Also Well Right Really Not Can Could Would Should Let Lets Here "
    "There Is Are Was Were Hope Take Keep Been Please If Then Now Today Tomorrow Yesterday Maybe "
    "Anyway".split()
)


class CueKind(StrEnum):
    KEYWORD = "keyword"
    ENTITY = "entity"
    PERSON = "person"
    SESSION = "session"


@dataclass(frozen=True, slots=True)
class Cue:
    kind: CueKind
    key: str
    name: str

    def row(self) -> dict[str, str]:
        return {"kind": self.kind.value, "key": self.key, "name": self.name}


@lru_cache(maxsize=1)
def _stemmer() -> snowballstemmer.stemmer:
    return snowballstemmer.stemmer("porter")


def keywords(text: str) -> list[str]:
    """Porter stems of the content words (≥ 4 characters, not numbers, not stop words)."""
    return list(dict.fromkeys(stem for raw in _TOKEN.findall(text) if (stem := _keyword(raw)) is not None))


@lru_cache(maxsize=1 << 16)
def _keyword(raw: str) -> str | None:
    """One token's keyword stem (None: not a keyword), remembered: words repeat, and the
    pure-Python Porter stemmer and the checks around it cost more per memory than the rest of
    a write's Python."""
    tok = raw.lower().replace("\u2019", "'")
    if tok.endswith("'s"):
        tok = tok[:-2]
    if len(tok) < MIN_KEYWORD_CHARS or tok.isdigit() or tok in LUCENE_STOP:
        return None
    stem: str = _stemmer().stemWord(tok)
    return stem


def names(text: str) -> list[str]:
    """Capitalised words or phrases that do not start a sentence (or that follow a common
    capitalised word such as a greeting): likely names."""
    found: dict[str, None] = {}
    for m in _NAME.finditer(text):
        before = text[: m.start()].rstrip()
        at_start = not before or before[-1] in ".!?\"'(:;|"
        words = m.group(1).split()
        lead = 0  # "Hey Mel", "Thanks Carol", "Yesterday Bob": the name follows a common word
        while lead < len(words) and words[lead] in _NOT_NAMES:
            lead += 1
        if lead == len(words) or (at_start and lead == 0):
            continue
        found.setdefault(" ".join(words[lead:]), None)
    return list(found)


def query_names(text: str) -> list[str]:
    """Every capitalised word of a query (sentence starts included): candidate person names."""
    return list(dict.fromkeys(w for w in re.findall(r"\b[A-Z][a-z]+\b", text) if w not in _NOT_NAMES))


def cues_of(node: MemoryNode) -> list[Cue]:
    """The cues of one memory: its keywords and names, its speaker and its session."""
    out: list[Cue] = []
    speaker = node.properties.get("speaker")
    if isinstance(speaker, str) and speaker.strip():
        out.append(Cue(CueKind.PERSON, speaker.strip().casefold()[:MAX_KEY_CHARS], speaker.strip()))
    if node.session_id:
        out.append(Cue(CueKind.SESSION, node.session_id[:MAX_KEY_CHARS], node.session_id))
    text = node.content or node.label
    for name in names(text):
        out.append(Cue(CueKind.ENTITY, name.casefold()[:MAX_KEY_CHARS], name))
    for stem in keywords(text):
        out.append(Cue(CueKind.KEYWORD, stem[:MAX_KEY_CHARS], stem))
    return out[:MAX_CUES]
