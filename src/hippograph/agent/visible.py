"""Keep the memory-ops block out of the streamed reply while it streams.

The model ends its reply with ``<MEMORY_EXTRACT>…</MEMORY_EXTRACT>`` (or a loose
``<GRAPH_OPERATIONS>``, or a trailing ```` ```json ```` fence of ops). Text deltas pass
through :class:`VisibleTextFilter`, which emits text as soon as it cannot be part of such a
block: a possible tag prefix at the end of a chunk is held back until the next chunk decides,
a block is swallowed up to its closing tag, and a ```` ```json ```` fence is held until it
closes, then dropped if it holds memory ops and released otherwise. Leading and trailing
whitespace is held back too, so the streamed text matches the final reply (which extraction
strips) in the usual case of a block at the end.

The final reply of a turn is always the one :func:`extract_memory_ops` returns; a bare
``{"ops": …}`` object without tags or fence is only removed there.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from hippograph.ops import OP_NAMES

_OPEN = re.compile(r"<(MEMORY_EXTRACT|GRAPH_OPERATIONS)>", re.I)
_CLOSE = re.compile(r"</(MEMORY_EXTRACT|GRAPH_OPERATIONS)>", re.I)
_FENCE_OPEN = re.compile(r"```json", re.I)
_FENCE = "```"
_OPEN_MARKERS = ("<MEMORY_EXTRACT>", "<GRAPH_OPERATIONS>", "```json")
_CLOSE_MARKERS = ("</MEMORY_EXTRACT>", "</GRAPH_OPERATIONS>")


class VisibleTextFilter:
    """Feed raw text deltas; get back the text the user may see now."""

    def __init__(self) -> None:
        self._buf = ""
        self._mode: Literal["text", "block", "fence"] = "text"
        self._started = False
        self._held_space = ""

    def feed(self, chunk: str) -> str:
        """Add a chunk; return the visible text it releases (possibly empty)."""
        self._buf += chunk
        out: list[str] = []
        while True:
            if self._mode == "block":
                close = _CLOSE.search(self._buf)
                if close is None:
                    keep = _partial_suffix(self._buf, _CLOSE_MARKERS)
                    self._buf = self._buf[len(self._buf) - keep :] if keep else ""
                    break
                self._buf = self._buf[close.end() :]
                self._mode = "text"
                continue
            if self._mode == "fence":
                end = self._buf.find(_FENCE, len("```json"))
                if end < 0:
                    break
                fence, self._buf = self._buf[: end + len(_FENCE)], self._buf[end + len(_FENCE) :]
                if not _holds_ops(fence[len("```json") : end]):
                    out.append(fence)
                self._mode = "text"
                continue
            tag, fence_open = _OPEN.search(self._buf), _FENCE_OPEN.search(self._buf)
            first = min(
                (m for m in (tag, fence_open) if m is not None),
                key=lambda m: m.start(),
                default=None,
            )
            if first is None:
                keep = _partial_suffix(self._buf, _OPEN_MARKERS)
                cut = len(self._buf) - keep
                out.append(self._buf[:cut])
                self._buf = self._buf[cut:]
                break
            out.append(self._buf[: first.start()])
            if first is tag:
                self._buf = self._buf[first.end() :]
                self._mode = "block"
            else:
                self._buf = self._buf[first.start() :]
                self._mode = "fence"
        return self._shape("".join(out))

    def flush(self) -> str:
        """The end of the reply: release what is still held if it is not a block."""
        rest, self._buf = self._buf, ""
        if self._mode == "block":
            return ""
        if self._mode == "fence" and _holds_ops(rest[len("```json") :].rstrip("`")):
            return ""
        return self._shape(rest).rstrip() if rest.strip() else ""

    def _shape(self, text: str) -> str:
        if not text:
            return ""
        if not self._started:
            text = text.lstrip()
            if not text:
                return ""
            self._started = True
        text = self._held_space + text
        body = text.rstrip()
        self._held_space = text[len(body) :]
        return body


def _partial_suffix(text: str, markers: tuple[str, ...]) -> int:
    """Length of the longest end of ``text`` that begins one of ``markers`` (any case)."""
    longest = min(len(text), max(len(m) for m in markers) - 1)
    for k in range(longest, 0, -1):
        tail = text[-k:].casefold()
        if any(m[:k].casefold() == tail for m in markers):
            return k
    return 0


def _holds_ops(body: str) -> bool:
    try:
        payload: Any = json.loads(body)
    except (ValueError, RecursionError):
        return False
    if isinstance(payload, dict):
        return isinstance(payload.get("ops"), list) or payload.get("op") in OP_NAMES
    if isinstance(payload, list) and payload:
        return all(isinstance(i, dict) and i.get("op") in OP_NAMES for i in payload)
    return False
