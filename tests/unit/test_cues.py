"""Cue extraction (hippograph.cues): keyword stems, names, query names and a memory's cues."""

from __future__ import annotations

import pytest

from hippograph.cues import (
    MAX_CUES,
    MAX_KEY_CHARS,
    Cue,
    CueKind,
    cues_of,
    keywords,
    names,
    query_names,
)
from hippograph.models import Layer, MemoryNode


def test_keywords_are_porter_stems_of_content_words() -> None:
    assert keywords("The runners were running quickly") == ["runner", "were", "run", "quickli"]


def test_keywords_skip_short_words_numbers_and_lucene_stopwords() -> None:
    assert keywords("a cat is on the mat in 2023 and 12345 with it") == []
    assert "their" not in keywords("their") and keywords("there these they") == []


def test_keywords_drop_possessives_and_deduplicate() -> None:
    assert keywords("Caroline's dog and Caroline’s cat, caroline") == ["carolin"]
    assert keywords("painting paintings painted") == ["paint"]


def test_names_skip_sentence_starts_and_common_capitalised_words() -> None:
    assert names("I met Alice Smith at the Louvre. Alice Smith left.") == ["Alice Smith", "Louvre"]
    assert names("Caroline went home.") == []
    assert names("User: hi there | Agent: Hello Dana") == ["Dana"]
    assert names("Hello. Wow. Absolutely") == []


def test_names_after_a_greeting_or_common_word_are_kept() -> None:
    # "Hey Mel!" is how many chat turns start: the greeting must not hide the name.
    assert names("Hey Mel, how are you?") == ["Mel"]
    assert names("Yesterday Bob called. Thanks Carol! Then Alice Smith waved") == [
        "Bob",
        "Carol",
        "Alice Smith",
    ]
    assert names("Thanks. Wow Great") == []


def test_names_ignore_all_caps_and_injection_text() -> None:
    assert names("x`}) DETACH DELETE n // and MATCH (m)") == []


def test_query_names_keep_sentence_starts() -> None:
    assert query_names("Caroline said what to Melanie? What did Caroline say") == [
        "Caroline",
        "Melanie",
    ]
    assert query_names("what did she say?") == []


def test_cues_of_a_turn_name_its_speaker_session_entities_and_keywords() -> None:
    node = MemoryNode(layer=Layer.EPISODIC, content="We hiked with Maria near Lisbon", session_id="s-1",
                      properties={"speaker": "  Caroline "})  # fmt: skip
    cues = cues_of(node)
    assert cues[0] == Cue(CueKind.PERSON, "caroline", "Caroline")
    assert cues[1] == Cue(CueKind.SESSION, "s-1", "s-1")
    assert Cue(CueKind.ENTITY, "maria", "Maria") in cues
    assert Cue(CueKind.ENTITY, "lisbon", "Lisbon") in cues
    assert {c.key for c in cues if c.kind is CueKind.KEYWORD} == {"hike", "maria", "near", "lisbon"}
    assert cues[0].row() == {"kind": "person", "key": "caroline", "name": "Caroline"}


def test_cues_of_fall_back_to_the_label_and_ignore_a_non_string_speaker() -> None:
    node = MemoryNode(layer=Layer.SEMANTIC, label="Favourite painter Monet", properties={"speaker": 42})
    kinds = {c.kind for c in cues_of(node)}
    assert CueKind.PERSON not in kinds and CueKind.SESSION not in kinds
    assert {c.key for c in cues_of(node) if c.kind is CueKind.KEYWORD} == {
        "favourit",
        "painter",
        "monet",
    }


def test_cues_are_capped_in_number_and_key_length() -> None:
    text = " ".join(f"word{chr(97 + i % 26)}{chr(97 + i // 26)}xyz" for i in range(200))
    node = MemoryNode(layer=Layer.EPISODIC, content=text, session_id="s" * 128, properties={"speaker": "p" * 100})
    cues = cues_of(node)
    assert len(cues) == MAX_CUES
    assert all(len(c.key) <= MAX_KEY_CHARS for c in cues)


@pytest.mark.parametrize("text", ["", "   ", "!!! ???", "12 34 5678"])
def test_no_cues_in_text_without_words(text: str) -> None:
    assert cues_of(MemoryNode(layer=Layer.SEMANTIC, content=text)) == []
