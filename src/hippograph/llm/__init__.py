"""Model providers: the :class:`ModelProvider` protocol, Claude via the ``anthropic`` SDK,
and an offline scripted model that streams through the same typed events."""

from hippograph.llm.accumulate import ResponseAccumulator, collect
from hippograph.llm.anthropic_model import DEFAULT_MODEL, AnthropicModel
from hippograph.llm.errors import ModelError, ModelRetriesExhaustedError
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
from hippograph.llm.retry import Backoff
from hippograph.llm.scripted import ScriptedModel, ScriptedReply, ScriptedToolCall
from hippograph.llm.types import (
    ChatMessage,
    ContentBlock,
    ModelRequest,
    ModelResponse,
    SystemPrompt,
    TextBlock,
    ThinkingBlock,
    TokenUsage,
    ToolResultBlock,
    ToolSpec,
    ToolUseBlock,
)

__all__ = [
    "DEFAULT_MODEL",
    "AnthropicModel",
    "Backoff",
    "ChatMessage",
    "ContentBlock",
    "MessageEnd",
    "MessageStart",
    "ModelError",
    "ModelEvent",
    "ModelProvider",
    "ModelRequest",
    "ModelResponse",
    "ModelRetriesExhaustedError",
    "ResponseAccumulator",
    "ScriptedModel",
    "ScriptedReply",
    "ScriptedToolCall",
    "SystemPrompt",
    "TextBlock",
    "TextDelta",
    "ThinkingBlock",
    "ThinkingDelta",
    "ThinkingSignature",
    "TokenUsage",
    "ToolCallDelta",
    "ToolCallStart",
    "ToolResultBlock",
    "ToolSpec",
    "ToolUseBlock",
    "Usage",
    "collect",
]
