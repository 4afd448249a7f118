"""Summaries of older turns for the prompt: working memory's older entries (``working_summary``)
and the compaction of a long session (``sessions.compaction``).

Mode ``extractive`` keeps the first and last sentence of each text (the
extractive mode, no model call); ``llm`` asks the agent's model (any
:class:`~hippograph.llm.provider.ModelProvider`: ``AnthropicModel`` on Claude,
``ScriptedModel`` offline) through the same protocol as a turn, and falls back to the
extractive summary when the model fails or answers nothing (the failure is returned with the
summary, for the turn that asked to report as a ``StageFailed`` event).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hippograph.agent.events import StageFailed
from hippograph.layers.base import extractive_summary
from hippograph.llm.provider import ModelProvider
from hippograph.llm.spans import complete
from hippograph.llm.types import ChatMessage, ModelRequest, SystemPrompt
from hippograph.scrub import scrub_text

if TYPE_CHECKING:
    from hippograph.agent.config import SummaryMode

__all__ = ["SUMMARY_INSTRUCTIONS", "TurnSummarizer"]

log = logging.getLogger(__name__)

SUMMARY_INSTRUCTIONS = (
    "You compress an agent's conversation memory. Summarise the turns below in at most five "
    "short sentences: the facts, decisions, open questions and commitments that matter later. "
    "Write plain text, no preamble, and never include secrets or credentials."
)
MAX_SUMMARY_CHARS = 2_000
MAX_INPUT_CHARS = 24_000


@dataclass(frozen=True)
class TurnSummarizer:
    """Summarises texts per ``mode`` with ``model`` (used only in ``llm`` mode); holds no
    state of a turn, so the turns of many sessions may use it at once."""

    model: ModelProvider
    model_name: str | None = None
    max_tokens: int = 400

    async def summarize(self, texts: Sequence[str], mode: SummaryMode, *, stage: str) -> tuple[str, StageFailed | None]:
        """One summary of ``texts`` ("" when there is nothing or ``mode`` is ``off``), and
        the model's failure when it failed (the summary is then the extractive one)."""
        texts = [t for t in texts if t.strip()]
        if not texts or mode == "off":
            return "", None
        failure: StageFailed | None = None
        if mode == "llm":
            try:
                text = await self._ask(texts)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("%s: the model summary failed: %s", stage, type(exc).__name__, exc_info=True)
                failure = StageFailed.from_exception(stage, exc)
                text = ""
            if text:
                return scrub_text(text)[:MAX_SUMMARY_CHARS], None
        return extractive_summary(texts, MAX_SUMMARY_CHARS).replace("\n", " "), failure

    async def _ask(self, texts: Sequence[str]) -> str:
        body = "\n".join(f"- {t}" for t in texts)[-MAX_INPUT_CHARS:]
        request = ModelRequest(
            system=SystemPrompt(text=SUMMARY_INSTRUCTIONS, cache=False),
            messages=[ChatMessage(role="user", content=body)],
            max_tokens=self.max_tokens,
            model=self.model_name,
        )
        response = await complete(self.model, request, purpose="summary")
        return response.text.strip()
