import asyncio, json, re, collections
from hippograph.store import Neo4jConnection
from hippograph.store.catalog import all_queries
async def main():
    st = json.load(open("/tmp/speed/db10k/neo4j.json"))
    conn = await Neo4jConnection.connect(st["uri"], password=open("/tmp/speed/db10k/password").read().strip())
    use = collections.defaultdict(set)
    async with conn.driver.session() as s:
        for q in all_queries():
            r = await s.run("EXPLAIN " + q.text); summ = await r.consume()
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
