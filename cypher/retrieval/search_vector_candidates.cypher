// transaction: read
// Vector channel of recall (approximate path): each visible scope key searched inside the
// vector index (Cypher 25 SEARCH, $fetch_k hits per key), then the layer and retraction
// filters and the best $k; with each hit its session and person cues for the evidence step.
// Parameters: $vector, $visible, $layers (null: all), $k, $fetch_k.
CYPHER 25
UNWIND $visible AS key
CALL (key) {
  MATCH (m:Memory)
    SEARCH m IN (VECTOR INDEX memory_embedding_scoped FOR $vector WHERE m.scope_key = key LIMIT $fetch_k)
    SCORE AS score
  RETURN m AS node, score
}
WITH node, score
WHERE ($layers IS NULL OR node.layer IN $layers) AND NOT coalesce(node.retracted, false)
WITH node, score
ORDER BY score DESC, node.id
LIMIT $k
RETURN node.id AS id, score AS cosine, node.session_id AS session_id,
       [(node)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] AS persons
