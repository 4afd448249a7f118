"""A consolidation run as spans: one ``hippograph.consolidation`` span, a child per phase with
its status and counts, in the order the phases ran."""

from __future__ import annotations

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from hippograph.consolidation.phases import QUICK_NAP_ORDER
from hippograph.scope import Scope
from hippograph.tracing import SCOPE_KEY
from tests.integration.consolidation.conftest import Make
from tests.support.spans import children, one


async def test_a_quick_nap_is_a_span_per_phase(tenant: Scope, make: Make, spans: InMemorySpanExporter) -> None:
    report = await make().quick_nap(tenant)
    finished = spans.get_finished_spans()
    run = one(finished, "hippograph.consolidation")
    assert run.attributes is not None
    assert run.attributes[SCOPE_KEY] == tenant.key
    assert run.attributes["hippograph.consolidation.entry_point"] == "quick_nap"
    assert run.attributes["hippograph.consolidation.run_id"] == report.run_id
    assert run.attributes["hippograph.consolidation.status"] == report.status.value
    phases = children(finished, run)
    assert [s.name for s in phases] == [f"hippograph.consolidation.{p.value}" for p in QUICK_NAP_ORDER]
    for span, phase in zip(phases, report.phases_run, strict=True):
        assert span.attributes is not None
        assert span.attributes["hippograph.consolidation.phase_status"] == phase.status.value
        for key, value in phase.counts.items():
            assert span.attributes[f"hippograph.consolidation.counts.{key}"] == value
