"""Fill a database with an earlier release of hippograph, then record what it holds.

Run by tests/reliability/test_upgrade.py in a subprocess whose ``PYTHONPATH`` is that release's
``src`` (extracted from git), never today's tree: everything below is that release's public API.
Usage: ``python upgrade_writer.py <bolt uri> <password> <out.json>``.

It writes every kind of thing a user keeps — memories of the five layers across an org with a
team, users and a second org; a keyed fact with a superseded version; triggers (one resolved);
a skill (approved); a conversation session with turns; edges between memories; cues; API keys
(one revoked) and a day's token ledger; audit entries; a consolidation run — all embedded by the
default embedder. Then, with the same code, it records recalls (scope, query) → ids at a fixed
time, and a dump of the whole graph (every node's labels and properties, every relationship
with its ends)."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from hippograph.app.api import auth  # the release keeps API keys here
from hippograph.app.api.repository import ApiRepository
from hippograph.audit import record_audit
from hippograph.consolidation import SleepConsolidator
from hippograph.layers import Memory
from hippograph.models import Relationship
from hippograph.retrieval import RecallConfig
from hippograph.scope import Scope
from hippograph.store.schema import schema_version

CYPHER = Path(__file__).parent / "cypher"

ACME = Scope.root("org", "acme")
CORE = ACME.child("team", "core")
ANA = CORE.child("user", "ana")
BO = CORE.child("user", "bo")
GLOBEX = Scope.root("org", "globex")
CARL = GLOBEX.child("user", "carl")
DANA = GLOBEX.child("user", "dana")

RECALLS: tuple[tuple[Scope, str], ...] = (
    (ANA, "Where does Ana live?"),
    (ANA, "What is Ana's dog called?"),
    (ANA, "sailing on the river"),
    (BO, "What does Bo drink in the morning?"),
    (CORE, "how do we deploy the service"),
    (ACME, "are dogs allowed in the office"),
    (DANA, "Which language does Dana write?"),
)
"""Asked after writing; CARL's scope is left out: its cue is duplicated by hand below, which a
later release merges (the split cue may rank differently there, and should)."""


async def fill(memory: Memory, repo: ApiRepository) -> dict[str, dict[str, Any]]:
    """Write the data set; return each API key's token (shown once, as to a user) by key id."""
    await memory.remember(ACME, "Office policy", "Dogs are welcome in the Acme office on Fridays.")
    await memory.remember(ACME, "Acme mission", "Acme builds reliable rocket skates for coyotes.")

    skill = await memory.procedural.store_skill(
        CORE,
        "Deploy the service",
        ["Run the tests", "Build the image", "Roll out to staging, then production"],
        context="how the core team deploys the service",
    )
    await memory.procedural.approve_skill(CORE, skill.id, actor="lead")
    await memory.remember(CORE, "Core team stand-up", "The core team meets at 9:30 every weekday.")

    city = await memory.remember(ANA, "Ana's city", "Ana lives in Lisbon.", key="ana.city")
    await memory.remember(ANA, "Ana's city", "Ana moved to Porto in March.", key="ana.city")  # supersedes
    dog = await memory.remember(ANA, "Ana's dog", "Ana's dog is called Rex and loves the river.")
    boat = await memory.remember(ANA, "Ana's boat", "Ana sails a small blue dinghy on the Douro river.")
    await memory.store.link(ANA, dog.id, boat.id, Relationship.RELATES_TO, weight=0.7)
    await memory.episodic.store_event(
        ANA, "Ana took Rex sailing on the Douro.", label="Sailing with Rex", mentions=[dog.id, boat.id]
    )
    turns = [
        {"turn_id": f"t{i}", "session_id": "s1", "speaker": "ana" if i % 2 == 0 else "agent", "text": text}
        for i, text in enumerate(
            (
                "I went sailing on the river this morning.",
                "How was the wind on the Douro?",
                "Strong, Rex nearly fell in.",
                "Good thing dogs swim. Will you go again?",
                "Next Saturday, with my sister.",
            )
        )
    ]
    await memory.ingest(ANA, turns)
    await memory.episodic.store_turn(ANA, "Remind me about the regatta.", "I will.", session_id="s2")
    await memory.working.push(ANA, "user: remind me about the regatta", session_id="s2")
    await memory.prospective.set_trigger(
        ANA, "when Ana mentions the regatta", "Ask whether she registered", about=["regatta"]
    )
    vet = await memory.prospective.set_trigger(ANA, "when the vet is due", "Remind Ana of Rex's vaccination")
    await memory.prospective.resolve_trigger(ANA, vet.id, outcome="booked", actor="ana")
    await memory.semantic.correct_profile(ANA, "ana", "home_city", "Porto", reason="she moved", actor="ana")

    await memory.remember(BO, "Bo's morning", "Bo drinks green tea every morning, never coffee.")
    await memory.remember(BO, "Bo's bike", "Bo rides a red bicycle to work.")
    await memory.prospective.set_trigger(BO, "when Bo mentions tea", "Suggest the new sencha", about=["tea"])

    for text in ("Carl plays chess on Tuesdays.", "Carl's chess club meets downtown.", "Carl teaches chess."):
        await memory.remember(CARL, text.split(".")[0], text, dedup=False)
    await memory.remember(DANA, "Dana's language", "Dana writes Rust at Globex.")

    await record_audit(memory.store.conn, ANA, "ana", "note.flag", city.id, {"reason": "kept on purpose"})
    await SleepConsolidator.for_store(memory.store).run(ACME)

    tokens: dict[str, dict[str, Any]] = {}
    for scope, role in (
        (ACME, auth.Role.ADMIN),
        (ANA, auth.Role.WRITER),
        (DANA, auth.Role.READER),
        (BO, auth.Role.READER),
    ):
        record, token = await auth.create_key(repo, scope, role, name=f"{role.value} of {scope.key}")
        tokens[record.id] = {"token": token, "role": role.value, "revoked": scope == BO}
    await auth.revoke_key(repo, next(key for key, t in tokens.items() if t["revoked"]))
    await repo.spend_tokens(f"{ANA.key}|2026-12-01", ANA.key, "2026-12-01", 1234, time.time())
    return tokens


