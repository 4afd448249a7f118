"""Lucene query text for the fulltext channel, built from user text safely: every term is
escaped and quoted, the length is capped, and the scope/layer restriction is a zero-boost
filter clause so it changes which memories match, never how they rank."""

from __future__ import annotations

import re
from collections.abc import Sequence

from hippograph.cues import LUCENE_STOP
from hippograph.models import Layer
from hippograph.store.mapping import scope_tag

MAX_TERMS = 48
_TERM = re.compile(r"[\w][\w'’.-]*", re.UNICODE)
_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
# Lucene's English stop words plus the question words a query brings and memories rarely hold.
STOPWORDS = LUCENE_STOP | frozenset(
    "did do does from had has have he her his how i its me my our she so them we were what when "
    "where which who whom why would you your".split()
)


def terms(text: str) -> list[str]:
    """Content words of ``text``, lowercased, stopwords dropped, order kept, de-duplicated."""
    seen: dict[str, None] = {}
    for match in _TERM.finditer(text.lower()):
        word = match.group(0).strip("'’.-")
        if len(word) > 1 and word not in STOPWORDS:
            seen.setdefault(word, None)
    return list(seen)[:MAX_TERMS]


def escape(term: str) -> str:
    return _SPECIAL.sub(r"\\\1", term)


def build_query(text: str, visible_scope_keys: Sequence[str], layers: Sequence[Layer] | None) -> str | None:
    """``search_text:(t1 OR t2 …) AND scope_tag:(…)^0 [AND layer:(…)^0]``, or None when the
    text has no searchable term."""
    words = terms(text)
    if not words:
        return None
    body = " OR ".join(f"search_text:{escape(w)}" for w in words)
    tags = " OR ".join(scope_tag(k) for k in visible_scope_keys)
    query = f"({body}) AND (scope_tag:({tags}))^0"
    if layers:
        query += " AND (layer:(" + " OR ".join(layer.value for layer in layers) + "))^0"
    return query
