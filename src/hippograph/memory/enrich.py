"""Enrichment: extra index entries ("keys") for conversation turns, searched by recall's two
channels and credited to their turn.

A key is a short text a turn is found by — a keyphrase, a fact it states, a date it means, a
question it answers, what it says of a person — stored as ``(:Key)-[:KEY_OF]->(:Memory)`` with
its own embedding (the memory's embedder) and fulltext entry. Recall scores a turn by the
better of its own text and its best key, per channel, and says when a key won
(:attr:`~hippograph.retrieval.types.ScoreParts.key`).

The port is :class:`Enricher`: a name and one async method from a batch of turns to their
keys. Two enrichers ship: :class:`KeyphraseEnricher` (offline, deterministic: keyphrases by
maximal marginal relevance over the embedder, relative dates resolved against the session
date, the speaker's first-person statements told of the speaker by name) and
:class:`~hippograph.memory.enrich_model.ModelEnricher` (a model answering through a
schema-validated tool call; :func:`~hippograph.memory.enrich_model.claude_enricher` on
Claude). :func:`enrich_turns` runs one over turns and writes the keys: scrubbed like memory
text, embedded in batches, one transaction per batch; running it again replaces a turn's keys
from that enricher instead of adding to them. A subtree erase takes a scope's keys with it, and
every path that deletes a memory deletes its keys.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from hippograph.cues import LUCENE_STOP
from hippograph.embeddings import EmbeddingProvider
from hippograph.layers.base import MemoryServices
from hippograph.layers.repository import LayerRepository
from hippograph.models import KeyKind, MemoryNode
from hippograph.retrieval.lucene import STOPWORDS
from hippograph.retrieval.timeparse import time_expression
from hippograph.scope import Scope

__all__ = [
    "MAX_KEY_TEXT",
    "Enricher",
    "KeyphraseEnricher",
    "TurnKey",
    "TurnToEnrich",
    "enrich_turns",
    "turns_of",
]

MAX_KEY_TEXT = 500
"""Longest key text stored (longer ones are cut)."""
MAX_KEYS_PER_TURN = 12
WRITE_BATCH = 128
"""Turns whose keys are embedded and written in one transaction."""


class TurnToEnrich(BaseModel):
    """One turn as an enricher sees it."""

    model_config = ConfigDict(frozen=True)

    memory_id: str
    turn_id: str = ""
    speaker: str = ""
    text: str
    session_id: str | None = None
    occurred_at: float | None = None
    """When the turn was said (epoch seconds): relative dates are resolved against it."""


class TurnKey(BaseModel):
    """One key of a turn."""

    model_config = ConfigDict(frozen=True)

    kind: KeyKind
    text: str = Field(min_length=1)


@runtime_checkable
class Enricher(Protocol):
    """Writes keys for turns. ``name`` is recorded on every key it wrote: running an enricher
    again replaces its own keys of a turn, and leaves other enrichers' keys alone."""

    name: str

    async def keys(self, turns: Sequence[TurnToEnrich]) -> list[list[TurnKey]]:
        """The keys of each turn, in the order of ``turns`` (one list per turn, maybe empty).
        Raises on a failure; an enricher never returns part of a batch."""
        ...


def turns_of(nodes: Sequence[MemoryNode]) -> list[TurnToEnrich]:
    """The ingested turns among ``nodes`` (episodic memories with a speaker) as enrichers see them."""
    return [
        TurnToEnrich(
            memory_id=n.id,
            turn_id=str(n.properties.get("turn_id", "")),
            speaker=str(n.properties.get("speaker", "")),
            text=n.content,
            session_id=n.session_id,
            occurred_at=n.occurred_at,
        )
        for n in nodes
        if n.content and n.properties.get("speaker")
    ]


