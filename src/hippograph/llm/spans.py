"""Model calls as spans of the OpenTelemetry GenAI semantic conventions: ``chat <model>``
(kind ``CLIENT``) with ``gen_ai.*`` attributes — the provider, the request and response
model, the finish reason and the token usage; never the prompt or the reply."""

from __future__ import annotations

from hippograph.llm.provider import ModelProvider
from hippograph.llm.types import ModelRequest, ModelResponse, TokenUsage
from hippograph.tracing import AttributeValue, Span, SpanKind, tracer, use_span

__all__ = [
    "GEN_AI_PROVIDER",
    "complete",
    "finish_chat_span",
    "requested_model",
    "start_chat_span",
    "usage_attributes",
]

GEN_AI_PROVIDER = "anthropic"
"""The GenAI provider every model call names: the model layer speaks Anthropic's Messages API
(the scripted model plays replies in its shape)."""


def usage_attributes(usage: TokenUsage) -> dict[str, AttributeValue]:
    """The ``gen_ai.usage.*`` attributes of a call (or a sum of calls); input tokens count the
    cached ones too, as the conventions ask."""
    return {
        "gen_ai.usage.input_tokens": usage.total_input_tokens,
        "gen_ai.usage.output_tokens": usage.output_tokens,
        "gen_ai.usage.cache_read.input_tokens": usage.cache_read_input_tokens,
        "gen_ai.usage.cache_creation.input_tokens": usage.cache_creation_input_tokens,
    }


def requested_model(model: ModelProvider, request: ModelRequest) -> str | None:
    """The model a call asks for: the request's, else the provider's default when it names one."""
    name = request.model or getattr(model, "model", None)
    return name if isinstance(name, str) else None


def start_chat_span(model: ModelProvider, request: ModelRequest, *, purpose: str) -> Span:
    """A started (not current) span for one call of ``model``; ``purpose`` says what the call
    is for (``reply``, ``revision``, ``summary``, ``extraction``, ``consolidation``)."""
    name = requested_model(model, request)
    attributes: dict[str, AttributeValue] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": GEN_AI_PROVIDER,
        "gen_ai.provider.name": GEN_AI_PROVIDER,
        "gen_ai.request.max_tokens": request.max_tokens,
        "hippograph.model.purpose": purpose,
        "hippograph.model.tools_offered": len(request.tools),
    }
    if name is not None:
        attributes["gen_ai.request.model"] = name
    span_name = f"chat {name}" if name is not None else "chat"
    return tracer().start_span(span_name, attributes=attributes, kind=SpanKind.CLIENT)


def finish_chat_span(current: Span, response: ModelResponse, *, requested: str | None) -> None:
    """Add the reply's id, model, finish reason and usage to ``current``; name it after the
    reply's model when the call asked for none (``requested``)."""
    if requested is None:
        current.update_name(f"chat {response.model}")
    current.set_attributes(
        {
            "gen_ai.response.id": response.id,
            "gen_ai.response.model": response.model,
            "gen_ai.response.finish_reasons": [response.stop_reason or "unknown"],
            **usage_attributes(response.usage),
        }
    )


async def complete(model: ModelProvider, request: ModelRequest, *, purpose: str) -> ModelResponse:
    """``model.complete(request)`` in a chat span (a failure is recorded on it)."""
    current = start_chat_span(model, request, purpose=purpose)
    with use_span(current, end_on_exit=True):
        response = await model.complete(request)
        finish_chat_span(current, response, requested=requested_model(model, request))
        return response
