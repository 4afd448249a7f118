// transaction: read
// The keys' vector channel of recall: each visible scope key searched inside the keys' vector
// index (Cypher 25 SEARCH, $fetch_k hits per key), the best $k keys whose memory is visible,
// live and of the layers, each memory once with its best key (cosine, then text); with it the
// memory's session and person cues.
// Parameters: $vector, $visible, $layers (null: all), $k, $fetch_k.
CYPHER 25
UNWIND $visible AS key
CALL (key) {
  MATCH (k:Key)
    SEARCH k IN (VECTOR INDEX key_embedding_scoped FOR $vector WHERE k.scope_key = key LIMIT $fetch_k)
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
