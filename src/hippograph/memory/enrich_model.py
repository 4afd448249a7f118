"""A model-backed :class:`~hippograph.memory.enrich.Enricher`: the model reads a numbered batch of
turns (speaker, session date, text) and answers through one tool call, ``record_keys``, with per
turn the facts it states, keyphrases, absolute dates, questions it answers and what it implies
about a person. The answer is validated against its schema as a whole: a reply in another
shape, a turn number outside the batch, or a failing model raises :class:`EnrichmentError`
and nothing of the batch is written. :func:`claude_enricher` puts it on Claude.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from hippograph.llm.errors import ModelError
from hippograph.llm.provider import ModelProvider
from hippograph.llm.spans import complete
from hippograph.llm.types import ChatMessage, ModelRequest, SystemPrompt, ToolSpec
from hippograph.memory.enrich import TurnKey, TurnToEnrich
from hippograph.models import KeyKind

__all__ = ["ENRICH_PROMPT", "EnrichmentError", "ModelEnricher", "claude_enricher"]

KEYS_TOOL = "record_keys"
TURN_CHARS = 2_000
DEFAULT_MAX_TOKENS = 4096
DEFAULT_BATCH = 20

ENRICH_PROMPT = """You index the turns of a conversation so that they can be found later. You get
numbered turns, each with its speaker and the date of its session. For each turn list: facts it
states (short sentences that name people instead of "I" or "you"), keyphrases, the absolute dates
of events it mentions (resolve "yesterday", "last week", "two years ago" against the session
date, e.g. "7 May 2023"), questions the turn answers, and what it implies about a person (e.g.
"Ana likely enjoys outdoor activities"). Use only what the turn says; leave a list empty when
nothing fits; at most five entries per list. Answer by calling the record_keys tool once."""

_LIST: dict[str, JsonValue] = {"type": "array", "items": {"type": "string"}, "maxItems": 5}
_KEYS_SPEC = ToolSpec(
    name=KEYS_TOOL,
    description="Record the index keys of every turn.",
    input_schema={
        "type": "object",
        "properties": {
            "turns": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "turn": {"type": "integer", "description": "The turn's number."},
                        "facts": _LIST,
                        "keyphrases": _LIST,
                        "dates": _LIST,
                        "questions": _LIST,
                        "about_person": _LIST,
                    },
                    "required": ["turn"],
                },
            }
        },
        "required": ["turns"],
    },
)
_KINDS = {
    "facts": KeyKind.FACT,
    "keyphrases": KeyKind.KEYPHRASE,
    "dates": KeyKind.DATE,
    "questions": KeyKind.QUESTION,
    "about_person": KeyKind.PERSON,
}


class EnrichmentError(ModelError):
    """The enrichment model failed or answered in a shape that cannot be used."""


_Entry = Annotated[str, Field(max_length=1000)]


class _TurnAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn: int = Field(ge=1)
    facts: list[_Entry] = Field(default_factory=list, max_length=10)
    keyphrases: list[_Entry] = Field(default_factory=list, max_length=10)
    dates: list[_Entry] = Field(default_factory=list, max_length=10)
    questions: list[_Entry] = Field(default_factory=list, max_length=10)
    about_person: list[_Entry] = Field(default_factory=list, max_length=10)


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turns: list[_TurnAnswer]


class ModelEnricher:
    """Keys from a model, ``batch`` turns per call (an enrichment of more turns is split).

    Args:
        model: The model (``AnthropicModel`` for Claude; ``ScriptedModel`` in tests).
        model_name: The model to ask for; None for the provider's default.
        max_tokens: Output tokens per call.
        batch: Turns per call.
    """

    name = "model"

    def __init__(
        self,
        model: ModelProvider,
        *,
        model_name: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        batch: int = DEFAULT_BATCH,
    ) -> None:
        self.model = model
        self._model_name = model_name
        self._max_tokens = max_tokens
        self._batch = batch

    async def keys(self, turns: Sequence[TurnToEnrich]) -> list[list[TurnKey]]:
        """Every turn's keys, in order.

        Raises:
            EnrichmentError: The model failed, or a reply is not a valid ``record_keys`` answer.
        """
        out: list[list[TurnKey]] = []
        for start in range(0, len(turns), self._batch):
            out += await self._ask(list(turns[start : start + self._batch]))
        return out

    async def _ask(self, turns: list[TurnToEnrich]) -> list[list[TurnKey]]:
        request = ModelRequest(
            system=SystemPrompt(text=ENRICH_PROMPT),
            messages=[ChatMessage(role="user", content=_numbered(turns))],
            tools=[_KEYS_SPEC],
            max_tokens=self._max_tokens,
            model=self._model_name,
        )
        try:
            response = await complete(self.model, request, purpose="enrichment")
        except ModelError as err:
            raise EnrichmentError(
                f"the enrichment model failed: {err}", status_code=err.status_code,
                error_type=err.error_type, retryable=err.retryable,
            ) from err  # fmt: skip
        call = next((c for c in response.tool_calls if c.name == KEYS_TOOL), None)
        if call is None:
            raise EnrichmentError(f"the enrichment model did not call {KEYS_TOOL}")
        return _keys_of(dict(call.input), len(turns))


def _numbered(turns: Sequence[TurnToEnrich]) -> str:
    lines = []
    for i, t in enumerate(turns, 1):
        date = datetime.fromtimestamp(t.occurred_at, tz=UTC).strftime("%d %B %Y") if t.occurred_at else "unknown"
        lines.append(
            f"{i}. [{t.speaker or 'unknown'}, session of {date}] {json.dumps(' '.join(t.text.split())[:TURN_CHARS])}"
        )
    return "\n".join(lines)


def _keys_of(answer: dict[str, Any], n: int) -> list[list[TurnKey]]:
    """The validated answer as keys per turn (a turn it leaves out has none)."""
    try:
        parsed = _Answer.model_validate(answer)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise EnrichmentError(f"the {KEYS_TOOL} answer is malformed at {where}: {first['msg']}") from None
    out: list[list[TurnKey]] = [[] for _ in range(n)]
    for t in parsed.turns:
        if t.turn > n:
            raise EnrichmentError(f"the {KEYS_TOOL} answer names turn {t.turn} of a batch of {n}")
        out[t.turn - 1] += [
            TurnKey(kind=kind, text=text.strip()) for field, kind in _KINDS.items() for text in getattr(t, field)
            if text.strip()
        ]  # fmt: skip
    return out


def claude_enricher(
    *,
    api_key: str,
    model: str | None = None,
    base_url: str | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_retries: int = 3,
    batch: int = DEFAULT_BATCH,
) -> ModelEnricher:
    """A :class:`ModelEnricher` on Claude (the ``anthropic`` extra).

    Raises:
        ConfigurationError: No API key.
        MissingExtraError: The ``anthropic`` extra is not installed.
    """
    from hippograph.llm.anthropic_model import AnthropicModel

    kwargs: dict[str, Any] = {"api_key": api_key, "base_url": base_url, "max_retries": max_retries}
    if model is not None:
        kwargs["model"] = model
    return ModelEnricher(AnthropicModel(**kwargs), max_tokens=max_tokens, batch=batch)
