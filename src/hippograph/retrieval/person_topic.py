"""Person-centred recall: when the query names one person, rank that person's memories by
what the rest of the query asks.

"What activities does Melanie partake in?" is answered by Melanie's own turns across
sessions ("I'm off to go swimming with the kids", "we went camping"), which do not contain
her name and share little with the question as a whole: the query's embedding is pulled
towards her name, and every one of her memories carries it. So, for the candidates said by the
one person the query names (the speaker cue, as the person bonus uses it), two more pieces of
evidence, each z-scored over the candidate pool like the channels (no constant, the same
units), and added to that person's candidates only:

- the cosine of the memory to the *rest of the query* — the query without the person's name;
- for a list question ("What/Which [adjective] <plural noun> does/has/… …"), the cosine to the
  noun phrase it asks for ("activities", "musical artists/bands"): the category, by the same
  embedding model (no word list). Only its positive side counts.

Added after spreading (the activation the statement and the stages deliver, in the same
units), so both recall paths get the same. Measured on the LoCoMo dev
split. No model calls beyond the embedder: one batch of
at most two short texts, only when the query names a person.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from hippograph.retrieval.fusion import zscores

__all__ = ["head_phrase", "rest_of_query", "topic_evidence", "topic_texts"]

_AUX = "has|have|had|does|do|did|are|were|is|was|can|could|would|will"
_LIST_QUESTION = re.compile(
    rf"^\s*(?:what|which)\s+((?:(?!(?:{_AUX}|this|its)\b)\S+\s+)?(?!(?:{_AUX}|this|its)\b)\S+s)\s+(?:{_AUX})\b",
    re.IGNORECASE,
)


def rest_of_query(query: str, person: str) -> str:
    """The query without the person's name (and its possessive 's), case-insensitively."""
    text = re.sub(rf"\b{re.escape(person)}(?:['\u2019]s)?\b", " ", query, flags=re.IGNORECASE)
    return re.sub(r"\s+", " ", text).strip()


def head_phrase(query: str) -> str | None:
    """The noun phrase a list question asks for: "What activities does …" → "activities",
    "Which classical musicians does …" → "classical musicians"; None for other questions."""
    m = _LIST_QUESTION.search(query)
    return m.group(1) if m else None


def topic_texts(query: str, person: str) -> list[str]:
    """What to embed: the rest of the query, and the list question's noun phrase if any."""
    rest = rest_of_query(query, person)
    head = head_phrase(query)
    return [rest] + ([head] if head else []) if rest else []


def topic_evidence(
    cosines: Mapping[str, Sequence[float]], mine: Collection[str], rest_weight: float, head_weight: float
) -> dict[str, float]:
    """Per memory of ``mine`` (the named person's candidates): ``rest_weight`` × z(cosine to
    the rest of the query) + ``head_weight`` × max(0, z(cosine to the noun phrase)), z over every
    memory of ``cosines`` (the pool; one without a cosine counts as the lowest)."""
    ids = list(cosines)
    out = {i: 0.0 for i in ids if i in mine}
    if not out:
        return {}
    for j, weight in enumerate((rest_weight, head_weight)):
        column = {i: float(cosines[i][j]) for i in ids if len(cosines[i]) > j}
        if weight <= 0 or not column:
            continue
        z = zscores(column, ids, missing=min(column.values()))
        for i in out:
            out[i] += weight * (z[i] if j == 0 else max(0.0, z[i]))
    return out
