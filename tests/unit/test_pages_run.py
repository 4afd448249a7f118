"""Every code block of README.md and docs/guides/*.md runs in the suite or says, in its page,
why it cannot (tests/support/pages.py lists which test runs what)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.pages import PYTHON, ROOT, Block, blocks

RUNNERS = {
    **dict.fromkeys(PYTHON, "tests/integration/test_readme_examples.py"),
    "bash": "tests/integration/test_readme_examples.py",
    "graphql": "tests/e2e/api/test_api_docs_examples.py",
}
"""The languages some test runs every unmarked block of, and that test."""

BLOCKS = blocks()


def test_the_pages_have_blocks_of_every_kind() -> None:
    assert {b.page for b in BLOCKS} >= {"README.md", "docs/guides/library.md", "docs/guides/api.md"}
    assert {b.language for b in BLOCKS} >= {"python", "bash", "graphql"}
    assert any(b.marker is None for b in BLOCKS) and any(b.marker for b in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=[b.where for b in BLOCKS])
def test_each_block_runs_or_says_why_not(block: Block) -> None:
    if block.marker is None:
        assert block.language in RUNNERS, (
            f"{block.where}: no test runs a {block.language or 'plain'} block; run it, or mark it "
            "<!-- not run: why --> on the line before its fence"
        )
        assert (ROOT / RUNNERS[block.language]).is_file()
        return
    kind, detail = block.marker
    if kind == "not run":
        assert len(detail.split()) >= 2, f"{block.where}: say why it cannot run"
        return
    runner = ROOT / detail
    assert runner.is_file(), f"{block.where}: {detail} is not a test of the suite"
    assert block.page.rsplit("/", 1)[-1] in runner.read_text(encoding="utf-8"), (
        f"{block.where}: {detail} does not read {block.page}"
    )


def test_a_marker_counts_only_on_the_line_before_its_fence(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- not run: needs an API key -->\n```python\nx = 1\n```\n\n"
        "<!-- not run: a diagram -->\nA paragraph in between.\n```mermaid\nflowchart TD\n```\n\n"
        "<!-- run by tests/integration/test_pytest_plugin.py -->\n\n```python\ny = 2\n```\n"
    )
    found = blocks([page])
    assert [(b.number, b.language, b.marker) for b in found] == [
        (1, "python", ("not run", "needs an API key")),
        (2, "mermaid", None),
        (3, "python", ("run by", "tests/integration/test_pytest_plugin.py")),
    ]
