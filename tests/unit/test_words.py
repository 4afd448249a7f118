"""What a user reads speaks of the product, never of how the project was made.

README.md, CHANGELOG.md, every page under docs/ and every string and comment of src/ (the
docstrings, the CLI's help, the messages) are checked for issue numbers, work sessions, dated
runs, "the reference" system the project was once compared with, paths outside the
repository, scratch work and the helpers that built it. The patterns are narrow on purpose: a
user's chat *session*, an *API reference*, a code *helper* and a timestamp in an example are
product words and pass (the cases below pin both sides).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

_ORDINAL = r"(?:third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))"
PATTERNS: dict[str, re.Pattern[str]] = {
    "an issue number": re.compile(r"\bissues?\s+#?\d+|(?<![\w&/])#\d{2,}\b|\b(?:PR|pull request)\s*#?\d+", re.I),
    "a work session": re.compile(
        rf"\bsession\s+\d+\b|\b{_ORDINAL}\s+sessions?\b|\b(?:since|during|of|from)\s+this\s+session\b"
        r"|\bthis\s+session's|\b(?:last|earlier|previous)\s+sessions?(?:'s|')",
        re.I,
    ),
    "a dated run": re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b(?!T)"),
    "the reference system": re.compile(
        r"\bthe\s+reference(?:'s)?\b(?!\s+(?:page|pages|section|docs|documentation|guide|below|above)\b)"
        r"|\breference(?:'s)?\s*§|\(reference\b(?![/.])|\breference\s+(?:system|implementation|defaults?|weights?)\b"
        r"|reference/seeds|\bre-?implementation\s+of\b",
        re.I,
    ),
    "a path outside the repository": re.compile(r"\.\./shared\b|\bshared/(?:data|reference)\b|/work/"),
    "scratch work": re.compile(r"(?<!from )(?<![A-Za-z])scratch", re.I),
    "the project's helpers": re.compile(
        r"\bhelpers?\b(?=[^.\n]{0,60}\b(?:sessions?|agents?|worktrees?|briefs?|merger)\b)|\bworktrees?\b|\bthe merger\b"
        r"|`h/[a-z-]+`",
        re.I,
    ),
}


def findings(text: str) -> list[str]:
    """What in ``text`` speaks of how the project was made: ``["a dated run: '2026-12-01'", …]``."""
    return [f"{what}: {m.group(0)!r}" for what, pattern in PATTERNS.items() for m in pattern.finditer(text)]


@pytest.mark.parametrize(
    "text",
    [
        "Before issue 9, N walked N + 1 hops.",
        "fixed in #24",
        "Measured on LoCoMo dev (issue 14, session 4)",
        "the fourth session's table",
        "Since this session, its pairs go to the client",
        "the price of this session's fix",
        "earlier sessions' tables are in the history",
        "Last session's run (load average 27)",
        "measured 2026-12-01 on a quiet machine",
        "with the reference's weights",
        "as in the reference",
        "Spreading activation (reference §5)",
        "(reference: 0.4 / 0.2 / 0.2 / 0.2)",
        "the reference system's defaults",
        "A re-implementation of the memory system",
        "the seeds in `../shared/reference/seeds/`",
        "every command is in `benchmarks/notes/table_scratch/run_table.sh`",
        "scratch probes",
        "another helper's session wrote it",
        "run it in your worktree",
        "measured on `h/assoc`",
    ],
)
def test_the_check_catches_words_about_how_the_project_was_made(text: str) -> None:
    assert findings(text), text


@pytest.mark.parametrize(
    "text",
    [
        "agent turns that learn in one session and answer in the next",
        "recall across sessions with every item explained",
        "Turns run or resumed in this session.",
        "what the user said in earlier sessions",
        "The API reference documents every name.",
        "see the reference page for the CLI",
        "[Python API](reference/python.md)",
        "References from outside the subtree are removed.",
        "Small helpers shared by the resolvers.",
        "found by meaning (vector index) #1 and words (full-text index) #3",
        '{"op": "snooze_trigger", "until": "2026-12-03T09:00"}',
        "rebuilt from scratch",
        "its release routine repeated in three sessions",
    ],
)
def test_the_check_lets_product_words_pass(text: str) -> None:
    assert not findings(text), findings(text)


def _prose() -> list[Path]:
    return [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _python_texts(path: Path) -> Iterator[tuple[int, str]]:
    """Every string constant (docstrings, help, messages) and every comment, with its line."""
    source = path.read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string


def test_the_readme_docs_and_changelog_speak_of_the_product() -> None:
    found = [
        f"{page.relative_to(ROOT)}:{number}: {finding}"
        for page in _prose()
        if page.exists()
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), start=1)
        for finding in findings(line)
    ]
    assert not found, "\n".join(found)


def test_the_docstrings_help_and_comments_of_src_speak_of_the_product() -> None:
    files = sorted((ROOT / "src").rglob("*.py"))
    assert len(files) > 50
    found = [
        f"{path.relative_to(ROOT)}:{number}: {finding}"
        for path in files
        for number, text in _python_texts(path)
        for finding in findings(text)
    ]
    assert not found, "\n".join(found)
