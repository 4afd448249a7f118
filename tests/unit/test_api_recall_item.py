"""The API's recall item carries every part of the library's score, so a part added to
:class:`~hippograph.retrieval.types.ScoreParts` cannot break ``recall`` over GraphQL."""

from __future__ import annotations

import dataclasses

import pytest

from hippograph.app.api.schema import recall as api
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.types import Channel, RecallItem, ScoreParts

pytestmark = pytest.mark.unit


def test_the_api_score_parts_name_every_library_part() -> None:
    api_fields = {f.name for f in dataclasses.fields(api.ScoreParts)}
    assert api_fields == set(ScoreParts.model_fields)


def test_a_recall_item_converts_with_every_part_kept() -> None:
    parts = ScoreParts(relevance=0.8, timeless=True, answer=0.5, importance=0.6, currency=0.9)
    node = MemoryNode(id="m1", layer=Layer.SEMANTIC, content="Ana's cat is Miso.")  # type: ignore[arg-type]
    item = RecallItem(node=node, score=0.7, parts=parts, channels={Channel.VECTOR: 1})
    out = api.RecallItem.of(item)
    assert dataclasses.asdict(out.parts) == parts.model_dump()
    assert [(c.channel, c.rank) for c in out.channels] == [(Channel.VECTOR, 1)]
