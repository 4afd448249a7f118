"""Provider-neutral types for one model call: the request, its messages and the response.

Content blocks use the field names of the Anthropic Messages API, so that
``block.model_dump(mode="json")`` is also a valid wire block.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, model_validator

TOOL_NAME_PATTERN = r"^[a-zA-Z0-9_-]{1,64}$"
MIN_THINKING_BUDGET = 1024


class TextBlock(BaseModel):
    """Plain text written by the user or the model."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["text"] = "text"
    text: str


class ThinkingBlock(BaseModel):
    """Extended thinking; ``signature`` must be passed back unchanged in tool loops."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str = ""


class ToolUseBlock(BaseModel):
    """A tool call requested by the model."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, JsonValue] = Field(default_factory=dict)


class ToolResultBlock(BaseModel):
    """The result of a tool call, sent back in a user message."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool = False


ContentBlock = Annotated[TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock, Field(discriminator="type")]


class ChatMessage(BaseModel):
    """One message of the conversation sent to the model."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant"]
    content: str | list[ContentBlock]

    @property
    def text(self) -> str:
        """The concatenated text blocks (or the string content)."""
        if isinstance(self.content, str):
            return self.content
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


class SystemPrompt(BaseModel):
    """The system prompt: stable instructions, then per-turn context.

    ``cache`` asks the provider to cache ``text`` (Anthropic: an ephemeral cache
    breakpoint after it); ``context`` (e.g. the memory context) follows the breakpoint,
    so a turn's new memories do not invalidate the cached instructions.
    """

    model_config = ConfigDict(extra="forbid")

    text: str
    context: str = ""
    cache: bool = True

    @property
    def full_text(self) -> str:
        """Instructions and context as one string."""
        return f"{self.text}\n\n{self.context}" if self.context else self.text


def _empty_object_schema() -> dict[str, JsonValue]:
    return {"type": "object", "properties": {}}


class ToolSpec(BaseModel):
    """A tool the model may call, described by a JSON schema of its input."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=TOOL_NAME_PATTERN)
    description: str = ""
    input_schema: dict[str, JsonValue] = Field(default_factory=_empty_object_schema)


class ModelRequest(BaseModel):
    """Everything one model call needs. ``model`` None means the provider's default."""

    model_config = ConfigDict(extra="forbid")

    system: SystemPrompt | None = None
    messages: list[ChatMessage] = Field(min_length=1)
    tools: list[ToolSpec] = Field(default_factory=list)
    max_tokens: int = Field(default=4096, ge=1)
    thinking_budget: int | None = Field(default=None, ge=MIN_THINKING_BUDGET)
    model: str | None = None

    @model_validator(mode="after")
    def _budget_below_max(self) -> ModelRequest:
        if self.thinking_budget is not None and self.thinking_budget >= self.max_tokens:
            raise ValueError("thinking_budget must be less than max_tokens")
        return self


class TokenUsage(BaseModel):
    """Token accounting of one call (or a sum of calls)."""

    input_tokens: int = Field(default=0, ge=0)
    output_tokens: int = Field(default=0, ge=0)
    cache_creation_input_tokens: int = Field(default=0, ge=0)
    cache_read_input_tokens: int = Field(default=0, ge=0)

    @property
    def total_input_tokens(self) -> int:
        """All input tokens: uncached, written to the cache and read from it."""
        return self.input_tokens + self.cache_creation_input_tokens + self.cache_read_input_tokens

    def plus(self, other: TokenUsage) -> TokenUsage:
        """The field-wise sum of two usages."""
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=(self.cache_creation_input_tokens + other.cache_creation_input_tokens),
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
        )


class ModelResponse(BaseModel):
    """The complete reply of one model call."""

    id: str
    model: str
    content: list[ContentBlock] = Field(default_factory=list)
    stop_reason: str | None = None
    usage: TokenUsage = Field(default_factory=TokenUsage)

    @property
    def text(self) -> str:
        """All text blocks joined."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def thinking(self) -> str:
        """All thinking blocks joined."""
        return "".join(b.thinking for b in self.content if isinstance(b, ThinkingBlock))

    @property
    def tool_calls(self) -> list[ToolUseBlock]:
        """The tool calls, in order."""
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def as_message(self) -> ChatMessage:
        """This reply as an assistant message, to continue a tool loop."""
        return ChatMessage(role="assistant", content=list(self.content))
