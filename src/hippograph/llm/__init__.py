"""Model providers: the :class:`ModelProvider` protocol, Claude via the ``anthropic`` SDK
(the ``[anthropic]`` extra), an offline scripted model, and the request/response types they
share.

Names load lazily, so ``from hippograph.llm import ScriptedModel`` never imports the SDK. The
stream events are in :mod:`hippograph.llm.events`, the accumulator in
:mod:`hippograph.llm.accumulate`, retry timing in :mod:`hippograph.llm.retry`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hippograph._lazy import lazy_exports

if TYPE_CHECKING:
    from hippograph.llm.anthropic_model import AnthropicModel
    from hippograph.llm.defaults import DEFAULT_MODEL
    from hippograph.llm.errors import ModelError, ModelRetriesExhaustedError
    from hippograph.llm.provider import ModelProvider
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

_TYPES = "hippograph.llm.types"
_EXPORTS: dict[str, tuple[str, str]] = {
    "DEFAULT_MODEL": ("hippograph.llm.defaults", "DEFAULT_MODEL"),
    "ModelProvider": ("hippograph.llm.provider", "ModelProvider"),
    "AnthropicModel": ("hippograph.llm.anthropic_model", "AnthropicModel"),
    "ScriptedModel": ("hippograph.llm.scripted", "ScriptedModel"),
    "ScriptedReply": ("hippograph.llm.scripted", "ScriptedReply"),
    "ScriptedToolCall": ("hippograph.llm.scripted", "ScriptedToolCall"),
    "ModelError": ("hippograph.llm.errors", "ModelError"),
    "ModelRetriesExhaustedError": ("hippograph.llm.errors", "ModelRetriesExhaustedError"),
    **{
        name: (_TYPES, name)
        for name in (
            "ChatMessage",
            "ContentBlock",
            "ModelRequest",
            "ModelResponse",
            "SystemPrompt",
            "TextBlock",
            "ThinkingBlock",
            "TokenUsage",
            "ToolResultBlock",
            "ToolSpec",
            "ToolUseBlock",
        )
    },
}

__all__ = [
    "DEFAULT_MODEL",
    "AnthropicModel",
    "ChatMessage",
    "ContentBlock",
    "ModelError",
    "ModelProvider",
    "ModelRequest",
    "ModelResponse",
    "ModelRetriesExhaustedError",
    "ScriptedModel",
    "ScriptedReply",
    "ScriptedToolCall",
    "SystemPrompt",
    "TextBlock",
    "ThinkingBlock",
    "TokenUsage",
    "ToolResultBlock",
    "ToolSpec",
    "ToolUseBlock",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
