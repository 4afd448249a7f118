"""Translation between our model types and the Anthropic SDK's wire types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from pydantic import JsonValue

from hippograph._extras import requires_extra

with requires_extra("anthropic"):
    from anthropic import Omit, omit
    from anthropic.types import (
        InputJSONDelta,
        Message,
        MessageParam,
        RawContentBlockDeltaEvent,
        RawContentBlockStartEvent,
        RawMessageDeltaEvent,
        RawMessageStartEvent,
        RawMessageStopEvent,
        RawMessageStreamEvent,
        SignatureDelta,
        TextBlockParam,
        ThinkingConfigParam,
        ToolParam,
    )
    from anthropic.types import TextBlock as SdkTextBlock
    from anthropic.types import TextDelta as SdkTextDelta
    from anthropic.types import ThinkingBlock as SdkThinkingBlock
    from anthropic.types import ThinkingDelta as SdkThinkingDelta
    from anthropic.types import ToolUseBlock as SdkToolUseBlock


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
    ModelRequest,
    ModelResponse,
    TextBlock,
    ThinkingBlock,
    TokenUsage,
    ToolUseBlock,
)

EPHEMERAL_CACHE = {"type": "ephemeral"}


@dataclass(frozen=True, slots=True)
class WireParams:
    """Keyword arguments for ``client.messages.create``."""

    model: str
    max_tokens: int
    messages: list[MessageParam]
    system: list[TextBlockParam] | Omit = omit
    tools: list[ToolParam] | Omit = omit
    thinking: ThinkingConfigParam | Omit = omit


def to_wire(request: ModelRequest, *, default_model: str) -> WireParams:
    """The SDK arguments for ``request``; the system prompt is cached when asked."""
    system: list[TextBlockParam] | Omit = omit
    if request.system is not None:
        system = _system_blocks(request.system.text, request.system.context, request.system.cache)
    tools: list[ToolParam] | Omit = omit
    if request.tools:
        tools = [cast(ToolParam, t.model_dump(mode="json")) for t in request.tools]
    thinking: ThinkingConfigParam | Omit = omit
    if request.thinking_budget is not None:
        thinking = {"type": "enabled", "budget_tokens": request.thinking_budget}
    messages = [cast(MessageParam, m.model_dump(mode="json")) for m in request.messages]
    return WireParams(
        model=request.model or default_model,
        max_tokens=request.max_tokens,
        messages=messages,
        system=system,
        tools=tools,
        thinking=thinking,
    )


def _system_blocks(text: str, context: str, cache: bool) -> list[TextBlockParam] | Omit:
    blocks: list[TextBlockParam] = []
    if text:
        block: dict[str, object] = {"type": "text", "text": text}
        if cache:
            block["cache_control"] = dict(EPHEMERAL_CACHE)
        blocks.append(cast(TextBlockParam, block))
    if context:
        blocks.append({"type": "text", "text": context})
    return blocks or omit


def usage_from_sdk(usage: object) -> TokenUsage:
    """Our usage from an SDK ``Usage`` or ``MessageDeltaUsage`` (missing counts are 0)."""
    return TokenUsage(
        input_tokens=getattr(usage, "input_tokens", None) or 0,
        output_tokens=getattr(usage, "output_tokens", None) or 0,
        cache_creation_input_tokens=getattr(usage, "cache_creation_input_tokens", None) or 0,
        cache_read_input_tokens=getattr(usage, "cache_read_input_tokens", None) or 0,
    )


def response_from_sdk(message: Message) -> ModelResponse:
    """Our response from an SDK ``Message`` (block types we do not model are dropped)."""
    content: list[ContentBlock] = []
    for block in message.content:
        if isinstance(block, SdkTextBlock):
            content.append(TextBlock(text=block.text))
        elif isinstance(block, SdkThinkingBlock):
            content.append(ThinkingBlock(thinking=block.thinking, signature=block.signature))
        elif isinstance(block, SdkToolUseBlock):
            tool_input = cast(dict[str, JsonValue], dict(block.input))
            content.append(ToolUseBlock(id=block.id, name=block.name, input=tool_input))
    return ModelResponse(
        id=message.id,
        model=message.model,
        content=content,
        stop_reason=message.stop_reason,
        usage=usage_from_sdk(message.usage),
    )


class StreamMapper:
    """Maps SDK stream events to our events, one call at a time.

    Usage is reported once, as a :class:`Usage` just before :class:`MessageEnd`:
    input and cache counts come from ``message_start``, the output count from the
    last ``message_delta`` (whose counts are cumulative).
    """

    def __init__(self) -> None:
        self._message_id = ""
        self._tool_ids: dict[int, str] = {}
        self._usage = TokenUsage()
        self._stop_reason: str | None = None

    def map(self, event: RawMessageStreamEvent) -> list[ModelEvent]:
        """Our events for one SDK event (often none, never more than two)."""
        if isinstance(event, RawMessageStartEvent):
            self._message_id = event.message.id
            self._usage = usage_from_sdk(event.message.usage)
            return [MessageStart(message_id=event.message.id, model=event.message.model)]
        if isinstance(event, RawContentBlockStartEvent):
            return self._block_start(event)
        if isinstance(event, RawContentBlockDeltaEvent):
            return self._block_delta(event)
        if isinstance(event, RawMessageDeltaEvent):
            self._stop_reason = event.delta.stop_reason or self._stop_reason
            self._merge_usage(usage_from_sdk(event.usage))
            return []
        if isinstance(event, RawMessageStopEvent):
            return [
                Usage.of(self._usage),
                MessageEnd(message_id=self._message_id, stop_reason=self._stop_reason),
            ]
        return []

    def _block_start(self, event: RawContentBlockStartEvent) -> list[ModelEvent]:
        block, index = event.content_block, event.index
        if isinstance(block, SdkToolUseBlock):
            self._tool_ids[index] = block.id
            return [ToolCallStart(index=index, id=block.id, name=block.name)]
        if isinstance(block, SdkTextBlock) and block.text:
            return [TextDelta(index=index, text=block.text)]
        if isinstance(block, SdkThinkingBlock) and block.thinking:
            return [ThinkingDelta(index=index, text=block.thinking)]
        return []

    def _block_delta(self, event: RawContentBlockDeltaEvent) -> list[ModelEvent]:
        delta, index = event.delta, event.index
        if isinstance(delta, SdkTextDelta):
            return [TextDelta(index=index, text=delta.text)]
        if isinstance(delta, SdkThinkingDelta):
            return [ThinkingDelta(index=index, text=delta.thinking)]
        if isinstance(delta, SignatureDelta):
            return [ThinkingSignature(index=index, signature=delta.signature)]
        if isinstance(delta, InputJSONDelta) and delta.partial_json:
            tool_id = self._tool_ids.get(index, "")
            return [ToolCallDelta(index=index, id=tool_id, partial_json=delta.partial_json)]
        return []

    def _merge_usage(self, delta: TokenUsage) -> None:
        self._usage = TokenUsage(
            input_tokens=delta.input_tokens or self._usage.input_tokens,
            output_tokens=delta.output_tokens or self._usage.output_tokens,
            cache_creation_input_tokens=(delta.cache_creation_input_tokens or self._usage.cache_creation_input_tokens),
            cache_read_input_tokens=(delta.cache_read_input_tokens or self._usage.cache_read_input_tokens),
        )
