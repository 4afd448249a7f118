"""Consolidation's model hooks on a real model: the episode summariser (phase 10) and the merge
judge (phase 13) as one :class:`ModelConsolidation` over any
:class:`~hippograph.llm.ModelProvider` — :func:`claude_consolidation` puts it on Claude.

Each call offers the model one tool whose input is the answer (``record_summary`` with the
summary, ``merge_verdict`` with ``same_fact`` and a reason) and reads the answer from the tool
call, or else from a JSON object in the reply's text. A reply in neither shape, an empty
summary, or a failing model raises :class:`ConsolidationModelError` (a
:class:`~hippograph.llm.ModelError`); the phases catch it and fall back — phase 10 to the
extractive summary, phase 13 to leaving the pair unmerged — and count it as ``model_failed``.
Without a model (the default, and offline) consolidation never calls one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import JsonValue

from hippograph.llm.errors import ModelError
from hippograph.llm.provider import ModelProvider
from hippograph.llm.spans import complete
from hippograph.llm.types import ChatMessage, ModelRequest, ModelResponse, SystemPrompt, ToolSpec

__all__ = [
    "MERGE_PROMPT",
    "SUMMARY_PROMPT",
    "ConsolidationModelError",
    "ModelConsolidation",
    "claude_consolidation",
]

SUMMARY_TOOL = "record_summary"
VERDICT_TOOL = "merge_verdict"
DEFAULT_MAX_TOKENS = 1024
DEFAULT_MAX_INPUT_CHARS = 40_000
EPISODE_CHARS = 1_500
FACT_CHARS = 4_000
_JSON_OBJECT = re.compile(r"\{.*\}", re.DOTALL)

SUMMARY_PROMPT = """You consolidate the long-term memory of an assistant. You get a numbered list
of episodes (conversation turns and events), oldest first. Write one summary that a later
conversation can rely on: who and what they were about, facts learned, decisions, commitments
and dates, in short lines, oldest first. Keep names, numbers and dates exactly; invent nothing;
leave out small talk, secrets and credentials. Answer by calling the record_summary tool once."""

MERGE_PROMPT = """You keep the long-term memory of an assistant free of duplicates. You get two
stored facts. They are the same fact when one adds nothing the other does not say (wording may
differ); they are different when they disagree, or when either holds something the other lacks
(another person, place, time or value). Answer by calling the merge_verdict tool once."""

_SUMMARY_SPEC = ToolSpec(
    name=SUMMARY_TOOL,
    description="Record the summary of the episodes.",
    input_schema={
        "type": "object",
        "properties": {"summary": {"type": "string", "description": "The summary, plain text."}},
        "required": ["summary"],
    },
)
_VERDICT_SPEC = ToolSpec(
    name=VERDICT_TOOL,
    description="Record whether the two facts are one fact.",
    input_schema={
        "type": "object",
        "properties": {
            "same_fact": {"type": "boolean", "description": "True when they state one fact."},
            "reason": {"type": "string", "description": "One sentence why."},
        },
        "required": ["same_fact"],
    },
)


class ConsolidationModelError(ModelError):
    """The consolidation model failed or answered in a shape that cannot be used."""


class ModelConsolidation:
    """A :class:`~hippograph.consolidation.Summarizer` and
    :class:`~hippograph.consolidation.MergeJudge` on a model; pass it as
    ``SleepConsolidator(..., model=ModelConsolidation(model))``.

    Args:
        model: The model (``AnthropicModel`` for Claude; ``ScriptedModel`` in tests).
        model_name: The model to ask for; None for the provider's default.
        max_tokens: Output tokens per call.
        max_input_chars: Most characters of episodes sent in one summary call (each episode is
            also cut to 1,500); later episodes beyond it are counted, not sent.

    Attributes:
        last_reason: The judge's reason for its last verdict (empty when it gave none).
    """

    def __init__(
        self,
        model: ModelProvider,
        *,
        model_name: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_input_chars: int = DEFAULT_MAX_INPUT_CHARS,
    ) -> None:
        self.model = model
        self._model_name = model_name
        self._max_tokens = max_tokens
        self._max_input_chars = max_input_chars
        self.last_reason = ""

    async def summarize(self, texts: Sequence[str]) -> str:
        """One summary of ``texts`` (oldest first).

        Raises:
            ConsolidationModelError: The model failed, or gave no usable summary.
        """
        answer = await self._ask(SUMMARY_PROMPT, _SUMMARY_SPEC, self._episodes(texts))
        summary = answer.get("summary")
        if not isinstance(summary, str) or not summary.strip():
            raise ConsolidationModelError(f"the {SUMMARY_TOOL} answer has no summary text")
        return summary.strip()

    async def same_fact(self, a: str, b: str) -> bool:
        """True when ``a`` and ``b`` state one fact.

        Raises:
            ConsolidationModelError: The model failed, or gave no boolean verdict.
        """
        facts = f"Fact A: {json.dumps(a[:FACT_CHARS])}\nFact B: {json.dumps(b[:FACT_CHARS])}"
        answer = await self._ask(MERGE_PROMPT, _VERDICT_SPEC, facts)
        verdict = answer.get("same_fact")
        if not isinstance(verdict, bool):
            raise ConsolidationModelError(f"the {VERDICT_TOOL} answer has no boolean same_fact")
        reason = answer.get("reason")
        self.last_reason = reason.strip()[:500] if isinstance(reason, str) else ""
        return verdict

    def _episodes(self, texts: Sequence[str]) -> str:
        lines: list[str] = []
        used = 0
        for i, text in enumerate(texts, 1):
            line = f"{i}. {' '.join(text.split())[:EPISODE_CHARS]}"
            if used + len(line) > self._max_input_chars:
                lines.append(f"({len(texts) - i + 1} later episodes left out for length)")
                break
            lines.append(line)
            used += len(line) + 1
        return "\n".join(lines)

    async def _ask(self, prompt: str, tool: ToolSpec, content: str) -> dict[str, Any]:
        request = ModelRequest(
            system=SystemPrompt(text=prompt),
            messages=[ChatMessage(role="user", content=content)],
            tools=[tool],
            max_tokens=self._max_tokens,
            model=self._model_name,
        )
        try:
            response = await complete(self.model, request, purpose="consolidation")
        except ModelError as err:
            raise ConsolidationModelError(
                f"the consolidation model failed: {err}", status_code=err.status_code,
                error_type=err.error_type, retryable=err.retryable,
            ) from err  # fmt: skip
        return _answer(response, tool.name)


def _answer(response: ModelResponse, tool: str) -> dict[str, Any]:
    """The tool call's input, else the last JSON object in the text."""
    for call in response.tool_calls:
        if call.name == tool:
            return dict(call.input)
    match = _JSON_OBJECT.search(response.text)
    if match is not None:
        try:
            parsed: JsonValue = json.loads(match.group(0))
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict):
            return parsed
    raise ConsolidationModelError(f"the model neither called {tool} nor answered with a JSON object")


def claude_consolidation(
    *,
    api_key: str,
    model: str | None = None,
    base_url: str | None = None,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    max_retries: int = 3,
) -> ModelConsolidation:
    """A :class:`ModelConsolidation` on Claude (the ``anthropic`` extra).

    Raises:
        ConfigurationError: No API key.
        MissingExtraError: The ``anthropic`` extra is not installed.
    """
    from hippograph.llm.anthropic_model import AnthropicModel

    kwargs: dict[str, Any] = {"api_key": api_key, "base_url": base_url, "max_retries": max_retries}
    if model is not None:
        kwargs["model"] = model
    return ModelConsolidation(AnthropicModel(**kwargs), max_tokens=max_tokens)
