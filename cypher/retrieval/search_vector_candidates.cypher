// transaction: read
// Vector channel of recall (approximate path): one range search inside the vector index per
// point of $chain (hippograph.scope.Scope.chain_points: one for the whole scope chain, two in a
// namespace; Cypher 25 SEARCH, $fetch_k hits each), then the visible keys (the caller leaves out
// those under erasure), layer and retraction filters and the best $k; with each hit its session
// and person cues for the evidence step.
// Parameters: $vector, $visible, $chain, $layers (null: all), $k, $fetch_k.
CYPHER 25
UNWIND $chain AS at
CALL (at) {
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_embedding_chain FOR $vector WHERE m.scope_lo <= at AND m.scope_hi > at LIMIT $fetch_k)
    SCORE AS score
  RETURN m AS node, score
}
WITH node, score
WHERE node.scope_key IN $visible AND ($layers IS NULL OR node.layer IN $layers) AND NOT coalesce(node.retracted, false)
WITH node, score
ORDER BY score DESC, node.id
LIMIT $k
RETURN node.id AS id, score AS cosine, node.session_id AS session_id,
       [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] AS persons
