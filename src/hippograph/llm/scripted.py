"""An offline model that replays scripted replies through the real event types.

Used by the demo and the tests: no network, deterministic, and streamed in small
chunks exactly as :class:`~hippograph.llm.anthropic_model.AnthropicModel` streams.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable, Iterable
from itertools import count

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from hippograph.llm.accumulate import collect
from hippograph.llm.errors import ModelError
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
from hippograph.llm.types import ModelRequest, ModelResponse, TokenUsage

SCRIPTED_MODEL_NAME = "scripted"
SCRIPTED_SIGNATURE = "scripted-signature"
CHARS_PER_TOKEN = 4


class ScriptedToolCall(BaseModel):
    """A tool call the scripted model makes; ``id`` is generated when omitted."""

    model_config = ConfigDict(extra="forbid")

    name: str
    input: dict[str, JsonValue] = Field(default_factory=dict)
    id: str | None = None


class ScriptedReply(BaseModel):
    """One scripted reply. ``text`` may carry a MEMORY_EXTRACT block like a real reply.

    ``stop_reason`` defaults to ``tool_use`` when there are tool calls, else ``end_turn``;
    ``usage`` defaults to an estimate of four characters per token.
    """

    model_config = ConfigDict(extra="forbid")

    text: str = ""
    thinking: str | None = None
    tool_calls: list[ScriptedToolCall] = Field(default_factory=list)
    stop_reason: str | None = None
    usage: TokenUsage | None = None


ReplyFunction = Callable[[ModelRequest], "ScriptedReply | str"]


class ScriptedModel:
    """Replays replies in order, or asks a function for each reply.

    Args:
        replies: The replies in order (strings are text-only replies), or a function
            from the request to the reply, so a demo can react to the user's message.
        model: The model name reported in :class:`MessageStart`.
        chunk_size: Characters per streamed delta.
        cycle: Start again from the first reply when the list is used up, instead
            of raising :class:`ModelError`.
        delay: Seconds to wait between chunks (0 still yields to the event loop).

    Attributes:
        requests: Every request received, in order.
    """

    def __init__(
        self,
        replies: Iterable[ScriptedReply | str] | ReplyFunction,
        *,
        model: str = SCRIPTED_MODEL_NAME,
        chunk_size: int = 12,
        cycle: bool = False,
        delay: float = 0.0,
    ) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        self._function: ReplyFunction | None = None
        self._replies: list[ScriptedReply] = []
        if callable(replies):
            self._function = replies
        else:
            self._replies = [_as_reply(r) for r in replies]
        self._model = model
        self._chunk_size = chunk_size
        self._cycle = cycle
        self._delay = delay
        self._served = 0
        self._ids = count(1)
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        """Stream the next reply as typed events.

        Raises:
            ModelError: The reply list is used up (and ``cycle`` is off).
        """
        reply = self._next_reply(request)
        n = next(self._ids)
        message_id = f"msg_scripted_{n:04d}"
        yield MessageStart(message_id=message_id, model=request.model or self._model)
        index = 0
        if reply.thinking:
            for part in self._chunks(reply.thinking):
                await self._pause()
                yield ThinkingDelta(index=index, text=part)
            yield ThinkingSignature(index=index, signature=SCRIPTED_SIGNATURE)
            index += 1
        if reply.text or not reply.tool_calls:
            for part in self._chunks(reply.text) or [""]:
                await self._pause()
                yield TextDelta(index=index, text=part)
            index += 1
        for k, call in enumerate(reply.tool_calls):
            tool_id = call.id or f"toolu_scripted_{n:04d}_{k}"
            yield ToolCallStart(index=index, id=tool_id, name=call.name)
            for part in self._chunks(json.dumps(call.input)):
                await self._pause()
                yield ToolCallDelta(index=index, id=tool_id, partial_json=part)
            index += 1
        yield Usage.of(reply.usage or _estimate_usage(request, reply))
        stop = reply.stop_reason or ("tool_use" if reply.tool_calls else "end_turn")
        yield MessageEnd(message_id=message_id, stop_reason=stop)

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """The next reply in one piece (the folded stream)."""
        return await collect(self.stream(request))

    @property
    def remaining(self) -> int | None:
        """Replies left before the list is used up; None for a function or a cycle."""
        if self._function is not None or self._cycle:
            return None
        return len(self._replies) - self._served

    def _next_reply(self, request: ModelRequest) -> ScriptedReply:
        self.requests.append(request)
        if self._function is not None:
            return _as_reply(self._function(request))
        if self._served >= len(self._replies):
            if not self._cycle or not self._replies:
                raise ModelError(f"ScriptedModel has no reply left ({len(self._replies)} scripted)")
            self._served = 0
        reply = self._replies[self._served]
        self._served += 1
        return reply

    def _chunks(self, text: str) -> list[str]:
        size = self._chunk_size
        return [text[i : i + size] for i in range(0, len(text), size)]

    async def _pause(self) -> None:
        await asyncio.sleep(self._delay)


def _as_reply(value: ScriptedReply | str) -> ScriptedReply:
    return ScriptedReply(text=value) if isinstance(value, str) else value


def _estimate_usage(request: ModelRequest, reply: ScriptedReply) -> TokenUsage:
    prompt = (request.system.full_text if request.system else "") + "".join(
        m.model_dump_json() for m in request.messages
    )
    out = len(reply.text) + len(reply.thinking or "") + sum(len(json.dumps(c.input)) for c in reply.tool_calls)
    return TokenUsage(
        input_tokens=max(1, len(prompt) // CHARS_PER_TOKEN),
        output_tokens=max(1, out // CHARS_PER_TOKEN),
    )
