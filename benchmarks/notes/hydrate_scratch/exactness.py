"""Exactness of the turn's combined read: agent_ab's turns (its messages, sessions, chat under
the seeded user, default config), each turn's pre-model stage run three times on the same store
state before the real turn — the parts' own reads (the code before), the combined read, the
parts' own reads again (the control) — each stopped at the model (a model that records the
request and raises: a failed turn stores nothing). Compared: the system prompt and messages
the model got, the Activation event (recalled ids, scores, channels, paths, details minus
timings), the StageFailed events. Then the real turn (combined read, the scripted reply).
A fixed clock per turn and track_access off, so the three runs see the same `now` and state.
Usage: exactness.py DATA_DIR TURNS [PERSONA]   (PERSONA: seed a persona + a trigger + profile)"""
import asyncio, json, random, sys, uuid
from pathlib import Path

from benchmarks.agent_bench import QUESTIONS, REPLY, fill
from hippograph.agent import Agent, AgentConfig
from hippograph.agent.events import Activation, StageFailed
from hippograph.embeddings import default_embedder
from hippograph.layers import MemoryOrchestrator
from hippograph.layers import orchestrator as orch
from hippograph.llm import ScriptedModel
from hippograph.retrieval.config import RecallConfig
from hippograph.scope import Scope
from hippograph.store import GraphStore, LocalNeo4j, Neo4jConnection


class Stop(Exception):
    pass


class Capture:
    def __init__(self):
        self.requests = []

    async def stream(self, request):
        self.requests.append(request)
        raise Stop("stop at the model")
        yield  # pragma: no cover

    async def complete(self, request):
        self.requests.append(request)
        raise Stop("stop at the model")


async def main(d: Path, turns: int, persona: bool) -> None:
    server = LocalNeo4j(d)
    status = server.status()
    root = json.loads((d / "agent_ab_state.json").read_text())["root"]
    embedder = default_embedder()
    now = [1_800_000_000.0]
    conn = await Neo4jConnection.connect(str(status.uri), password=server.password())
    memory = MemoryOrchestrator(GraphStore(conn), embedder, recall_config=RecallConfig(track_access=False),
                                clock=lambda: now[0])
    fold = [True]
    real_turn_reads = orch.Memory.turn_reads

    def turn_reads(self, scope, *, working, prospective, persona):
        if fold[0]:
            return real_turn_reads(self, scope, working=working, prospective=prospective, persona=persona)
        return real_turn_reads(self, scope, working=False, prospective=False, persona=False)  # each part reads itself

    orch.Memory.turn_reads = turn_reads
    user = Scope.root("org", root).child("user", "u1")
    chat = user.child("chat", f"ex-{uuid.uuid4().hex[:8]}")
    if persona:
        await memory.semantic.ensure_identity(user, "I am Hippo, a careful assistant.")
        await memory.semantic.soul(user, "style", {"tone": "dry", "length": "short"})
        await memory.semantic.soul(chat, "style", {"length": "long"})
        await memory.prospective.set_trigger(chat, "the user mentions the budget", "remind them of the March review")
    rng = random.Random(1000)
    messages = list(dict.fromkeys(fill(rng.choice(QUESTIONS), rng) for _ in range(20 * turns)))[:turns]
    if persona:
        messages[1] = "What about the budget for next year?"
    sessions = [uuid.uuid4().hex for _ in range(4)]
    real = Agent(memory, ScriptedModel([REPLY], cycle=True), AgentConfig())
    differ = 0
    try:
        for i, message in enumerate(messages):
            now[0] += 60.0
            seen = []
            for variant in (False, True, False):
                fold[0] = variant
                cap = Capture()
                agent = Agent(memory, cap, AgentConfig())
                events = [e async for e in agent.stream(chat, message, session_id=sessions[i % len(sessions)])]
                await agent.drain()
                acts = [e.model_dump(exclude={"details": {"timings_ms"}}) for e in events if isinstance(e, Activation)]
                for a in acts:
                    a.pop("id", None); a.pop("timestamp", None); a.pop("ts", None)
                fails = [(e.stage, e.error_type) for e in events if isinstance(e, StageFailed)]
                req = cap.requests[0]
                seen.append((req.system.model_dump() if req.system else None, [m.model_dump() for m in req.messages], acts, fails))
            old, new, control = seen
            same = old == new
            ctl = old == control
            if not same or not ctl:
                differ += 1
            n_ids = len(old[2][0]["nodes"]) if old[2] else 0
            if not same or not ctl:
                parts = ("system", "messages", "activation", "failures")
                print(f"  turn {i}: parts differing fold vs own {[p for p, a, b in zip(parts, old, new) if a != b]}, "
                      f"own vs control {[p for p, a, b in zip(parts, old, control) if a != b]}, "
                      f"fold vs control {[p for p, a, b in zip(parts, new, control) if a != b]}")
                for x_, y_ in ((old, new), (old, control)):
                    if not (x_[2] and y_[2] and x_[2] != y_[2]):
                        continue
                    a, b = x_[2][0], y_[2][0]
                    diff = [(x["id"][:8], x["score"], y["id"][:8], y["score"]) for x, y in zip(a["nodes"], b["nodes"]) if x != y]
                    print("    nodes differing", len(diff), diff[:4], "paths equal", a["paths"] == b["paths"],
                          {k: (a["details"].get(k), b["details"].get(k)) for k in a["details"] if a["details"].get(k) != b["details"].get(k)})
            print(f"turn {i}: fold == own reads: {same}; control (own == own): {ctl}; activated nodes {n_ids}; "
                  f"stage failures {[f for f in old[3] if f[0] != 'model']}; persona in prompt: {'SOUL:' in json.dumps(old[0])}; "
                  f"reminder in prompt: {'March review' in json.dumps(old[0])}")
            fold[0] = True
            await real.run(chat, message, session_id=sessions[i % len(sessions)])
            await real.drain()
    finally:
        await real.drain()
        await memory.forget(chat)
        if persona:  # leave the seeded user as it was
            from hippograph.layers.repository import LayerRepository
            from hippograph.layers.semantic import AGENT_IDENTITY, SOUL_PREFIX
            for n in await LayerRepository(memory.store).persona_nodes(user, identity=AGENT_IDENTITY, prefix=SOUL_PREFIX, limit=50):
                await memory.store.delete_node(Scope.parse(n.scope_key), n.id)
        await conn.close()
    print(f"{differ} / {len(messages)} turns differ")


asyncio.run(main(Path(sys.argv[1]), int(sys.argv[2]), len(sys.argv) > 3))
