"""The code blocks of the pages a user reads (README.md, docs/guides/*.md), and how each is run.

Every fenced block is one of:

- marked, on the line right before its fence, ``<!-- not run: <why> -->`` (it needs an API key,
  starts a long-running server, is a diagram or a command's output …);
- marked ``<!-- run by tests/<path>.py -->``: that test runs it (and names the page);
- a ``python``/``py`` block that runs itself (``asyncio.run(...)``): a complete example, run as a
  script by tests/integration/test_readme_examples.py;
- any other ``python``/``py`` block: a fragment, run by the same test in its page's session
  (the page's fragments in order, one namespace, top-level ``await`` allowed) with the names the
  pages take as given (``memory``, ``scope``, ``store``, ``model`` …);
- a ``bash`` block: its ``hippograph`` command lines run by the same test against the test Neo4j;
- a ``graphql`` block: run against the API by tests/e2e/api/test_api_docs_examples.py.

tests/unit/test_pages_run.py checks that no block is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs" / "guides").glob("*.md"))]
_FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
_MARKER = re.compile(r"<!--\s*(not run|run by)\s*:?\s*(.*?)\s*-->\s*\Z", re.S)
PYTHON = ("python", "py")


@dataclass(frozen=True)
class Block:
    """One fenced block of a page."""

    page: str  # relative to the repository root
    number: int  # 1-based, among the page's blocks
    language: str
    code: str
    marker: tuple[str, str] | None  # ("not run", why) or ("run by", test path)

    @property
    def where(self) -> str:
        return f"{self.page}#{self.number}"

    @property
    def complete(self) -> bool:
        """A python example that runs itself."""
        return self.language in PYTHON and "asyncio.run(" in self.code


def blocks(pages: list[Path] | None = None) -> list[Block]:
    found = []
    for page in pages or PAGES:
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
        for number, match in enumerate(_FENCE.finditer(text), start=1):
            before = text[: match.start()].rstrip("\n")
            last = before.rsplit("\n", 1)[-1] if before else ""
            marker = _MARKER.search(last)
            found.append(
                Block(
                    name,
                    number,
                    match.group(1),
                    match.group(2),
                    (marker.group(1), marker.group(2)) if marker else None,
                )
            )
    return found


def unmarked(*languages: str) -> list[Block]:
    """The blocks of these languages that no marker takes out of the runners' hands."""
    return [b for b in blocks() if b.language in languages and b.marker is None]
