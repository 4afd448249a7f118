"""The typed events a model provider streams, one ``type`` discriminator each.

Every provider emits, per call: one :class:`MessageStart`; then, per content block,
:class:`ThinkingDelta` (+ :class:`ThinkingSignature`), :class:`TextDelta`, or
:class:`ToolCallStart` followed by :class:`ToolCallDelta`; then one :class:`Usage`
with the call's totals and one :class:`MessageEnd`. ``index`` is the content block's
position in the reply. The agent stream re-uses these classes unchanged.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from hippograph.llm.types import TokenUsage


class MessageStart(BaseModel):
    """A model reply begins."""

    model_config = ConfigDict(frozen=True)

    type: Literal["message_start"] = "message_start"
    message_id: str
    model: str


class ThinkingDelta(BaseModel):
    """A chunk of extended thinking."""

    model_config = ConfigDict(frozen=True)

    type: Literal["thinking_delta"] = "thinking_delta"
    index: int = Field(ge=0)
    text: str


class ThinkingSignature(BaseModel):
    """The signature that closes a thinking block."""

    model_config = ConfigDict(frozen=True)

    type: Literal["thinking_signature"] = "thinking_signature"
    index: int = Field(ge=0)
    signature: str


class TextDelta(BaseModel):
    """A chunk of the visible reply."""

    model_config = ConfigDict(frozen=True)

    type: Literal["text_delta"] = "text_delta"
    index: int = Field(ge=0)
    text: str


class ToolCallStart(BaseModel):
    """The model starts a tool call."""

    model_config = ConfigDict(frozen=True)

    type: Literal["tool_call_start"] = "tool_call_start"
    index: int = Field(ge=0)
    id: str
    name: str


class ToolCallDelta(BaseModel):
    """A chunk of a tool call's JSON input."""

    model_config = ConfigDict(frozen=True)

    type: Literal["tool_call_delta"] = "tool_call_delta"
    index: int = Field(ge=0)
    id: str
    partial_json: str


class Usage(TokenUsage):
    """Token totals of one model call (a :class:`TokenUsage` with a ``type``)."""

    model_config = ConfigDict(frozen=True)

    type: Literal["usage"] = "usage"

    @classmethod
    def of(cls, usage: TokenUsage) -> Usage:
        """The event for ``usage``."""
        return cls(**usage.model_dump())

    def totals(self) -> TokenUsage:
        """The plain usage, without the event discriminator."""
        return TokenUsage(**self.model_dump(exclude={"type"}))


class MessageEnd(BaseModel):
    """A model reply is complete."""

    model_config = ConfigDict(frozen=True)

    type: Literal["message_end"] = "message_end"
    message_id: str
    stop_reason: str | None = None


ModelEvent = Annotated[
    MessageStart | ThinkingDelta | ThinkingSignature | TextDelta | ToolCallStart | ToolCallDelta | Usage | MessageEnd,
    Field(discriminator="type"),
]
"""Any event a :class:`~hippograph.llm.provider.ModelProvider` streams."""
