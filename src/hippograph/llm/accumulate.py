"""Fold a stream of model events back into the complete :class:`ModelResponse`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable
from dataclasses import dataclass, field

from pydantic import JsonValue

from hippograph.llm.events import (
    MessageEnd,
    MessageStart,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingSignature,
    ToolCallDelta,
    ToolCallStart,
    Usage,
)
from hippograph.llm.types import (
    ContentBlock,
    ModelResponse,
    TextBlock,
    ThinkingBlock,
    TokenUsage,
    ToolUseBlock,
)

UNPARSED_INPUT_KEY = "_unparsed_input"


@dataclass
class _Block:
    kind: str
    parts: list[str] = field(default_factory=list)
    signature: str = ""
    tool_id: str = ""
    tool_name: str = ""


class ResponseAccumulator:
    """Collects events as they pass and builds the response at the end.

    Example:
        >>> acc = ResponseAccumulator()
        >>> async for event in model.stream(request):  # doctest: +SKIP
        ...     acc.add(event)
        >>> acc.response().text  # doctest: +SKIP
    """

    def __init__(self) -> None:
        self._id = ""
        self._model = ""
        self._blocks: dict[int, _Block] = {}
        self._usage = TokenUsage()
        self._stop_reason: str | None = None

    def add(self, event: ModelEvent) -> None:
        """Record one event."""
        if isinstance(event, MessageStart):
            self._id, self._model = event.message_id, event.model
        elif isinstance(event, ThinkingDelta):
            self._block(event.index, "thinking").parts.append(event.text)
        elif isinstance(event, ThinkingSignature):
            self._block(event.index, "thinking").signature += event.signature
        elif isinstance(event, TextDelta):
            self._block(event.index, "text").parts.append(event.text)
        elif isinstance(event, ToolCallStart):
            block = self._block(event.index, "tool_use")
            block.tool_id, block.tool_name = event.id, event.name
        elif isinstance(event, ToolCallDelta):
            self._block(event.index, "tool_use").parts.append(event.partial_json)
        elif isinstance(event, Usage):
            self._usage = event.totals()
        elif isinstance(event, MessageEnd):
            self._stop_reason = event.stop_reason

    def response(self) -> ModelResponse:
        """The response built from the events seen so far."""
        content = [self._content(self._blocks[i]) for i in sorted(self._blocks)]
        return ModelResponse(
            id=self._id,
            model=self._model,
            content=content,
            stop_reason=self._stop_reason,
            usage=self._usage,
        )

    def _block(self, index: int, kind: str) -> _Block:
        return self._blocks.setdefault(index, _Block(kind))

    @staticmethod
    def _content(block: _Block) -> ContentBlock:
        text = "".join(block.parts)
        if block.kind == "thinking":
            return ThinkingBlock(thinking=text, signature=block.signature)
        if block.kind == "tool_use":
            return ToolUseBlock(id=block.tool_id, name=block.tool_name, input=_parse_input(text))
        return TextBlock(text=text)


def _parse_input(raw: str) -> dict[str, JsonValue]:
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return {UNPARSED_INPUT_KEY: raw}
    return value if isinstance(value, dict) else {UNPARSED_INPUT_KEY: raw}


async def collect(events: AsyncIterable[ModelEvent]) -> ModelResponse:
    """Consume a whole event stream and return the response it describes."""
    acc = ResponseAccumulator()
    async for event in events:
        acc.add(event)
    return acc.response()
