"""The demo: a small conversation remembered, recalled with explanations, an agent that
learns a fact in one session and uses it in the next, and a night of consolidation — all on
a real Neo4j. Offline it uses a scripted model (and says so); with ANTHROPIC_API_KEY, Claude.
"""

from __future__ import annotations

import json
import time
from datetime import datetime
from importlib.resources import files
from typing import Any

from hippograph._extras import requires_extra

with requires_extra("cli"):
    from rich.console import Console
    from rich.panel import Panel
    from rich.table import Table

from hippograph.agent import Agent, AgentConfig, demo_model
from hippograph.app.runtime import consolidation_model, open_memory
from hippograph.app.settings import Settings
from hippograph.consolidation import SleepConsolidator
from hippograph.layers import ConversationTurn, MemoryOrchestrator
from hippograph.llm.provider import ModelProvider
from hippograph.retrieval.types import RecallResult
from hippograph.scope import Scope

QUESTIONS = (
    "Where does Sam work now?",
    "What breed is Pixel and what is she learning?",
    "When is Ana's birthday and how will Sam get to Porto?",
    "What food must Sam avoid?",
)


def sample_turns() -> list[ConversationTurn]:
    data = json.loads(files("hippograph.app").joinpath("demo_data", "conversation.json").read_text())
    turns = []
    for session in data["sessions"]:
        at = datetime.fromisoformat(session["date"].replace("Z", "+00:00")).timestamp()
        for i, (speaker, text) in enumerate(session["turns"]):
            turns.append(
                ConversationTurn(
                    turn_id=f"{session['id']}:{i}",
                    session_id=session["id"],
                    speaker=speaker,
                    text=text,
                    occurred_at=at + 60 * i,
                )
            )
    return turns


def model_for(settings: Settings, console: Console) -> ModelProvider:
    if settings.anthropic_api_key:
        from hippograph.llm.anthropic_model import AnthropicModel

        console.print(f"[bold]Model:[/bold] Claude ({settings.anthropic_model}) via ANTHROPIC_API_KEY")
        return AnthropicModel(api_key=settings.anthropic_api_key.get_secret_value(), model=settings.anthropic_model)
    console.print("[bold]Model:[/bold] scripted (offline: no ANTHROPIC_API_KEY) — same pipeline, canned replies")
    return demo_model()


def recall_table(result: RecallResult) -> Table:
    table = Table(title=f"recall: “{result.query}”  ({result.timings.total_ms:.0f} ms)", show_lines=False)
    for col in ("#", "score", "layer", "memory", "found by", "why"):
        table.add_column(col, overflow="fold")
    for n, item in enumerate(result.items, 1):
        p = item.parts
        found = ", ".join(f"{c.value}#{r}" for c, r in item.channels.items())
        why = f"z vec {p.z_vector:+.1f} · z text {p.z_fulltext:+.1f}"
        if p.person:
            why += f" · person +{p.person:.0f}"
        if p.edges or p.session or p.cues:
            why += f" · spread {p.edges + p.session + p.cues:.2f}"
        if len(item.path) > 1:
            why += " · path " + " → ".join(s.relationship or "seed" for s in item.path)
        text = item.node.content or item.node.label
        table.add_row(str(n), f"{item.score:.2f}", item.node.layer.value, text[:90], found, why)
    return table


async def run_demo(settings: Settings | None = None, console: Console | None = None) -> dict[str, Any]:
    """Run the whole demo; returns a few figures (used by the e2e test)."""
    settings = settings or Settings()
    console = console or Console()
    console.print(Panel.fit("hippograph demo — long-term memory for agents, in Neo4j", style="bold cyan"))
    figures: dict[str, Any] = {}
    with console.status("Starting Neo4j and loading the embedding model…"):
        memory_cm = open_memory(settings)
        memory: MemoryOrchestrator = await memory_cm.__aenter__()
    try:
        org = Scope.root("org", "demo")
        sam = org.child("user", "sam")
        await memory.forget(org)  # a fresh demo every time

        turns = sample_turns()
        t0 = time.perf_counter()
        await memory.ingest(sam, turns)
        figures["ingested"] = len(turns)
        console.print(
            f"1. Ingested {len(turns)} turns of 3 sessions as episodic memories "
            f"(chained by NEXT, linked by cues) in {time.perf_counter() - t0:.1f} s — no model call."
        )

        old = await memory.remember(sam, "Sam's employer", "Sam works at Orbital Arms.", key="sam.employer")
        new = await memory.remember(
            sam, "Sam's employer", "Sam works at Tidewater Labs (since November 2026).", key="sam.employer"
        )
        await memory.remember(org, "Company policy", "Dogs are welcome in every demo office.")
        console.print(
            "2. Brought our own facts: the employer fact changed, so the new one supersedes the old "
            f"({old.id[:8]} → {new.id[:8]}); an org-wide fact is visible to every user of the org."
        )

        console.print("3. Recall — hybrid channels, spreading activation, every item explained:")
        for question in QUESTIONS:
            result = await memory.recall(sam, question, top_k=4)
            console.print(recall_table(result))
        figures["recall_ms"] = result.timings.total_ms

        console.print(
            "4. The agent turn (triage → hydrate → model → fabrication check → extraction → background consolidation):"
        )
        consolidator = SleepConsolidator.for_store(memory.store, model=consolidation_model(settings))
        agent = Agent(memory, model_for(settings, console), AgentConfig(agent_name="Hippo"), consolidator=consolidator)
        first = await agent.run(sam, "My favourite food is bacalhau with chickpeas.")
        await agent.drain()
        console.print(
            f"   [dim]session {first.session_id[:8]}[/dim] Sam: My favourite food is bacalhau with chickpeas."
        )
        console.print(f"   Hippo: {first.text}")
        if first.memory:
            console.print(f"   → extracted {len(first.memory.ops)} memory op(s) by {first.memory.strategy}")
        second = await agent.run(sam, "What is my favourite food?")
        console.print(f"   [dim]new session {second.session_id[:8]}[/dim] Sam: What is my favourite food?")
        console.print(f"   Hippo: {second.text}")
        activated = sum(len(a.nodes) for a in second.activations)
        stages = ", ".join(f"{k} {v:.0f} ms" for k, v in second.timings.stages.items())
        console.print(
            f"   ({activated} memories activated; pipeline overhead {second.timings.overhead_ms:.0f} ms: {stages})"
        )
        figures["answer"] = second.text
        await agent.drain()

        console.print("5. Sleep: a full consolidation run over the user's scope:")
        report = await consolidator.run(sam)
        table = Table(title=f"consolidation {report.entry_point.value} in {report.duration_ms:.0f} ms")
        for col in ("phase", "status", "counts"):
            table.add_column(col)
        for phase in report.phases_run:
            counts = ", ".join(f"{k}={v}" for k, v in phase.counts.items() if v) or "-"
            table.add_row(
                phase.name.value, phase.status.value + (f" ({phase.skip_reason})" if phase.skip_reason else ""), counts
            )
        console.print(table)
        figures["phases"] = len(report.phases_run)
        console.print(
            Panel.fit(
                f"Everything above lives in Neo4j: scope {sam.key}.\n"
                'Try: hippograph recall --scope org:demo/user:sam "Who is Ana?"',
                title="done",
            )
        )
    finally:
        await memory_cm.__aexit__(None, None, None)
    return figures
