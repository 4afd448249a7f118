// Phase 1.5 — co-occurrence, set-based. Memories of the subtree (in $layers, not retracted,
// not META) are sorted by updated_at; each one ranks the ±$cap neighbours in that order that
// lie within $window seconds, whose scopes are on one line (one is the other's ancestor or
// itself: siblings never meet), preferring partners it is already linked to, then the
// nearest in time; it keeps as many as its degree cap leaves room for. A pair is written
// when both ends picked each other, so no memory ever exceeds $cap CO_OCCURRED edges.
// Incremental: only pairs with an end updated after $since are new work; the context read
// reaches 2·$window further back so that every such pair sees its full window.
MATCH (m:Memory)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND m.layer IN $layers
  AND m.updated_at >= $since - 2 * $window
  AND NOT coalesce(m.retracted, false)
  AND NOT m.label STARTS WITH 'META:'
WITH m ORDER BY m.updated_at, m.id
WITH collect({node: m, id: m.id, t: m.updated_at, k: m.scope_key}) AS ns
UNWIND range(0, size(ns) - 1) AS i
WITH ns, i, ns[i] AS a
WITH a, a.node AS an,
     [j IN range(i - $cap, i + $cap)
      WHERE j >= 0 AND j < size(ns) AND j <> i AND abs(ns[j].t - a.t) <= $window
        AND (ns[j].k = a.k OR ns[j].k STARTS WITH a.k + '/' OR a.k STARTS WITH ns[j].k + '/')
      | ns[j]] AS cands
WITH a, cands, [(an)-[:CO_OCCURRED]-(o:Memory) | o.id] AS linked
WITH a, cands, linked,
     $cap - size([x IN linked WHERE NONE(c IN cands WHERE c.id = x)]) AS room
CALL (a, cands, linked, room) {
  UNWIND cands AS c
  WITH c ORDER BY c.id IN linked DESC, abs(c.t - a.t), c.id
  WITH collect(c) AS ranked
  RETURN ranked[..CASE WHEN room < 0 THEN 0 ELSE room END] AS picks
}
UNWIND picks AS b
WITH a, b, linked
WHERE (a.t > $since OR b.t > $since) AND NOT b.id IN linked
WITH CASE WHEN a.id < b.id THEN a ELSE b END AS x,
     CASE WHEN a.id < b.id THEN b ELSE a END AS y,
     count(*) AS votes
WHERE votes = 2
CALL (x, y) {
  WITH x.node AS a, y.node AS b, CASE WHEN size(x.k) >= size(y.k) THEN x.k ELSE y.k END AS key
  MERGE (a)-[r:CO_OCCURRED]-(b)
    ON CREATE SET r.id = randomUUID(), r.weight = $weight, r.provenance = 'synthetic', r.uses = 0,
                  r.created_at = $now, r.source_episodic_ids = [], r.scope_key = key
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS edges
