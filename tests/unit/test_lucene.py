"""The fulltext channel's Lucene query (hippograph.retrieval.lucene): user text can change which
words are searched, never the query's structure or its scope restriction."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hippograph.models import Layer
from hippograph.retrieval.lucene import MAX_TERMS, build_query, escape, terms
from hippograph.store.mapping import scope_tag

VISIBLE = ["org:acme", "org:acme/user:bob"]
SPECIAL = set('+-&|!(){}[]^"~*?:\\/')
_BODY = re.compile(r"^\((?P<body>.*)\) AND \(scope_tag:\((?P<tags>[0-9 OR]+)\)\)\^0(?P<rest>.*)$", re.S)


def unescaped_specials(term: str) -> list[str]:
    out, i = [], 0
    while i < len(term):
        if term[i] == "\\":
            i += 2
            continue
        if term[i] in SPECIAL:
            out.append(term[i])
        i += 1
    return out


def test_terms_lowercase_drop_stopwords_and_single_letters_and_deduplicate() -> None:
    assert terms("What did Caroline PAINT and what did she paint, x?") == ["caroline", "paint"]


def test_terms_keep_inner_apostrophes_dots_and_hyphens() -> None:
    assert terms("Bob's e-mail is bob.smith — 'quoted'") == [
        "bob's",
        "e-mail",
        "bob.smith",
        "quoted",
    ]


def test_terms_are_capped() -> None:
    assert len(terms(" ".join(f"word{i}" for i in range(200)))) == MAX_TERMS


def test_escape_backslashes_every_special_character() -> None:
    assert escape('a+b-c&d|e!f(g)h{i}j[k]l^m"n~o*p?q:r\\s/t') == (
        'a\\+b\\-c\\&d\\|e\\!f\\(g\\)h\\{i\\}j\\[k\\]l\\^m\\"n\\~o\\*p\\?q\\:r\\\\s\\/t'
    )


def test_query_restricts_to_the_visible_scope_tags_and_layers_with_zero_boost() -> None:
    query = build_query("harbor lantern", VISIBLE, [Layer.SEMANTIC, Layer.EPISODIC])
    tags = " OR ".join(scope_tag(k) for k in VISIBLE)
    assert query == (
        f"(search_text:harbor OR search_text:lantern) AND (scope_tag:({tags}))^0 AND (layer:(semantic OR episodic))^0"
    )
    assert build_query("harbor", VISIBLE, None) == f"(search_text:harbor) AND (scope_tag:({tags}))^0"


def test_scope_tags_are_digits_only_and_differ_per_scope() -> None:
    a, b = scope_tag("org:a"), scope_tag("org:a/user:b")
    assert a.isdigit() and b.isdigit() and a != b and scope_tag("org:a") == a


@pytest.mark.parametrize("text", ["", "   ", "the and of", "? ! * :", "x y z", "`}) //"])
def test_text_without_searchable_terms_gives_no_query(text: str) -> None:
    assert build_query(text, VISIBLE, None) is None


@pytest.mark.parametrize(
    "text",
    [
        "x`}) DETACH DELETE n //",
        "search_text:* OR scope_tag:*",
        "*:* AND NOT layer:x",
        "a) OR (scope_tag:(1 OR 2",
        'foo" OR "bar',
        "title:(x OR y)^100 ~2 [a TO z] {a TO z} \\",
    ],
)
def test_injection_text_only_ever_becomes_escaped_search_terms(text: str) -> None:
    query = build_query(text, VISIBLE, [Layer.SEMANTIC])
    assert query is not None
    m = _BODY.match(query)
    assert m is not None and m["rest"] == " AND (layer:(semantic))^0"
    assert m["tags"] == " OR ".join(scope_tag(k) for k in VISIBLE)
    for clause in m["body"].split(" OR "):
        field, _, term = clause.partition(":")
        assert field == "search_text" and term and unescaped_specials(term) == []


@given(st.text(max_size=300))
def test_any_text_keeps_the_structure(text: str) -> None:
    query = build_query(text, VISIBLE, None)
    if query is None:
        assert terms(text) == []
        return
    m = _BODY.match(query)
    assert m is not None and m["rest"] == ""
    clauses = m["body"].split(" OR ")
    assert clauses == [f"search_text:{escape(t)}" for t in terms(text)]
    assert all(unescaped_specials(c.partition(":")[2]) == [] for c in clauses)
