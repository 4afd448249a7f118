"""Issue 9 #11, without a server: text that is not valid Unicode (a lone surrogate) is the
caller's mistake — an InvalidQueryError naming the field, before any tokenizer or query."""

from __future__ import annotations

import pytest

from hippograph.errors import InvalidInputError, InvalidQueryError
from hippograph.retrieval.checks import check_request, check_text


@pytest.mark.parametrize("text", ["\ud800", "Bob \udfff lives where?", "a\ud83d", "\udc00z"])
def test_a_lone_surrogate_is_an_invalid_query(text: str) -> None:
    with pytest.raises(InvalidQueryError, match="query: is not valid Unicode") as info:
        check_request(text, None, 5)
    assert isinstance(info.value, InvalidInputError) and info.value.field == "query"


@pytest.mark.parametrize("text", ["plain", "emoji 🐈 and accents é", "\U0001f600", "日本語"])
def test_valid_unicode_passes(text: str) -> None:
    check_text(text, "query")
    assert check_request(text, None, 5)
