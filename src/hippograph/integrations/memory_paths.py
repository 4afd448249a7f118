"""The paths of Claude's memory tool: everything lives under ``/memories``.

:func:`memory_path` turns the path a model sent into its one canonical spelling (the subject
key the file is stored under) or refuses it. Refused: anything outside ``/memories``, ``.`` and
``..`` segments, empty segments, backslashes, control characters, percent-encoded characters
and Unicode spellings that normalise (NFKC) to any of these — a model may be steered by what it
read, so a path is treated as hostile input.
"""

from __future__ import annotations

import unicodedata
from urllib.parse import unquote

from hippograph.errors import InvalidInputError
from hippograph.models import MAX_LABEL

__all__ = ["ROOT", "PathRefusedError", "memory_path", "parent_paths"]

ROOT = "/memories"


class PathRefusedError(InvalidInputError):
    """A path the memory tool refuses; ``reason`` is the message the model reads."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__("path", reason)


def memory_path(path: object) -> str:
    """The canonical form of ``path``: ``/memories`` or ``/memories/<segment>/…`` without a
    trailing slash.

    Raises:
        PathRefusedError: The path is not one of the memory directory's.
    """
    if not isinstance(path, str):
        raise PathRefusedError(f"Path must be a string, got: {type(path).__name__}")
    if len(path) > MAX_LABEL:
        raise PathRefusedError(f"Path is longer than {MAX_LABEL} characters")
    if path != ROOT and not path.startswith(ROOT + "/"):
        raise PathRefusedError(f"Path must start with {ROOT}, got: {path}")
    escape = PathRefusedError(f"Path {path} would escape {ROOT} directory")
    if any(ord(c) < 32 or ord(c) == 127 or c == "\\" for c in path) or unquote(path) != path:
        raise escape
    parts = _segments(path[len(ROOT) :])
    if any(p in ("", ".", "..") or "\\" in p for p in (*parts, *_segments(unicodedata.normalize("NFKC", path)))):
        raise escape
    return "/".join([ROOT, *parts])


def _segments(body: str) -> list[str]:
    """The segments of what follows ``/memories`` (one leading and one trailing slash allowed)."""
    body = body.removeprefix("/")
    body = body.removesuffix("/") if body != "" else body
    return body.split("/") if body else []


def parent_paths(path: str) -> list[str]:
    """The directories above canonical ``path`` inside ``/memories``, nearest last (root excluded)."""
    parts = path[len(ROOT) + 1 :].split("/")[:-1] if path != ROOT else []
    return ["/".join([ROOT, *parts[: i + 1]]) for i in range(len(parts))]
