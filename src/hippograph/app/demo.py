"""The demo: eight weeks of a made-up conversation remembered, facts that change, a plan that
becomes a trigger, a routine that consolidation turns into a draft procedure, recall with its
activation paths as a tree, and an agent that learns in one session and answers in the next —
all on a real Neo4j. Offline it uses a scripted model (and says so); with ANTHROPIC_API_KEY,
Claude. :mod:`hippograph.app.demo_serve` then serves it all until Ctrl-C."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any

from hippograph._extras import requires_extra

with requires_extra("cli"):
    from rich.console import Console
    from rich.panel import Panel
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table

from hippograph.agent import Agent, AgentConfig, demo_model
from hippograph.app.cli_views import activation_tree, consolidation_table, recall_table
from hippograph.app.demo_story import Session, load_story, sample_turns
from hippograph.app.recall_view import path_labels, snippet
from hippograph.app.runtime import consolidation_model, open_memory
from hippograph.app.settings import Settings
from hippograph.consolidation import SleepConsolidator
from hippograph.consolidation.model_hooks import ModelConsolidation
from hippograph.embeddings import OnnxMiniLMEmbeddings, default_embedder
from hippograph.llm.provider import ModelProvider
from hippograph.memory import Memory
from hippograph.models import Layer, MemoryNode
from hippograph.retrieval.types import RecallItem
from hippograph.scope import Scope

__all__ = ["DEMO_ORG", "DEMO_USER", "model_for", "recall_table", "run_demo", "sample_turns"]

DEMO_ORG = Scope.root("org", "demo")
DEMO_USER = DEMO_ORG.child("user", "sam")
QUESTIONS = ("Where does Sam live now?", "What is Pixel learning, and where?")
TREE_QUESTION = "Who is Ana and when is the trip to Lisbon?"
AGENT_TURNS = (
    ("My favourite food is bacalhau with chickpeas.", True),
    ("What is my favourite food?", True),
    ("Where do I live now?", False),
)


def progress_bar(console: Console) -> Progress:
    """The bar every long step of the demo shows."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )


def model_for(settings: Settings, console: Console) -> ModelProvider:
    if settings.anthropic_api_key:
        from hippograph.llm.anthropic_model import AnthropicModel

        console.print(f"[bold]Model:[/bold] Claude ({settings.anthropic_model}) via ANTHROPIC_API_KEY")
        return AnthropicModel(api_key=settings.anthropic_api_key.get_secret_value(), model=settings.anthropic_model)
    console.print("[bold]Model:[/bold] scripted (offline: no ANTHROPIC_API_KEY) — same pipeline, canned replies")
    return demo_model()


async def run_demo(settings: Settings | None = None, console: Console | None = None) -> dict[str, Any]:
    """Run the whole demo on ``org:demo/user:sam`` (erased first); returns a few figures."""
    settings = settings or Settings()
    console = console or Console()
    console.print(Panel.fit("hippograph demo — long-term memory for agents, in Neo4j", style="bold cyan"))
    model = model_for(settings, console)
    embedder = default_embedder()
    if isinstance(embedder, OnnxMiniLMEmbeddings) and not embedder.prepared:
        with console.status("Preparing the embedder for ONNX Runtime (once: exports all-MiniLM-L6-v2, ~10–30 s)…"):
            t0 = time.perf_counter()
            path = await asyncio.to_thread(embedder.prepare)
        console.print(
            f"Prepared the embedder for ONNX Runtime in {time.perf_counter() - t0:.0f} s (once): {path}", soft_wrap=True
        )
    with console.status("Starting Neo4j (built with Maven the first time: a few minutes)…"):
        memory_cm = open_memory(settings, embedder=embedder)
        memory: Memory = await memory_cm.__aenter__()
    try:
        figures = await _story(memory, model, consolidation_model(settings), console)
        figures["dev_key"] = await _dev_key(memory)
    finally:
        await memory_cm.__aexit__(None, None, None)
    return figures


