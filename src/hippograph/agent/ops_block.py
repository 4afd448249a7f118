"""Find the model's memory-ops block in a reply, strip it, and validate every op.

Four strategies, tried in order; the first that finds a block wins:

1. ``<MEMORY_EXTRACT>{"ops": [...]}</MEMORY_EXTRACT>`` blocks (all of them);
2. a loose ``<GRAPH_OPERATIONS>`` (or an unclosed ``<MEMORY_EXTRACT>``) without closing tag;
3. a trailing ```` ```json ```` fence whose JSON is a memory-ops payload;
4. the last bare ``{"ops": [...]}`` object, scanning backwards.

Payloads may be ``{"ops": [...]}``, a list of ops, or a single op. Invalid ops are
reported as ``(index, reason)`` and skipped. :func:`extract_memory_ops` never raises.

The extraction stage of a turn (:func:`settle_ops`) settles the ops to apply from the checked
reply's block (the block is always stripped from what the user sees) and reports them as a
``MemoryExtracted`` event. Ops of a refused draft are not applied; with extraction off none are.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from hippograph.agent.events import MemoryExtracted
from hippograph.agent.ops_block_result import ExtractionResult, ExtractionStrategy, InvalidOp
from hippograph.agent.stages import Stage
from hippograph.ops import MEMORY_OP_ADAPTER, OP_NAMES, MemoryOp

if TYPE_CHECKING:
    from hippograph.agent.observability import StageClock

log = logging.getLogger(__name__)

MAX_OPS = 50
MAX_BACKWARD_ATTEMPTS = 256
MAX_SCAN_CHARS = 200_000

_XML_BLOCK = re.compile(r"<MEMORY_EXTRACT>(.*?)</MEMORY_EXTRACT>", re.S | re.I)
_LOOSE_OPEN = re.compile(r"<(GRAPH_OPERATIONS|MEMORY_EXTRACT)>", re.I)
_LOOSE_CLOSE = re.compile(r"\s*</(GRAPH_OPERATIONS|MEMORY_EXTRACT)>", re.I)
_FENCE_OPEN = re.compile(r"\s*```(?:json)?[^\S\n]*\n?", re.I)
_FENCE_CLOSE = re.compile(r"\s*```", re.I)
_FENCE_START = re.compile(r"```json", re.I)
_TRAILING_FENCE = re.compile(r"```json[^\S\n]*\n?(.*?)```\s*", re.S | re.I)
_BLANK_LINES = re.compile(r"\n{3,}")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class _Found:
    strategy: ExtractionStrategy
    spans: list[tuple[int, int]]
    payloads: list[Any]
    error: str | None = None


class _BadJson(Exception):
    pass


def extract_memory_ops(text: str, *, max_ops: int = MAX_OPS) -> ExtractionResult:
    """Extract, strip and validate the memory-ops block of a model reply.

    Args:
        text: The model's full reply.
        max_ops: Ops beyond this many are reported invalid and skipped.

    Returns:
        The stripped reply, the valid ops, the invalid ones, the strategy and a reason.
        Never raises: malformed input gives no ops and a reason.
    """
    if not isinstance(text, str):
        return ExtractionResult(reply="", reason="reply is not text")
    try:
        return _extract(text, max_ops)
    except Exception as err:  # a parser bug must never break the turn
        log.exception("memory extraction failed")
        return ExtractionResult(reply=text, reason=f"extraction failed: {type(err).__name__}")


def _extract(text: str, max_ops: int) -> ExtractionResult:
    found = _find_xml(text) or _find_loose(text) or _find_fence(text) or _find_bare(text)
    if found is None:
        return ExtractionResult(reply=text, reason="no memory block found")
    reply = _strip(text, found.spans)
    if found.error is not None:
        return ExtractionResult(reply=reply, strategy=found.strategy, reason=found.error)
    items: list[Any] = []
    for payload in found.payloads:
        ops = _ops_of(payload)
        if ops is None:
            missing = f"{found.strategy} payload has no 'ops' list"
            return ExtractionResult(reply=reply, strategy=found.strategy, reason=missing)
        items.extend(ops)
    ops_valid, invalid = _validate(items, max_ops)
    reason: str | None = None
    if not ops_valid:
        reason = "the block holds no ops" if not items else f"all {len(items)} ops are invalid"
    return ExtractionResult(reply=reply, ops=ops_valid, invalid=invalid, strategy=found.strategy, reason=reason)


def _find_xml(text: str) -> _Found | None:
    matches = list(_XML_BLOCK.finditer(text))
    if not matches:
        return None
    strategy = ExtractionStrategy.MEMORY_EXTRACT
    spans = [m.span() for m in matches]
    try:
        payloads = [_decode_block(m.group(1)) for m in matches]
    except _BadJson as err:
        return _Found(strategy, spans, [], f"{strategy} block is not valid JSON: {err}")
    return _Found(strategy, spans, payloads)


def _find_loose(text: str) -> _Found | None:
    opening = _LOOSE_OPEN.search(text)
    if opening is None:
        return None
    strategy = ExtractionStrategy.GRAPH_OPERATIONS
    start = opening.end()
    fence = _FENCE_OPEN.match(text, start)
    start = fence.end() if fence is not None and "```" in fence.group(0) else _skip_space(text, start)
    try:
        payload, end = _raw_decode(text, start)
    except _BadJson as err:
        reason = f"{strategy} block is not valid JSON: {err}"
        return _Found(strategy, [(opening.start(), len(text))], [], reason)
    for closer in (_FENCE_CLOSE, _LOOSE_CLOSE):
        tail = closer.match(text, end)
        if tail is not None:
            end = tail.end()
    return _Found(strategy, [(opening.start(), end)], [payload])


def _find_fence(text: str) -> _Found | None:
    starts = [m.start() for m in _FENCE_START.finditer(text)]
    if not starts:
        return None
    start = starts[-1]
    match = _TRAILING_FENCE.fullmatch(text, start)
    if match is None or "```" in match.group(1):
        return None
    try:
        payload = _loads(match.group(1))
    except _BadJson:
        return None
    if not _looks_like_ops(payload):
        return None
    return _Found(ExtractionStrategy.JSON_FENCE, [(start, len(text))], [payload])


def _find_bare(text: str) -> _Found | None:
    floor = max(0, len(text) - MAX_SCAN_CHARS)
    position = len(text)
    for _ in range(MAX_BACKWARD_ATTEMPTS):
        position = text.rfind("{", floor, position)
        if position < 0:
            return None
        try:
            payload, end = _raw_decode(text, position)
        except _BadJson:
            continue
        if isinstance(payload, dict) and isinstance(payload.get("ops"), list):
            return _Found(ExtractionStrategy.BARE_JSON, [(position, end)], [payload])
    return None


def _decode_block(body: str) -> Any:
    inner = body.strip()
    fence = _FENCE_OPEN.match(inner)
    if fence is not None and "```" in fence.group(0):
        inner = inner[fence.end() :]
        if inner.rstrip().endswith("```"):
            inner = inner.rstrip()[:-3]
    return _loads(inner)


def _loads(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as err:
        raise _BadJson(f"{err.msg} at line {err.lineno} column {err.colno}") from None
    except (ValueError, RecursionError) as err:
        raise _BadJson(type(err).__name__) from None


def _raw_decode(text: str, start: int) -> tuple[Any, int]:
    try:
        return _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as err:
        raise _BadJson(f"{err.msg} at line {err.lineno} column {err.colno}") from None
    except (ValueError, RecursionError) as err:
        raise _BadJson(type(err).__name__) from None


def _skip_space(text: str, index: int) -> int:
    while index < len(text) and text[index].isspace():
        index += 1
    return index


def _ops_of(payload: Any) -> list[Any] | None:
    if isinstance(payload, list):
        return payload
    if isinstance(payload, dict):
        ops = payload.get("ops")
        if isinstance(ops, list):
            return ops
        if "op" in payload:
            return [payload]
    return None


def _looks_like_ops(payload: Any) -> bool:
    if isinstance(payload, dict):
        return isinstance(payload.get("ops"), list) or payload.get("op") in OP_NAMES
    if isinstance(payload, list) and payload:
        return all(isinstance(item, dict) and item.get("op") in OP_NAMES for item in payload)
    return False


def _validate(items: list[Any], max_ops: int) -> tuple[list[MemoryOp], list[InvalidOp]]:
    ops: list[MemoryOp] = []
    invalid: list[InvalidOp] = []
    for index, item in enumerate(items):
        if index >= max_ops:
            extra = len(items) - max_ops
            invalid.append(InvalidOp(index, f"{extra} ops beyond the limit of {max_ops} ignored"))
            break
        reason = _check(item)
        if reason is None:
            try:
                ops.append(MEMORY_OP_ADAPTER.validate_python(item))
                continue
            except ValidationError as err:
                reason = _summarize(err)
            except (ValueError, RecursionError) as err:
                reason = f"cannot be validated: {type(err).__name__}"
        invalid.append(InvalidOp(index, reason))
    for bad in invalid:
        log.warning("memory op %d skipped: %s", bad.index, bad.reason)
    return ops, invalid


def _check(item: Any) -> str | None:
    if not isinstance(item, dict):
        return f"expected an object, got {type(item).__name__}"
    op = item.get("op")
    if not isinstance(op, str):
        return "missing 'op'"
    if op not in OP_NAMES:
        return f"unknown op {op[:40]!r}; expected one of {', '.join(OP_NAMES)}"
    return None


def _summarize(err: ValidationError) -> str:
    parts = []
    for detail in err.errors(include_url=False, include_input=False)[:3]:
        location = ".".join(str(p) for p in detail["loc"][1:]) or "op"
        parts.append(f"{location}: {detail['msg']}")
    more = err.error_count() - len(parts)
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


def _strip(text: str, spans: list[tuple[int, int]]) -> str:
    pieces: list[str] = []
    cursor = 0
    for start, end in sorted(spans):
        pieces.append(text[cursor:start])
        cursor = max(cursor, end)
    pieces.append(text[cursor:])
    return _BLANK_LINES.sub("\n\n", "".join(pieces)).strip()


REFUSED_REASON = "the draft was refused by the fabrication check; its ops were not applied"


def parse_reply(raw_texts: Sequence[str], *, max_ops: int, clock: StageClock) -> ExtractionResult:
    """The memory ops of a turn's model replies (every call's text), timed as extraction."""
    with clock.time(Stage.EXTRACTION):
        text = "\n\n".join(text.strip() for text in raw_texts if text.strip())
        return extract_memory_ops(text, max_ops=max_ops)


@dataclass(frozen=True)
class Settled:
    """The extraction stage's output: the ops to apply, and the event reporting them (None
    with extraction off)."""

    ops: list[MemoryOp]
    event: MemoryExtracted | None


def settle_ops(result: ExtractionResult, *, enabled: bool, refused: bool) -> Settled:
    """The extraction stage: the ops to apply (none of a refused draft, none when off)."""
    if not enabled:
        return Settled([], None)
    event = MemoryExtracted.from_result(result)
    if refused:
        return Settled([], event.model_copy(update={"ops": [], "reason": REFUSED_REASON}))
    return Settled(list(result.ops), event)
