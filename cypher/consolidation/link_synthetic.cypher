// transaction: autocommit
// Phase 11 — synthetic_links: per scope of the subtree, its last $recent episodes (summaries
// excluded: one summary mentions many facts at once, which is no evidence of a link); two
// semantic facts MENTIONed together by at least $min_episodes of them get a SYNTHETIC_LINK
// written in that scope (the facts are visible from it, so nothing crosses to a sibling).
// The $max_pairs best-supported pairs are linked; linking is idempotent (MERGE).
CYPHER replan=skip
MATCH (e:Memory:Episodic)
WHERE e.scope_key STARTS WITH $scope_key AND e.layer = 'episodic'  // the (scope_key, layer) index
  AND (e.scope_key = $scope_key OR e.scope_key STARTS WITH $subtree_prefix)
  AND NOT coalesce(e.retracted, false)
  AND NOT e.label STARTS WITH 'META:'
WITH e ORDER BY coalesce(e.occurred_at, e.created_at) DESC, e.id DESC
WITH e.scope_key AS key, collect(e)[..$recent] AS recent
UNWIND recent AS e
MATCH (e)-[:MENTIONS]->(f:Memory:Semantic)
WHERE NOT coalesce(f.retracted, false)
  AND (f.scope_key = key OR key STARTS WITH f.scope_key + '/')
WITH key, e, collect(DISTINCT f) AS facts
WHERE size(facts) >= 2
UNWIND facts AS a
UNWIND facts AS b
WITH key, e, a, b WHERE a.id < b.id
WITH key, a, b, count(DISTINCT e) AS together, collect(DISTINCT e.id) AS episodes
WHERE together >= $min_episodes
WITH key, a, b, together, episodes ORDER BY together DESC, key, a.id, b.id LIMIT $max_pairs
CALL (key, a, b, episodes) {
  MERGE (a)-[r:SYNTHETIC_LINK {scope_key: key}]->(b)
    ON CREATE SET r.id = randomUUID(), r.weight = $weight, r.provenance = 'synthetic', r.uses = 0,
                  r.created_at = $now, r.source_episodic_ids = episodes[..20], r._run = $run_id
  WITH r, r._run = $run_id AS created
  REMOVE r._run
  RETURN created
} IN TRANSACTIONS OF $batch ROWS
RETURN count(*) AS pairs, coalesce(sum(CASE WHEN created THEN 1 ELSE 0 END), 0) AS edges
