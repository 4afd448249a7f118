"""The model-start and pre-call events of one model call (``LLMStartEvent``,
the engine's view, and ``LLMPreCallEvent``, the wire's view): what is asked and how much goes
out, by size and digest — the prompt's text never leaves in an event."""

from __future__ import annotations

import hashlib
import json
from typing import Literal

from hippograph.agent.events import ModelPreCall, ModelStart
from hippograph.llm.types import ContentBlock, ModelRequest

CHARS_PER_TOKEN = 4


def model_call_events(
    request: ModelRequest,
    *,
    call: int,
    default_model: str | None,
    streamed: bool,
    prompt_mode: str,
    purpose: Literal["reply", "revision"] = "reply",
) -> tuple[ModelStart, ModelPreCall]:
    """The two events announcing model call number ``call`` of a turn."""
    model = request.model or default_model
    system = request.system
    instructions = system.text if system is not None else ""
    context = system.context if system is not None else ""
    message_chars = sum(len(_text(m.content)) for m in request.messages)
    tools = [t.name for t in request.tools]
    tool_chars = sum(len(t.description) + len(json.dumps(t.input_schema)) for t in request.tools)
    total = len(instructions) + len(context) + message_chars + tool_chars
    start = ModelStart(call=call, model=model, purpose=purpose, streamed=streamed, prompt_mode=prompt_mode)
    pre = ModelPreCall(
        call=call,
        model=model,
        max_tokens=request.max_tokens,
        thinking_budget=request.thinking_budget,
        system_chars=len(instructions),
        system_digest=hashlib.sha256(instructions.encode()).hexdigest(),
        context_chars=len(context),
        messages=len(request.messages),
        message_chars=message_chars,
        tools=tools,
        estimated_input_tokens=(total + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN,
    )
    return start, pre


def _text(content: str | list[ContentBlock]) -> str:
    """A message's content as it is sent: the string, or its blocks as JSON."""
    if isinstance(content, str):
        return content
    return json.dumps([b.model_dump(mode="json") for b in content])
