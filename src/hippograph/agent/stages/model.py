"""One model call, streamed through the memory-block filter.

Text deltas pass :class:`~hippograph.agent.visible.VisibleTextFilter` (the model's
``MEMORY_EXTRACT`` block never reaches the user) and are held back in ``t.held`` when the
fabrication check must see the whole draft first. The call's ``MessageEnd`` is kept in
``t.last_end`` for the composing stage to place; the folded reply is ``t.last``.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Literal

from hippograph.agent.events import AgentEvent
from hippograph.agent.model_events import model_call_events
from hippograph.agent.stages import Stage
from hippograph.agent.stages.deps import StageDeps
from hippograph.agent.turn_state import TurnState
from hippograph.agent.visible import VisibleTextFilter
from hippograph.llm.accumulate import ResponseAccumulator
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
from hippograph.llm.provider import ModelProvider
from hippograph.llm.types import ChatMessage, ModelRequest, ModelResponse, TextBlock, ThinkingBlock, ToolUseBlock


def request(d: StageDeps, t: TurnState, messages: list[ChatMessage]) -> ModelRequest:
    """The request of a model call of this turn."""
    c = d.config
    return ModelRequest(
        system=t.require_system(), messages=messages, tools=t.tool_specs(), max_tokens=c.max_tokens,
        thinking_budget=c.thinking_budget, model=c.model,
    )  # fmt: skip


async def call(
    t: TurnState, d: StageDeps, req: ModelRequest, *, hold: bool, purpose: Literal["reply", "revision"] = "reply"
) -> AsyncIterator[AgentEvent]:
    """Stream one call (announced by ``ModelStart`` and ``ModelPreCall`` when
    ``model_call_events`` is on); hold its visible text back when ``hold``."""
    t.model_calls += 1
    t.stage = Stage.MODEL
    c = d.config
    if c.model_call_events:
        for announced in model_call_events(
            req, call=t.model_calls, default_model=getattr(d.model, "model", None), streamed=c.stream_model,
            prompt_mode=c.prompt_mode, purpose=purpose,
        ):  # fmt: skip
            yield announced
    t.held, t.last_end = [], None
    acc = ResponseAccumulator()
    visible = VisibleTextFilter()
    index = 0
    stream = d.model.stream(req) if d.config.stream_model else _replayed(d.model, req)
    try:
        while True:
            started = time.perf_counter()
            try:
                event = await anext(stream)
            except StopAsyncIteration:
                break
            finally:
                t.clock.add(Stage.MODEL, (time.perf_counter() - started) * 1000.0)
            acc.add(event)
            if isinstance(event, TextDelta):
                index = event.index
                text = visible.feed(event.text)
                if text:
                    delta = TextDelta(index=index, text=text)
                    if hold:
                        t.held.append(delta)
                    else:
                        yield delta
            elif isinstance(event, MessageEnd):
                t.last_end = event
            else:
                yield event
    finally:
        close = getattr(stream, "aclose", None)
        if close is not None:
            await close()
    tail = visible.flush()
    if tail:
        delta = TextDelta(index=index, text=tail)
        if hold:
            t.held.append(delta)
        else:
            yield delta
    response = acc.response()
    t.last = response
    t.raw_texts.append(response.text)
    if t.last_end is None:
        t.last_end = MessageEnd(message_id=response.id, stop_reason=response.stop_reason)


def assistant(response: ModelResponse) -> ChatMessage:
    """The reply as an assistant message, without empty text blocks (the API rejects them)."""
    content = [b for b in response.content if not (isinstance(b, TextBlock) and not b.text)]
    return ChatMessage(role="assistant", content=content or [TextBlock(text="(no reply)")])


async def _replayed(model: ModelProvider, req: ModelRequest) -> AsyncIterator[ModelEvent]:
    """A complete (non-streamed) call, replayed as the events a stream would have sent."""
    response = await model.complete(req)
    yield MessageStart(message_id=response.id, model=response.model)
    for index, block in enumerate(response.content):
        if isinstance(block, ThinkingBlock):
            yield ThinkingDelta(index=index, text=block.thinking)
            if block.signature:
                yield ThinkingSignature(index=index, signature=block.signature)
        elif isinstance(block, TextBlock):
            yield TextDelta(index=index, text=block.text)
        elif isinstance(block, ToolUseBlock):
            yield ToolCallStart(index=index, id=block.id, name=block.name)
            yield ToolCallDelta(index=index, id=block.id, partial_json=json.dumps(block.input))
    yield Usage.of(response.usage)
    yield MessageEnd(message_id=response.id, stop_reason=response.stop_reason)
