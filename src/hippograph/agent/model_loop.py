"""The model stage of a turn: call the model; while it asks for tools, run them (the tools
stage, :func:`hippograph.agent.tools.run_round`) and call it again, at most
``tools.max_rounds`` rounds.

Each call streams through :class:`~hippograph.agent.visible.VisibleTextFilter` (the model's
``MEMORY_EXTRACT`` block never reaches the user); its text is held back when the fabrication
check must see the whole draft first. The last call's ``MessageEnd`` is not yielded: it is in
the output, for the turn to place last.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from hippograph.agent.events import AgentEvent, StageFailed, ToolResult
from hippograph.agent.model_events import model_call_events
from hippograph.agent.stages import Out, Stage, StageError
from hippograph.agent.tools import AgentTool, HydrateTool, ToolRound, run_round
from hippograph.agent.visible import VisibleTextFilter
from hippograph.layers.episodic import ActionCall
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
from hippograph.llm.spans import finish_chat_span, requested_model, start_chat_span
from hippograph.llm.types import (
    ChatMessage,
    ModelRequest,
    ModelResponse,
    SystemPrompt,
    TextBlock,
    ThinkingBlock,
    ToolSpec,
    ToolUseBlock,
)
from hippograph.tracing import in_span

if TYPE_CHECKING:
    from hippograph.agent.config import AgentConfig
    from hippograph.agent.observability import StageClock


@dataclass(frozen=True)
class Call:
    """One model call: the folded reply, its ``MessageEnd`` (not yet yielded) and the visible
    text held back (empty unless the call held it)."""

    response: ModelResponse
    end: MessageEnd
    held: list[TextDelta]


@dataclass(frozen=True)
class Draft:
    """The model stage's output: the last call, the messages it answered, and what the turn saw
    on the way (for the fabrication check, extraction and the record)."""

    last: Call
    messages: list[ChatMessage]
    raw_texts: list[str]
    """Every call's text, the memory blocks included (extraction parses them)."""
    memory_texts: list[str]
    tool_results: list[str]
    actions: list[ActionCall] = field(default_factory=list)


class ModelCaller:
    """The model calls of one turn, with the turn's system prompt and tools; counts them."""

    def __init__(
        self, model: ModelProvider, config: AgentConfig, system: SystemPrompt, tools: list[ToolSpec], clock: StageClock
    ) -> None:
        self._model, self._config, self._system, self._tools, self._clock = model, config, system, tools, clock
        self.calls = 0

    async def call(
        self,
        messages: list[ChatMessage],
        *,
        hold: bool,
        out: Out[Call],
        purpose: Literal["reply", "revision"] = "reply",
    ) -> AsyncIterator[AgentEvent]:
        """Stream one call (announced by ``ModelStart`` and ``ModelPreCall`` when
        ``model_call_events`` is on); hold its visible text back when ``hold``.

        Raises:
            StageError: The model failed (stage ``model``).
        """
        c = self._config
        req = ModelRequest(
            system=self._system, messages=messages, tools=self._tools, max_tokens=c.max_tokens,
            thinking_budget=c.thinking_budget, model=c.model,
        )  # fmt: skip
        self.calls += 1
        current = start_chat_span(self._model, req, purpose=purpose)
        try:
            async for event in in_span(current, self._stream(req, hold, out, purpose)):
                yield event
            finish_chat_span(current, out.value.response, requested=requested_model(self._model, req))
        except Exception as exc:
            raise StageError(Stage.MODEL, exc) from exc
        finally:
            current.end()

    async def _stream(
        self, req: ModelRequest, hold: bool, out: Out[Call], purpose: Literal["reply", "revision"]
    ) -> AsyncIterator[AgentEvent]:
        c = self._config
        if c.model_call_events:
            for announced in model_call_events(
                req, call=self.calls, default_model=getattr(self._model, "model", None), streamed=c.stream_model,
                prompt_mode=c.prompt_mode, purpose=purpose,
            ):  # fmt: skip
                yield announced
        held: list[TextDelta] = []
        end: MessageEnd | None = None
        acc = ResponseAccumulator()
        visible = VisibleTextFilter()
        index = 0
        stream = self._model.stream(req) if c.stream_model else _replayed(self._model, req)
        try:
            while True:
                started = time.perf_counter()
                try:
                    event = await anext(stream)
                except StopAsyncIteration:
                    break
                finally:
                    self._clock.add(Stage.MODEL, (time.perf_counter() - started) * 1000.0)
                acc.add(event)
                if isinstance(event, TextDelta):
                    index = event.index
                    text = visible.feed(event.text)
                    if text:
                        delta = TextDelta(index=index, text=text)
                        if hold:
                            held.append(delta)
                        else:
                            yield delta
                elif isinstance(event, MessageEnd):
                    end = event
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
                held.append(delta)
            else:
                yield delta
        response = acc.response()
        if end is None:
            end = MessageEnd(message_id=response.id, stop_reason=response.stop_reason)
        out.value = Call(response, end, held)


async def run_model_loop(
    caller: ModelCaller,
    messages: list[ChatMessage],
    *,
    hold: bool,
    tools: Mapping[str, AgentTool],
    config: AgentConfig,
    hydrate_tool: HydrateTool | None,
    memory_texts: tuple[str, ...],
    clock: StageClock,
    out: Out[Draft],
) -> AsyncIterator[AgentEvent]:
    """The model ↔ tools rounds; the messages grow with each round.

    Raises:
        StageError: The model failed (stage ``model``) or a round of tools did (``tools``).
    """
    rounds = 0
    raw_texts: list[str] = []
    seen_memory = list(memory_texts)
    tool_results: list[str] = []
    actions: list[ActionCall] = []
    while True:
        called = Out[Call]()
        async for event in caller.call(messages, hold=hold, out=called):
            yield event
        last = called.value
        raw_texts.append(last.response.text)
        calls = last.response.tool_calls
        if last.response.stop_reason != "tool_use" or not calls:
            break
        if rounds >= config.tools.max_rounds:
            yield StageFailed(
                stage=Stage.TOOLS, error_type="ToolRoundLimit",
                message=f"the model asked for tools again after {rounds} rounds; stopped",
            )  # fmt: skip
            break
        rounds += 1
        for delta in last.held:
            yield delta
        yield last.end
        ran = Out[ToolRound]()
        try:
            async for event in run_round(
                calls, tools=tools, settings=config.tools, hydrate_tool=hydrate_tool, clock=clock, out=ran
            ):
                if isinstance(event, ToolResult):
                    tool_results.append(event.content)
                yield event
        except Exception as exc:
            raise StageError(Stage.TOOLS, exc) from exc
        seen_memory.extend(ran.value.memory_texts)
        actions.extend(ran.value.actions)
        messages = [*messages, assistant(last.response), ChatMessage(role="user", content=list(ran.value.results))]
    out.value = Draft(last, messages, raw_texts, seen_memory, tool_results, actions)


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
