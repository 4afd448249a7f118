"""Extractors for the memory capability: a separate model reads a finished exchange and
writes the memory ops worth keeping (see :class:`hippograph.memory.ports.Extractor`).

- :class:`ModelExtractor` runs any :class:`~hippograph.llm.ModelProvider` and parses its
  reply with :func:`~hippograph.agent.ops_block.extract_memory_ops` (the same four
  strategies and op validation as the agent's own ``MEMORY_EXTRACT`` block);
- :func:`claude_extractor` is one on Claude (``AnthropicModel``; needs the ``anthropic``
  extra and an API key);
- :func:`hippograph.agent.demo.demo_extractor` is an offline one, and
  ``ModelExtractor(ScriptedModel([...]))`` plays recorded replies in tests.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from hippograph.agent.ops_block import extract_memory_ops
from hippograph.agent.ops_block_result import ExtractionResult
from hippograph.llm.provider import ModelProvider
from hippograph.llm.spans import complete
from hippograph.llm.types import ChatMessage, ModelRequest, SystemPrompt
from hippograph.memory.ports import Exchange
from hippograph.ops import MemoryOp

__all__ = ["EXTRACTION_PROMPT", "ModelExtractor", "claude_extractor"]

EXTRACTION_PROMPT = """You keep the long-term memory of an assistant. Read one exchange between a
user and the assistant and write down what will help in a later conversation: stable facts
about the user and their world (people, pets, places, projects, preferences, constraints),
decisions, corrections, commitments and procedures the user teaches. Skip small talk,
guesses, secrets and credentials. Importance runs from 1 (trivia) to 10; most facts are 4-7.

Answer with exactly one block and nothing else:
<MEMORY_EXTRACT>{"ops": [ ... ]}</MEMORY_EXTRACT>
(an empty list when nothing is worth keeping). The ops, one JSON object each:
- {"op": "upsert_node", "label": "short name", "content": "the fact in one sentence", "importance": 5}
- {"op": "create_event", "content": "what happened", "importance": 5, "mentions": ["fact labels"]}
- {"op": "set_trigger", "condition": "when to act", "task": "what to do then"}
- {"op": "register_skill", "name": "skill name", "steps": ["first", "second"], "context": "when"}
Write valid JSON: double quotes, no comments, no trailing commas."""

DEFAULT_MAX_TOKENS = 1024


class ModelExtractor:
    """An :class:`~hippograph.memory.ports.Extractor` on any model.

    Args:
        model: The extraction model (a smaller, cheaper one than the agent's is fine).
        model_name: The model name to ask for; None for the provider's default.
        max_tokens: Output tokens of one extraction call.
        max_ops: Most ops kept from one exchange.
        prompt: The extraction instructions (the system prompt).

    Attributes:
        last: The last call's full extraction result (invalid ops and why, the strategy).
    """

    def __init__(
        self,
        model: ModelProvider,
        *,
        model_name: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        max_ops: int = 50,
        prompt: str = EXTRACTION_PROMPT,
    ) -> None:
        self.model = model
        self._model_name = model_name
        self._max_tokens = max_tokens
        self._max_ops = max_ops
        self._prompt = prompt
        self.last: ExtractionResult | None = None

    async def extract(self, exchange: Exchange) -> Sequence[MemoryOp]:
        """Ask the model; the valid ops of its reply (invalid ones are in ``last``).

        Raises:
            ModelError: The model failed.
        """
        request = ModelRequest(
            system=SystemPrompt(text=self._prompt),
            messages=[ChatMessage(role="user", content=render_exchange(exchange))],
            max_tokens=self._max_tokens,
            model=self._model_name,
        )
        response = await complete(self.model, request, purpose="extraction")
        self.last = extract_memory_ops(response.text, max_ops=self._max_ops)
        return list(self.last.ops)


def render_exchange(exchange: Exchange) -> str:
    """The exchange as the extraction model reads it (JSON strings, so quotes are safe)."""
    return f"User: {json.dumps(exchange.user)}\nAssistant: {json.dumps(exchange.reply)}"


def claude_extractor(
    *, api_key: str | None = None, model: str | None = None, max_tokens: int = DEFAULT_MAX_TOKENS, max_ops: int = 50
) -> ModelExtractor:
    """A :class:`ModelExtractor` on Claude.

    Raises:
        ConfigurationError: No API key, or the ``anthropic`` extra is not installed.
    """
    from hippograph.llm.anthropic_model import AnthropicModel

    claude = AnthropicModel(api_key=api_key) if model is None else AnthropicModel(api_key=api_key, model=model)
    return ModelExtractor(claude, max_tokens=max_tokens, max_ops=max_ops)
