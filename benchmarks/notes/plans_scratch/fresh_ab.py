"""Fresh-database A/B (issue 11, seventh session): per trial, one tree (PYTHONPATH=<tree>/src)
starts a fresh server, ingests LoCoMo conv-26 (cached MiniLM vectors), and runs 20 recalls of
its questions right away; prints the median and p95 wall and how many Memory scans the recall
plan has. Trials alternate the trees.

    PYTHONPATH=src:. python benchmarks/notes/plans_scratch/fresh_ab.py --before ../base --after . --trials 5
"""
import argparse, asyncio, json, os, statistics, subprocess, sys, time, uuid
from pathlib import Path


def scans(plan, out):
    op = plan["operatorType"].split("@")[0]
    if op in ("NodeIndexScan", "NodeByLabelScan", "AllNodesScan") and ":Memory" in str(plan.get("args", {}).get("Details", "")):
        out.append(op)
    for c in plan.get("children", []):
        scans(c, out)
    return out


async def worker():
    from benchmarks._server import bench_store
    from benchmarks.locomo.dataset import DEFAULT_PATH, load
    from benchmarks.locomo.explore import CachedEmbeddings
    from benchmarks.locomo.run import turns_of
    from hippograph.embeddings import SentenceTransformerEmbeddings
    from hippograph.layers import MemoryOrchestrator
    from hippograph.models import Layer
    from hippograph.retrieval.config import RecallConfig
    from hippograph.retrieval.queries import RetrievalQuery
    from hippograph.scope import Scope

    conv = load(str(DEFAULT_PATH))[0]
    emb = CachedEmbeddings(SentenceTransformerEmbeddings(), Path("/tmp/locomo_embed_cache.pkl"))
    async with bench_store() as (store, _):
        memory = MemoryOrchestrator(store, emb)
        scope = Scope.root("ab", uuid.uuid4().hex[:6]).child("conversation", conv.conv_id)
        await memory.ingest(scope, turns_of(conv))
        now = max(t.date.timestamp() for t in conv.turns) + 86_400
        conn = store.conn
        captured = []
        original = conn.read_plain_as

        async def cap(query, row, **params):
            if query is RetrievalQuery.SEARCH_RECALL:
                captured.append(dict(params))
            return await original(query, row, **params)

        conn.read_plain_as = cap
        cfg = RecallConfig(track_access=False)
        walls = []
        for q in conv.questions[:21]:
            t = time.perf_counter()
            await memory.recall(scope, q.question, layers=[Layer.EPISODIC], config=cfg, now=now)
            walls.append((time.perf_counter() - t) * 1000)
        first, walls = walls[0], sorted(walls[1:])
        async with conn.driver.session(database=conn.database) as s:
            sm = await (await s.run("EXPLAIN " + RetrievalQuery.SEARCH_RECALL.text, captured[-1])).consume()
        print(json.dumps({"first": first, "p50": statistics.median(walls), "p95": walls[int(len(walls) * 0.95)], "scans": len(scans(sm.plan, []))}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--before", type=Path)
    ap.add_argument("--after", type=Path, default=Path("."))
    ap.add_argument("--trials", type=int, default=5)
    a = ap.parse_args()
    if a.worker:
        asyncio.run(worker())
        return
    here = Path(__file__).resolve().parents[3]
    res = {"before": [], "after": []}
    for t in range(a.trials):
        for name in (("before", "after") if t % 2 == 0 else ("after", "before")):
            tree = (a.before if name == "before" else a.after).resolve()
            env = {**os.environ, "PYTHONPATH": f"{tree}/src:{here}", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
            out = subprocess.run([sys.executable, __file__, "--worker"], env=env, capture_output=True, text=True, cwd=tree)
            line = [l for l in out.stdout.splitlines() if l.startswith("{")]
            r = json.loads(line[-1]) if line else {"error": out.stderr[-300:]}
            res[name].append(r)
            print(t, name, r, flush=True)
    for name, rs in res.items():
        ok = [r for r in rs if "p50" in r]
        print(name, "median of trial p50s %.1f ms, of trial p95s %.1f ms; trials with Memory scans in the plan: %d / %d"
              % (statistics.median(r["p50"] for r in ok), statistics.median(r["p95"] for r in ok), sum(r["scans"] > 0 for r in ok), len(ok)))


main()