async def enrich_turns(
    services: MemoryServices,
    scope: Scope,
    enricher: Enricher,
    turns: Sequence[TurnToEnrich],
    *,
    batch_size: int = WRITE_BATCH,
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Ask ``enricher`` for the keys of ``turns`` (memories of exactly ``scope``) and write
    them, ``batch_size`` turns per call and transaction: each key's text scrubbed of credentials
    and cut to :data:`MAX_KEY_TEXT`, a turn's duplicates and echoes of its own text dropped,
    embedded by the memory's embedder. A batch the enricher fails on raises before anything of it
    is written (the batches before it stay written). Returns the keys written."""
    repo = LayerRepository(services.store)
    written = 0
    for start in range(0, len(turns), batch_size):
        batch = list(turns[start : start + batch_size])
        found = await enricher.keys(batch)
        if len(found) != len(batch):
            raise ValueError(f"enricher {enricher.name!r} answered for {len(found)} of {len(batch)} turns")
        cleaned = [_clean(services, turn, keys) for turn, keys in zip(batch, found, strict=True)]
        texts = [k.text for keys in cleaned for k in keys]
        vectors = list(await services.embedder.embed_batch(texts)) if texts else []
        rows, i = [], 0
        for turn, keys in zip(batch, cleaned, strict=True):
            rows.append(
                {
                    "memory_id": turn.memory_id,
                    "keys": [
                        {"id": key_id(turn.memory_id, k), "kind": k.kind.value, "text": k.text, "embedding": v}
                        for k, v in zip(keys, vectors[i : i + len(keys)], strict=True)
                    ],
                }
            )
            i += len(keys)
        written += await repo.upsert_keys(scope, enricher=enricher.name, turns=rows, now=services.clock())
        if progress:
            progress(min(start + batch_size, len(turns)), len(turns))
    return written


def key_id(memory_id: str, key: TurnKey) -> str:
    """A key's id: the same memory, kind and text give the same id (writes are idempotent)."""
    return "k" + hashlib.sha1(f"{memory_id}\x1f{key.kind.value}\x1f{key.text}".encode()).hexdigest()[:31]


def _clean(services: MemoryServices, turn: TurnToEnrich, keys: Sequence[TurnKey]) -> list[TurnKey]:
    own = " ".join(turn.text.split()).casefold()
    seen: set[tuple[KeyKind, str]] = set()
    out: list[TurnKey] = []
    for key in keys:
        text = " ".join(services.scrubber.text(key.text).split())[:MAX_KEY_TEXT]
        folded = text.casefold()
        if not text or folded == own or (key.kind, folded) in seen:
            continue
        seen.add((key.kind, folded))
        out.append(TurnKey(kind=key.kind, text=text))
    return out[:MAX_KEYS_PER_TURN]


# --- the offline enricher ---------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z0-9][\w'’-]*")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_LEAD = re.compile(r"\b(?:last|this|in|on|of|since)\s+$", re.IGNORECASE)
_STOP = (
    STOPWORDS
    | LUCENE_STOP
    | frozenset(
        "about also am any been being can could didn't don't even got i'm i've it's just know like lot "
        "me more much oh okay really same so some something still than that's thanks things think too "
        "very want way well yeah yes you're".split()
    )
)
_FIRST_PERSON = [  # (pattern, replacement with {s} the speaker), most specific first
    (re.compile(r"\bI['’]m\b"), "{s} is"),
    (re.compile(r"\bI am\b"), "{s} is"),
    (re.compile(r"\bI['’]ve\b"), "{s} has"),
    (re.compile(r"\bI have\b"), "{s} has"),
    (re.compile(r"\bI['’]ll\b"), "{s} will"),
    (re.compile(r"\bI['’]d\b"), "{s} would"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "{s}"),
    (re.compile(r"\bmine\b", re.IGNORECASE), "{s}'s"),
    (re.compile(r"\bmy\b", re.IGNORECASE), "{s}'s"),
    (re.compile(r"\bme\b"), "{s}"),
    (re.compile(r"\bI\b"), "{s}"),
]
_SAYS_OF_SELF = re.compile(r"\b(I|I['’]m|I['’]ve|I['’]ll|I['’]d|my|me|mine|myself)\b", re.IGNORECASE)


class KeyphraseEnricher:
    """Offline keys, no model: per turn its ``keyphrases`` best keyphrases by maximal marginal
    relevance over ``embedder`` (n-grams of up to ``max_words`` words that neither start nor end
    with a stopword, each scored by its cosine to the turn minus ``diversity`` × its largest
    cosine to a phrase already chosen); the turn's first time expression resolved against the
    session date and written into its sentence ("… yesterday" said on 8 May 2023 → "… on 7 May
    2023"); and up to ``statements`` of the speaker's first-person sentences told of the speaker
    by name ("I adopted a dog" by Ana → "Ana adopted a dog")."""

    name = "keyphrase"

    def __init__(
        self,
        embedder: EmbeddingProvider,
        *,
        keyphrases: int = 3,
        max_words: int = 3,
        candidates: int = 24,
        diversity: float = 0.5,
        statements: int = 3,
    ) -> None:
        self.embedder = embedder
        self.keyphrases = keyphrases
        self.max_words = max_words
        self.candidates = candidates
        self.diversity = diversity
        self.statements = statements

    async def keys(self, turns: Sequence[TurnToEnrich]) -> list[list[TurnKey]]:
        phrases = [candidate_phrases(t.text, self.max_words, self.candidates) if self.keyphrases else [] for t in turns]
        texts = list(dict.fromkeys([*(t.text for t in turns if self.keyphrases), *(p for ps in phrases for p in ps)]))
        vectors = dict(zip(texts, await self.embedder.embed_batch(texts), strict=True)) if texts else {}
        out = []
        for turn, cands in zip(turns, phrases, strict=True):
            chosen = (
                mmr(vectors[turn.text], [vectors[c] for c in cands], self.keyphrases, self.diversity) if cands else []
            )
            keys = [TurnKey(kind=KeyKind.KEYPHRASE, text=cands[i]) for i in chosen]
            dated = dated_statement(turn)
            if dated:
                keys.append(TurnKey(kind=KeyKind.DATE, text=dated))
            keys += [TurnKey(kind=KeyKind.STATEMENT, text=s) for s in speaker_statements(turn)[: self.statements]]
            out.append(keys)
        return out


def candidate_phrases(text: str, max_words: int = 3, limit: int = 24) -> list[str]:
    """The turn's n-grams of 1 to ``max_words`` words, in order of appearance (first the
    shorter at each position), none starting or ending with a stopword, one-word ones of at
    least three letters; case-insensitively distinct, at most ``limit``."""
    words = _WORD.findall(text)
    found: dict[str, str] = {}
    for i in range(len(words)):
        for n in range(1, max_words + 1):
            gram = words[i : i + n]
            if len(gram) < n or gram[0].lower() in _STOP or gram[-1].lower() in _STOP:
                continue
            if n == 1 and (len(gram[0]) < 3 or gram[0].isdigit()):
                continue
            phrase = " ".join(gram)
            found.setdefault(phrase.casefold(), phrase)
            if len(found) >= limit:
                return list(found.values())
    return list(found.values())


def mmr(doc: Sequence[float], candidates: Sequence[Sequence[float]], k: int, diversity: float) -> list[int]:
    """Maximal marginal relevance: the indices of ``k`` candidates, each next one the best by
    (1 − ``diversity``) × cosine to ``doc`` − ``diversity`` × its largest cosine to those chosen
    (ties: the earlier candidate)."""
    relevance = [_cosine(doc, c) for c in candidates]
    chosen: list[int] = []
    while len(chosen) < min(k, len(candidates)):
        best, best_value = -1, -math.inf
        for i, c in enumerate(candidates):
            if i in chosen:
                continue
            redundancy = max((_cosine(c, candidates[j]) for j in chosen), default=0.0)
            value = (1.0 - diversity) * relevance[i] - diversity * redundancy
            if value > best_value:
                best, best_value = i, value
        chosen.append(best)
    return chosen


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm > 0 else 0.0


def absolute_date(window: tuple[float, float]) -> str:
    """A [start, end) window as a date: "7 May 2023", "May 2023", "2023", else "between … and …"."""
    start = datetime.fromtimestamp(window[0], tz=UTC)
    last = datetime.fromtimestamp(window[1], tz=UTC) - timedelta(days=1)
    days = round((window[1] - window[0]) / 86_400)
    if days <= 1:
        return f"{start.day} {start:%B %Y}"
    if start.day == 1 and (last + timedelta(days=1)).day == 1 and (start.year, start.month) == (last.year, last.month):
        return f"{start:%B %Y}"
    if (start.month, start.day, last.month, last.day) == (1, 1, 12, 31) and start.year == last.year:
        return f"{start.year}"
    return f"between {start.day} {start:%B %Y} and {last.day} {last:%B %Y}"


def dated_statement(turn: TurnToEnrich) -> str | None:
    """The sentence of the turn's first relative time expression with the expression replaced
    by the date it means (resolved against the turn's date) and told of the speaker; None when
    the turn has no date, no time expression or only an absolute one."""
    if turn.occurred_at is None:
        return None
    found = time_expression(turn.text, turn.occurred_at)
    if found is None:
        return None
    expression, window = found
    date = absolute_date(window)
    if date.casefold() in expression:
        return None  # already absolute: the turn's own text says it
    sentence = next((s for s in _SENTENCE.split(turn.text) if expression in s.lower()), turn.text)
    preposition = "" if date.startswith("between") else ("on " if date[0].isdigit() and " " in date else "in ")
    at = sentence.lower().index(expression)
    end = at + len(expression)
    if lead := _LEAD.search(sentence[:at]):  # "last June", "in May" → "in June 2023"
        at = lead.start()
    sentence = sentence[:at] + preposition + date + sentence[end:]
    return _told_of(sentence.strip(), turn.speaker) if turn.speaker else sentence.strip()


def speaker_statements(turn: TurnToEnrich) -> list[str]:
    """The turn's sentences in which the speaker speaks of themselves ("I", "my", "me" …), not
    questions, of at least four words, told of the speaker by name."""
    if not turn.speaker:
        return []
    out = []
    for sentence in _SENTENCE.split(turn.text):
        sentence = sentence.strip()
        if sentence.endswith("?") or len(sentence.split()) < 4 or not _SAYS_OF_SELF.search(sentence):
            continue
        out.append(_told_of(sentence, turn.speaker))
    return out


def _told_of(sentence: str, speaker: str) -> str:
    for pattern, replacement in _FIRST_PERSON:
        sentence = pattern.sub(replacement.format(s=speaker).replace("\\", "\\\\"), sentence)
    return sentence
