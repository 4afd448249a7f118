"""Prompt templates, shipped as files in this package and rendered with ``string.Template``.

- ``system.txt``: sections 1 to 8 of the full system prompt, stable instructions (cached);
- ``memory_context.txt``: section 9, this turn's memory context, after the cache breakpoint;
- ``jit.txt``: the short just-in-time prompt (≤ 230 tokens), used with the
  ``hydrate_context`` tool described in ``hydrate_context.json``.

Templates are read lazily (on first use) through :mod:`importlib.resources`, so they
work from an installed wheel; placeholders are ``$name``.
"""

from __future__ import annotations

import functools
import json
import math
from datetime import UTC, datetime
from importlib.resources import files
from string import Template

from hippograph.errors import InvalidInputError
from hippograph.llm.types import SystemPrompt, ToolSpec

__all__ = [
    "DEFAULT_AGENT_NAME",
    "HYDRATE_CONTEXT_TOOL_NAME",
    "JIT_MAX_TOKENS",
    "TEMPLATE_NAMES",
    "approx_tokens",
    "full_system_prompt",
    "hydrate_context_tool",
    "jit_system_prompt",
    "load_template",
    "render",
]

DEFAULT_AGENT_NAME = "Hippo"
HYDRATE_CONTEXT_TOOL_NAME = "hydrate_context"
JIT_MAX_TOKENS = 230
TEMPLATE_NAMES = ("system", "memory_context", "jit")
NO_MEMORIES = "(nothing relevant remembered yet)"
CHARS_PER_TOKEN = 3.5


@functools.cache
def load_template(name: str) -> Template:
    """The template ``<name>.txt`` of this package.

    Raises:
        InvalidInputError: No template has that name.
    """
    if name not in TEMPLATE_NAMES:
        raise InvalidInputError("template", f"unknown template {name!r}; one of {TEMPLATE_NAMES}")
    text = files(__package__).joinpath(f"{name}.txt").read_text(encoding="utf-8")
    return Template(text)


def render(name: str, **values: str) -> str:
    """Render a template; every placeholder must be given.

    Raises:
        InvalidInputError: A placeholder has no value, or the template is unknown.
    """
    template = load_template(name)
    missing = [k for k in template.get_identifiers() if k not in values]
    if missing:
        raise InvalidInputError("values", f"template {name!r} needs {', '.join(sorted(missing))}")
    return template.substitute(values).strip()


def full_system_prompt(
    memory_context: str,
    *,
    scope: str,
    agent_name: str = DEFAULT_AGENT_NAME,
    agent_description: str = "",
    now: datetime | None = None,
    cache: bool = True,
) -> SystemPrompt:
    """The full prompt: cached instructions, then this turn's memory context.

    Args:
        memory_context: The hydrated context text (empty: a "nothing remembered" note).
        scope: The scope key the turn runs in.
        agent_name: How the agent calls itself.
        agent_description: One or two sentences on the agent's domain and role.
        now: The current time (default: now, UTC), shown with the memory context.
        cache: Ask the provider to cache the instructions.
    """
    instructions = render("system", agent_name=agent_name, agent_description=agent_description, scope=scope)
    context = render(
        "memory_context",
        now=(now or datetime.now(UTC)).isoformat(timespec="minutes"),
        memory_context=memory_context.strip() or NO_MEMORIES,
    )
    return SystemPrompt(text=instructions, context=context, cache=cache)


def jit_system_prompt(
    *,
    scope: str,
    agent_name: str = DEFAULT_AGENT_NAME,
    agent_description: str = "",
    cache: bool = True,
) -> SystemPrompt:
    """The short just-in-time prompt; send :func:`hydrate_context_tool` with it."""
    text = render("jit", agent_name=agent_name, agent_description=agent_description, scope=scope)
    return SystemPrompt(text=text, cache=cache)


@functools.cache
def hydrate_context_tool() -> ToolSpec:
    """The ``hydrate_context`` tool the model calls to recall memories (JIT mode)."""
    raw = files(__package__).joinpath("hydrate_context.json").read_text(encoding="utf-8")
    return ToolSpec.model_validate(json.loads(raw))


def approx_tokens(text: str) -> int:
    """A conservative token estimate (3.5 characters per token) when no tokenizer is at hand."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)
