"""The one default model name, shared by :class:`~hippograph.llm.anthropic_model.AnthropicModel`
and the application settings (``HIPPOGRAPH_ANTHROPIC_MODEL``). A module of its own so that
reading it imports no SDK."""

from __future__ import annotations

DEFAULT_MODEL = "claude-sonnet-4-6"
"""The Claude model used when neither the request nor the caller names one."""
