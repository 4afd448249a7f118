"""Which indexes each catalogued (and browser/benchmark) query's plan uses, by EXPLAIN."""
import asyncio, json, re, glob, collections
from hippograph.store import Neo4jConnection
from tests.support.catalog import all_queries

def walk(p, out):
    out.append((p["operatorType"], p.get("args", {}).get("Details", "")))
    for c in p.get("children", []): walk(c, out)

async def main():
    c = json.load(open("/tmp/writes4/conn.json"))
    conn = await Neo4jConnection.connect(c["uri"], password=c["password"])
    texts = [(f"{type(q).__name__}.{q.name}", q.text) for q in all_queries()]
    for f in sorted(glob.glob("cypher/browser/*.cypher") + glob.glob("benchmarks/cypher/*.cypher")):
        texts.append((f, open(f).read()))
    use = collections.defaultdict(set)
    async with conn.driver.session() as s:
        for name, text in texts:
            if re.match(r"\s*(CREATE|DROP|SHOW)", re.sub(r"(?m)^//.*\n", "", text)): continue
            try:
                r = await s.run("EXPLAIN " + text); summ = await r.consume()
            except Exception as e:
                print("ERR", name, str(e)[:100]); continue
            ops = []; walk(summ.plan, ops)
            for op, det in ops:
                if "Index" in op or "index" in op.lower():
                    use[name].add(f"{op}: {det[:140]}")
            for m in re.findall(r"db\.index\.\w+\.\w+\(\s*'(\w+)'", text): use[name].add("proc:" + m)
    for name in sorted(use):
        for u in sorted(use[name]): print(f"{name:55s} {u}")
    await conn.close()
asyncio.run(main())
