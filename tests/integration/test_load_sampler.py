"""The open-loop load test's memory sampler (``benchmarks/load_open_loop.py``) on the real server:
the JVM's heap read over Bolt from its JMX beans, beside a process's RSS, until told to stop."""

from __future__ import annotations

import asyncio
import os
import time

import psutil

from benchmarks.load_open_loop import Sampler
from benchmarks.open_loop import memory_summary
from hippograph.store import Neo4jConnection


async def test_the_sampler_reads_rss_and_the_jvm_heap_until_stopped(conn: Neo4jConnection) -> None:
    sampler = Sampler(conn, api_pid=os.getpid(), neo4j_pid=None, every=0.2)
    await sampler.sample(0.0)  # the first JMX call is slow: its plan is compiled
    done = asyncio.Event()
    started = time.monotonic()
    sampling = asyncio.create_task(sampler.until(done, started))
    await asyncio.sleep(1.5)
    done.set()
    told = time.monotonic()
    samples = await sampling
    assert time.monotonic() - told < 1.0, "it stops when told, not after its next interval"
    assert 3 <= len(samples) <= 8
    assert samples[0].t < 0.2 and [s.t for s in samples] == sorted(s.t for s in samples)
    rss = psutil.Process().memory_info().rss
    for s in samples:
        assert s.api_rss is not None and 0.5 * rss < s.api_rss < 2 * rss
        assert s.neo4j_rss is None, "no process id given for the server"
        assert s.heap_used is not None and s.heap_committed is not None and s.heap_max is not None
        assert 0 < s.heap_used <= s.heap_committed <= s.heap_max
        assert s.old_gen_after_gc is not None and 0 <= s.old_gen_after_gc <= s.heap_max
    summary = memory_summary(samples)
    assert {"api_rss", "heap_used", "old_gen_after_gc"} <= set(summary)
