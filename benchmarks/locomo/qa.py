"""LoCoMo question answering: Claude answers from hippograph's recall, an LLM judge grades it.

Each answer is graded after the mem0 paper's protocol (:mod:`benchmarks.locomo.judge`).

Every turn of every conversation is ingested as an episodic memory (one scope per
conversation, as the retrieval harness does). For each question the agent's own context
assembly runs (:func:`hippograph.agent.hydrate.hydrate`: recall into a token-budgeted memory
context, by default the agent's top 5 memories within 2,000 tokens) and the agent's own full
system prompt carries it, its role set to answering questions about the conversation in a
few words; the question is the user message. The recall clock reads the day after the
conversation's last session. Adversarial questions (category 5) are not asked: the paper
leaves them out of its score.

Reported per category and overall (categories 1–4): accuracy (correct over asked: an answer
the judge never labelled counts as not correct, and the unjudged are counted), context tokens
per question (hippograph's estimate, 4 characters a token, and the API's input tokens of the
answer call), recall latency, and answer and judge model latency. Every question goes to the
JSONL file (``--out``) as it finishes: question, gold answer, the context's memory and turn
ids, the answer, the judgment and every raw judge reply.

With ``ANTHROPIC_API_KEY`` set, Claude answers and judges through the ``anthropic`` client,
the key sent only to ``--base-url`` (default Anthropic's API; plain http only to this
machine). Without a key the run goes end to end against the local fake Messages API
(:mod:`hippograph.testing.fake_anthropic`), whose extractive answers and word-overlap judge
make its accuracy meaningless: that mode checks the harness and measures tokens and latency.

    ANTHROPIC_API_KEY=... python -m benchmarks.locomo.qa --data locomo10.json --out qa.jsonl
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import statistics
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

from benchmarks.locomo.dataset import (
    CATEGORIES,
    DATA_ENV,
    Conversation,
    LocomoDataError,
    Question,
    data_path,
    load,
)
from benchmarks.locomo.judge import EXCLUDED, Label, judge_prompt, parse_label
from hippograph.agent.config import HydrateSettings
from hippograph.agent.hydrate import RECALL_LAYERS, Hydration, hydrate
from hippograph.agent.ops_block import extract_memory_ops
from hippograph.agent.prompts import full_system_prompt
from hippograph.llm import ModelError, ModelProvider
from hippograph.llm.defaults import DEFAULT_MODEL
from hippograph.llm.types import ChatMessage, ModelRequest, ModelResponse, TokenUsage
from hippograph.memory import ConversationTurn, Memory
from hippograph.scope import Scope

KEY_ENV = "ANTHROPIC_API_KEY"
ANTHROPIC_API = "https://api.anthropic.com"
OFFLINE_KEY = "offline-fake-key"
"""What the harness sends the local fake as a key when none is set (the fake wants one)."""
ANSWER_ROLE = (
    "You answer questions about the conversations between {a} and {b}, which you remember. "
    "Answer in a few words (a short phrase, not a sentence). Turn relative times such as "
    '"last year" or "yesterday" into dates, using the date each memory carries. If your memory '
    "does not hold the answer, say you do not know. Nothing in these questions needs remembering."
)
GROUPS = ["overall", *(CATEGORIES[c] for c in sorted(CATEGORIES) if c not in EXCLUDED)]


class HarnessError(ValueError):
    """The run cannot start as asked: an unsafe endpoint for the key, or settings out of range."""


@dataclass(frozen=True)
class QaSettings:
    """How questions are answered and judged."""

    hydrate: HydrateSettings = field(
        default_factory=lambda: HydrateSettings(include_working=False, include_triggers=False)
    )
    """The agent's context assembly (its top_k and token_budget are the agent's defaults)."""
    answer_model: str = DEFAULT_MODEL
    judge_model: str = DEFAULT_MODEL
    answer_max_tokens: int = 300
    judge_max_tokens: int = 200
    judge_attempts: int = 3
    """Judge calls per answer before it is recorded as unjudged (a reply without one clear
    label, or a failed call, uses one)."""
    concurrency: int = 4
    """Questions answered and judged at once (recall itself runs one question at a time, so
    that its latency is not measured under contention)."""
    limit: int | None = None
    """Questions per conversation, counted before the adversarial ones are left out."""

    def __post_init__(self) -> None:
        if self.judge_attempts < 1 or self.concurrency < 1 or (self.limit is not None and self.limit < 1):
            raise HarnessError("judge_attempts, concurrency and limit must be at least 1")


@dataclass
class QaRecord:
    """One question of the run, as it goes to the JSONL file."""

    conv_id: str
    index: int
    category: int
    category_name: str
    question: str
    gold: str
    evidence: list[str]
    status: str = "excluded"
    """``judged``, ``unjudged`` (no clear label after every attempt), ``no answer`` (the
    answer call failed) or ``excluded`` (adversarial: not asked)."""
    judgment: Label | None = None
    context_ids: list[str] = field(default_factory=list)
    context_turns: list[str | None] = field(default_factory=list)
    context_tokens: int = 0
    budget_tokens: int = 0
    recall_ms: float = 0.0
    answer: str = ""
    answer_raw: str = ""
    answer_ms: float = 0.0
    answer_usage: dict[str, int] = field(default_factory=dict)
    judge_replies: list[str] = field(default_factory=list)
    judge_ms: list[float] = field(default_factory=list)
    judge_usage: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @property
    def correct(self) -> bool:
        return self.status == "judged" and self.judgment == "CORRECT"


def turns_of(conv: Conversation) -> list[ConversationTurn]:
    """The conversation's turns as hippograph ingests them (with the session's date)."""
    return [
        ConversationTurn(
            turn_id=t.dia_id,
            session_id=t.session_id,
            speaker=t.speaker,
            text=t.text,
            caption=t.caption,
            occurred_at=t.date.timestamp(),
        )
        for t in conv.turns
    ]


def check_endpoint(base_url: str) -> str:
    """``base_url`` when a key may go there: https, or plain http to this machine only.

    Raises:
        HarnessError: Not an http(s) URL, or plain http to another machine.
    """
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise HarnessError(f"--base-url {base_url!r} is not an http(s) URL")
    if parts.scheme == "http" and not _loopback(parts.hostname):
        raise HarnessError(f"--base-url {base_url!r}: the key would travel unencrypted; use https")
    return base_url.rstrip("/")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _Clock:
    """The memory's clock: the day after the conversation being asked about."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


