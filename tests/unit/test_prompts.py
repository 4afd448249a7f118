"""Prompt templates: files load as package data, render completely, stay within budget."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from importlib.resources import files

import pytest

from hippograph.agent import prompts
from hippograph.agent.ops_block import extract_memory_ops
from hippograph.errors import InvalidInputError
from hippograph.llm.types import ToolSpec

pytestmark = pytest.mark.unit

SCOPE = "org:acme/user:bob/conversation:c-2024-0001"
NOW = datetime(2025, 3, 1, 12, 30, tzinfo=UTC)


def test_every_template_file_is_reachable_and_every_name_has_a_file() -> None:
    package = files(prompts.__name__)
    on_disk = {p.name[:-4] for p in package.iterdir() if p.name.endswith(".txt")}
    assert on_disk == set(prompts.TEMPLATE_NAMES)
    assert package.joinpath("hydrate_context.json").is_file()


def test_full_prompt_has_nine_sections_with_memory_context_last() -> None:
    system = prompts.full_system_prompt(
        "- dog: Rex (semantic, score 0.91)",
        scope=SCOPE,
        agent_name="Ada",
        agent_description="You help the Acme platform team.",
        now=NOW,
    )
    headings = re.findall(r"^## (\d+)\. ", system.full_text, flags=re.M)
    assert headings == [str(n) for n in range(1, 10)]
    assert system.cache
    assert "Ada" in system.text and "Acme platform team" in system.text
    assert SCOPE in system.text
    assert "TOOL DISCIPLINE" in system.text and "<MEMORY_EXTRACT>" in system.text
    assert "- dog: Rex (semantic, score 0.91)" in system.context
    assert "2025-03-01T12:30+00:00" in system.context
    assert "$" not in system.full_text


def test_instructions_do_not_change_with_the_memory_context() -> None:
    first = prompts.full_system_prompt("- a", scope=SCOPE, now=NOW)
    second = prompts.full_system_prompt("- b", scope=SCOPE)
    assert first.text == second.text
    assert first.context != second.context
    assert prompts.NO_MEMORIES in prompts.full_system_prompt("  ", scope=SCOPE).context


def test_the_prompt_teaches_a_block_the_extractor_accepts() -> None:
    text = prompts.full_system_prompt("", scope=SCOPE).text
    examples = re.findall(r"^- (\{\"op\".*?\})$", text.replace("\n  ", " "), flags=re.M)
    assert len(examples) == 5
    reply = 'Noted!\n<MEMORY_EXTRACT>{"ops": [' + ", ".join(examples) + "]}</MEMORY_EXTRACT>"
    result = extract_memory_ops(reply)
    assert result.reply == "Noted!"
    assert result.invalid == []
    assert sorted(op.op for op in result.ops) == sorted(
        ["upsert_node", "create_event", "set_trigger", "register_skill", "retract_node"]
    )


def test_jit_prompt_is_short_and_names_its_tool() -> None:
    system = prompts.jit_system_prompt(scope=SCOPE, agent_name="Ada")
    assert prompts.approx_tokens(system.text) <= prompts.JIT_MAX_TOKENS
    assert len(system.text.split()) * 4 // 3 <= prompts.JIT_MAX_TOKENS
    assert "hydrate_context" in system.text and "TOOL DISCIPLINE" in system.text
    assert system.context == "" and "$" not in system.text


def test_hydrate_context_tool_is_a_valid_tool_spec() -> None:
    tool = prompts.hydrate_context_tool()
    assert isinstance(tool, ToolSpec)
    assert tool.name == prompts.HYDRATE_CONTEXT_TOOL_NAME
    assert tool.input_schema["required"] == ["query"]
    assert len(tool.description) > 50


def test_render_checks_names_and_values() -> None:
    with pytest.raises(InvalidInputError, match="needs agent_description, scope"):
        prompts.render("jit", agent_name="x")
    with pytest.raises(InvalidInputError, match="unknown template"):
        prompts.render("../etc/passwd")


def test_substituted_values_are_not_reinterpreted() -> None:
    system = prompts.full_system_prompt("price: $amount ${x}", scope=SCOPE)
    assert "price: $amount ${x}" in system.context


def test_all_matches_the_module() -> None:
    assert all(hasattr(prompts, name) for name in prompts.__all__)
