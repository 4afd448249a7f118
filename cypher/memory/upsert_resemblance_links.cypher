// transaction: write
// Associative links at ingest: each of the given memories of exactly one scope is linked to the
// $k memories of the same scope and layer, said in another session, whose embeddings are
// closest to its own (exact cosine over that scope only, so nothing links across scopes), when
// the cosine is at least $min_cosine. RESEMBLES, weight = the cosine (what spreading passes
// on); one edge per pair, from the lower id to the higher (MERGE keeps it idempotent).
// Parameters: $ids, $scope_key, $k, $min_cosine, $now.
UNWIND $ids AS id
MATCH (m:Memory {id: id}) USING INDEX SEEK m:Memory(id)
WHERE m.scope_key = $scope_key AND m.embedding IS NOT NULL AND NOT coalesce(m.retracted, false)
CALL (m) {
  MATCH (n:Memory) USING INDEX SEEK n:Memory(scope_key, layer)
  WHERE n.scope_key = $scope_key AND n.layer = m.layer AND n.id <> m.id AND n.embedding IS NOT NULL
    AND NOT coalesce(n.retracted, false)
    AND (m.session_id IS NULL OR n.session_id IS NULL OR n.session_id <> m.session_id)
  WITH n, 2.0 * vector.similarity.cosine(m.embedding, n.embedding) - 1.0 AS cosine
  WHERE cosine >= $min_cosine
  RETURN n, cosine ORDER BY cosine DESC, n.id LIMIT $k
}
WITH CASE WHEN m.id < n.id THEN m ELSE n END AS a, CASE WHEN m.id < n.id THEN n ELSE m END AS b, max(cosine) AS cosine
MERGE (a)-[r:RESEMBLES {scope_key: $scope_key}]->(b)
  ON CREATE SET r.id = randomUUID(), r.weight = cosine, r.provenance = 'synthetic', r.uses = 0,
                r.created_at = $now, r.source_episodic_ids = []
RETURN count(r) AS links