async def run_file(conn: Any, name: str, **params: Any) -> list[dict[str, Any]]:
    """A test-only statement of ``cypher/`` (a raw read or the hand-made duplicate cue)."""
    text = (CYPHER / f"{name}.cypher").read_text()
    async with conn.driver.session(database=conn.database) as session:
        return await (await session.run(text, params)).data()  # type: ignore[no-any-return]


async def main(uri: str, password: str, out: Path) -> None:
    memory = await Memory.connect(uri, password=password, warm_plans=False)
    try:
        repo = ApiRepository(memory.store.conn)
        await repo.apply_schema()  # as the API server of this release does on start
        tokens = await fill(memory, repo)
        at = time.time() + 60
        quiet = RecallConfig(track_access=False)  # recording the answers changes nothing
        recalls = [
            {
                "scope": scope.key,
                "query": query,
                "ids": [i.node.id for i in (await memory.recall(scope, query, config=quiet, now=at)).items],
            }
            for scope, query in RECALLS
        ]
        # Two writers merging the same new cue at once could leave two Cue nodes of one
        # (scope, kind, key) with this release's schema; make one such pair on purpose.
        duplicated = await run_file(memory.store.conn, "create_duplicate_cue", scope_key=CARL.key)
        assert duplicated, "no cue of the scope has two memories to split between duplicates"
        conn = memory.store.conn
        inventory = {
            "release": sys.modules["hippograph"].__file__,
            "schema_version": await schema_version(conn),
            "now": at,
            "tokens": tokens,
            "recalls": recalls,
            "nodes": await run_file(conn, "get_all_nodes"),
            "relationships": await run_file(conn, "get_all_relationships"),
        }
    finally:
        await memory.close()
    out.write_text(json.dumps(inventory, default=list))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], Path(sys.argv[3])))
