"""Repeatable harnesses behind the figures of ``docs/performance.md``, run from a checkout:
``python -m benchmarks.<name> --help``.

This module imports nothing from ``hippograph``: the A/B harnesses run it beside older trees."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def bench_dir(name: str) -> Path:
    """``name`` under the checkout's ``.hippograph/benchmarks/`` (ignored by git): the default
    folder of a kept server, or a cache."""
    return REPO / ".hippograph" / "benchmarks" / name
