"""How the CLI and the demo show results in a terminal (rich): a recall as a table or as a
tree of activation paths, a consolidation report as a table, doctor's checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.table import Table
from rich.tree import Tree

from hippograph.app.doctor import Check, Status
from hippograph.app.recall_view import channels_in_words, path_in_words, score_in_words, snippet
from hippograph.consolidation.report import ConsolidationReport
from hippograph.retrieval.types import RecallItem, RecallResult

STATUS_STYLE = {Status.OK: "[green]ok[/green]", Status.WARN: "[yellow]warn[/yellow]", Status.FAIL: "[red]FAIL[/red]"}


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
        if p.currency < 1:
            why += f" · no longer current ×{p.currency:.2f}"
        if len(item.path) > 1:
            why += " · path " + " → ".join(s.relationship or "seed" for s in item.path)
        table.add_row(str(n), f"{item.score:.2f}", item.node.layer.value, snippet(item.node, 90), found, why)
    return table


def activation_tree(result: RecallResult, labels: Mapping[str, str]) -> Tree:
    """The recall as a tree of activation paths, every recalled memory once, best first: a
    memory hangs under the memory its activation path came from (intermediate memories that
    were not recalled are shown dimmed); one whose path starts at a memory placed later stays
    at the top and says where activation also reached it from."""
    root = Tree(f"[bold]recall[/bold] “{result.query}” in {result.scope_key}")
    recalled = {i.node.id for i in result.items}
    placed: dict[tuple[str, ...], Tree] = {}
    where: dict[str, tuple[str, ...]] = {}

    def described(item: RecallItem) -> str:
        head = f"[bold]{item.score:.2f}[/bold] [cyan]{item.node.layer.value}[/cyan] “{snippet(item.node, 70)}”"
        return f"{head}\n[dim]{channels_in_words(item)}; {score_in_words(item)}[/dim]"

    for item in sorted(result.items, key=lambda i: -i.score):
        before = item.path[:-1] if len(item.path) > 1 else []
        if not before or any(s.node_id in recalled and s.node_id not in where for s in before):
            text = described(item)
            if before:
                text += f"\n[dim]also reached by activation: {path_in_words(item, labels)}[/dim]"
            where[item.node.id] = (item.node.id,)
            placed[where[item.node.id]] = root.add(text)
            continue
        key = where.get(before[0].node_id, ("~", before[0].node_id))
        if key not in placed:
            placed[key] = root.add(
                f"[dim]“{labels.get(before[0].node_id, before[0].node_id[:8])}” (not recalled)[/dim]"
            )
        for step in [*before[1:], item.path[-1]]:
            parent, key = placed[key], (*key, step.node_id)
            if key not in placed:
                via = f"—{step.relationship}→ " if step.relationship else ""
                text = (
                    described(item)
                    if step is item.path[-1]
                    else f"[dim]“{labels.get(step.node_id, step.node_id[:8])}”[/dim]"
                )
                placed[key] = parent.add(via + text)
        where[item.node.id] = key
    return root


def consolidation_table(report: ConsolidationReport) -> Table:
    title = f"consolidation {report.entry_point.value} of {report.scope_key}: {report.status.value}"
    table = Table(title=f"{title} in {report.duration_ms:.0f} ms")
    for col in ("phase", "status", "what it did"):
        table.add_column(col)
    for phase in report.phases_run:
        counts = ", ".join(f"{k}={v}" for k, v in phase.counts.items() if v) or "-"
        status = phase.status.value + (f" ({phase.skip_reason})" if phase.skip_reason else "")
        table.add_row(phase.name.value, status, counts)
    return table


def doctor_table(checks: Sequence[Check]) -> Table:
    table = Table(title="hippograph doctor")
    for col in ("check", "status", "found", "how to fix"):
        table.add_column(col, overflow="fold")
    for c in checks:
        table.add_row(c.name, STATUS_STYLE[c.status], c.detail, c.fix)
    return table
