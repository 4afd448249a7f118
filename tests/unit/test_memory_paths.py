"""The paths Claude's memory tool accepts: one canonical spelling under /memories, and every
way out refused (traversal, other roots, encodings, look-alike Unicode, control characters)."""

from __future__ import annotations

import pytest

from hippograph.integrations.claude_memory import _listing
from hippograph.integrations.memory_paths import PathRefusedError, memory_path, parent_paths


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("/memories", "/memories"),
        ("/memories/", "/memories"),
        ("/memories/notes.md", "/memories/notes.md"),
        ("/memories/prefs/", "/memories/prefs"),
        ("/memories/.hidden", "/memories/.hidden"),
        ("/memories/a..b/c...d", "/memories/a..b/c...d"),
        ("/memories/café/naïve.md", "/memories/café/naïve.md"),
    ],
)
def test_canonical_paths(raw: str, canonical: str) -> None:
    assert memory_path(raw) == canonical


@pytest.mark.parametrize(
    "raw",
    [
        "/memories/..",
        "/memories/../etc/passwd",
        "/memories/a/../../b",
        "/memories/./a",
        "/memories//a",
        "/memories/a//b",
        "/memories/%2e%2e/etc",
        "/memories/%252e%252e/etc",
        "/memories/a%2fb",
        "/memories/..\\etc",
        "/memories/a\\b",
        "/memories/\uff0e\uff0e/etc",  # fullwidth full stops: NFKC makes them ".."
        "/memories/a\uff0f..\uff0fb",  # fullwidth solidus around ".."
        "/memories/\u2024\u2024/x",  # one-dot leaders
        "/memories/a\x00b",
        "/memories/a\nb",
    ],
)
def test_escapes_are_refused(raw: str) -> None:
    with pytest.raises(PathRefusedError, match="would escape /memories directory") as refused:
        memory_path(raw)
    assert refused.value.reason == f"Path {raw} would escape /memories directory"


@pytest.mark.parametrize("raw", ["/etc/passwd", "memories/a", "/memoriesX/a", "/Memories/a", "", "~/memories"])
def test_other_roots_are_refused(raw: str) -> None:
    with pytest.raises(PathRefusedError, match="Path must start with /memories"):
        memory_path(raw)


def test_long_and_non_string_paths_are_refused() -> None:
    with pytest.raises(PathRefusedError, match="longer than"):
        memory_path("/memories/" + "a" * 400)
    with pytest.raises(PathRefusedError, match="must be a string"):
        memory_path(None)


def test_parent_paths() -> None:
    assert parent_paths("/memories/a/b/c.md") == ["/memories/a", "/memories/a/b"]
    assert parent_paths("/memories/c.md") == []
    assert parent_paths("/memories") == []


def test_listing_goes_two_levels_deep_and_hides_dot_names() -> None:
    sizes = {
        "/memories/a/b/c/deep.md": 2048,
        "/memories/a/top.md": 512,
        "/memories/.secret/x.md": 7,
        "/memories/z.md": 0,
    }
    assert _listing("/memories", sizes) == [
        "2.5K\t/memories",
        "2.5K\t/memories/a/",
        "2K\t/memories/a/b/",
        "512B\t/memories/a/top.md",
        "0B\t/memories/z.md",
    ]
