"""How the CLI and the demo show results in a terminal (rich): a recall as a table or as a
tree of activation paths, a consolidation report as a table, doctor's checks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.table import Table
from rich.tree import Tree

from hippograph.app.doctor import Check, Status
from hippograph.app.recall_view import channels_in_words, score_in_words, snippet
from hippograph.consolidation.report import ConsolidationReport
from hippograph.retrieval.types import PathStep, RecallItem, RecallResult

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
    """The recall as a tree: each seed (found by a channel) with the memories activation
    reached from it, hop by hop, each with its score and why."""
    root = Tree(f"[bold]recall[/bold] “{result.query}” in {result.scope_key}")
    by_id = {i.node.id: i for i in result.items}
    branches: dict[tuple[str, ...], Tree] = {}

    def label(item: RecallItem | None, node_id: str) -> str:
        if item is None:
            return f"[dim]“{labels.get(node_id, node_id[:8])}” (on the path, not recalled)[/dim]"
        head = f"[bold]{item.score:.2f}[/bold] [cyan]{item.node.layer.value}[/cyan] “{snippet(item.node, 70)}”"
        return f"{head}\n[dim]{channels_in_words(item)}; {score_in_words(item)}[/dim]"

    ordered = sorted(result.items, key=lambda i: (len(i.path) > 1, -i.score))
    for item in ordered:
        steps = item.path if len(item.path) > 1 else [PathStep(node_id=item.node.id)]
        parent: Tree = root
        key: tuple[str, ...] = ()
        for step in steps:
            key = (*key, step.node_id)
            if key not in branches:
                via = f"—{step.relationship}→ " if step.relationship else ""
                branches[key] = parent.add(via + label(by_id.get(step.node_id), step.node_id))
            parent = branches[key]
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
