"""The agent's overhead before the model, two source trees side by side on one server.

**Overhead before the model**: the time from calling
``Agent.run(scope, message)`` to the moment the agent calls its model provider for the turn's
reply (``stream`` or ``complete``, whichever the config uses) — everything the turn does first:
the session, triage, the query embedding, recall, working memory, triggers, persona,
summaries and the prompt. Measured the same way in both trees, by a wrapper around the
scripted model, so it depends on no tree's own timing code. The per-stage split is what each
turn reports itself (``response.timings.stages``, recall's ``timings_ms``).

Populates (once, kept in ``--data-dir``) a local Neo4j exactly as ``agent_bench`` does: one
user scope with ``--memories`` memories (70 % ingested conversation turns with their session
chains and cues, 30 % semantic facts), embedded with MiniLM. Then alternates rounds between the
trees: each round is one worker process per tree (``PYTHONPATH=<tree>/src``) running
``--per-round`` turns (after ``--warmup`` untimed ones) with each tree's default config (quick
naps off) and default embedder, in a fresh chat scope below the user (it sees the user's memories; what its
turns write is erased afterwards, so every round sees the same data). Background consolidation
is drained after each turn, untimed (the idle case). The same messages go to both trees in a
round; rounds alternate which tree goes first.

Every Cypher statement the worker runs is counted (per turn before the model, and in all, by
query file).

    python -m benchmarks.agent_ab --before ../before-tree --after . --memories 10000 --rounds 6 --per-round 30
    python -m benchmarks.agent_ab ... --stop        # stop the kept server afterwards
    python -m benchmarks.agent_ab --shape realtext --data locomo-dev.json --before B --after . --memories 10000
    python -m benchmarks.agent_ab --shape realtext --corpus chitchat --before B --after . --memories 100000

``--shape realtext`` serves the real-text shape instead (:mod:`benchmarks.realtext`: an org of
20 leaf scopes holding ``--memories`` real conversation turns in all, ingested with the default
embedder; ``--corpus locomo``, the LoCoMo dev samples with their speakers' names recurring
through every session, or ``chitchat``, a corpus of about 130,000 distinct turns for the larger
sizes). Each turn goes to a fresh chat scope below one of the leaves, the leaves in turn, and
its message is one of that leaf's real questions.

With ``--before-data-dir`` (a copy of ``--data-dir``) each tree serves its own copy with its own
launcher and JVM flags, both servers up through the rounds: what a change of the server's
settings does to the turn, measured like any other change.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from benchmarks import bench_dir

HERE = Path(__file__).resolve().parent.parent
PASSWORD_ENV = "HIPPOGRAPH_AB_PASSWORD"
STAGES = ("session", "triage", "hydrate", "prompt")
RECALL_PARTS = ("embed_ms", "total_ms")


def pct(xs: list[float], q: int) -> float:
    return statistics.quantiles(xs, n=100, method="inclusive")[q - 1] if len(xs) > 1 else xs[0]


class StatementCounter:
    """Counts every statement the neo4j driver runs, by catalog name (patched at class level)."""

    def __init__(self) -> None:
        from hippograph.store.catalog import catalog_files, cypher_root

        self.names = {
            cypher_root().joinpath(*f"{p}.cypher".split("/")).read_text(encoding="utf-8").strip(): p
            for p in catalog_files()
        }
        self.log: list[str] = []
        try:  # recall rendered from its fragments (a tree from before that has one file for it)
            from hippograph.retrieval.statement import recall_stages, recall_statement
        except ImportError:
            return
        for lts in (False, True):
            for query in (recall_statement(lts=lts), *(s.query for s in recall_stages(lts=lts))):
                self.names[query.text.strip()] = query.path

    def install(self) -> None:
        import neo4j

        counter = self
        for cls in (neo4j.AsyncManagedTransaction, neo4j.AsyncSession):
            original = cls.run

            def run(self: Any, query: Any, *args: Any, _original: Any = original, **kw: Any) -> Any:
                counter.log.append(counter.names.get(str(query).strip(), "?"))
                return _original(self, query, *args, **kw)

            cls.run = run  # type: ignore[method-assign,assignment]


class FirstCallTimer:
    """A model provider around another that notes when the turn first calls it."""

    def __init__(self, inner: Any, counter: StatementCounter) -> None:
        self.inner, self.counter = inner, counter
        self.model = getattr(inner, "model", None)
        self.first: float | None = None
        self.statements_before = 0

    def _note(self) -> None:
        if self.first is None:
            self.first = time.perf_counter()
            self.statements_before = len(self.counter.log)

    def stream(self, request: Any) -> Any:
        self._note()
        return self.inner.stream(request)

    async def complete(self, request: Any) -> Any:
        self._note()
        return await self.inner.complete(request)


def tree_embedder() -> Any:
    """The default MiniLM embedder of the tree on ``sys.path``."""
    try:
        from hippograph.embeddings import default_embedder

        return default_embedder()
    except ImportError:  # trees before the ONNX embedder
        from hippograph.embeddings import SentenceTransformerEmbeddings

        return SentenceTransformerEmbeddings()


def realtext_messages(state: dict[str, Any], round_no: int, count: int) -> list[tuple[Any, str]]:
    """``count`` distinct (leaf, question) pairs of the real-text shape: the leaves in turn, each
    leaf's questions from an offset of the round's own."""
    from benchmarks.realtext import realtext_tree

    leaves = realtext_tree(state["root"])
    out: list[tuple[Any, str]] = []
    seen: set[str] = set()
    for j in range(count * 50):
        leaf = leaves[j % len(leaves)]
        asked = state["questions"][leaf.key]
        question = asked[(round_no * 7 + j // len(leaves)) % len(asked)]
        if question not in seen:
            seen.add(question)
            out.append((leaf, question))
        if len(out) == count:
            break
    return out


async def worker(
    uri: str, password: str, root: str, round_no: int, per_round: int, warmup: int, realtext: Path | None = None
) -> dict[str, Any]:
    """One round in the tree on ``sys.path``: per-turn overheads, stages and statements.
    ``realtext``: the real-text shape's state file (its leaves and their questions)."""
    import hippograph
    from benchmarks.agent_bench import QUESTIONS, REPLY, fill
    from hippograph.agent import Agent, AgentConfig, ConsolidationSettings
    from hippograph.llm import ScriptedModel
    from hippograph.memory import Memory
    from hippograph.scope import Scope
    from hippograph.store import GraphStore, Neo4jConnection

    embedder = tree_embedder()
    await embedder.embed("warm up the model")
    counter = StatementCounter()
    counter.install()
    conn = await Neo4jConnection.connect(uri, password=password)
    memory = Memory(GraphStore(conn), embedder)
    timer = FirstCallTimer(ScriptedModel([REPLY], cycle=True), counter)
    agent = Agent(memory, timer, AgentConfig(consolidation=ConsolidationSettings(quick_naps=False)))  # naps off
    chat_id = f"r{round_no}-{uuid.uuid4().hex[:8]}"
    if realtext is not None:
        turns = [(leaf.child("chat", chat_id), q) for leaf, q in
                 realtext_messages(json.loads(realtext.read_text()), round_no, per_round + warmup)]  # fmt: skip
    else:
        rng = random.Random(1000 + round_no)
        chat = Scope.root("org", root).child("user", "u1").child("chat", chat_id)
        messages = list(dict.fromkeys(fill(rng.choice(QUESTIONS), rng) for _ in range(20 * (per_round + warmup))))
        turns = [(chat, m) for m in messages[: per_round + warmup]]
    sessions = [uuid.uuid4().hex for _ in range(4)]
    out: dict[str, Any] = {"tree": hippograph.__file__, "turns": []}
    per_query: collections.Counter[str] = collections.Counter()
    try:
        for i, (chat, message) in enumerate(turns):
            timer.first = None
            mark = len(counter.log)
            t0 = time.perf_counter()
            response = await agent.run(chat, message, session_id=sessions[i % len(sessions)])
            assert timer.first is not None, "the model was never called"
            before = (timer.first - t0) * 1000.0
            statements = counter.log[mark : timer.statements_before]
            await agent.drain()
            if i < warmup:
                continue
            per_query.update(statements)
            recall: dict[str, float] = {}
            if response.activations:
                timings = response.activations[0].details.get("timings_ms") or {}
                recall = {p: float(timings.get(p, 0.0)) for p in RECALL_PARTS}  # type: ignore[union-attr,arg-type]
            out["turns"].append(
                {
                    "before_model_ms": before,
                    "stages": {s: float(response.timings.stages.get(s, 0.0)) for s in STAGES},
                    "recall": recall,
                    "statements_before_model": len(statements),
                    "statements_all": len(counter.log) - mark,
                }
            )
        out["per_query"] = {k: v / max(1, per_round) for k, v in per_query.items()}
    finally:
        await agent.drain()
        for chat in dict.fromkeys(chat for chat, _ in turns):
            await memory.forget(chat)
        await conn.close()
    return out


