// transaction: read
// Phase 1.5 — co-occurrence, the read (set-based). Memories of the subtree (in $layers, not
// retracted, not META) are sorted by updated_at; each is paired with the next $reach memories in
// that order that were updated within $window seconds of it and whose scope is on its line (one
// is the other's ancestor or itself: siblings never meet). A memory whose CO_OCCURRED edges would
// then exceed $cap gets none of its new ones. Each pair names the scope the edge is written in
// (the deeper one). Incremental: only pairs with an end updated after $since are considered (the
// caller passes the previous pass's time less one window); existing pairs are skipped. Each
// memory's degree is counted once, and the existence test runs only when both ends have such
// edges already. Returns one row: the pairs as [id, id, scope key]. The write
// (link_cooccurrences) is its own statement: rows fed to CALL … IN TRANSACTIONS carry every list
// of the statement before it, and Neo4j 2026 counts such a list once per buffered row against the
// transaction memory (at 10k memories > 512 MiB, whatever the batch size).
CYPHER replan=skip
MATCH (m:Memory)
WHERE m.scope_key STARTS WITH $scope_key
  AND (m.scope_key = $scope_key OR m.scope_key STARTS WITH $subtree_prefix)
  AND m.layer IN $layers
  AND m.updated_at >= $since - $window
  AND NOT coalesce(m.retracted, false)
  AND NOT m.label STARTS WITH 'META:'
WITH m, COUNT { (m)-[:CO_OCCURRED]-(:Memory) } AS degree
ORDER BY m.updated_at, m.id
WITH collect({node: m, t: m.updated_at, k: m.scope_key, d: degree}) AS ns
UNWIND range(0, size(ns) - 2) AS i
UNWIND range(1, $reach) AS step
WITH ns[i] AS a, ns[i + step] AS b
WHERE b IS NOT NULL AND b.t - a.t <= $window AND (a.t > $since OR b.t > $since)
  AND (b.k = a.k OR b.k STARTS WITH a.k + '/' OR a.k STARTS WITH b.k + '/')
WITH a.node AS x, b.node AS y, a.d AS dx, b.d AS dy,
     CASE WHEN size(a.k) >= size(b.k) THEN a.k ELSE b.k END AS key
WHERE dx = 0 OR dy = 0 OR NOT EXISTS { (x)-[:CO_OCCURRED]-(y) }
WITH collect({x: x, y: y, dx: dx, dy: dy, key: key}) AS pairs
CALL (pairs) {
  UNWIND pairs AS pair
  UNWIND [[pair.x, pair.dx], [pair.y, pair.dy]] AS end
  WITH end[0] AS n, end[1] AS degree, count(*) AS planned
  WHERE planned + degree > $cap
  RETURN collect(n) AS full
}
UNWIND pairs AS pair
WITH pair WHERE NOT pair.x IN full AND NOT pair.y IN full
RETURN collect([pair.x.id, pair.y.id, pair.key]) AS pairs