async def _story(
    memory: Memory, model: ModelProvider, judge: ModelConsolidation | None, console: Console
) -> dict[str, Any]:
    sam = DEMO_USER
    with progress_bar(console) as bar:
        erase = bar.add_task("0. Erasing the previous demo (org:demo)", total=None)
        await memory.forget(DEMO_ORG, progress=lambda done, total: bar.update(erase, completed=done, total=total))
        bar.update(erase, total=1, completed=1)
    sessions = load_story()
    figures: dict[str, Any] = {"scope": sam.key}
    await _ingest(memory, sessions, console, figures)
    changed = await _remember(memory, sessions, console)
    _show_changes(changed, console)
    await _show_triggers(memory, console)

    console.rule("3. Recall across sessions — hybrid channels, spreading activation, every item explained")
    for question in QUESTIONS:
        found = await memory.recall(sam, question, top_k=4)
        console.print(recall_table(found))
        console.print(f"   → {_sessions_of(found.items, {s.id: s.at for s in sessions})}")
    result = await memory.recall(sam, TREE_QUESTION, top_k=6)
    console.print(
        "Activation paths of one recall, as a tree (seeds found by the indexes; branches reached by activation):"
    )
    console.print(activation_tree(result, await path_labels(memory, sam, result)))
    figures["recall_ms"] = result.timings.total_ms

    consolidator = SleepConsolidator.for_memory(memory, model=judge)
    await _agent_turns(memory, model, consolidator, console, figures)
    await _consolidate(memory, consolidator, console, figures)
    console.print(
        Panel.fit(
            f"Everything above lives in Neo4j, in scope {sam.key}.\n"
            'Try: hippograph recall "Where does Sam live now?" --scope org:demo/user:sam --tree',
            title="done",
        )
    )
    return figures


def _sessions_of(items: list[RecallItem], dates: dict[str, float]) -> str:
    """Where a recall's memories come from: the sessions of its events, and its facts."""
    seen = sorted({i.node.session_id for i in items if i.node.session_id in dates}, key=lambda s: dates[s])
    facts = sum(1 for i in items if i.node.layer is Layer.SEMANTIC)
    when = ", ".join(f"{s} ({datetime.fromtimestamp(dates[s]):%d %b})" for s in seen) or "none"
    return f"recalled across sessions: events of {when}; {facts} fact(s) kept from earlier sessions"


async def _ingest(memory: Memory, sessions: list[Session], console: Console, figures: dict[str, Any]) -> None:
    turns = [t for s in sessions for t in s.turns]
    first, last = (datetime.fromtimestamp(s.at).strftime("%d %b") for s in (sessions[0], sessions[-1]))
    with progress_bar(console) as bar:
        task = bar.add_task(f"1. Ingesting {len(turns)} turns of {len(sessions)} sessions", total=len(turns))
        await memory.ingest(DEMO_USER, turns, progress=lambda done, total: bar.update(task, completed=done))
    figures["ingested"] = len(turns)
    console.print(
        f"   Ingested {len(turns)} turns of {len(sessions)} sessions ({first} → {last}) as episodic memories: "
        "chained by NEXT, linked by shared names and keywords — no model call."
    )


async def _remember(memory: Memory, sessions: list[Session], console: Console) -> list[tuple[MemoryNode, MemoryNode]]:
    """Each session's facts, events and plans; returns the (old, new) pairs of changed facts."""
    current: dict[str, MemoryNode] = {}
    changed: list[tuple[MemoryNode, MemoryNode]] = []
    total = sum(len(s.facts) + len(s.events) + len(s.plans) for s in sessions)
    with progress_bar(console) as bar:
        task = bar.add_task("2. Storing what the agent kept from each session", total=total)
        for session in sessions:
            for fact in session.facts:
                node = await memory.remember(DEMO_USER, fact.label, fact.content, key=fact.key)
                if fact.key in current:
                    changed.append((current[fact.key], node))
                current[fact.key] = node
                bar.advance(task)
            for event in session.events:
                await memory.store_event(
                    DEMO_USER, event.content, label=event.label, occurred_at=session.at + 3600, session_id=session.id
                )
                bar.advance(task)
            for plan in session.plans:
                await memory.set_trigger(DEMO_USER, plan.condition, plan.task, due_at=plan.due_at)
                bar.advance(task)
    await memory.remember(DEMO_ORG, "Company policy", "Dogs are welcome in every demo office.")
    return changed


