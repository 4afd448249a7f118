"""Claude's memory tool, command for command against the SDK's own file-system backend.

One script — every command, view ranges, nested folders, renames of files and folders,
whitespace and Unicode in file texts, every error path — runs through hippograph's
:class:`ClaudeMemoryTool` (real Neo4j) and through the SDK's ``BetaAsyncLocalFilesystemMemoryTool``
(a throwaway directory). Each answer must be identical, or differ exactly as one of the
differences the guide lists (docs/guides/claude-memory-tool.md, "Where the answers differ"),
and nothing else.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from anthropic.lib.tools import ToolError
from anthropic.tools import BetaAsyncLocalFilesystemMemoryTool

from hippograph.integrations import ClaudeMemoryTool
from hippograph.memory import Memory
from hippograph.scope import Scope
from tests.support.memory_internals import internals

ROOT = Path(__file__).resolve().parents[3]
GUIDE = ROOT / "docs" / "guides" / "claude-memory-tool.md"

Answer = tuple[str, str]
"""("ok", the text) or ("error", the tool error's message) or ("raised", the exception's type)."""

NOTES = "/memories/notes.md"
SPACED = "  two leading spaces\n\n\ttab, then an empty line above\ntrailing spaces   \n\n"
UNICODE = "café ☕ naïve — 日本語\r\nCRLF line\n🙂\n"
IDENTICAL = "identical"

# (command, the listed difference it may show, or IDENTICAL)
SCRIPT: list[tuple[dict[str, Any], str]] = [
    ({"command": "view", "path": "/memories"}, "folder sizes"),
    ({"command": "create", "path": NOTES, "file_text": "line one\nline two\nline three\n"}, IDENTICAL),
    ({"command": "create", "path": "/memories/spaced.txt", "file_text": SPACED}, IDENTICAL),
    ({"command": "create", "path": "/memories/unicode.md", "file_text": UNICODE}, IDENTICAL),
    ({"command": "create", "path": "/memories/blank.md", "file_text": "\n"}, IDENTICAL),
    ({"command": "create", "path": "/memories/a/b/c/deep.md", "file_text": "three folders down"}, IDENTICAL),
    ({"command": "create", "path": "/memories/a/top.md", "file_text": "in a"}, IDENTICAL),
    ({"command": "view", "path": NOTES}, IDENTICAL),
    ({"command": "view", "path": "/memories/spaced.txt"}, IDENTICAL),
    ({"command": "view", "path": "/memories/unicode.md"}, IDENTICAL),
    ({"command": "view", "path": "/memories/blank.md"}, IDENTICAL),
    ({"command": "view", "path": NOTES, "view_range": [2, 3]}, IDENTICAL),
    ({"command": "view", "path": NOTES, "view_range": [2, -1]}, IDENTICAL),
    ({"command": "view", "path": NOTES, "view_range": [0, 1]}, IDENTICAL),
    ({"command": "view", "path": NOTES, "view_range": [3, 99]}, IDENTICAL),
    ({"command": "view", "path": "/memories"}, "folder sizes"),
    ({"command": "view", "path": "/memories/a"}, "folder sizes"),
    ({"command": "view", "path": "/memories/a/b/c"}, "folder sizes"),
    ({"command": "view", "path": "/memories/a/"}, "trailing slash"),
    ({"command": "view", "path": "/memories/blank.md/"}, "trailing slash"),
    ({"command": "str_replace", "path": NOTES, "old_str": "line two", "new_str": "line 2\n\n  indented"}, IDENTICAL),
    ({"command": "view", "path": NOTES}, IDENTICAL),
    ({"command": "str_replace", "path": "/memories/spaced.txt", "old_str": "   \n", "new_str": "\n"}, IDENTICAL),
    ({"command": "view", "path": "/memories/spaced.txt"}, IDENTICAL),
    ({"command": "str_replace", "path": "/memories/unicode.md", "old_str": "☕", "new_str": "🍵"}, IDENTICAL),
    ({"command": "str_replace", "path": NOTES, "old_str": "line", "new_str": "row"}, IDENTICAL),
    ({"command": "str_replace", "path": NOTES, "old_str": "absent", "new_str": "x"}, IDENTICAL),
    ({"command": "str_replace", "path": "/memories/missing.md", "old_str": "a", "new_str": "b"}, IDENTICAL),
    ({"command": "str_replace", "path": "/memories/a", "old_str": "a", "new_str": "b"}, IDENTICAL),
    ({"command": "insert", "path": NOTES, "insert_line": 0, "insert_text": "first\n"}, IDENTICAL),
    ({"command": "insert", "path": NOTES, "insert_line": 2, "insert_text": "  kept indent"}, IDENTICAL),
    ({"command": "insert", "path": "/memories/spaced.txt", "insert_line": 1, "insert_text": ""}, IDENTICAL),
    ({"command": "insert", "path": "/memories/a/top.md", "insert_line": 1, "insert_text": "appended"}, IDENTICAL),
    ({"command": "view", "path": NOTES}, IDENTICAL),
    ({"command": "view", "path": "/memories/spaced.txt"}, IDENTICAL),
    ({"command": "view", "path": "/memories/a/top.md"}, IDENTICAL),
    ({"command": "insert", "path": NOTES, "insert_line": 99, "insert_text": "x"}, IDENTICAL),
    ({"command": "insert", "path": NOTES, "insert_line": -1, "insert_text": "x"}, IDENTICAL),
    ({"command": "insert", "path": "/memories/missing.md", "insert_line": 0, "insert_text": "x"}, IDENTICAL),
    ({"command": "insert", "path": "/memories/a", "insert_line": 0, "insert_text": "x"}, IDENTICAL),
    ({"command": "create", "path": NOTES, "file_text": "again"}, IDENTICAL),
    ({"command": "create", "path": "/memories/a", "file_text": "a folder"}, IDENTICAL),
    ({"command": "create", "path": "/memories", "file_text": "the root"}, IDENTICAL),
    ({"command": "create", "path": "/memories/blank.md/below.md", "file_text": "x"}, "below a file"),
    ({"command": "view", "path": "/memories/notse.md"}, "suggestions"),
    ({"command": "view", "path": "/memories/../secrets"}, IDENTICAL),
    ({"command": "view", "path": "/etc/passwd"}, IDENTICAL),
    ({"command": "create", "path": "/memories/../../escape.md", "file_text": "x"}, IDENTICAL),
    ({"command": "rename", "old_path": NOTES, "new_path": "/memories/work/notes.md"}, IDENTICAL),
    ({"command": "view", "path": "/memories/work/notes.md", "view_range": [1, 2]}, IDENTICAL),
    ({"command": "rename", "old_path": "/memories/a", "new_path": "/memories/archive/a"}, IDENTICAL),
    ({"command": "view", "path": "/memories/archive"}, "folder sizes"),
    ({"command": "view", "path": "/memories/archive/a/b/c/deep.md"}, IDENTICAL),
    ({"command": "rename", "old_path": "/memories/missing.md", "new_path": "/memories/work/other.md"}, IDENTICAL),
    ({"command": "rename", "old_path": "/memories/blank.md", "new_path": "/memories/unicode.md"}, IDENTICAL),
    ({"command": "rename", "old_path": "/memories", "new_path": "/memories/x"}, IDENTICAL),
    ({"command": "rename", "old_path": "/memories/blank.md", "new_path": "/memories"}, IDENTICAL),
    ({"command": "rename", "old_path": "/memories/work", "new_path": "/memories/work/inside"}, "into itself"),
    ({"command": "rename", "old_path": "/memories/blank.md", "new_path": "/memories/../out.md"}, IDENTICAL),
    ({"command": "delete", "path": "/memories/archive/a/b/c/deep.md"}, IDENTICAL),
    ({"command": "view", "path": "/memories/archive"}, "empty folders"),
    ({"command": "view", "path": "/memories/archive/a/b/c"}, "empty folders"),
    ({"command": "delete", "path": "/memories/archive"}, IDENTICAL),
    ({"command": "delete", "path": "/memories/missing.md"}, IDENTICAL),
    ({"command": "delete", "path": "/memories"}, IDENTICAL),
    ({"command": "delete", "path": "/memories/../etc"}, IDENTICAL),
    ({"command": "view", "path": "/memories/archive/a/top.md"}, "suggestions"),
    ({"command": "view", "path": "/memories"}, "folder sizes"),
]


async def _answer(call: Callable[[dict[str, Any]], Any], command: dict[str, Any]) -> Answer:
    try:
        return ("ok", str(await call(command)))
    except ToolError as exc:
        return ("error", str(exc))
    except Exception as exc:  # the SDK lets some OS errors through
        return ("raised", type(exc).__name__)


def _folder_sizes_aside(text: str) -> str:
    """A listing with the sizes of its folders (the first line, lines ending in /) blanked."""
    lines = text.split("\n")
    out = [lines[0]]
    for i, line in enumerate(lines[1:]):
        _, _, path = line.partition("\t")
        out.append(f"?\t{path}" if i == 0 or path.endswith("/") else line)
    return "\n".join(out)


def _unslashed(text: str, path: str) -> str:
    """The SDK's answer for ``path`` as it reads with the path's trailing slash dropped."""
    return re.sub(re.escape(path) + r"(?=[/\s,]|$)", path.rstrip("/"), text)


def _differs_as(difference: str, ours: Answer, sdk: Answer, command: dict[str, Any]) -> bool:
    """True when ``ours`` differs from ``sdk`` exactly as the named difference says."""
    if difference == "trailing slash":
        unslashed = _unslashed(sdk[1], command["path"])
        return ours[0] == sdk[0] == "ok" and _folder_sizes_aside(ours[1]) == _folder_sizes_aside(unslashed)
    if difference == "folder sizes":
        return ours[0] == sdk[0] == "ok" and _folder_sizes_aside(ours[1]) == _folder_sizes_aside(sdk[1])
    if difference == "suggestions":
        return ours[0] == sdk[0] == "error" and ours[1].startswith(sdk[1] + " The closest existing files: /memories/")
    if difference == "empty folders":  # the SDK's listing has folders no file is in, and only those more
        if ours[0] == "error":  # the folder itself is empty: gone here
            missing = f"The path {command['path']} does not exist. Please provide a valid path."
            below = sdk[1].split("\n")[2:] if sdk[0] == "ok" else ["not a listing"]
            return ours[1].startswith(missing) and all(line.endswith("/") for line in below)
        mine, theirs = _folder_sizes_aside(ours[1]).split("\n"), _folder_sizes_aside(sdk[1]).split("\n")
        extra = [line for line in theirs if line not in mine]
        return sdk[0] == "ok" and set(mine) <= set(theirs) and bool(extra) and all(e.endswith("/") for e in extra)
    if difference == "below a file":
        return ours == ("error", "The path /memories/blank.md is a file, not a directory") and sdk[0] == "raised"
    if difference == "into itself":
        return ours == ("error", "Cannot move /memories/work into itself") and sdk[0] == "raised"
    raise AssertionError(f"not a listed difference: {difference}")


def listed_differences() -> set[str]:
    """The differences the guide lists, by their bold name."""
    section = GUIDE.read_text(encoding="utf-8").split("## Where the answers differ", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^- \*\*([^*]+)\*\*", section, re.M))


def test_every_difference_the_script_allows_is_listed_in_the_guide() -> None:
    allowed = {difference for _, difference in SCRIPT} - {IDENTICAL}
    assert allowed == listed_differences()
    commands = {command["command"] for command, _ in SCRIPT}
    assert commands == {"view", "create", "str_replace", "insert", "delete", "rename"}


@pytest.fixture
def sdk_tool(tmp_path: Path) -> BetaAsyncLocalFilesystemMemoryTool:
    return BetaAsyncLocalFilesystemMemoryTool(str(tmp_path / "sdk"))


async def test_the_same_script_gets_the_same_answers_as_the_sdk_file_system(
    memory: Memory, tenant: Scope, sdk_tool: BetaAsyncLocalFilesystemMemoryTool, tmp_path: Path
) -> None:
    ours = ClaudeMemoryTool(memory, tenant)
    table: list[str] = []
    mismatches: list[str] = []
    for i, (command, difference) in enumerate(SCRIPT, start=1):
        mine, theirs = await _answer(ours.call, command), await _answer(sdk_tool.call, command)
        args = {k: v for k, v in command.items() if k != "command"}
        row = f"{i:2} {command['command']:<11} {str(args)[:70]:<70}"
        if mine == theirs:
            table.append(f"{row} identical")
            if difference != IDENTICAL:
                mismatches.append(f"{row}: identical, but listed as '{difference}' (drop the allowance)")
        elif difference != IDENTICAL and _differs_as(difference, mine, theirs, command):
            table.append(f"{row} listed difference: {difference}")
        else:
            mismatches.append(f"{row}\n  hippograph: {mine!r}\n  SDK:        {theirs!r}")
    print("\n".join(table))  # the differential table, shown with -s
    assert not mismatches, "\n".join(mismatches)

    # the files themselves, byte for byte: every current file's text is the SDK file's text
    root = tmp_path / "sdk" / "memories"
    on_disk = {"/memories/" + p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    facts = await internals(memory).semantic.query_facts(
        tenant, label_prefix="/memories", include_superseded=False, limit=None
    )
    stored = {f.key: f.content.encode("utf-8") for f in facts if not f.retracted and f.key is not None}
    assert stored == on_disk
    assert stored["/memories/blank.md"] == b"\n" and stored["/memories/spaced.txt"].startswith(b"  two leading")
    assert "café 🍵 naïve".encode() in stored["/memories/unicode.md"] and b"\r\nCRLF" in stored["/memories/unicode.md"]
    await internals(memory).engine.drain()
