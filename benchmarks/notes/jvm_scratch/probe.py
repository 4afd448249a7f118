"""Start a variant, create a vector index, write and query some vectors, print Lucene's vectorization log lines."""
import sys, time
from pathlib import Path
import numpy as np
from neo4j import GraphDatabase
from variants import server

name, folder = sys.argv[1], sys.argv[2]
s = server(name, folder, heap="1g", stop_with_parent=False)
try:
    st = s.start(timeout=300)
    with GraphDatabase.driver(st.uri, auth=("neo4j", s.password())) as d:
        d.execute_query("CREATE VECTOR INDEX v IF NOT EXISTS FOR (m:M) ON m.e OPTIONS {indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine'}}")
        d.execute_query("CALL db.awaitIndexes(300)")
        vecs = np.random.default_rng(0).normal(size=(2000, 384)).astype(np.float32)
        d.execute_query("UNWIND $r AS e CREATE (:M {e: e})", r=vecs.tolist())
        rec, _, _ = d.execute_query("CALL db.index.vector.queryNodes('v', 5, $q) YIELD node, score RETURN count(*) AS n", q=vecs[0].tolist())
        print("query rows", rec[0]["n"])
        time.sleep(1)
finally:
    log = Path(folder, "neo4j.log").read_text(errors="replace")
    print("\n".join(l for l in log.splitlines() if "ector" in l.lower() or "lucene" in l.lower())[:3000])
    s.stop()