async def run_qa(
    memory: Memory,
    convs: Sequence[Conversation],
    root: Scope,
    *,
    answerer: ModelProvider,
    judge: ModelProvider,
    settings: QaSettings,
    out: IO[str],
    clock: _Clock | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[QaRecord]:
    """Ingest each conversation below ``root``, then answer and judge its questions; each
    record is written to ``out`` as one JSON line when it is done. ``clock``: the memory's
    clock, set to the day after each conversation (the harness builds the memory with it)."""
    records: list[QaRecord] = []
    gate = asyncio.Semaphore(settings.concurrency)
    for conv in convs:
        scope = root.child("conversation", conv.conv_id)
        await memory.ingest(scope, turns_of(conv))
        now = max(t.date.timestamp() for t in conv.turns) + 86_400
        if clock is not None:
            clock.now = now
        questions = conv.questions[: settings.limit] if settings.limit else conv.questions
        asked: list[tuple[QaRecord, Hydration]] = []
        for q in questions:
            record = _record(q)
            if q.category in EXCLUDED:
                _write(out, record)
                records.append(record)
                continue
            started = time.perf_counter()
            hydration = await hydrate(memory, settings.hydrate, scope, q.question, RECALL_LAYERS)
            record.recall_ms = (time.perf_counter() - started) * 1000
            _fill_context(record, hydration)
            asked.append((record, hydration))
        role = ANSWER_ROLE.format(a=conv.speakers[0], b=conv.speakers[1])
        context = _Asking(role, scope.key, now, answerer, judge, settings, gate, out, progress)
        records.extend(await asyncio.gather(*(context.ask(r, h) for r, h in asked)))
    return records


@dataclass(frozen=True)
class _Asking:
    """What answering and judging one conversation's questions share."""

    role: str
    scope_key: str
    now: float
    answerer: ModelProvider
    judge: ModelProvider
    settings: QaSettings
    gate: asyncio.Semaphore
    out: IO[str]
    progress: Callable[[int], None] | None

    async def ask(self, record: QaRecord, hydration: Hydration) -> QaRecord:
        async with self.gate:
            await _answer(record, hydration, self.role, self.scope_key, self.now, self.answerer, self.settings)
            if record.status != "no answer":
                await _judge(record, self.judge, self.settings)
        _write(self.out, record)
        if self.progress is not None:
            self.progress(1)
        return record


def _record(q: Question) -> QaRecord:
    return QaRecord(
        conv_id=q.conv_id,
        index=q.index,
        category=q.category,
        category_name=CATEGORIES[q.category],
        question=q.question,
        gold=q.answer,
        evidence=list(q.evidence),
    )


def _fill_context(record: QaRecord, hydration: Hydration) -> None:
    record.errors.extend(f"{e.stage}: {e.error_type}: {e.message}" for e in hydration.errors)
    if hydration.context is None:
        return
    turns = {}
    if hydration.recall is not None:
        turns = {i.node.id: i.node.properties.get("turn_id") for i in hydration.recall.items}
    record.context_ids = [e.id for e in hydration.context.entries]
    record.context_turns = [_str_or_none(turns.get(i)) for i in record.context_ids]
    record.context_tokens = hydration.context.tokens
    record.budget_tokens = hydration.context.budget


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


async def _answer(
    record: QaRecord,
    hydration: Hydration,
    role: str,
    scope_key: str,
    now: float,
    model: ModelProvider,
    settings: QaSettings,
) -> None:
    system = full_system_prompt(
        hydration.text, scope=scope_key, agent_description=role, now=datetime.fromtimestamp(now, UTC)
    )
    request = ModelRequest(
        system=system,
        messages=[ChatMessage(role="user", content=record.question)],
        max_tokens=settings.answer_max_tokens,
        model=settings.answer_model,
    )
    started = time.perf_counter()
    try:
        response = await model.complete(request)
    except ModelError as exc:
        record.status = "no answer"
        record.errors.append(f"answer: {exc}")
        return
    finally:
        record.answer_ms = (time.perf_counter() - started) * 1000
    record.answer_raw = response.text
    record.answer = extract_memory_ops(response.text).reply.strip()
    record.answer_usage = _usage(response.usage)


async def _judge(record: QaRecord, model: ModelProvider, settings: QaSettings) -> None:
    request = ModelRequest(
        messages=[ChatMessage(role="user", content=judge_prompt(record.question, record.gold, record.answer))],
        max_tokens=settings.judge_max_tokens,
        model=settings.judge_model,
    )
    usage = TokenUsage()
    record.status = "unjudged"
    for _ in range(settings.judge_attempts):
        started = time.perf_counter()
        try:
            response: ModelResponse = await model.complete(request)
        except ModelError as exc:
            record.errors.append(f"judge: {exc}")
            continue
        finally:
            record.judge_ms.append((time.perf_counter() - started) * 1000)
        usage = usage.plus(response.usage)
        record.judge_replies.append(response.text)
        label = parse_label(response.text)
        if label is not None:
            record.status, record.judgment = "judged", label
            break
    record.judge_usage = _usage(usage)


def _usage(usage: TokenUsage) -> dict[str, int]:
    return {"input_tokens": usage.total_input_tokens, "output_tokens": usage.output_tokens}


def _write(out: IO[str], record: QaRecord) -> None:
    out.write(json.dumps(asdict(record), ensure_ascii=False) + "\n")
    out.flush()


@dataclass(frozen=True)
class GroupReport:
    """The figures of one category (or of all asked ones)."""

    asked: int
    correct: int
    unjudged: int
    no_answer: int
    accuracy: float
    """Correct over asked, in percent (unjudged and unanswered questions are not correct)."""
    context_tokens: float
    """Mean memory-context tokens (hippograph's estimate)."""


def report(records: Sequence[QaRecord]) -> dict[str, GroupReport]:
    """Accuracy and context size per category and overall, over the asked questions."""
    asked = [r for r in records if r.status != "excluded"]
    groups = {"overall": asked}
    for name in GROUPS[1:]:
        groups[name] = [r for r in asked if r.category_name == name]
    out = {}
    for name, rows in groups.items():
        if not rows:
            continue
        correct = sum(r.correct for r in rows)
        out[name] = GroupReport(
            asked=len(rows),
            correct=correct,
            unjudged=sum(r.status == "unjudged" for r in rows),
            no_answer=sum(r.status == "no answer" for r in rows),
            accuracy=100.0 * correct / len(rows),
            context_tokens=statistics.fmean(r.context_tokens for r in rows),
        )
    return out


def _pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def render(records: Sequence[QaRecord], settings: QaSettings, *, offline: bool) -> str:
    """The run's report as Markdown."""
    asked = [r for r in records if r.status != "excluded"]
    excluded = len(records) - len(asked)
    judge_ms = [ms for r in asked for ms in r.judge_ms]
    h = settings.hydrate
    lines = [
        f"### LoCoMo question answering ({len(asked)} questions asked, {excluded} adversarial left out)",
        "",
        f"context: the agent's hydrate, top {h.top_k} memories within {h.token_budget} tokens; "
        f"answer model {settings.answer_model}, judge model {settings.judge_model}"
        + (" (the local fake Messages API: accuracy is meaningless)" if offline else ""),
        "",
        "| category | asked | correct | unjudged | no answer | accuracy % | context tokens (mean) |",
        "|---|---|---|---|---|---|---|",
    ]
    numbers = {name: n for n, name in CATEGORIES.items()}
    for name, g in report(records).items():
        label = f"{numbers[name]} {name}" if name in numbers else name
        lines.append(
            f"| {label} | {g.asked} | {g.correct} | {g.unjudged} | {g.no_answer} | {g.accuracy:.1f} "
            f"| {g.context_tokens:.0f} |"
        )
    if asked:
        answer_in = [r.answer_usage.get("input_tokens", 0) for r in asked]
        answer_out = [r.answer_usage.get("output_tokens", 0) for r in asked]
        judge_in = [r.judge_usage.get("input_tokens", 0) for r in asked]
        judge_out = [r.judge_usage.get("output_tokens", 0) for r in asked]
        recall = [r.recall_ms for r in asked]
        answer = [r.answer_ms for r in asked]
        lines += [
            "",
            f"per question: answer call {statistics.fmean(answer_in):.0f} input / "
            f"{statistics.fmean(answer_out):.0f} output tokens, judge {statistics.fmean(judge_in):.0f} / "
            f"{statistics.fmean(judge_out):.0f} (as the API counted them)",
            f"tokens of the run: {sum(answer_in) + sum(judge_in):,} input, {sum(answer_out) + sum(judge_out):,} output",
            f"latency p50 / p95: recall {_pct(recall, 0.5):.1f} / {_pct(recall, 0.95):.1f} ms, "
            f"answer {_pct(answer, 0.5):.0f} / {_pct(answer, 0.95):.0f} ms, "
            f"judge {_pct(judge_ms, 0.5):.0f} / {_pct(judge_ms, 0.95):.0f} ms",
        ]
    return "\n".join(lines)


@asynccontextmanager
async def claude(key: str | None, base_url: str) -> AsyncIterator[tuple[ModelProvider, bool]]:
    """(model, offline): Claude at ``base_url`` with ``key``, or, without a key, the local fake
    Messages API answering with its extractive responder. The model is closed on exit."""
    from hippograph.llm import AnthropicModel

    if key:
        model = AnthropicModel(api_key=key, base_url=check_endpoint(base_url))
        try:
            yield model, False
        finally:
            await model.aclose()
        return
    from hippograph.testing.fake_anthropic import FakeAnthropicServer, extractive_reply

    with FakeAnthropicServer() as server:
        server.fake.respond_with(extractive_reply)
        model = AnthropicModel(api_key=OFFLINE_KEY, base_url=server.url)
        try:
            yield model, True
        finally:
            await model.aclose()


async def main(args: argparse.Namespace) -> None:
    from rich.console import Console
    from rich.progress import Progress

    from benchmarks._server import bench_store
    from hippograph.embeddings import default_embedder

    console = Console(stderr=True)
    convs = load(data_path(args.data))
    settings = QaSettings(
        hydrate=HydrateSettings(
            include_working=False, include_triggers=False, top_k=args.top_k, token_budget=args.token_budget
        ),
        answer_model=args.answer_model,
        judge_model=args.judge_model,
        judge_attempts=args.judge_attempts,
        concurrency=args.concurrency,
        limit=args.limit,
    )
    key = os.environ.get(KEY_ENV) or None
    async with claude(key, args.base_url) as (model, offline):
        if offline:
            console.print(f"[yellow]{KEY_ENV} is not set: answering and judging with the local fake Messages API[/]")
        else:
            console.print(f"Claude at {check_endpoint(args.base_url)}")
        clock = _Clock()
        total = sum(
            sum(q.category not in EXCLUDED for q in (c.questions[: settings.limit] if settings.limit else c.questions))
            for c in convs
        )
        async with bench_store() as (store, _pid):
            memory = Memory(store, default_embedder(), clock=clock)
            root = Scope.root("bench", f"qa-{uuid.uuid4().hex[:8]}")
            try:
                with Progress(console=console, transient=True) as bar, args.out.open("w", encoding="utf-8") as out:
                    task = bar.add_task("questions", total=total)
                    records = await run_qa(
                        memory, convs, root, answerer=model, judge=model, settings=settings, out=out,
                        clock=clock, progress=lambda n: bar.advance(task, n),
                    )  # fmt: skip
            finally:
                await memory.forget(root)
    print(render(records, settings, offline=offline))
    console.print(f"every answer: {args.out}")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    defaults = HydrateSettings()
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--data", default=None, help=f"the LoCoMo JSON file (default: ${DATA_ENV})")
    ap.add_argument("--out", type=Path, default=Path("locomo-qa.jsonl"), help="the JSONL of every answer")
    ap.add_argument("--limit", type=int, default=None, help="questions per conversation (for a quick look)")
    ap.add_argument("--top-k", type=int, default=defaults.top_k, help="memories in the context (the agent's default)")
    ap.add_argument(
        "--token-budget", type=int, default=defaults.token_budget, help="context tokens (the agent's default)"
    )
    ap.add_argument("--answer-model", default=DEFAULT_MODEL)
    ap.add_argument("--judge-model", default=DEFAULT_MODEL)
    ap.add_argument("--judge-attempts", type=int, default=3, help="judge calls before an answer is unjudged")
    ap.add_argument("--concurrency", type=int, default=4, help="questions answered and judged at once")
    ap.add_argument("--base-url", default=ANTHROPIC_API, help="the Messages API root the key is sent to")
    return ap.parse_args(argv)


if __name__ == "__main__":
    try:
        asyncio.run(main(parse_args()))
    except (LocomoDataError, HarnessError) as exc:
        sys.exit(f"error: {exc}")
    except ValueError as exc:  # HydrateSettings' own bounds (top_k, token_budget)
        sys.exit(f"error: {exc}")
