// transaction: read
// Phase 13 — semantic_merge, the read: semantic facts of the subtree written after the last
// pass's watermark ($since_at, $since_id), oldest first, at most $max_probes. Each asks the
// vector index for its $k nearest; when all $k clear the bar the index is crowded (by other
// scopes' copies, say) and the fact is compared exactly with every fact of the subtree
// instead (only then: that scan is the costly part). Candidates: facts of the subtree on the same scope line whose exact score,
// (1 + cosine) / 2 as vector.similarity.cosine gives it, is >= $min_score. META:, SOUL:,
// AGENT_IDENTITY, retracted, superseded (history) and person-restored facts never merge. Each
// pair carries both scope keys (the caller keeps the shallower fact) and both subject keys (a
// keyed fact is a version in a key's history: the caller never absorbs one). Also returns the
// watermark reached and how many facts were probed. $vector_index: the vector index's name on
// this server (memory_embedding_chain; memory_embedding on Neo4j 5.26), its global top-k either way.
CYPHER replan=skip
MATCH (a:Memory:Semantic)
WHERE a.scope_key STARTS WITH $scope_key AND a.layer = 'semantic'  // the (scope_key, layer) index
  AND (a.scope_key = $scope_key OR a.scope_key STARTS WITH $subtree_prefix)
  AND (a.updated_at > $since_at OR (a.updated_at = $since_at AND a.id > $since_id))
  AND a.embedding IS NOT NULL
  AND NOT coalesce(a.retracted, false) AND a._restored_at IS NULL AND a.superseded_by IS NULL
  AND NOT a.label STARTS WITH 'META:' AND NOT a.label STARTS WITH 'SOUL:'
  AND NOT a.label STARTS WITH 'AGENT_IDENTITY'
WITH a ORDER BY a.updated_at, a.id LIMIT $max_probes
WITH collect(a) AS probes
WITH probes, probes[-1] AS last
UNWIND probes AS a
CALL (a) {
  CALL db.index.vector.queryNodes($vector_index, $k, a.embedding) YIELD node, score
  WITH a, collect(node) AS near, min(score) AS lowest, count(*) AS hits
  CALL (a, near, lowest, hits) {
    WITH near WHERE NOT (hits = $k AND lowest >= $min_score)
    UNWIND near AS b
    RETURN b
    UNION
    // The scan's index seek takes its prefix from the crowded test (null: no seek at all), so
    // the planner cannot run it for every probe and filter afterwards.
    WITH CASE WHEN hits = $k AND lowest >= $min_score THEN $scope_key END AS crowded
    MATCH (b:Memory:Semantic)
    WHERE b.scope_key STARTS WITH crowded
      AND (b.scope_key = crowded OR b.scope_key STARTS WITH crowded + '/')
      AND b.embedding IS NOT NULL
    RETURN b
  }
  WITH a, b, vector.similarity.cosine(a.embedding, b.embedding) AS score
  WHERE b <> a AND b:Semantic AND score >= $min_score
    AND b.scope_key STARTS WITH $scope_key
    AND (b.scope_key = $scope_key OR b.scope_key STARTS WITH $subtree_prefix)
    AND (b.scope_key = a.scope_key OR b.scope_key STARTS WITH a.scope_key + '/'
         OR a.scope_key STARTS WITH b.scope_key + '/')
    AND NOT coalesce(b.retracted, false) AND b._restored_at IS NULL AND b.superseded_by IS NULL
    AND NOT b.label STARTS WITH 'META:' AND NOT b.label STARTS WITH 'SOUL:'
    AND NOT b.label STARTS WITH 'AGENT_IDENTITY'
  RETURN collect({a: a.id, b: b.id, score: score, a_scope: a.scope_key, b_scope: b.scope_key,
                  a_importance: a.importance, b_importance: b.importance,
                  a_seen: coalesce(a.access_count, 0), b_seen: coalesce(b.access_count, 0),
                  a_created: a.created_at, b_created: b.created_at, a_key: a.key, b_key: b.key,
                  a_text: coalesce(a.label, '') + ': ' + coalesce(a.content, ''),
                  b_text: coalesce(b.label, '') + ': ' + coalesce(b.content, '')}) AS found
}
WITH last, size(probes) AS probed, collect(found) AS lists
RETURN last.updated_at AS watermark_at, last.id AS watermark_id, probed,
       reduce(acc = [], l IN lists | acc + l) AS pairs
