import asyncio, json, re, collections, sys
from hippograph.store import Neo4jConnection
from hippograph.app.api.queries import ApiQuery
from hippograph.retrieval.queries import RetrievalQuery
from hippograph.store.queries import MemoryQuery
from hippograph.consolidation.queries import ConsolidationQuery
from hippograph.audit import AuditQuery
def all_queries():
    for e in (ApiQuery, RetrievalQuery, MemoryQuery, ConsolidationQuery, AuditQuery):
        yield from e
async def main():
    st = json.load(open(f"{sys.argv[1]}/neo4j.json"))
    conn = await Neo4jConnection.connect(st["uri"], password=open(f"{sys.argv[1]}/password").read().strip())
    use = collections.defaultdict(set)
    async with conn.driver.session() as s:
        for q in all_queries():
            try:
                r = await s.run("EXPLAIN " + q.text); summ = await r.consume()
            except Exception as e:
                print("ERR", q.value, type(e).__name__); continue
            def walk(p):
                d = p.get("args", {}).get("Details", "")
                for m in re.findall(r"(?:RANGE|TEXT|POINT|FULLTEXT|VECTOR)? ?INDEX (\w+:\w+\([^)]*\))", d):
                    use[m].add(q.value)
                if "Index" in p["operatorType"]:
                    use[p["operatorType"] + " " + d[:80]].add(q.value)
                for c in p.get("children", []): walk(c)
            walk(summ.plan)
    for k, v in sorted(use.items()): print(k, "<-", sorted(v))
    await conn.close()
asyncio.run(main())
