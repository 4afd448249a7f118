// transaction: read
// The keys' vector channel of recall: one range search inside the keys' vector index per point
// of $chain (hippograph.scope.Scope.chain_points: one for the whole scope chain, two in a
// namespace; Cypher 25 SEARCH, $fetch_k hits each), the best $k keys whose memory is visible,
// live and of the layers, each memory once with its best key (cosine, then text); with it the
// memory's session and person cues.
// Parameters: $vector, $visible, $chain, $layers (null: all), $k, $fetch_k.
CYPHER 25
UNWIND $chain AS at
CALL (at) {
  MATCH (k:Key)
    SEARCH k IN (VECTOR INDEX key_embedding_chain FOR $vector WHERE k.scope_lo <= at AND k.scope_hi > at LIMIT $fetch_k)
    SCORE AS score
  RETURN k, score
}
MATCH (k)-[:KEY_OF]->(m)
WHERE m.scope_key IN $visible AND ($layers IS NULL OR m.layer IN $layers) AND NOT coalesce(m.retracted, false)
WITH k, m, score
ORDER BY score DESC, k.id
LIMIT $k
WITH m, collect({cosine: score, key: k.text}) AS found
WITH m, reduce(b = null, x IN found |
       CASE WHEN b IS NULL OR x.cosine > b.cosine OR (x.cosine = b.cosine AND x.key < b.key) THEN x ELSE b END) AS best
RETURN m.id AS id, best.cosine AS cosine, best.key AS key, m.session_id AS session_id,
       [(m)-[:HAS_CUE]->(c:Cue {kind: 'person'}) | c.key] AS persons