def run_worker(
    tree_dir: Path, uri: str, password: str, root: str, round_no: int, per: int, warmup: int,
    realtext: Path | None = None,
) -> Any:  # fmt: skip
    env = {**os.environ, "PYTHONPATH": f"{tree_dir / 'src'}{os.pathsep}{HERE}", PASSWORD_ENV: password}
    args = [sys.executable, "-m", "benchmarks.agent_ab", "--worker", uri, root]
    args += ["--round", str(round_no), "--per-round", str(per), "--warmup", str(warmup)]
    if realtext is not None:
        args += ["--realtext-state", str(realtext)]
    done = subprocess.run(args, env=env, cwd=HERE, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"worker in {tree_dir} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


REALTEXT_STATE = "realtext_state.json"


async def serve_realtext(
    data_dir: Path, memories: int, corpus: str, data: str | None, console: Console
) -> tuple[str, str, str]:
    """The kept server of the real-text shape (started, and seeded once) and its root id."""
    from benchmarks.realtext import TEAMS, USERS, open_realtext_store

    data_dir.mkdir(parents=True, exist_ok=True)
    server, store, _, state = await open_realtext_store(
        data_dir, memories // (TEAMS * USERS), console, heap="2g", pagecache_mb=1024, data=data, corpus=corpus
    )
    await store.conn.close()
    return str(server.status().uri), server.password(), str(state["root"])


async def serve(data_dir: Path, memories: int, console: Console) -> tuple[str, str, str]:
    """The kept server (started if needed) and the seeded user's root id (seeded once)."""
    from benchmarks.agent_bench import seed
    from hippograph.memory import Memory
    from hippograph.scope import Scope
    from hippograph.store import GraphStore, Neo4jConnection, migrate

    try:
        from hippograph.dbms import LocalNeo4j
    except ImportError:  # a tree from before the dbms package serves its own server
        from hippograph.store import LocalNeo4j  # type: ignore[attr-defined,no-redef]

    data_dir.mkdir(parents=True, exist_ok=True)
    server = LocalNeo4j(data_dir, heap="2g", pagecache_mb=1024)
    status = server.start(timeout=300)
    assert status.uri
    state_file = data_dir / "agent_ab_state.json"
    if state_file.exists():
        root = str(json.loads(state_file.read_text())["root"])
    else:
        root = f"bench-{uuid.uuid4().hex[:6]}"
        conn = await Neo4jConnection.connect(status.uri, password=server.password())
        await migrate(conn)
        embedder = tree_embedder()
        await seed(Memory(GraphStore(conn), embedder), Scope.root("org", root).child("user", "u1"),
                   memories, console)  # fmt: skip
        await conn.close()
        state_file.write_text(json.dumps({"root": root, "memories": memories}))
    return str(status.uri), server.password(), root


def report(console: Console, title: str, runs: dict[str, list[dict[str, Any]]]) -> None:
    rows: dict[str, dict[str, list[float]]] = {}
    for name, turns in runs.items():
        rows[name] = {
            "overhead before the model": [t["before_model_ms"] for t in turns],
            **{f"  stage {s}": [t["stages"][s] for t in turns] for s in STAGES},
            **{f"    recall {p}": [t["recall"][p] for t in turns if t["recall"]] for p in RECALL_PARTS},
            "statements before the model": [float(t["statements_before_model"]) for t in turns],
            "statements per turn (all)": [float(t["statements_all"]) for t in turns],
        }
    table = Table(title=title)
    for col in ("ms per turn", "before p50", "before p95", "after p50", "after p95", "p50 ×", "p95 ×"):
        table.add_column(col, justify="left" if col == "ms per turn" else "right")
    for what in rows["after"]:
        b, a = rows["before"].get(what, []), rows["after"][what]
        if not a or not b:
            continue
        b50, b95, a50, a95 = pct(b, 50), pct(b, 95), pct(a, 50), pct(a, 95)
        table.add_row(
            what, f"{b50:.1f}", f"{b95:.1f}", f"{a50:.1f}", f"{a95:.1f}",
            f"{b50 / a50:.2f}" if a50 else "", f"{b95 / a95:.2f}" if a95 else "",
        )  # fmt: skip
    console.print(table)


def serve_in(tree_dir: Path, data_dir: Path, memories: int, shape_args: list[str]) -> tuple[str, str, str]:
    """:func:`serve` run by ``tree_dir``'s own package (its launcher and JVM flags, its migrations)."""
    env = {**os.environ, "PYTHONPATH": f"{tree_dir / 'src'}{os.pathsep}{HERE}"}
    args = [sys.executable, "-m", "benchmarks.agent_ab", "--serve", "--memories", str(memories)]
    args += ["--data-dir", str(data_dir), *shape_args]
    done = subprocess.run(args, env=env, cwd=HERE, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"serving {data_dir} from {tree_dir} failed:\n{done.stderr[-3000:]}")
    uri, password, root = json.loads(done.stdout.strip().splitlines()[-1])
    return uri, password, root


def serve_shape(args: argparse.Namespace, data_dir: Path, console: Console) -> tuple[str, str, str]:
    """The kept server of ``--shape`` in ``data_dir``."""
    if args.shape == "realtext":
        return asyncio.run(serve_realtext(data_dir, args.memories, args.corpus, args.data, console))
    return asyncio.run(serve(data_dir, args.memories, console))


def main(args: argparse.Namespace) -> None:
    console = Console()
    uri, password, root = serve_shape(args, args.data_dir, console)
    if args.stop:
        from hippograph.dbms import LocalNeo4j

        LocalNeo4j(args.data_dir).stop()
        if args.before_data_dir:
            LocalNeo4j(args.before_data_dir).stop()
        return
    servers = {"after": (uri, password, root)}
    servers["before"] = servers["after"]
    if args.before_data_dir:
        shape_args = ["--shape", args.shape, "--corpus", args.corpus] + (["--data", args.data] if args.data else [])
        servers["before"] = serve_in(args.before.resolve(), args.before_data_dir, args.memories, shape_args)
    states = {
        "after": args.data_dir / REALTEXT_STATE,
        "before": (args.before_data_dir or args.data_dir) / REALTEXT_STATE,
    }
    runs: dict[str, list[dict[str, Any]]] = {"before": [], "after": []}
    per_query: dict[str, collections.Counter[str]] = {"before": collections.Counter(), "after": collections.Counter()}
    trees = [("before", args.before.resolve()), ("after", args.after.resolve())]
    for r in range(args.rounds):
        for name, tree_dir in trees if r % 2 == 0 else trees[::-1]:
            state = states[name] if args.shape == "realtext" else None
            out = run_worker(tree_dir, *servers[name], r, args.per_round, args.warmup, state)
            runs[name] += out["turns"]
            per_query[name].update({k: v / args.rounds for k, v in out["per_query"].items()})
            xs = [t["before_model_ms"] for t in out["turns"]]
            console.print(f"round {r + 1}/{args.rounds} {name}: before the model p50 {statistics.median(xs):.1f} ms")
    shape = f"real text ({args.corpus}, 20 leaves)" if args.shape == "realtext" else "synthetic"
    report(console, f"agent turn at {args.memories:,} memories, {shape}, default config, {args.rounds} alternating "
                    f"rounds × {args.per_round} turns, "
                    f"{'each tree its own server' if args.before_data_dir else 'same server'}", runs)  # fmt: skip
    for name in ("before", "after"):
        top = ", ".join(f"{k} ×{v:.2f}" for k, v in per_query[name].most_common())
        console.print(f"{name}: statements before the model per turn, by query: {top}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worker", nargs=2, metavar=("URI", "ROOT"))
    ap.add_argument("--before", type=Path)
    ap.add_argument("--after", type=Path, default=HERE)
    ap.add_argument("--memories", type=int, default=10_000)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--per-round", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=8)
    ap.add_argument("--round", type=int, default=0)
    ap.add_argument("--data-dir", type=Path, default=None, help="the kept server's folder (default: per shape)")
    ap.add_argument("--shape", choices=("synthetic", "realtext"), default="synthetic", help="the data (see above)")
    ap.add_argument("--corpus", choices=("locomo", "chitchat"), default="locomo", help="--shape realtext: the turns")
    ap.add_argument("--data", default=None, help="the LoCoMo file (--corpus locomo; default $HIPPOGRAPH_LOCOMO_DATA)")
    ap.add_argument("--realtext-state", type=Path, default=None, help="(internal) the real-text shape's state file")
    ap.add_argument("--stop", action="store_true", help="stop the kept server and exit")
    ap.add_argument("--serve", action="store_true", help="(internal) start and seed, print uri/password/root")
    ap.add_argument(
        "--before-data-dir", type=Path, default=None,
        help="the before tree serves this copy of --data-dir itself (its launcher, its JVM flags)",
    )  # fmt: skip
    a = ap.parse_args()
    if a.data_dir is None:
        a.data_dir = bench_dir("agent-ab" if a.shape == "synthetic" else f"agent-ab-{a.corpus}-{a.memories}")
    if a.worker:
        uri, root = a.worker
        password = os.environ[PASSWORD_ENV]
        turns = worker(uri, password, root, a.round, a.per_round, a.warmup, a.realtext_state)
        print(json.dumps(asyncio.run(turns)))
    elif a.serve:
        print(json.dumps(serve_shape(a, a.data_dir, Console(stderr=True))))
    elif a.stop or a.before is not None:
        main(a)
    else:
        ap.error("--before is required (or --worker / --stop)")