def _show_changes(changed: list[tuple[MemoryNode, MemoryNode]], console: Console) -> None:
    table = Table(title="facts that changed: the newer fact supersedes the older (kept as history)")
    for col in ("key", "superseded", "current"):
        table.add_column(col, overflow="fold")
    for old, new in changed:
        table.add_row(new.key or "", f"[strike]{snippet(old, 60)}[/strike]", snippet(new, 60))
    console.print(table)


async def _show_triggers(memory: Memory, console: Console) -> None:
    pending = await memory.get_pending(DEMO_USER)
    table = Table(title="prospective memory: pending triggers (from plans made in conversation)")
    for col in ("due", "when", "do"):
        table.add_column(col, overflow="fold")
    for node in pending:
        due = node.properties.get("due_at")
        when = datetime.fromtimestamp(float(due)).strftime("%a %d %b %Y") if isinstance(due, int | float) else "-"
        table.add_row(when, str(node.properties.get("condition", "")), str(node.properties.get("task", "")))
    console.print(table)


async def _agent_turns(
    memory: Memory,
    model: ModelProvider,
    consolidator: SleepConsolidator,
    console: Console,
    figures: dict[str, Any],
) -> None:
    console.rule("4. Agent turns: triage → hydrate → model → fabrication check → extraction → background consolidation")
    agent = Agent(memory, model, AgentConfig(agent_name="Hippo"), consolidator=consolidator)
    answers = []
    for message, new_session in AGENT_TURNS:
        response = await agent.run(DEMO_USER, message, session_id=None if new_session else figures.get("session"))
        await agent.drain()
        figures["session"] = response.session_id
        console.print(f"   [dim]session {response.session_id[:8]}[/dim] Sam: {message}")
        console.print(f"   Hippo: {response.text}")
        if response.memory and response.memory.ops:
            console.print(f"   → extracted {len(response.memory.ops)} memory op(s) by {response.memory.strategy}")
        activated = sum(len(a.nodes) for a in response.activations)
        console.print(
            f"   [dim]({activated} memories activated, pipeline overhead {response.timings.overhead_ms:.0f} ms)[/dim]"
        )
        answers.append(response.text)
    figures["answers"] = answers


async def _consolidate(
    memory: Memory, consolidator: SleepConsolidator, console: Console, figures: dict[str, Any]
) -> None:
    console.rule("5. Sleep: a full consolidation run over Sam's scope")
    with progress_bar(console) as bar:
        bar.add_task("consolidating (15 phases, each one Cypher batch job)", total=None)
        t0 = time.perf_counter()
        report = await consolidator.run(DEMO_USER)
    console.print(consolidation_table(report))
    drafts = [
        s for s in await memory.query_skills(DEMO_USER, include_inactive=True) if s.properties.get("status") == "draft"
    ]
    for skill in drafts:
        steps = skill.properties.get("steps") or []
        context = skill.properties.get("context", "")
        console.print(f"   draft procedure “{skill.label}” ({context}) — review it in the dashboard or GraphQL:")
        for step in steps if isinstance(steps, list) else []:
            console.print(f"     · {step}")
    figures["phases"] = len(report.phases_run)
    figures["drafts"] = [s.label for s in drafts]
    figures["consolidation_s"] = time.perf_counter() - t0


async def _dev_key(memory: Memory) -> str:
    """A fresh admin key of org:demo for the served API (earlier demo keys are revoked)."""
    from hippograph.app.access.keys import create_key, list_keys, revoke_key
    from hippograph.app.api.repository import ApiRepository

    repo = ApiRepository(memory.connection)
    await repo.apply_schema()
    for old in await list_keys(repo.keys, DEMO_ORG):
        if old.name == "hippograph demo":
            await revoke_key(repo.keys, old.id)
    _, token = await create_key(repo.keys, DEMO_ORG, "admin", name="hippograph demo")
    return token
